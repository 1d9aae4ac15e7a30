#!/usr/bin/env bash
# Runs the `paper` suite (or $SUITE: opinfo, jax-primitives) for one
# framework on every device of a GPU machine
# whose system python3 already has the frameworks (torch, jax; TensorFlow is
# reported `unavailable` where it is missing). Resumable: call it again with
# the same RESULTS_DIR and FRAMEWORK and it finishes the interrupted run
# instead of starting a new one. This is how results/ was produced.
#   gpu/gpu-paper.sh RESULTS_DIR FRAMEWORK[,FRAMEWORK] [more `mudjack run` args]
# Env: MUDJACK (binary, default build/mudjack), CHUNK_S (stop cleanly after
# this many seconds, default 540; resume later), SUITE (default paper).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=$1; fws=$2; shift 2
bin=${MUDJACK:-build/mudjack}
py=$(command -v python3)
mkdir -p "$out"
export MUDJACK_DATA_DIR=$PWD
cfg="$out/mudjack.toml"
printf '[python]\nnumpy = "%s"\ntorch = "%s"\njax = "%s"\ntensorflow = "%s"\n' "$py" "$py" "$py" "$py" > "$cfg"
suite=${SUITE:-paper}
key=$(echo "$fws" | tr ',' '-')
[ "$suite" = paper ] || key="$suite-$key"
state="$out/$key.run"
args=(--config "$cfg" --out "$out")
if [ -s "$state" ]; then
  run_id=$(cat "$state")
  done_state=$("$bin" runs "${args[@]}" --json | python3 -c "import json,sys; print(next((r['state'] for r in json.load(sys.stdin) if r['id']=='$run_id'), ''))")
  if [ "$done_state" = complete ]; then echo "run $run_id already finished"; exit 0; fi
  set -- --resume "$run_id" "$@"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/nvidia-smi.csv" 2>&1 || true
"$bin" devices "${args[@]}" > "$out/devices.txt" 2>&1
start=$(date +%s)
timeout -s INT "${CHUNK_S:-540}" "$bin" run "${args[@]}" --suite "$suite" --framework "$fws" "$@" \
  > "$out/$key-stdout.txt" 2> "$out/$key-progress.txt"
rc=$?
if [ ! -s "$state" ]; then
  "$bin" runs "${args[@]}" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['id'])" > "$state"
fi
echo "$key: exit $rc after $(( $(date +%s) - start )) s (run $(cat "$state"))"
exit $rc
