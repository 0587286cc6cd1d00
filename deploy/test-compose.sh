#!/usr/bin/env bash
# Smoke test of docker-compose.yml with the locally built image: brings the 3-node cluster up on other
# host ports (so it does not clash with a running `nova dev`), writes and reads through the nova command,
# shows the cluster status and tears everything down (volumes included).
# Usage: deploy/test-compose.sh     (needs nova:local, docker-compose or `docker compose`, the built cli)
set -euo pipefail
deploy="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$deploy")"
export NOVA_PORT_N1=${NOVA_PORT_N1:-27711} NOVA_PORT_N2=${NOVA_PORT_N2:-27712} NOVA_PORT_N3=${NOVA_PORT_N3:-27713}
export NOVA_HTTP_PORT_N1=${NOVA_HTTP_PORT_N1:-27911} NOVA_HTTP_PORT_N2=${NOVA_HTTP_PORT_N2:-27912}
export NOVA_HTTP_PORT_N3=${NOVA_HTTP_PORT_N3:-27913}
compose="docker-compose"
command -v docker-compose >/dev/null 2>&1 || compose="docker compose"
project=nova-compose-test
cleanup() { $compose -p "$project" -f "$deploy/docker-compose.yml" down -v >/dev/null 2>&1 || true; }
trap cleanup EXIT
$compose -p "$project" -f "$deploy/docker-compose.yml" up -d
nova() {
  java -cp "$root/cli/target/nova-cli.jar:$root/cli/target/lib/*" io.nova.cli.Main \
    --endpoints "127.0.0.1:$NOVA_PORT_N1,127.0.0.1:$NOVA_PORT_N2,127.0.0.1:$NOVA_PORT_N3" "$@"
}
# Every node's HTTP /ready answers 200 once its groups run and know their leaders.
for port in "$NOVA_HTTP_PORT_N1" "$NOVA_HTTP_PORT_N2" "$NOVA_HTTP_PORT_N3"; do
  for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null && break; sleep 1; done
  curl -sf "http://127.0.0.1:$port/ready"; echo
done
for _ in $(seq 1 60); do nova create-basin demo 2>/dev/null && break; sleep 1; done
nova create-stream nova://demo/smoke
printf 'one\ntwo\n' | nova append nova://demo/smoke
out="$(nova read nova://demo/smoke)"
[[ "$out" == $'one\ntwo' ]] || { echo "compose test: read back '$out'" >&2; exit 1; }
curl -sf "http://127.0.0.1:$NOVA_HTTP_PORT_N2/v1/basins/demo/streams/smoke/records/tail"; echo
nova cluster status
echo "compose test: OK"
