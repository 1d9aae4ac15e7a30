#!/usr/bin/env bash
# Runs the paper suite and the benchmarks on a machine whose system Python
# already has the frameworks (e.g. a GPU box with torch and jax), using a
# prebuilt mudjack binary. Writes a small bundle of results to OUTDIR.
#   gpu/gpu-run.sh MUDJACK_BINARY OUTDIR [extra mudjack run args]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bin=$1; out=$2; shift 2
py=$(command -v python3)
export MUDJACK_DATA_DIR=$PWD
results=${MUDJACK_RESULTS:-/tmp/mudjack-gpu-results}
# A config file, so every mudjack started below (bench/run.py too) uses this interpreter.
printf '[python]\nnumpy = "%s"\ntorch = "%s"\njax = "%s"\n' "$py" "$py" "$py" > mudjack.toml
mkdir -p "$out"
"$bin" devices > "$out/devices.txt" 2>&1
nvidia-smi >> "$out/devices.txt" 2>&1 || true
start=$(date +%s)
timeout "${PAPER_TIMEOUT_S:-420}" "$bin" run --suite paper --out "$results" "$@" \
  > "$out/paper-stdout.txt" 2> "$out/paper-progress.txt"
echo "paper exit $? after $(( $(date +%s) - start )) s" >> "$out/paper-stdout.txt"
# shellcheck disable=SC2012  # newest by mtime; run ids are plain [0-9a-z-] names
run=$(ls -t "$results/runs" | head -1)
cp "$results/runs/$run/summary.md" "$out/" 2>/dev/null
gzip -c "$results/runs/$run/results.json" > "$out/results.json.gz"
for mode in ${BENCH_MODES-parallel serial}; do
  flag=""; [ "$mode" = serial ] && flag=--serial
  timeout "${BENCH_TIMEOUT_S:-120}" python3 bench/run.py --mudjack "$bin" --out "/tmp/mudjack-bench-$mode" \
    $flag --json-out "$out/bench-$mode.json" > /dev/null 2>> "$out/bench-stderr.txt"
  echo "bench $mode exit $?" >> "$out/paper-stdout.txt"
done
