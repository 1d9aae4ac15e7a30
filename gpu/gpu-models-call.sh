#!/usr/bin/env bash
# One device call of the models runs (gpu/gpu-models.sh), on a lent GPU
# machine, over a copy of the working tree with .device/ carried
# (gpu/device-bundle.sh):
#   gpu/gpu-models-call.sh SECONDS
# Makes the copy a clean checkout of the bundled commit, does what is left of
# the steps within SECONDS (state in build-gpu/, kept between calls on a warm
# machine), and puts in $OUT each step's published run
# (<step>-published.tgz: no raw samples), the machine's description and the
# logs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2034  # read by device-env.sh
state_dir=build-gpu
# shellcheck source=gpu/device-env.sh
. gpu/device-env.sh
gpu/gpu-models.sh "$state" "$secs" "$PWD/.device/wheels"
for step in corpus core; do
  [ -s "$state/$step.run" ] || continue
  run=$(cat "$state/$step.run")
  rm -rf "$state/pub-$step"
  if "$MUDJACK" report --out "$state/results" "$run" --publish "$state/pub-$step" \
    >"$out/$step-publish.txt" 2>&1; then
    tar -C "$state" -czf "$out/$step-published.tgz" "pub-$step"
  fi
  echo "$step: run $run, $([ -f "$state/$step.done" ] && echo complete || echo incomplete)"
done
tar -C "$state" -czf "$out/logs.tgz" --exclude=./results --exclude=./builds --exclude=./py \
  --exclude='./pub-*' . 2>/dev/null
ls -la "$state"
