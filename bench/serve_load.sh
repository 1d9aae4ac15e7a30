#!/usr/bin/env bash
# Load benchmark of `mudjack serve` on loopback: requests per second and
# latency percentiles of GET /v1/runs/{id}/results and GET /metrics, with the
# server's own listening socket (backlog 4096) and with the backlog of 5 that
# Debian's cpp-httplib compiles in (--backlog 5 reproduces it).
#
# Two clients: bench/http_load (C++, latency includes connect, so a dropped
# SYN's retransmit shows) in keep-alive mode and in connection-per-request
# mode, and Debian's wrk (keep-alive) when installed.
#
#   bench/serve_load.sh [SECONDS] [CONCURRENCY]     # defaults 8 and 256
#
# The --backlog 5 connection-per-request runs take minutes, not SECONDS: a
# client whose SYN was dropped retries after 1, 3, 7, 15 ... seconds, and the
# measurement ends when its last request does. Results of one run:
# bench/results/serve-load-2cpu.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-8}
conc=${2:-256}
build=${BUILD:-build}
cmake --build "$build" --target mudjack http_load -j2 >/dev/null
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
token=bench-token-0123456789abcdef
echo "$token" > "$tmp/token"
fixtures=tests/fixtures/suites

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(uname -r); ${seconds}s per measurement"
for backlog in 4096 5; do
  rm -f "$tmp/port"
  "$build/mudjack" serve --suite-dir "$fixtures/hostile" --framework numpy --port 0 \
    --port-file "$tmp/port" --token-file "$tmp/token" --out "$tmp/results-$backlog" \
    --backlog "$backlog" --threads 64 2>"$tmp/serve-$backlog.log" &
  server=$!
  for _ in $(seq 200); do
    [ -s "$tmp/port" ] && curl -sf "http://127.0.0.1:$(cat "$tmp/port")/readyz" >/dev/null && break
    sleep 0.1
  done
  port=$(cat "$tmp/port")
  auth="Authorization: Bearer $token"
  id=$(curl -sf -H "$auth" -X POST "http://127.0.0.1:$port/v1/runs" \
    -d '{"suite":"hostile","filter":"ok\\.|garbage_stdout","budget_ms":5}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  curl -sfN -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/events" >/dev/null
  bytes=$(curl -sf -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/results" | wc -c)
  echo "## backlog $backlog (results.json of run $id: $bytes bytes)"
  for path in "/v1/runs/$id/results" /metrics; do
    for mode in keepalive close; do
      c=$conc
      [ "$mode" = keepalive ] && c=64
      "$build/http_load" --port "$port" --path "$path" --token "$token" --concurrency "$c" \
        --seconds "$seconds" --mode "$mode"
    done
    if command -v wrk >/dev/null; then
      wrk -t2 -c64 -d"${seconds}s" --latency -H "$auth" "http://127.0.0.1:$port$path" |
        awk -v p="$path" '/Requests\/sec/ {rps=$2} /^ +99%/ {p99=$2} /Non-2xx/ {bad=$NF}
          END {printf "{\"client\":\"wrk\",\"path\":\"%s\",\"connections\":64,\"requests_per_s\":%s,\"p99\":\"%s\",\"non_2xx\":%s}\n", p, rps, p99, bad==""?0:bad}'
    fi
  done
  kill -TERM "$server"
  wait "$server" || true
done
