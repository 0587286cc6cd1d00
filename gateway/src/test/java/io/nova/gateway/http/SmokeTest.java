package io.nova.gateway.http;

import io.nova.gateway.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
  @TempDir Path dir;

  @Test
  void smoke() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 2)) {
      cluster.awaitReady(Duration.ofSeconds(30));
      HttpCalls h = new HttpCalls(cluster.httpUrl("n1"));
      System.out.println(h.get("/health"));
      System.out.println(h.get("/ready"));
      System.out.println(h.post("/v1/basins", "{\"basin\":\"demo\"}"));
      System.out.println(h.post("/v1/basins", "{\"basin\":\"demo\"}"));
      System.out.println(h.post("/v1/basins", "{\"basin\":"));
      System.out.println(h.get("/v1/basins"));
      System.out.println(h.get("/v1/basins/demo"));
      System.out.println(h.get("/v1/basins/nope"));
      System.out.println(h.post("/v1/basins/demo/streams", "{\"stream\":\"s\"}"));
      System.out.println(h.post("/v1/basins/demo/streams/s/records", "{\"records\":[{\"body\":\"hi\"}],\"match_seq_num\":5}"));
      System.out.println(h.post("/v1/basins/demo/streams/s/records", "{\"records\":[{\"body\":\"hi\",\"headers\":[{\"name\":\"a\",\"value\":\"b\"}]}]}"));
      System.out.println(h.get("/v1/basins/demo/streams/s/records?seq_num=0"));
      System.out.println(h.get("/v1/basins/demo/streams/s/records/tail"));
      System.out.println(h.put("/v1/basins/demo/streams/s/fence", "{\"fencing_token\":\"t1\"}"));
      System.out.println(h.get("/v1/basins/demo/streams/s/fence"));
      System.out.println(h.post("/v1/basins/demo/streams/s/records", "{\"records\":[{\"body\":\"hi\"}],\"fencing_token\":\"t0\"}"));
      System.out.println(h.get("/v1/nothing"));
      System.out.println(h.send("PATCH", "/v1/basins", "{}"));
      System.out.println(h.send("DELETE", "/v1/basins", null));
      System.out.println(h.get("/v1/basins/demo/streams/s/records?seq_num=0&follow=true&count=1"));
      System.out.println(h.post("/v1/basins/demo/streams/s/records?encoding=base64", "{\"records\":[{\"body\":\"!!\"}]}"));
      System.out.println(h.post("/v1/basins/demo/streams/s/records", "x".repeat(9 << 20)));
      System.out.println(h.get("/v1/openapi.json").status());
    }
  }
}
