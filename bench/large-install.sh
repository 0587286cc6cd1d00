#!/usr/bin/env bash
# Catching up a far-behind follower of a large store (issue #11, item 4; ADR 0011).
#
# Starts a 3-node cluster of real processes on loopback with one shard group, stops one follower of it,
# appends GIB of 1 KiB records to a few streams (all on that shard), waits until the leader purged its
# log past everything the stopped follower holds (so only a snapshot can catch it up), prints the disk
# use of every node, restarts the follower and measures:
#   - ready: the restart until its /ready answers (its groups have a leader);
#   - installed: until its log says the shard's store was restored from the received snapshot;
#   - caught up: until it has applied the leader's commit index as of the restart (snapshot transfer,
#     install and the log after it);
# then the disk use again, and checks that every replica counts the same retained records and bytes.
# The cluster's folder is deleted at the end.
#
# Usage: bench/large-install.sh            (10-15 minutes on a loaded 2-core machine)
# Knobs (environment): GIB (default 2, the total appended; at most 8), STREAMS (default 4),
# SNAPSHOT_EVERY (entries, default 200: the leader keeps about as many entries of up to 1 MiB),
# WRITE_MINUTES (default 12: each append is killed after it), NOVA_BENCH_JARS, NC_PORT_BASE (see
# local-cluster.sh), KEEP=1 keeps the folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=local-cluster.sh
source "$here/local-cluster.sh"

: "${GIB:=2}" "${STREAMS:=4}" "${SNAPSHOT_EVERY:=200}" "${WRITE_MINUTES:=12}"
((GIB >= 1 && GIB <= 8)) || { echo "GIB must be 1..8" >&2; exit 2; }
nc_folder nova-large-install

# gauge I NAME: node n<I>'s value of nova_group_<NAME>{group="shard-0"}, as an integer ("" if none).
gauge() {
  nc_metric "$1" "nova_group_$2\\{group=\"shard-0\"\\}" | awk '{printf "%.0f", $2}'
}

disk_use() {
  local i
  for i in 1 2 3; do
    printf 'n%d: total %s  store %s  snapshots %s  log %s\n' "$i" \
      "$(du -sh "$NC_DIR/n$i/data" | cut -f1)" "$(du -sh "$NC_DIR/n$i/data/store" | cut -f1)" \
      "$(du -shc "$NC_DIR/n$i"/data/raft/*/sm 2>/dev/null | tail -1 | cut -f1)" \
      "$(du -shc "$NC_DIR/n$i"/data/raft/*/current 2>/dev/null | tail -1 | cut -f1)"
  done
}

mib_per_stream=$(((GIB * 1024 + STREAMS - 1) / STREAMS))
nc_bring_up 1 "$SNAPSHOT_EVERY" "$mib_per_stream" big "$STREAMS"

leader=""
for i in 1 2 3; do [[ "$(gauge "$i" is_leader)" == 1 ]] && leader="$i"; done
[[ -n "$leader" ]] || { echo "no shard-0 leader" >&2; exit 1; }
follower=$((leader % 3 + 1))
nc_stop "$follower"
behind="$(gauge "$leader" applied_index)"
echo "shard-0 leader n$leader; stopped follower n$follower at about index $behind"

started=$SECONDS
nc_append_parallel "$WRITE_MINUTES" "${NC_STREAMS[@]}"
echo "appended $((STREAMS * mib_per_stream)) MiB of 1 KiB records to $STREAMS streams in" \
  "$((SECONDS - started)) s; load: $(nc_load)"

# The leader's log must start past the follower's last index: only a snapshot can catch it up.
deadline=$((SECONDS + 300))
while :; do
  start_index=$(($(gauge "$leader" applied_index) + 1 - $(gauge "$leader" log_entries)))
  ((start_index > behind + 1)) && break
  ((SECONDS < deadline)) || { echo "the leader's log was not purged" >&2; exit 1; }
  sleep 1
done
target="$(gauge "$leader" commit_index)"
echo "leader log starts at $start_index, commit index $target"
echo "--- disk use before the restart"
disk_use

restart=$SECONDS
restart_ms=$(date +%s%3N)
nc_start "$follower"
nc_wait_ready "$follower" 600
ready_s=$((SECONDS - restart))
deadline=$((SECONDS + 900))
while :; do
  applied="$(gauge "$follower" applied_index)"
  [[ -n "$applied" ]] && ((applied >= target)) && break
  ((SECONDS < deadline)) || { echo "n$follower did not catch up (applied ${applied:-?} of $target)" >&2; exit 1; }
  sleep 0.5
done
caught_ms=$(($(date +%s%3N) - restart_ms))
installed="$(grep -h 'restored from snapshot' "$NC_DIR/n$follower/node.log" | grep 'shard-0' | tail -1 | cut -c1-23 || true)"
installed_ms=""
[[ -n "$installed" ]] && installed_ms=$(($(date -d "${installed/,/.}" +%s%3N) - restart_ms))
echo "n$follower: ready after ${ready_s} s; store restored from the snapshot after ${installed_ms:-?} ms;" \
  "caught up to index $target after ${caught_ms} ms; load: $(nc_load)"
grep -h 'snapshot' "$NC_DIR/n$follower/node.log" | grep -i 'install\|restored\|received' | tail -5 | cut -c1-200 || true
echo "--- disk use after the catch-up"
disk_use

records=()
for i in 1 2 3; do records+=("$(gauge "$i" stream_records)/$(gauge "$i" stream_bytes)"); done
echo "retained records/bytes per replica: ${records[*]}"
[[ "${records[0]}" == "${records[1]}" && "${records[1]}" == "${records[2]}" ]] \
  || { echo "replicas disagree" >&2; exit 1; }
for s in "${NC_STREAMS[@]}"; do nc_cli check-tail "$s"; done
