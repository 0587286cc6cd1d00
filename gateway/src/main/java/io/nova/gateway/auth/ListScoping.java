package io.nova.gateway.auth;

import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;

/**
 * Narrows list calls to a token's scope, so a scoped token lists only what it may see and paging still
 * works: the request's prefix becomes the narrower of its own and the scope's, and a basin page is
 * filtered for exact-basin prefixes ({@code team-a/}). When the two prefixes exclude each other, the
 * prefix gets a {@code /} appended, which no name contains, so the page is empty. Stateless.
 */
public final class ListScoping {

  /** Appended to a prefix to match no basin or stream name ({@code /} is in neither name rule). */
  private static final String MATCH_NOTHING = "/";

  private ListScoping() {}

  /** {@code request} with its prefix narrowed to {@code scope}. */
  public static ListBasinsRequest narrow(AccessScope scope, ListBasinsRequest request) {
    String prefix = scope.basinListPrefix(request.getPrefix()).orElse(request.getPrefix() + MATCH_NOTHING);
    return request.toBuilder().setPrefix(prefix).build();
  }

  /** {@code request} with its prefix narrowed to {@code scope} (its basin was checked already). */
  public static ListStreamsRequest narrow(AccessScope scope, ListStreamsRequest request) {
    String prefix = scope.streamListPrefix(request.getPrefix()).orElse(request.getPrefix() + MATCH_NOTHING);
    return request.toBuilder().setPrefix(prefix).build();
  }

  /** {@code page} without the basins outside {@code scope}; {@code has_more} is kept. */
  public static ListBasinsResponse filter(AccessScope scope, ListBasinsResponse page) {
    return page.toBuilder().clearBasins()
        .addAllBasins(page.getBasinsList().stream().filter(b -> scope.coversBasin(b.getName())).toList())
        .build();
  }
}
