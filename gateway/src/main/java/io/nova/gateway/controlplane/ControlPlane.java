package io.nova.gateway.controlplane;

import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.GroupClients;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.validation.RequestChecks;
import io.nova.protocol.errors.Errors;
import io.nova.proto.internal.ConfigureStreamCommand;
import io.nova.proto.internal.ConfigureStreamMetaCommand;
import io.nova.proto.internal.CreateBasinCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.DeleteBasinCommand;
import io.nova.proto.internal.DeleteStreamCommand;
import io.nova.proto.internal.DeleteStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.CreateBasinResponse;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.CreateStreamResponse;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.DeleteBasinResponse;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.DeleteStreamResponse;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.GetStreamConfigRequest;
import io.nova.proto.v1.GetStreamConfigResponse;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.SetStreamConfigRequest;
import io.nova.proto.v1.SetStreamConfigResponse;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.proto.v1.GetStreamResponse;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.proto.v1.StreamInfo;
import io.nova.protocol.errors.Errors;

/**
 * The control plane, independent of any transport: basins and streams live in the meta group; a
 * stream is also created in (and deleted from) the shard group the meta group assigned it to.
 * Thread-safe; every method blocks while the groups answer and throws {@link GatewayException} with the
 * typed error.
 *
 * <p>Create-stream registers the stream in the meta group first, then creates it in its shard; delete
 * removes it from the shard first (so writes stop), then from the meta group. Either can be interrupted
 * by a crash between the two steps; repeating the call, or any data-plane call (see
 * {@link StreamRouter}), completes it.
 */
public final class ControlPlane {

  private final StreamRouter router;
  private final GroupClients groups;

  public ControlPlane(StreamRouter router) {
    this.router = router;
    this.groups = router.groups();
  }

  public CreateBasinResponse createBasin(CreateBasinRequest request) {
    RequestChecks.basinName(request.getBasin());
    MetaResult result = writeMeta(MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder()
        .setBasin(request.getBasin()).setDefaultStreamConfig(request.getDefaultStreamConfig())));
    return CreateBasinResponse.newBuilder().setBasin(result.getBasin()).build();
  }

  public ListBasinsResponse listBasins(ListBasinsRequest request) {
    RequestChecks.listLimit(request.getLimit());
    return queryMeta(MetaQuery.newBuilder().setListBasins(request)).getBasins();
  }

  /**
   * One basin, by exact name: the first entry of a one-item page listed from its name as prefix (names
   * sort, and a name sorts before every longer name it prefixes).
   *
   * @throws GatewayException NOT_FOUND when no basin has that name, INVALID_ARGUMENT for a bad name
   */
  public BasinInfo getBasin(String basin) {
    RequestChecks.basinName(basin);
    ListBasinsResponse page = listBasins(ListBasinsRequest.newBuilder().setPrefix(basin).setLimit(1).build());
    return page.getBasinsList().stream().filter(b -> b.getName().equals(basin)).findFirst()
        .orElseThrow(() -> new GatewayException(Errors.notFound("basin", basin)));
  }

  public DeleteBasinResponse deleteBasin(DeleteBasinRequest request) {
    RequestChecks.basinName(request.getBasin());
    writeMeta(MetaCommand.newBuilder()
        .setDeleteBasin(DeleteBasinCommand.newBuilder().setBasin(request.getBasin())));
    return DeleteBasinResponse.getDefaultInstance();
  }

  public CreateStreamResponse createStream(CreateStreamRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    MetaResult result;
    try {
      result = writeMeta(MetaCommand.newBuilder().setCreateStream(CreateStreamMetaCommand.newBuilder()
          .setBasin(request.getBasin()).setStream(request.getStream()).setConfig(request.getConfig())));
    } catch (GatewayException e) {
      if (e.detail().hasAlreadyExists()) {
        // The stream exists in the meta group; make sure an interrupted create also reached its shard.
        router.createInShard(router.directory().lookUp(request.getBasin(), request.getStream()));
      }
      throw e;
    }
    StreamInfo info = result.getStream();
    afterFirstStep("creating stream " + info.getName(), () -> router.createInShard(info));
    return CreateStreamResponse.newBuilder().setStream(info).build();
  }

  public GetStreamResponse getStream(GetStreamRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    StreamInfo info = router.directory().lookUp(request.getBasin(), request.getStream());
    GetStreamResponse.Builder response = GetStreamResponse.newBuilder().setStream(info);
    router.groups().leaderApiAddress(info.getShard()).ifPresent(response::setLeaderApiAddress);
    return response.build();
  }

  /** The stream's configuration as the meta group stores it (read from the meta group, never a cache). */
  public GetStreamConfigResponse getStreamConfig(GetStreamConfigRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    StreamInfo info = router.directory().lookUp(request.getBasin(), request.getStream());
    return GetStreamConfigResponse.newBuilder().setConfig(info.getConfig()).setConfigVersion(info.getConfigVersion())
        .build();
  }

  /**
   * Changes a live stream's configuration: the meta group stores the merged configuration first, then
   * the stream's shard receives all of it (applied only if newer than what it holds, so racing changes
   * settle on the meta group's latest). When this returns, the shard leader enforces the new retention from
   * its next pass on. Interrupted between the two steps it reports an unknown outcome; repeating the call
   * pushes the stored configuration again.
   *
   * @throws GatewayException INVALID_ARGUMENT for a bad name or configuration (field and limit named),
   *     NOT_FOUND when the stream does not exist
   */
  public SetStreamConfigResponse setStreamConfig(SetStreamConfigRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    StreamConfigRules.error(request.getConfig(), "config.").ifPresent(e -> {
      throw new GatewayException(e);
    });
    StreamInfo info = writeMeta(MetaCommand.newBuilder().setConfigureStream(ConfigureStreamMetaCommand.newBuilder()
        .setBasin(request.getBasin()).setStream(request.getStream()).setConfig(request.getConfig()))).getStream();
    afterFirstStep("configuring stream " + info.getName(), () -> {
      ShardResult shard = groups.write(info.getShard(), ShardCommand.newBuilder()
          .setConfigureStream(ConfigureStreamCommand.newBuilder().setStreamId(info.getStreamId())
              .setConfig(info.getConfig()).setConfigVersion(info.getConfigVersion()))
          .build());
      if (shard.hasError()) {
        throw new GatewayException(shard.getError());
      }
    });
    return SetStreamConfigResponse.newBuilder().setConfig(info.getConfig()).setConfigVersion(info.getConfigVersion())
        .build();
  }

  public ListStreamsResponse listStreams(ListStreamsRequest request) {
    RequestChecks.basinName(request.getBasin());
    RequestChecks.listLimit(request.getLimit());
    return queryMeta(MetaQuery.newBuilder().setListStreams(request)).getStreams();
  }

  public DeleteStreamResponse deleteStream(DeleteStreamRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    StreamInfo info = router.directory().lookUp(request.getBasin(), request.getStream());
    ShardResult shard = groups.write(info.getShard(), ShardCommand.newBuilder()
        .setDeleteStream(DeleteStreamCommand.newBuilder().setStreamId(info.getStreamId()))
        .build());
    if (shard.hasError() && !shard.getError().hasNotFound()) {
      throw new GatewayException(shard.getError());
    }
    router.directory().forget(request.getBasin(), request.getStream());
    afterFirstStep("deleting stream " + request.getStream(), () -> writeMeta(MetaCommand.newBuilder()
        .setDeleteStream(DeleteStreamMetaCommand.newBuilder()
            .setBasin(request.getBasin()).setStream(request.getStream()))));
    return DeleteStreamResponse.getDefaultInstance();
  }

  /**
   * Runs the second step of a call whose first step already took effect. A definite failure of that step
   * (refused past its deadline, or no leader) must not tell the caller that nothing happened, so it is
   * reported as an unknown outcome; repeating the call completes it.
   */
  private static void afterFirstStep(String what, Runnable secondStep) {
    try {
      secondStep.run();
    } catch (GatewayException e) {
      ErrorDetail d = e.detail();
      if (!d.hasDeadlineExceeded() && !(d.hasUnavailable() && !d.getUnavailable().getMayHaveTakenEffect())) {
        throw e;
      }
      throw new GatewayException(Errors.unavailable(true, what + " is half done (" + d.getMessage()
          + "); repeat the call to finish it"));
    }
  }

  private MetaResult writeMeta(MetaCommand.Builder command) {
    MetaResult result = groups.writeMeta(command.build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    return result;
  }

  private MetaQueryResult queryMeta(MetaQuery.Builder query) {
    MetaQueryResult result = groups.queryMeta(query.build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    return result;
  }
}
