#!/usr/bin/env bash
# Whether disk use drops after a trim (issue #11; ADR 0011's amendment on snapshots by log bytes).
#
# Starts a 3-node cluster of real processes on loopback with the default snapshot interval (100 000
# entries, which large batches never reach), appends MIB MiB of 1 KiB random records to one stream with
# `nova append` (batches of up to 1 MiB: few, large log entries), trims it to its tail, and prints each
# node's disk use (du: data folder, store, snapshots, Raft log) before the append, after it, and after the
# trim (sampled every 5 s for WAIT seconds), with the load average at each step. The folder is deleted
# at the end.
#
# Usage: bench/trim-disk.sh   (2-4 minutes)
# Knobs (environment): MIB (default 96), WAIT (seconds after the trim, default 30), NOVA_BENCH_JARS (the
# build to measure, see local-cluster.sh), NC_PORT_BASE (default 23000), KEEP=1 keeps the folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${NC_PORT_BASE:=23000}" "${MIB:=96}" "${WAIT:=30}"
export NC_PORT_BASE
# shellcheck source=local-cluster.sh
source "$here/local-cluster.sh"
((MIB >= 1 && MIB <= 4096)) || { echo "MIB must be 1..4096" >&2; exit 2; }
((WAIT >= 5 && WAIT <= 600)) || { echo "WAIT must be 5..600" >&2; exit 2; }
nc_folder nova-trim-disk

disk_use() {
  local i
  echo "--- $1 (load $(nc_load))"
  for i in 1 2 3; do
    printf 'n%d: total %s  store %s  snapshots %s  log %s\n' "$i" \
      "$(du -sh "$NC_DIR/n$i/data" | cut -f1)" "$(du -sh "$NC_DIR/n$i/data/store" | cut -f1)" \
      "$(du -shc "$NC_DIR/n$i"/data/raft/*/sm 2>/dev/null | tail -1 | cut -f1)" \
      "$(du -shc "$NC_DIR/n$i"/data/raft/*/current 2>/dev/null | tail -1 | cut -f1)"
  done
}

nc_bring_up 1 100000 "$MIB" trim 1
stream="${NC_STREAMS[0]}"
disk_use "before the append"

started=$SECONDS
nc_append_parallel 10 "$stream"
echo "appended $MIB MiB of 1 KiB records in $((SECONDS - started)) s"
disk_use "after the append"

tail_seq="$(nc_cli check-tail "$stream" | cut -d" " -f1)"
nc_cli trim "$stream" "$tail_seq" >/dev/null
echo "trimmed $stream to its tail, $tail_seq"
for ((t = 5; t <= WAIT; t += 5)); do
  sleep 5
  disk_use "${t} s after the trim"
done
echo "--- reclaim log lines"
{ grep -h -o 'snapshot at index [0-9]* taken to bound the log and reclaim trimmed space' "$NC_DIR"/n*/node.log \
  || true; } | sort | uniq -c
