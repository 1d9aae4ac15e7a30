#!/usr/bin/env bash
# One device call of the published GPU evidence (results/README.md, issue
# "evidence v3") on a lent GPU machine whose system python3 has torch and
# jax, over a copy of the working tree with .device/ carried
# (gpu/device-bundle.sh):
#   gpu/gpu-evidence-call.sh SECONDS
# Consecutive calls on one warm machine (state in build-evidence/) do what is
# left of these steps, in order, within SECONDS; a step stopped by the clock
# (SIGINT: the run is incomplete) resumes in the next call:
#   paper       the paper suite, torch and JAX, on cpu and cuda:0 (the headline)
#   capability  the capability suite, numpy, torch and JAX, on cpu and cuda:0
#   core        ten set::core models (CORE below) compiled, amp and train on
#               cpu and cuda:0, their compiles prebuilt first in parallel
#   missed      the 15 models the 2026-11-27 corpus run never reached on its
#               cpu (MISSED below), eager, on cpu
# Each step's run is published into $OUT/<step>.tgz (results.json.gz without
# raw samples, summary.md) at the end of every call, complete or not; always
# in $OUT too: nvidia-smi.csv, devices.txt, log.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2034  # read by device-env.sh
state_dir=build-evidence
# shellcheck source=gpu/device-env.sh
. gpu/device-env.sh
CORE='^torch/(resnext|convnext|vit|deeplabv3|roberta|gpt2|t5|llama|wav2vec2|gcn)/'
MISSED='^torch/(unet-2d|unet-2d-condition|unispeech|vgg|vit|vovnet|vq-model|wav2vec2|wavlm|whisper|wide-resnet|xcit|xglm|xlnet|yolos)/'
end=$(($(date +%s) + secs))
left() { echo $((end - $(date +%s))); }
pythons=(--python "torch=$py" --python "jax=$py" --python "numpy=$py")
export MUDJACK_BUILD_CACHE=$state/builds
bundle_wheels

step() {  # step NAME RUN-ARGS...: start or resume NAME's run within what is left
  local name=$1 rc=0 resume=()
  shift
  [ -f "$state/$name.done" ] && return 0
  [ "$(left)" -gt 20 ] || return 1
  [ -s "$state/$name.run" ] && resume=(--resume "$(cat "$state/$name.run")")
  local start
  start=$(date +%s)
  timeout -s INT "$(left)" "$MUDJACK" run "${resume[@]}" "$@" "${pythons[@]}" --out "$state/runs" \
    >>"$state/$name.out" 2>>"$state/$name.err" || rc=$?
  if [ ! -s "$state/$name.run" ]; then
    grep -o 'run [0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}' "$state/$name.err" | head -1 | awk '{print $2}' >"$state/$name.run"
  fi
  echo "$name: exit $rc after $(($(date +%s) - start)) s, $(grep -c '^\[' "$state/$name.err") progress lines"
  # 0: complete; 1: complete with --fail-on or a suite error; 130: stopped by the clock.
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then touch "$state/$name.done"; else return 1; fi
}

publish() {  # publish NAME: NAME's run, complete or not, into $out/NAME.tgz
  local name=$1 run
  [ -s "$state/$name.run" ] || return 0
  run=$(cat "$state/$name.run")
  rm -rf "$state/pub-$name"
  if "$MUDJACK" report --out "$state/runs" "$run" --publish "$state/pub-$name" >"$state/$name-publish.txt" 2>&1; then
    gzip -f "$state/pub-$name/results.json"
    tar -C "$state/pub-$name" -czf "$out/$name.tgz" results.json.gz summary.md
    echo "$name: run $run published, $([ -f "$state/$name.done" ] && echo complete || echo incomplete)"
  else
    cat "$state/$name-publish.txt"
  fi
}

{
  step paper --suite paper --framework torch,jax --device cpu --device cuda:0 &&
    step capability --suite capability --framework numpy,torch,jax --device cpu --device cuda:0 &&
    {
      [ -f "$state/prebuild.done" ] || [ "$(left)" -le 60 ] ||
        { timeout -s INT "$(left)" "$MUDJACK" cache build --suite models --filter "$CORE" --mode compiled \
          --device cpu --device cuda:0 --jobs 14 --timeout-s 300 "${pythons[@]}" \
          >"$state/prebuild.out" 2>"$state/prebuild.err" && touch "$state/prebuild.done"
        tail -n 3 "$state/prebuild.out" "$state/prebuild.err"; }
      step core --suite models --filter "$CORE" --mode compiled,amp,train --device cpu --device cuda:0 --timeout-s 300
    } &&
    step missed --suite models --filter "$MISSED" --mode eager --device cpu --timeout-s 300 &&
    echo "gpu-evidence: every step done"
  for name in paper capability core missed; do publish "$name"; done
  for name in paper capability core missed; do
    [ -f "$state/$name.err" ] && tail -n 2 "$state/$name.err" | sed "s/^/$name: /"
  done
} 2>&1 | tee "$out/log.txt"
