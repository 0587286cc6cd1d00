package io.nova.protocol.auth;

import io.nova.proto.v1.Operation;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The access-token operations as people write them ({@code read}, {@code append}, {@code fence},
 * {@code trim}, {@code create}, {@code delete}, {@code configure}, {@code cluster-admin}) and as the wire
 * carries them ({@link Operation}). Stateless and thread-safe.
 */
public final class Operations {

  /** Every valid operation, in declaration order. */
  public static final List<Operation> ALL = List.of(Operation.OPERATION_READ, Operation.OPERATION_APPEND,
      Operation.OPERATION_FENCE, Operation.OPERATION_TRIM, Operation.OPERATION_CREATE, Operation.OPERATION_DELETE,
      Operation.OPERATION_CONFIGURE, Operation.OPERATION_CLUSTER_ADMIN);

  private Operations() {}

  /** The written name: {@code OPERATION_CLUSTER_ADMIN} is {@code cluster-admin}. */
  public static String name(Operation operation) {
    if (!ALL.contains(operation)) {
      throw new IllegalArgumentException("not an operation: " + operation);
    }
    return operation.name().substring("OPERATION_".length()).toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The operation written {@code name} (exact, lower case), if any. */
  public static Optional<Operation> parse(String name) {
    return ALL.stream().filter(o -> name(o).equals(name)).findFirst();
  }

  /** The names of every operation, comma-separated, for messages. */
  public static String names() {
    return String.join(", ", ALL.stream().map(Operations::name).toList());
  }

  /**
   * Parses a comma-separated list such as {@code append,read}; blanks around names are ignored.
   *
   * @throws IllegalArgumentException naming the first unknown operation, or when the list is empty
   */
  public static Set<Operation> parseList(String commaSeparated) {
    Set<Operation> ops = EnumSet.noneOf(Operation.class);
    List<String> unknown = new ArrayList<>();
    for (String part : commaSeparated.split(",", -1)) {
      String name = part.strip();
      if (name.isEmpty()) {
        continue;
      }
      parse(name).ifPresentOrElse(ops::add, () -> unknown.add(name));
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown operation '" + unknown.get(0) + "': use one or more of " + names());
    }
    if (ops.isEmpty()) {
      throw new IllegalArgumentException("name at least one operation: " + names());
    }
    return ops;
  }
}
