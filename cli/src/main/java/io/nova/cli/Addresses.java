package io.nova.cli;

import io.nova.client.StreamAddress;

/** Parses the {@code nova://} addresses given on the command line, failing with exit code 2. */
public final class Addresses {

  private Addresses() {}

  /** Parses {@code nova://BASIN/STREAM}. */
  public static StreamAddress stream(String uri) {
    try {
      return StreamAddress.parse(uri);
    } catch (IllegalArgumentException e) {
      throw new InputException(e.getMessage(), e);
    }
  }

  /** Parses {@code BASIN} or {@code nova://BASIN} into the basin name. */
  public static String basin(String uriOrName) {
    try {
      return StreamAddress.parseBasin(uriOrName);
    } catch (IllegalArgumentException e) {
      throw new InputException(e.getMessage(), e);
    }
  }
}
