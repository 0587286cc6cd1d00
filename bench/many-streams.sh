#!/usr/bin/env bash
# The 100k-stream run of issue #12, item 5 (docs/bench.md, "Many streams"): starts a 3-node `nova dev`
# (real processes, loopback only), creates N streams and appends one record to each (`nova bench
# --create-streams`), times `nova ls` over them, measures node memory (RSS and heap after a full GC) and
# disk before and after, restarts every node one at a time and then all at once (time from start to
# /ready 200), and checks that every stream is listed and every acknowledged record reads back
# (`nova bench --verify-streams`). Prints one "figure:" line per measurement; keeps everything in OUT.
#
# Usage: bench/many-streams.sh [N]      (default 100000)
# Environment: NOVA_CP (class path of a built nova-cli, default cli/target/nova-cli.jar:cli/target/lib/*;
#   copy them elsewhere first when the tree may be rebuilt during the run), PORT_BASE (default 25000:
#   ports BASE+1..3, +101..103, +201..203), OUT (results folder, default a fresh temporary one),
#   RUN_MAX_S (the whole run's bound, default 5400), PHASE_MAX_S (bound of each create, append and read
#   phase, default 1800), CONCURRENCY (calls outstanding, default 64), KEEP_DATA=1 (keep the data folders).
#
# Bounded: every wait has a limit, the Java phases have --duration, and the script stops every process it
# started (by PID) on any exit. Needs java, jcmd, curl, du.
set -euo pipefail

N="${1:-100000}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CP="${NOVA_CP:-$root/cli/target/nova-cli.jar:$root/cli/target/lib/*}"
BASE="${PORT_BASE:-25000}"
OUT="${OUT:-$(mktemp -d -t nova-many.XXXXXX)}"
RUN_MAX_S="${RUN_MAX_S:-5400}"
DATA="$OUT/data"
START_S=$SECONDS
mkdir -p "$OUT"
export NOVA_ENDPOINTS="127.0.0.1:$((BASE + 1)),127.0.0.1:$((BASE + 2)),127.0.0.1:$((BASE + 3))"

dev_pid=""
declare -A node_pid=()

nova() { java ${NOVA_JAVA_OPTS:-} -cp "$CP" io.nova.cli.Main "$@"; }
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUT/run.log" >&2; }
figure() { echo "figure: $* (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$OUT/figures.txt"; }
left_s() { echo $((RUN_MAX_S - (SECONDS - START_S))); }
check_time() { if (($(left_s) <= 0)); then log "run bound of ${RUN_MAX_S}s reached"; exit 3; fi; }

# Waits (bounded) for a process to exit; kills it with SIGKILL after $2 seconds.
wait_exit() {
  local pid=$1 limit=$2 i
  for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "pid $pid still alive after ${limit}s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  set +e
  if [[ -n "$dev_pid" ]] && kill -0 "$dev_pid" 2>/dev/null; then
    kill -TERM "$dev_pid"
    wait_exit "$dev_pid" 60
  fi
  for id in "${!node_pid[@]}"; do
    local pid=${node_pid[$id]}
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      wait_exit "$pid" 60
    fi
  done
  if [[ "${KEEP_DATA:-0}" != 1 ]]; then rm -rf "$DATA"; fi
  log "stopped (exit $rc); results in $OUT"
}
trap cleanup EXIT

http_port() { echo $((BASE + 200 + ${1#n})); }

# Seconds (ms resolution) until node $1 answers /ready with 200, at most $2 seconds; -1 when it does not.
wait_ready() {
  local id=$1 limit=$2 t0=$EPOCHREALTIME i
  for ((i = 0; i < limit * 5; i++)); do
    if curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$(http_port "$id")/ready" 2>/dev/null; then
      awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
      return 0
    fi
    sleep 0.2
  done
  echo -1
}

# Per node: RSS (MiB) and heap used after a full GC (MiB), measured with jcmd.
memory() {
  local label=$1 id pid rss heap
  for id in n1 n2 n3; do
    pid=${node_pid[$id]}
    jcmd "$pid" GC.run >/dev/null 2>&1 || true
    rss=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
    heap=$(jcmd "$pid" GC.heap_info 2>/dev/null | awk '/garbage-first heap|total/ && /used/ {
      for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?/, "", v); printf "%.0f", v / 1024; exit } }')
    figure "memory $label $id: rss ${rss} MiB, heap used after GC ${heap:-?} MiB"
  done
}

disk() {
  local label=$1 id
  for id in n1 n2 n3; do
    figure "disk $label $id: $(du -sm "$DATA/$id" | cut -f1) MiB"
  done
}

start_node() {
  local id=$1
  java ${NOVA_NODE_JAVA_OPTS:-} -cp "$CP" io.nova.cli.Main server --config "$DATA/$id/node.yaml" \
    >>"$DATA/$id/node.log" 2>&1 &
  node_pid[$id]=$!
  log "started $id again: pid ${node_pid[$id]}"
}

stop_node() {
  local id=$1 pid=${node_pid[$1]}
  kill -TERM "$pid"
  wait_exit "$pid" 60
}

log "run of $N streams; results in $OUT; java $(java -version 2>&1 | head -1)"
nova dev --port-base "$BASE" --ready-timeout 4m --data-dir "$DATA" >"$OUT/dev.log" 2>&1 &
dev_pid=$!
for ((i = 0; i < 300; i++)); do
  grep -q "Nova dev cluster ready" "$OUT/dev.log" && break
  kill -0 "$dev_pid" 2>/dev/null || { cat "$OUT/dev.log" >&2; exit 1; }
  sleep 1
done
grep -q "Nova dev cluster ready" "$OUT/dev.log" || { log "nova dev not ready after 300 s"; exit 1; }
for id in n1 n2 n3; do
  node_pid[$id]=$(awk -v id="$id" '$1 == id && $2 == "pid" { print $3 }' "$OUT/dev.log")
done
log "cluster ready: dev pid $dev_pid, nodes ${node_pid[*]}"

# JIT warm-up (~35 s on 2 cores after a JVM starts): the same calls on WARM (default 2,000) throw-away streams.
nova bench --create-streams "${WARM:-2000}" --stream-prefix warm --duration 5m --acked "$OUT/warm.acked" \
  --output "$OUT/warm.txt" >>"$OUT/run.log" 2>&1 || log "warm-up reported failures (see run.log)"
memory before
disk before
check_time

log "creating $N streams"
nova bench --create-streams "$N" --concurrency "${CONCURRENCY:-64}" --duration "${PHASE_MAX_S:-1800}s" --acked "$OUT/many.acked" --output "$OUT/create.txt" \
  | tee -a "$OUT/run.log" || log "create run reported failures"
figure "$(grep '^create' "$OUT/create.txt")"
figure "$(grep '^append' "$OUT/create.txt")"
figure "$(grep '^list' "$OUT/create.txt")"
check_time

t0=$EPOCHREALTIME
listed=$(nova ls nova://demo | wc -l)
figure "nova ls nova://demo: $listed streams in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s, $(((listed + 999) / 1000)) pages of 1000 (one JVM start included)"
memory after-create
disk after-create
check_time

for id in n1 n2 n3; do
  stop_node "$id"
  start_node "$id"
  figure "restart one at a time: $id ready after $(wait_ready "$id" 600) s"
  check_time
done

for id in n1 n2 n3; do kill -TERM "${node_pid[$id]}"; done
for id in n1 n2 n3; do wait_exit "${node_pid[$id]}" 60; done
for id in n1 n2 n3; do start_node "$id"; done
t0=$EPOCHREALTIME
for id in n1 n2 n3; do
  figure "restart all at once: $id ready after $(wait_ready "$id" 600) s"
done
figure "restart all at once: all ready after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
check_time

verify_rc=0
nova bench --verify-streams "$N" --concurrency "${CONCURRENCY:-64}" --duration "${PHASE_MAX_S:-1800}s" --acked "$OUT/many.acked" --output "$OUT/verify.txt" \
  | tee -a "$OUT/run.log" || verify_rc=$?
figure "after restarts: $(tr '\n' ';' <"$OUT/verify.txt")"
memory after-restart
disk after-restart
log "verify exit $verify_rc"
exit "$verify_rc"
