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
#                                          #   code paths token prune body
#
# The last five are what a token holder or the operator's own commands could
# do to the server's machine (docs/deploy.md, "What a token holder can and
# cannot do"); each prints one line saying what happened:
#   code:  POST {"suite":"check","params":{"target":"<planted file>:f"}}: is
#          the planted file imported (it writes a marker)?
#   paths: capability's data_dir=/etc, fuzz's graphs=/tmp in a request.
#   token: a case prints and raises what it finds of the token (environment,
#          the token file): does the token reach the results route?
#   prune: 5 runs queued on a busy server, then `cache prune --keep-last 0`:
#          how many of them still finish?
#   body:  a 9000-byte body sent as curl -d sends it: status and message.
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
[ ${#attacks[@]} -gt 0 ] || attacks=(headers slowloris queue resume code paths token prune body)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
token=bench-token-0123456789abcdef
echo "$token" > "$tmp/token"
fixtures=tests/fixtures/suites
auth="Authorization: Bearer $token"

# Starts a server with the arguments given; sets $server and $port.
start_server() {
  local name=$1
  shift
  rm -f "$tmp/port"
  "$bin" serve "$@" --port 0 --port-file "$tmp/port" --token-file "$tmp/token" \
    --out "$tmp/results-$name" 2>"$tmp/serve-$name.log" &
  server=$!
  for _ in $(seq 1200); do
    [ -s "$tmp/port" ] && curl -sf "http://127.0.0.1:$(cat "$tmp/port")/readyz" >/dev/null && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  port=$(cat "$tmp/port" 2>/dev/null || echo 0)
}

stop_server() {
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}

# POST /v1/runs with body $1: "STATUS first 120 characters of the answer".
post() {
  local answer
  answer=$(curl -s -o "$tmp/answer" -w '%{http_code}' -H "$auth" -X POST \
    "http://127.0.0.1:$port/v1/runs" -d "$1")
  echo "$answer $(head -c 120 "$tmp/answer")"
}

request_attack() {
  case $1 in
    code)
      printf 'import os\nopen(%s, "w").write("ran")\ndef f(x):\n    return x\ndef f_inputs():\n    import numpy as np\n    return (np.ones(3, np.float32),)\n' \
        "'$tmp/imported'" >"$tmp/planted.py"
      start_server code --framework numpy
      if [ "$port" = 0 ]; then
        echo "code | server did not start: $(tail -n 1 "$tmp/serve-code.log")"
        return
      fi
      local answer
      answer=$(post "{\"suite\":\"check\",\"params\":{\"target\":\"$tmp/planted.py:f\"}}")
      sleep 5
      echo "code | POST check target=<planted>: $answer | planted file imported: $([ -e "$tmp/imported" ] && echo yes || echo no)"
      stop_server ;;
    paths)
      start_server paths --suite capability --suite-dir "$fixtures/hostile" --framework numpy
      echo "paths | data_dir=/etc: $(post '{"suite":"capability","params":{"data_dir":"/etc"}}')"
      echo "paths | fuzz graphs=/tmp: $(post '{"suite":"fuzz","params":{"graphs":"/tmp"}}')"
      stop_server ;;
    token)
      MUDJACK_TOKEN=$token MUDJACK_LEAK_FILE=$tmp/token start_server token \
        --suite-dir tests/fixtures/suites/leak --framework numpy
      local id
      id=$(curl -sf -H "$auth" -X POST "http://127.0.0.1:$port/v1/runs" -d '{"suite":"leak","budget_ms":5}' |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
      curl -sfN -m 60 -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/events" >/dev/null || true
      local leaks=0
      for format in json csv junit md html; do
        curl -sf -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/results?format=$format" |
          grep -q "$token" && leaks=$((leaks + 1))
      done
      echo "token | views of the results route holding the token: $leaks of 5 | the case saw: $(curl -sf -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/results" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["cases"][0]["error"]["message"][:90])')"
      stop_server ;;
    prune)
      start_server prune --suite-dir "$fixtures/slow" --suite-dir "$fixtures/hostile" --framework numpy
      local ids=()
      for _ in 1 2 3 4 5 6; do
        ids+=("$(curl -sf -H "$auth" -X POST "http://127.0.0.1:$port/v1/runs" -d '{"suite":"hostile","filter":"ok\\.add","budget_ms":300}' |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')")
      done
      "$bin" cache prune --keep-last 0 --out "$tmp/results-prune" >"$tmp/prune.log" 2>&1 || true
      local complete=0
      for id in "${ids[@]}"; do
        curl -sfN -m 120 -H "$auth" "http://127.0.0.1:$port/v1/runs/$id/events" >/dev/null || true
        curl -sf -H "$auth" "http://127.0.0.1:$port/v1/runs/$id" | grep -q '"state":"complete"' &&
          complete=$((complete + 1))
      done
      echo "prune | runs accepted: ${#ids[@]}, complete after prune --keep-last 0: $complete | prune said: $(grep -c removed "$tmp/prune.log") removals"
      stop_server ;;
    body)
      start_server body --suite-dir "$fixtures/hostile" --framework numpy
      local big
      big=$(python3 -c 'print("{\"suite\":\"hostile\",\"filter\":\"" + "x" * 9000 + "\"}")')
      echo "body | 9000-byte body by curl -d: $(post "$big")"
      # A compression bomb: 50 MB of JSON gzipped to about 50 KB, under the
      # body limit; inflated it would be 50 MB inside the server.
      python3 -c 'import gzip,sys; sys.stdout.buffer.write(gzip.compress(b"{\"suite\":\"hostile\",\"filter\":\"" + b"x" * 50_000_000 + b"\"}"))' >"$tmp/bomb.gz"
      local status
      status=$(curl -s -o "$tmp/answer" -w '%{http_code}' -H "$auth" -H 'Content-Encoding: gzip' \
        -H 'Content-Type: application/json' -X POST --data-binary @"$tmp/bomb.gz" \
        "http://127.0.0.1:$port/v1/runs")
      echo "body | $(stat -c %s "$tmp/bomb.gz")-byte gzip bomb (50 MB inflated): $status $(head -c 120 "$tmp/answer") | server RSS after: $(($(awk '/VmHWM/ {print $2}' "/proc/$server/status") / 1024)) MB peak"
      stop_server ;;
  esac
}

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(uname -r); $("$bin" --version 2>/dev/null | head -1)"
for attack in "${attacks[@]}"; do
  case $attack in
    code | paths | token | prune | body)
      request_attack "$attack"
      continue ;;
  esac
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
