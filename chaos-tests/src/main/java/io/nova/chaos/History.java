package io.nova.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The recorded history of a chaos run: every operation every client process attempted. Thread-safe;
 * processes record concurrently. Written as JSON lines ({@code history.jsonl}) for replay and reading.
 */
public final class History {

  private final List<Op> ops = new ArrayList<>();
  private final AtomicLong nextId = new AtomicLong();

  /** A new operation id, taken at invocation so ids follow invocation order. */
  public long nextId() {
    return nextId.getAndIncrement();
  }

  public void add(Op op) {
    synchronized (ops) {
      ops.add(op);
    }
  }

  /** Every operation, in invocation order. */
  public List<Op> ops() {
    synchronized (ops) {
      List<Op> copy = new ArrayList<>(ops);
      copy.sort(Comparator.comparingLong(Op::id));
      return copy;
    }
  }

  public long count(Op.Outcome outcome) {
    return ops().stream().filter(o -> o.outcome() == outcome).count();
  }

  /** Writes one JSON object per line, in invocation order. */
  public void write(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Files.createDirectories(file.toAbsolutePath().getParent());
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      for (Op op : ops()) {
        w.write(json.writeValueAsString(op));
        w.newLine();
      }
    }
  }

  /** Reads a history written by {@link #write} (to re-check a failed run offline). */
  public static History read(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    History h = new History();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        h.add(json.readValue(line, Op.class));
      }
    }
    return h;
  }
}
