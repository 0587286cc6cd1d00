package io.nova.cli;

/**
 * The user's input (a file, a line of stdin, an argument) cannot be used as given. The CLI reports its
 * message on one line and exits with {@link ExitCodes#USAGE}.
 */
public final class InputException extends RuntimeException {

  public InputException(String message) {
    super(message);
  }

  public InputException(String message, Throwable cause) {
    super(message, cause);
  }
}
