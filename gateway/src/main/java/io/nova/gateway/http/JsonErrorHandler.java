package io.nova.gateway.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answers to requests that never reach a route (a path with {@code %00} or a bare {@code %}, a
 * malformed request line or header) as the API's JSON error {@code {"code","message"}} instead of
 * Jetty's HTML page: {@code code} is {@code bad_request} for a 4xx and {@code internal} for a 5xx.
 */
final class JsonErrorHandler extends ErrorHandler {

  @Override
  protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
      Callback callback) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, Json.CONTENT_TYPE);
    response.write(true, ByteBuffer.wrap(body(code, message)), callback);
  }

  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(new HttpField(HttpHeader.CONTENT_TYPE, Json.CONTENT_TYPE));
    return ByteBuffer.wrap(body(status, reason));
  }

  private static byte[] body(int status, String reason) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("code", status >= 500 ? "internal" : "bad_request");
    String why = reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
    body.put("message", "the HTTP server refused the request before any route saw it: " + why);
    return Json.line(body).getBytes(StandardCharsets.UTF_8);
  }
}
