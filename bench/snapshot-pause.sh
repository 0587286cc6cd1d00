#!/usr/bin/env bash
# How long snapshots hold the apply thread under a bounded write load (issue #11, item 4; ADR 0011).
#
# Starts a 3-node cluster of real processes on loopback with a small snapshot interval, so every shard
# takes several checkpoints during the run, and appends the same file of 1 KiB records to a few streams
# at once with `nova append` (as fast as the cluster takes them: batches of up to 1 MiB, so each entry
# carries up to 1 MiB and a checkpoint finds up to SNAPSHOT_EVERY MiB in the memtables). Then prints,
# over every replica of every group, the time each checkpoint held the apply thread:
#   - from the node logs ("snapshot taken at index N (term T) in X ms", one line per checkpoint): count,
#     p50, p99, max in ms;
#   - from /metrics, nova_snapshot_apply_pause_seconds (count, mean) over the nodes;
# with the machine's load average before and after. The cluster's folder is deleted at the end.
#
# Usage: bench/snapshot-pause.sh            (2-5 minutes, depending on the machine's load)
# Knobs (environment): STREAMS (default 2, on different shards as the cluster places them), MIB (per
# stream, default 256), SNAPSHOT_EVERY (entries, default 50), SHARDS (default 4), NOVA_BENCH_JARS (the
# build to measure, see local-cluster.sh), NC_PORT_BASE (default 21000), KEEP=1 keeps the folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=local-cluster.sh
source "$here/local-cluster.sh"

: "${STREAMS:=2}" "${MIB:=256}" "${SNAPSHOT_EVERY:=50}" "${SHARDS:=4}"
nc_folder nova-snapshot-pause

nc_bring_up "$SHARDS" "$SNAPSHOT_EVERY" "$MIB" pause "$STREAMS"

started=$SECONDS
nc_append_parallel 10 "${NC_STREAMS[@]}"
echo "appended $((STREAMS * MIB)) MiB of 1 KiB records to $STREAMS streams in $((SECONDS - started)) s;" \
  "load after the run: $(nc_load)"

echo "--- checkpoints (node logs): time each held the apply thread, ms"
{ grep -h -o 'snapshot taken at index [0-9]* (term [0-9]*) in [0-9]* ms' "$NC_DIR"/n*/node.log || true; } \
  | awk '{print $(NF-1)}' | sort -n > "$NC_DIR/pauses.txt"
awk '{v[NR] = $1} END {
  if (NR == 0) { print "no checkpoint taken: raise DURATION or RATE, or lower SNAPSHOT_EVERY"; exit }
  p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
  printf "count %d  p50 %d  p99 %d  max %d\n", NR, p50, p99, v[NR] }' "$NC_DIR/pauses.txt"
echo "--- background pre-flushes (node logs), ms"
{ grep -h -o 'store flushed for the next snapshot in [0-9]* ms' "$NC_DIR"/n*/node.log || true; } \
  | awk '{print $(NF-1)}' | sort -n | awk '{v[NR] = $1} END {
  if (NR == 0) { print "none (a build without the pre-flush)"; exit }
  printf "count %d  p50 %d  p99 %d  max %d\n", NR, v[int((NR - 1) * 0.5) + 1], v[int((NR - 1) * 0.99) + 1], v[NR] }'
echo "--- /metrics nova_snapshot_apply_pause_seconds, all nodes"
for i in 1 2 3; do nc_metric "$i" 'nova_snapshot_apply_pause_seconds_(count|sum)'; done \
  | awk '/_count/ {c += $2} /_sum/ {s += $2} END {
  if (c > 0) printf "count %d  mean %.1f ms\n", c, 1000 * s / c; else print "count 0" }'
