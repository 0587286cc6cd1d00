package io.nova.statemachine.meta;

import io.nova.proto.internal.Placement;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.StreamInfo;

/** What one applied meta command changed, for the store to persist. Immutable. */
public sealed interface MetaChange {
  /** Nothing changed (the command was refused). */
  record None() implements MetaChange {}

  /** A basin was created. */
  record BasinPut(BasinInfo basin) implements MetaChange {}

  /** The basin of this name was deleted. */
  record BasinDeleted(String basin) implements MetaChange {}

  /** A stream was created. */
  record StreamPut(StreamInfo stream) implements MetaChange {}

  /** A stream was deleted. */
  record StreamDeleted(StreamInfo stream) implements MetaChange {}

  /** An access token was stored or changed (revoked). */
  record TokenPut(StoredToken token) implements MetaChange {}

  /** The node registry and group placement were stored or changed (ADR 0028). */
  record PlacementPut(Placement placement) implements MetaChange {}
}
