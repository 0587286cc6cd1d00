package io.nova.cli.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.InputException;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * One line of JSON input read into a tree, with syntax errors said the way a user can act on them:
 * {@code line 4, column 9: invalid JSON: ...}, never with Jackson's description of its input source or
 * the Java names of its settings. Columns count bytes from 1 (the same as characters for ASCII). A key
 * given twice in an object and anything after the first value are errors, as over HTTP. Stateless and
 * thread-safe.
 */
final class JsonLine {

  private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build());
  /** Jackson's "[Source: REDACTED (...); line: 1, column: 7]": every line is its own document. */
  private static final Pattern SOURCE = Pattern.compile("\\[Source: .*?; line: \\d+, column: (\\d+)\\]");
  /** Jackson's references to its own code: "(1000, from `StreamReadConstraints.getMaxNestingDepth()`)". */
  private static final Pattern CODE = Pattern.compile(",? ?(?:from )?`[^`]*`");
  private static final Pattern DUPLICATE = Pattern.compile("^Duplicate (?:Object property|field) [\"'](.*)[\"']$");

  private JsonLine() {}

  /**
   * The JSON value of {@code line}.
   *
   * @param lineNumber the 1-based input line, for errors
   * @throws InputException naming the line, the column when known and what is wrong
   */
  static JsonNode read(byte[] line, long lineNumber) {
    try (JsonParser p = MAPPER.createParser(line)) {
      JsonNode node = MAPPER.readTree(p);
      int rest = firstNonBlank(line, (int) p.currentLocation().getByteOffset());
      if (rest < line.length) {
        throw new InputException("line " + lineNumber + ", column " + (rest + 1)
            + ": unexpected data after the JSON value; give one JSON object per line");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new InputException(at(lineNumber, e.getLocation()) + describe(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new InputException("line " + lineNumber + ": the line could not be read: " + e.getMessage());
    }
  }

  /** The index of the first byte at or after {@code from} that is not JSON whitespace. */
  private static int firstNonBlank(byte[] line, int from) {
    int i = Math.max(0, from);
    while (i < line.length && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n')) {
      i++;
    }
    return i;
  }

  private static String at(long lineNumber, JsonLocation location) {
    return location == null || location.getColumnNr() < 1 ? "line " + lineNumber + ": "
        : "line " + lineNumber + ", column " + location.getColumnNr() + ": ";
  }

  /** A Jackson syntax message as a sentence about the user's line. */
  private static String describe(String jackson) {
    String message = String.valueOf(jackson);
    var duplicate = DUPLICATE.matcher(message);
    if (duplicate.matches()) {
      return "key \"" + duplicate.group(1) + "\" appears more than once; give it once";
    }
    message = SOURCE.matcher(message).replaceAll("column $1");
    message = CODE.matcher(message).replaceAll("").replaceAll("\\(\\s*\\)", "").trim();
    return "invalid JSON: " + message;
  }
}
