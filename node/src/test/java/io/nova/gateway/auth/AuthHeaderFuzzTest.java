package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.TokenOperation;
import io.nova.cluster.auth.AuthSettings;
import io.nova.cluster.config.HostPort;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.DataPlaneGrpc;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

/**
 * Proves, by fuzzing the Authorization header over raw HTTP and gRPC metadata (arbitrary text of any
 * length, bearer-shaped garbage, a valid token with one character changed, and injection attempts with
 * quotes, path tricks, NULs and CR LF), that every such append is refused with a typed 401 /
 * UNAUTHENTICATED (or a 400 when CR LF broke the request itself), never a 2xx or 5xx, never echoing the
 * value, and that the stream's tail never moves and the node keeps serving; also that two Authorization
 * headers are refused (even two valid ones) and that a revoked token's refusal is logged with its id only.
 * A table of sizes and encodings pins the edges: up to 256 KiB a value over the 1 KiB limit is a 401 /
 * UNAUTHENTICATED naming that limit (not a transport 431 or INTERNAL), every 401 carries
 * {@code WWW-Authenticate: Bearer}, and the bearer scheme is case-insensitive.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthHeaderFuzzTest {

  AuthCluster auth;
  IssuedToken token;
  final StreamAddress stream = new StreamAddress("demo", "events");
  ManagedChannel channel;
  HostPort http;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 1, AuthSettings.ON);
    try (NovaClient admin = auth.admin()) {
      admin.createBasin("demo");
      admin.createStream(stream);
    }
    token = auth.issue("demo/", "", EnumSet.of(TokenOperation.APPEND, TokenOperation.READ), Duration.ZERO);
    HostPort api = HostPort.parse(auth.cluster.endpoint("n1"), "api");
    channel = NettyChannelBuilder.forAddress(api.host(), api.port()).usePlaintext().build();
    http = HostPort.parse(auth.cluster.config("n1").self().httpAddress(), "http");
  }

  @AfterAll
  void stop() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (auth != null) {
      auth.close();
    }
  }

  /** Header values: none of them is the valid token. */
  private Gen<String> headers() {
    String valid = token.secret();
    Gen<String> anyText = strings().allPossible().ofLengthBetween(0, 1500);
    Gen<String> bearerGarbage = strings().ascii().ofLengthBetween(0, 300).map(s -> "Bearer " + s);
    Gen<String> oneCharChanged = integers().between(0, valid.length() - 1)
        .zip(strings().ascii().ofLength(1), (i, c) -> {
          char replacement = c.charAt(0) == valid.charAt(i) ? (char) (c.charAt(0) ^ 1) : c.charAt(0);
          return "Bearer " + valid.substring(0, i) + replacement + valid.substring(i + 1);
        });
    Gen<String> injections = integers().between(0, INJECTIONS.size() - 1).map(i -> INJECTIONS.get(i)
        .replace("TOKEN", valid.substring(0, valid.length() - 1)));
    return anyText.mix(bearerGarbage, 30).mix(oneCharChanged, 30).mix(injections, 20);
  }

  private static final List<String> INJECTIONS = List.of(
      "Bearer ' OR '1'='1", "Bearer nvt.../../../etc/passwd", "Bearer TOKEN\u0000", "Bearer TOKEN%00",
      "Bearer TOKEN\r\nAuthorization: Bearer TOKEN", "Bearer TOKEN\r\n\r\n{\"records\":[]}",
      "Bearer TOKEN=", "Bearer nvt.${jndi:ldap://127.0.0.1/x}.AAAA", "Basic dXNlcjpwYXNz", "Bearer",
      "Bearer ", "Bearer TOKEN TOKEN", "Bearer\tTOKEN", "Bearer nvt..", "Bearer nvt.\u00e9\u00e9\u00e9", "Bearer "
          + "A".repeat(100_000));

  @Test
  void malformedAuthorizationOverHttpIsATyped401AndChangesNothing() {
    long tail = tail();
    qt().withExamples(250).forAll(headers()).checkAssert(value -> {
      RawAnswer answer = rawAppend(value);
      // Jetty refuses control characters (and CR LF may end the headers early) before any route: a 400.
      boolean control = value.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
      assertThat(answer.status()).as(answer.text()).isIn(control ? List.of(400, 401) : List.of(401));
      assertThat(answer.text()).contains("\"code\":\"");
      if (answer.status() == 401) {
        assertThat(answer.text()).contains("\"code\":\"unauthenticated\"")
            .containsIgnoringCase("\r\nWWW-Authenticate: Bearer realm=\"nova\"");
        if (value.length() >= 12) {
          assertThat(answer.text()).doesNotContain(value.substring("Bearer ".length() > value.length() ? 0 : 7));
        }
      }
    });
    assertThat(tail()).isEqualTo(tail);
  }

  @Test
  void malformedAuthorizationOverGrpcIsUnauthenticatedAndChangesNothing() {
    long tail = tail();
    Gen<String> printable = headers().map(v -> v.chars().filter(c -> c >= 0x20 && c < 0x7f)
        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString())
        .assuming(v -> !v.strip().equals("Bearer " + token.secret()));
    qt().withExamples(250).forAll(printable).checkAssert(value -> {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), value);
      try {
        DataPlaneGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
            .append(AppendRequest.newBuilder().setBasin("demo").setStream("events")
                .setInput(AppendInput.newBuilder().addRecords(AppendRecord.newBuilder()
                    .setBody(com.google.protobuf.ByteString.copyFromUtf8("fuzz")))).build());
        throw new AssertionError("an append with Authorization '" + value + "' was accepted");
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.UNAUTHENTICATED);
        if (value.length() > 12) {
          assertThat(String.valueOf(e.getStatus().getDescription())).doesNotContain(value.substring(7));
        }
      }
    });
    assertThat(tail()).isEqualTo(tail);
  }

  @Test
  void twoAuthorizationHeadersAreRefusedOverHttpAndGrpcEvenIfBothAreValid() throws Exception {
    long tail = tail();
    String valid = "Bearer " + token.secret();
    java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://" + http
                + "/v1/basins/demo/streams/events/records"))
            .header("Authorization", valid).header("Authorization", valid).header("Content-Type", "application/json")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"records\":[{\"body\":\"two\"}]}"))
            .timeout(Duration.ofSeconds(10)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(401);
    assertThat(answer.body()).contains("\"code\":\"unauthenticated\"").contains("2 Authorization headers")
        .doesNotContain(token.secret());

    Metadata headers = new Metadata();
    Metadata.Key<String> key = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    headers.put(key, valid);
    headers.put(key, valid);
    try {
      DataPlaneGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
          .append(AppendRequest.newBuilder().setBasin("demo").setStream("events")
              .setInput(AppendInput.newBuilder().addRecords(AppendRecord.newBuilder()
                  .setBody(com.google.protobuf.ByteString.copyFromUtf8("two")))).build());
      throw new AssertionError("an append with two authorization values was accepted");
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(e.getStatus().getDescription()).contains("2 Authorization headers");
    }
    assertThat(tail()).isEqualTo(tail);
  }

  @Test
  void aRevokedTokensRefusalIsLoggedWithItsIdNeverItsSecret() {
    IssuedToken revoked = auth.issue("demo/", "", EnumSet.of(TokenOperation.READ), Duration.ZERO);
    try (NovaClient admin = auth.admin()) {
      admin.revokeToken(revoked.info().id());
    }
    ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
        .getLogger(Authorizer.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
        new ch.qos.logback.core.read.ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try (NovaClient client = auth.client(revoked.secret())) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.checkTail(stream))
          .isInstanceOf(io.nova.client.errors.UnauthenticatedException.class);
    } finally {
      logger.detachAppender(logged);
    }
    assertThat(logged.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
        .anySatisfy(line -> assertThat(line).contains("revoked").contains(revoked.info().id()))
        .allSatisfy(line -> assertThat(line).doesNotContain(revoked.secret().substring(16)));
  }

  /**
   * Authorization values by size and encoding, over HTTP and gRPC: the expected HTTP status, and a text the
   * refusal must contain ("" for an accepted value). TOKEN stands for the valid token.
   */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> sizesAndEncodings() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of("at the limit", "Bearer " + "A".repeat(1024 - 7), 401,
            "nvt.ID.SECRET"),
        org.junit.jupiter.params.provider.Arguments.of("one over the limit", "Bearer " + "A".repeat(1024 - 6), 401,
            "over the limit of 1024"),
        org.junit.jupiter.params.provider.Arguments.of("8 KiB, gRPC's default", "Bearer " + "A".repeat(8192), 401,
            "over the limit of 1024"),
        org.junit.jupiter.params.provider.Arguments.of("100,000 characters", "Bearer " + "A".repeat(100_000), 401,
            "over the limit of 1024"),
        org.junit.jupiter.params.provider.Arguments.of("the token repeated to 88 KB", "Bearer " + "TOKEN".repeat(1_500),
            401, "over the limit of 1024"),
        org.junit.jupiter.params.provider.Arguments.of("no scheme", "TOKEN", 401, "'Bearer TOKEN'"),
        org.junit.jupiter.params.provider.Arguments.of("Basic scheme", "Basic TOKEN", 401, "'Bearer TOKEN'"),
        org.junit.jupiter.params.provider.Arguments.of("lower-case scheme", "bearer TOKEN", 200, ""),
        org.junit.jupiter.params.provider.Arguments.of("upper-case scheme", "BEARER TOKEN", 200, ""),
        org.junit.jupiter.params.provider.Arguments.of("percent-encoded", "Bearer TOKEN%2E", 401, "nvt.ID.SECRET"),
        org.junit.jupiter.params.provider.Arguments.of("base64 of the token", "Bearer "
            + "QmVhcmVyIG52dC5BQUFBQUFBQUFBQS5BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE", 401,
            "nvt.ID.SECRET"));
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "[{index}] {0}")
  @org.junit.jupiter.params.provider.MethodSource("sizesAndEncodings")
  void authorizationValuesBySizeAndEncodingGetTheirTypedAnswer(String name, String template, int status,
      String refusal) {
    String value = template.replace("TOKEN", token.secret());
    RawAnswer http = rawAppend(value);
    assertThat(http.status()).as(http.text()).isEqualTo(status);
    if (status == 401) {
      assertThat(http.text()).contains("\"code\":\"unauthenticated\"").contains(refusal)
          .containsIgnoringCase("\r\nWWW-Authenticate: Bearer realm=\"nova\", error=\"invalid_token\"")
          .doesNotContain(token.secret());
    }
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), value);
    try {
      DataPlaneGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
          .append(AppendRequest.newBuilder().setBasin("demo").setStream("events")
              .setInput(AppendInput.newBuilder().addRecords(AppendRecord.newBuilder()
                  .setBody(com.google.protobuf.ByteString.copyFromUtf8("table")))).build());
      assertThat(status).as("accepted over gRPC").isEqualTo(200);
    } catch (StatusRuntimeException e) {
      assertThat(status).as(e.getStatus().toString()).isEqualTo(401);
      assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(e.getStatus().getDescription()).contains(refusal).doesNotContain(token.secret());
    }
  }

  @Test
  void theSdkWithAHundredThousandCharacterTokenIsToldTheLimit() {
    try (NovaClient client = auth.client("A".repeat(100_000))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.checkTail(stream))
          .isInstanceOf(io.nova.client.errors.UnauthenticatedException.class)
          .hasMessageContaining("over the limit of 1024").hasMessageNotContaining("A".repeat(50));
    }
  }

  @Test
  void aMissingTokenGetsTheBareBearerChallenge() throws Exception {
    java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://" + http
            + "/v1/basins/demo/streams/events/records/tail")).timeout(Duration.ofSeconds(10)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(401);
    assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"nova\"");
  }

  private long tail() {
    try (NovaClient admin = auth.admin()) {
      return admin.checkTail(stream).seqNum();
    }
  }

  record RawAnswer(int status, String text) {}

  /** An append over a raw socket, so any bytes can be sent as the header (HttpClient refuses many). */
  private RawAnswer rawAppend(String value) {
    byte[] body = "{\"records\":[{\"body\":\"fuzz\"}]}".getBytes(StandardCharsets.UTF_8);
    String head = "POST /v1/basins/demo/streams/events/records HTTP/1.1\r\nHost: " + http + "\r\nAuthorization: "
        + value + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
        + "\r\nConnection: close\r\n\r\n";
    try (Socket socket = new Socket(http.host(), http.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(head.getBytes(StandardCharsets.UTF_8));
        out.write(body);
        out.flush();
      } catch (java.net.SocketException answeredEarly) {
        // The server answered (431) and closed before the whole oversized header was sent: read that answer.
      }
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      for (int n; all.size() < 1_000_000 && (n = in.read(buf)) > 0; ) {
        all.write(buf, 0, n);
      }
      String text = all.toString(StandardCharsets.UTF_8);
      if (!text.startsWith("HTTP/1.1 ")) {
        throw new AssertionError("not an HTTP answer: " + text);
      }
      return new RawAnswer(Integer.parseInt(text.substring(9, 12)), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
