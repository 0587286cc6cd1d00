# Sourced by the scripts in bench/: a local Nova cluster of real node processes on loopback, with
# node configurations written here (so knobs nova dev does not offer, such as snapshot-every-entries,
# can be set), started and stopped by PID. Not a script of its own.
#
# Node i (from 1) listens for clients on PORT_BASE+i, for Raft on PORT_BASE+100+i and for HTTP on
# PORT_BASE+200+i; its folder is $NC_DIR/n<i> (node.yaml, node.log, pid, data/).
#
# Variables read:
#   NC_DIR            the cluster's folder (see nc_folder)
#   NC_PORT_BASE      default 21000 (the ports 21001-21203)
#   NOVA_BENCH_JARS   a folder holding nova-cli.jar and lib/; default: a copy of cli/target taken at
#                     start, so a rebuild of the tree during a run does not change what runs
#   NOVA_NODE_JAVA_OPTS  extra JVM options of every node

NC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NC_PORT_BASE="${NC_PORT_BASE:-21000}"
NC_STARTED=()

nc_jars() {
  if [[ -z "${NOVA_BENCH_JARS:-}" ]]; then
    [[ -f "$NC_ROOT/cli/target/nova-cli.jar" ]] || { echo "build first: ./nova --help" >&2; return 1; }
    NOVA_BENCH_JARS="$NC_DIR/jars"
    mkdir -p "$NOVA_BENCH_JARS"
    cp -r "$NC_ROOT/cli/target/nova-cli.jar" "$NC_ROOT/cli/target/lib" "$NOVA_BENCH_JARS/"
  fi
  NC_CP="$NOVA_BENCH_JARS/nova-cli.jar:$NOVA_BENCH_JARS/lib/*"
}

# nc_init NODES SHARDS SNAPSHOT_EVERY_ENTRIES: writes each node's configuration.
nc_init() {
  local nodes="$1" shards="$2" every="$3" i j
  nc_jars || return 1
  NC_NODES="$nodes"
  for ((i = 1; i <= nodes; i++)); do
    mkdir -p "$NC_DIR/n$i"
    {
      echo "cluster-name: nova"
      echo "node-id: n$i"
      echo "data-dir: $NC_DIR/n$i/data"
      echo "shard-count: $shards"
      echo "snapshot-every-entries: $every"
      echo "nodes:"
      for ((j = 1; j <= nodes; j++)); do
        echo "  - id: n$j"
        echo "    raft-address: 127.0.0.1:$((NC_PORT_BASE + 100 + j))"
        echo "    api-address: 127.0.0.1:$((NC_PORT_BASE + j))"
        echo "    http-address: 127.0.0.1:$((NC_PORT_BASE + 200 + j))"
      done
    } > "$NC_DIR/n$i/node.yaml"
  done
  NOVA_ENDPOINTS="$(for ((j = 1; j <= nodes; j++)); do printf '127.0.0.1:%d,' $((NC_PORT_BASE + j)); done)"
  export NOVA_ENDPOINTS="${NOVA_ENDPOINTS%,}"
}

# nc_start I: starts node n<I> in the background (appending to its node.log).
nc_start() {
  local i="$1"
  # shellcheck disable=SC2086 # NOVA_NODE_JAVA_OPTS is a list of options
  java ${NOVA_NODE_JAVA_OPTS:-} -cp "$NC_CP" io.nova.cli.Main server --config "$NC_DIR/n$i/node.yaml" \
    >> "$NC_DIR/n$i/node.log" 2>&1 &
  echo $! > "$NC_DIR/n$i/pid"
  NC_STARTED+=("$!")
}

# nc_stop I: stops node n<I> (TERM, then KILL after 30 s) and waits for it.
nc_stop() {
  local pid
  pid="$(cat "$NC_DIR/n$1/pid" 2>/dev/null)" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# Stops every node this shell started; for an EXIT trap.
nc_stop_all() {
  local i
  for ((i = 1; i <= ${NC_NODES:-0}; i++)); do nc_stop "$i"; done
}

# nc_wait_ready I [SECONDS]: waits until node n<I> answers /ready (default 120 s).
nc_wait_ready() {
  local i="$1" deadline=$((SECONDS + ${2:-120}))
  until curl -sf -o /dev/null "http://127.0.0.1:$((NC_PORT_BASE + 200 + i))/ready"; do
    ((SECONDS < deadline)) || { echo "n$i not ready; see $NC_DIR/n$i/node.log" >&2; return 1; }
    sleep 0.5
  done
}

# nc_cli ARGS...: the nova command against this cluster.
nc_cli() {
  java -cp "$NC_CP" io.nova.cli.Main "$@"
}

# nc_metric I FAMILY: the samples of FAMILY in node n<I>'s /metrics, one "name value" a line.
nc_metric() {
  curl -sf "http://127.0.0.1:$((NC_PORT_BASE + 200 + $1))/metrics" | grep -E "^$2" || true
}

# nc_load: the 1-minute load average.
nc_load() {
  cut -d' ' -f1 /proc/loadavg
}

# nc_records_file FILE MIB: writes a file of MIB MiB of 1 KiB text lines (one record each when
# appended with `nova append -i FILE`): random base64, so that RocksDB cannot compress the store away.
nc_records_file() {
  head -c "$(($2 * 768 * 1024))" /dev/urandom | base64 -w 1023 > "$1"
}

# nc_append_parallel MINUTES STREAM... : appends $NC_RECORDS (a file from nc_records_file) to every
# STREAM at once, one `nova append` each, each killed after MINUTES; fails if any append failed.
nc_append_parallel() {
  local minutes="$1" pids=() s rc=0
  shift
  for s in "$@"; do
    timeout "${minutes}m" java -cp "$NC_CP" io.nova.cli.Main append "$s" -i "$NC_RECORDS" --quiet &
    pids+=("$!")
  done
  for s in "${pids[@]}"; do wait "$s" || rc=1; done
  return "$rc"
}

# nc_bring_up SHARDS SNAPSHOT_EVERY_ENTRIES MIB PREFIX STREAMS: writes the configurations and a records
# file of MIB MiB ($NC_RECORDS), starts the three nodes, waits until they are ready, creates the basin
# demo and STREAMS streams nova://demo/PREFIX-<i>, listed in NC_STREAMS.
nc_bring_up() {
  local i
  nc_init 3 "$1" "$2"
  NC_RECORDS="$NC_DIR/records.txt"
  nc_records_file "$NC_RECORDS" "$3"
  echo "jars: $NOVA_BENCH_JARS; folder: $NC_DIR; load: $(nc_load)"
  for i in 1 2 3; do nc_start "$i"; done
  for i in 1 2 3; do nc_wait_ready "$i"; done
  nc_cli create-basin demo >/dev/null
  NC_STREAMS=()
  for ((i = 1; i <= $5; i++)); do
    nc_cli create-stream "nova://demo/$4-$i" >/dev/null
    NC_STREAMS+=("nova://demo/$4-$i")
  done
}

# nc_folder NAME: makes a fresh NC_DIR under the temporary folder and, on exit, stops every node and
# deletes it (KEEP=1 keeps it).
nc_folder() {
  NC_DIR="$(mktemp -d -t "$1.XXXXXX")"
  trap nc_cleanup EXIT
}

nc_cleanup() {
  nc_stop_all
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $NC_DIR"; else rm -rf "$NC_DIR"; fi
}
