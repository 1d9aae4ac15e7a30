#!/usr/bin/env bash
# The models suite on a GPU machine whose system python3 has torch,
# transformers, timm, torchvision, torch_geometric, jax and onnxruntime
# (TensorFlow is not installed there: its cases are unavailable). Keras and
# diffusers come as wheels (WHEELS, pip --target into STATE_DIR/py). Each
# call does what is left of STEPS within SECONDS and stops the run cleanly
# (SIGINT: the run is incomplete and resumes), so consecutive calls on a warm
# machine continue where the last stopped:
#   1. `prebuild`: the corpus step's ONNX exports, and the core models'
#      compiles on cpu and cuda:0, into the build cache, in parallel
#      processes (mudjack cache build), so the runs measure warm builds;
#   2. `corpus`: every model (or CORPUS_FILTER's), eager and onnxruntime, on
#      cpu and cuda:0;
#   3. `core`: the set::core models compiled, amp and train on cpu and cuda:0.
#
#   gpu/gpu-models.sh STATE_DIR SECONDS [WHEELS]
#
# Env: MUDJACK (binary, default build/mudjack); CORPUS_FILTER (a --filter
# regex: finish a corpus another run left incomplete); CASE_TIMEOUT_S (per
# case and per prebuild, default 600: torch 2.11's Inductor did not compile
# swin for the CPU within 900 s on a 2-core VM). STATE_DIR keeps the build
# cache (builds/), the results (results/) and which steps are done.
set -euo pipefail
state=${1:?usage: gpu-models.sh STATE_DIR SECONDS [WHEELS]}
seconds=${2:?usage: gpu-models.sh STATE_DIR SECONDS [WHEELS]}
wheels=${3:-}
bin=${MUDJACK:-build/mudjack}
py=$(command -v python3)
end=$(($(date +%s) + seconds))
mkdir -p "$state"
state=$(cd "$state" && pwd)
export MUDJACK_DATA_DIR=$PWD MUDJACK_BUILD_CACHE=$state/builds
if [ -n "$wheels" ] && [ ! -f "$state/py/.done" ]; then
  "$py" -m pip install -q --no-index --no-deps --find-links "$wheels" --target "$state/py" "$wheels"/*.whl
  touch "$state/py/.done"
fi
export PYTHONPATH=$state/py${PYTHONPATH:+:$PYTHONPATH}
# Also through a .pth in the user site, for children started with a PYTHONPATH of their own.
site=$("$py" -c "import site; print(site.getusersitepackages())")
mkdir -p "$site" && echo "$state/py" >"$site/mudjack-models-extra.pth"
pythons=(--python "torch=$py" --python "jax=$py" --python "numpy=$py" --python "tensorflow=$py")
left() { echo $((end - $(date +%s))); }

# One step: start its run (or resume it) under what time is left; done when it completes.
step() {
  local name=$1
  shift
  [ -f "$state/$name.done" ] && return 0
  [ "$(left)" -gt 30 ] || return 1
  local run=()
  [ -s "$state/$name.run" ] && run=(--resume "$(cat "$state/$name.run")")
  local rc=0
  timeout -s INT "$(left)" "$bin" run "${run[@]}" "$@" --out "$state/results" "${pythons[@]}" \
    >"$state/$name.out" 2>"$state/$name.err" || rc=$?
  if [ ! -s "$state/$name.run" ]; then
    grep -o 'run [0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}' "$state/$name.err" "$state/$name.out" | head -1 |
      awk '{print $2}' >"$state/$name.run" || true
  fi
  tail -n 3 "$state/$name.out" "$state/$name.err"
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then touch "$state/$name.done"; else return 1; fi
}

corpus=(--suite models)
[ -n "${CORPUS_FILTER:-}" ] && corpus+=(--filter "$CORPUS_FILTER")
devices=(--device cpu --device cuda:0)
deadline=(--timeout-s "${CASE_TIMEOUT_S:-600}")
if [ ! -f "$state/prebuild.done" ]; then
  timeout -s INT "$(left)" "$bin" cache build "${corpus[@]}" --mode onnxruntime --jobs 14 "${deadline[@]}" "${pythons[@]}" \
    >"$state/prebuild.out" 2>"$state/prebuild.err" &&
    timeout -s INT "$(left)" "$bin" cache build --suite models --labels set::core --mode compiled \
      "${devices[@]}" --jobs 14 "${deadline[@]}" "${pythons[@]}" >>"$state/prebuild.out" 2>>"$state/prebuild.err" &&
    touch "$state/prebuild.done"
  tail -n 3 "$state/prebuild.out" "$state/prebuild.err"
fi
common=("${devices[@]}" "${deadline[@]}")
step corpus "${corpus[@]}" "${common[@]}" --mode eager,onnxruntime || exit 0
common=(--suite models "${common[@]}")
step core "${common[@]}" --labels set::core --mode compiled,amp,train || exit 0
echo "gpu-models: every step done"
