#!/usr/bin/env bash
# Attacks on `mudjack serve` over loopback (bench/serve_attacks.cpp says what
# each one sends): a fresh server per attack, 16 HTTP workers, the numpy
# fixture suites. Per attack, one line: the server's resident memory idle
# and at its peak, the median and worst latency of GET /healthz and of an
# authenticated GET /v1/runs/{id} asked every 200 ms during the attack
# (failed: no 200 within 5 s), what the attacker got, and how long the
# server took to stop on SIGTERM afterwards.
#
#   bench/serve_attacks.sh [ATTACK...]     # default: headers slowloris queue resume
#
# MUDJACK=path/to/mudjack compares another build (the same attacks, the same
# client); with SERVE_ATTACKS=path/to/serve_attacks too, nothing is built. Targets: peak RSS less than 100 MB above idle, both probes within
# 1 s throughout, the server stopping within seconds. Results before and
# after the front door: bench/results/serve-attacks-2cpu.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bin=${MUDJACK:-$build/mudjack}
attacker=${SERVE_ATTACKS:-$build/serve_attacks}
if [ -z "${MUDJACK:-}" ] || [ -z "${SERVE_ATTACKS:-}" ]; then
  cmake --build "$build" --target mudjack serve_attacks -j2 >/dev/null
fi
attacks=("$@")
[ ${#attacks[@]} -gt 0 ] || attacks=(headers slowloris queue resume)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
token=bench-token-0123456789abcdef
echo "$token" > "$tmp/token"
fixtures=tests/fixtures/suites
auth="Authorization: Bearer $token"

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(uname -r); $("$bin" --version 2>/dev/null | head -1)"
for attack in "${attacks[@]}"; do
  rm -f "$tmp/port"
  "$bin" serve --suite-dir "$fixtures/hostile" --suite-dir "$fixtures/slow" --framework numpy \
    --port 0 --port-file "$tmp/port" --token-file "$tmp/token" --out "$tmp/results-$attack" \
    --threads 16 2>"$tmp/serve-$attack.log" &
  server=$!
  for _ in $(seq 300); do
    [ -s "$tmp/port" ] && curl -sf "http://127.0.0.1:$(cat "$tmp/port")/readyz" >/dev/null && break
    sleep 0.1
  done
  port=$(cat "$tmp/port")
  id=$(curl -sf -H "$auth" -X POST "http://127.0.0.1:$port/v1/runs" \
    -d '{"suite":"hostile","filter":"ok\\.add","budget_ms":5}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  curl -sfN -m 60 -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/events" >/dev/null
  line=$("$attacker" --attack "$attack" --port "$port" --pid "$server" \
    --token "$token" --run "$id" --suite slow)
  start=$(date +%s.%N)
  kill -TERM "$server"
  (sleep 60 && kill -KILL "$server" 2>/dev/null) &
  watchdog=$!
  code=0
  wait "$server" || code=$?
  kill "$watchdog" 2>/dev/null || true
  stop=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
  echo "$line | SIGTERM: exit $code after ${stop} s"
done
