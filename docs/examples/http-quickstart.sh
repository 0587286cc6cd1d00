#!/usr/bin/env bash
# The README's HTTP example, runnable: Nova's HTTP/JSON API with nothing but curl (docs/http-api.md is the
# reference). Needs a fresh cluster with the basin "demo", as `./nova dev` starts one; talks to node 1 of
# `./nova dev` (http://127.0.0.1:7901) unless given another node's base URL as $1. Stops with a non-zero
# exit at the first unexpected answer (curl --fail-with-body, grep). CurlQuickstartTest runs it verbatim.
set -euo pipefail
NOVA=${1:-http://127.0.0.1:7901}

# --- README example begins ---
# Create a stream in the basin "demo".
curl -sS --fail-with-body -X POST "$NOVA/v1/basins/demo/streams" -d '{"stream":"http-demo"}'; echo
# Append two records: the answer says where they landed (start, end) and the new tail.
curl -sS --fail-with-body -X POST "$NOVA/v1/basins/demo/streams/http-demo/records" \
  -d '{"records":[{"body":"hello"},{"body":"world","headers":[["lang","en"]]}]}'; echo
# Read them back, and check the tail.
curl -sS --fail-with-body "$NOVA/v1/basins/demo/streams/http-demo/records?seq_num=0"; echo
curl -sS --fail-with-body "$NOVA/v1/basins/demo/streams/http-demo/records/tail"; echo
# Optimistic concurrency: this append expects the tail at 0, but it is 2. It fails with
# 412 sequence_mismatch and the committed tail; nothing is appended.
curl -sS -X POST "$NOVA/v1/basins/demo/streams/http-demo/records" \
  -d '{"records":[{"body":"late"}],"match_seq_num":0}' | grep '"code":"sequence_mismatch".*"tail":{"seq_num":2'
# Pessimistic concurrency: install a fencing token, then append presenting it.
curl -sS --fail-with-body -X PUT "$NOVA/v1/basins/demo/streams/http-demo/fence" -d '{"fencing_token":"gen-1"}'; echo
curl -sS --fail-with-body -X POST "$NOVA/v1/basins/demo/streams/http-demo/records" \
  -d '{"records":[{"body":"owned"}],"fencing_token":"gen-1"}'; echo
# Follow the stream as Server-Sent Events: one event per record (id: seq_num). With count=3 it ends
# after three records; without it, it keeps tailing (Ctrl-C to stop).
curl -sS --fail-with-body -N -H 'Accept: text/event-stream' \
  "$NOVA/v1/basins/demo/streams/http-demo/records?seq_num=0&count=3"
# --- README example ends ---
