#!/usr/bin/env bash
# One device call of the timing-agreement measurement (bench/agreement,
# docs/design.md "Measuring latency honestly") on a lent GPU machine whose
# system python3 has torch and jax, over a copy of the working tree with
# .device/ carried (gpu/device-bundle.sh):
#   gpu/gpu-timing-call.sh SECONDS
# Consecutive calls on one warm machine (state in build-timing/) do, in turn:
#   a, b    the torch and JAX paper suites on cpu and cuda:0, each run stopped
#           cleanly after SECONDS (the wall-time target is 600 s) and
#           published into $OUT (a.tgz, b.tgz: results.json.gz without raw
#           samples, summary.md), then `agreement.py pair` of the two;
#   timers  `agreement.py timers` on cuda:0 (MudJack against CUDA events,
#           torch.utils.benchmark and timeit) twice, back to back
#           (timers-a.txt, timers-b.txt), and `agreement.py repeat` of the
#           two (repeat.txt: each timer's own run-to-run agreement); then
#           the capability suite (numpy, torch, jax on cpu and cuda:0,
#           stopped after SECONDS) published as capability.tgz.
# Always in $OUT: nvidia-smi.csv, devices.txt, and each step's log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2034  # read by device-env.sh
state_dir=build-timing
# shellcheck source=gpu/device-env.sh
. gpu/device-env.sh

publish() {  # publish NAME: the run in $state/NAME into $out/NAME.tgz
  local name=$1 run
  run=$(grep -o 'run [0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}' "$state/$name.err" | head -1 | awk '{print $2}')
  [ -n "$run" ] || { echo "$name: no run id in its log"; return 1; }
  rm -rf "$state/pub-$name"
  "$MUDJACK" report --out "$state/$name" "$run" --publish "$state/pub-$name" >"$state/$name-publish.txt" 2>&1 || {
    cat "$state/$name-publish.txt"
    return 1
  }
  gzip -f "$state/pub-$name/results.json"
  tar -C "$state/pub-$name" -czf "$out/$name.tgz" results.json.gz summary.md
}

for name in a b; do
  [ -f "$state/$name.done" ] && continue
  start=$(date +%s)
  timeout -s INT "$secs" "$MUDJACK" run --framework torch,jax --device cpu --device cuda:0 \
    --python "torch=$py" --python "jax=$py" --out "$state/$name" >"$state/$name.out" 2>"$state/$name.err"
  echo "run $name: exit $?, $(($(date +%s) - start)) s; $(grep -c '^\[' "$state/$name.err") cases"
  touch "$state/$name.done"
  publish "$name"
  cp "$state/$name.err" "$out/$name-progress.txt"
  if [ "$name" = b ]; then
    "$py" bench/agreement/agreement.py pair "$state/a" "$state/b" >"$out/pair.txt" 2>&1
    tail -n 4 "$out/pair.txt"
  fi
  exit 0
done
if [ ! -f "$state/timers.done" ]; then
  for t in a b; do  # twice, back to back: each timer's own run-to-run agreement
    "$py" bench/agreement/agreement.py timers --mudjack "$MUDJACK" --device cuda:0 --python "$py" \
      --out "$state/timers-$t" --json-out "$state/timers-$t.json" >"$out/timers-$t.txt" 2>&1
    echo "timers $t: exit $?"
  done
  "$py" bench/agreement/agreement.py repeat "$state/timers-a.json" "$state/timers-b.json" >"$out/repeat.txt" 2>&1
  touch "$state/timers.done"
  tail -n 4 "$out/timers-a.txt"
  cat "$out/repeat.txt"
  start=$(date +%s)
  timeout -s INT "$secs" "$MUDJACK" run --suite capability --framework numpy,torch,jax --device cpu --device cuda:0 \
    --python "numpy=$py" --python "torch=$py" --python "jax=$py" --out "$state/capability" \
    >"$state/capability.out" 2>"$state/capability.err"
  echo "capability: exit $?, $(($(date +%s) - start)) s"
  publish capability
  cp "$state/capability.err" "$out/capability-progress.txt"
  exit 0
fi
echo "gpu-timing: every step done"
