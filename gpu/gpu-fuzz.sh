#!/usr/bin/env bash
# A fuzz campaign on a GPU machine whose system python3 already has the
# frameworks (torch, jax, onnxruntime; TensorFlow is left out: not installed
# there), over cpu and cuda:0, resumable across calls: the first call starts
# the campaign, each later one resumes it for another BUDGET.
#
#   gpu/gpu-fuzz.sh STATE_DIR BUDGET [extra mudjack fuzz flags for the first call]
#
# Env: MUDJACK (binary, default build/mudjack). The campaign's id is kept in
# STATE_DIR/campaign; results (store and campaign folder) in STATE_DIR/results.
set -euo pipefail
state=${1:?usage: gpu-fuzz.sh STATE_DIR BUDGET [flags]}
budget=${2:?usage: gpu-fuzz.sh STATE_DIR BUDGET [flags]}
shift 2
bin=${MUDJACK:-build/mudjack}
py=$(command -v python3)
export MUDJACK_DATA_DIR=$PWD
mkdir -p "$state"
pythons=(--python "numpy=$py" --python "torch=$py" --python "jax=$py" --python "onnxruntime=$py")
if [ -s "$state/campaign" ]; then
  "$bin" fuzz --resume "$(cat "$state/campaign")" --budget "$budget" --out "$state/results" \
    "${pythons[@]}" || [ $? -eq 1 ]
else
  "$bin" fuzz --budget "$budget" --backends numpy,torch,torch-compile,jax,jax-jit,onnxruntime \
    --out "$state/results" "${pythons[@]}" "$@" 2> >(tee "$state/first.err" >&2) || [ $? -eq 1 ]
  for dir in "$state"/results/fuzz/fz-*; do basename "$dir" > "$state/campaign"; done
fi
