#!/usr/bin/env bash
# The capability suite on a GPU machine whose system python3 has torch, jax
# and flax (no environment to build): run 1 at the default sizes on every
# device (cpu and cuda:0, serial lanes), run 2 the big matmuls on cuda:0.
# Run from a folder holding a stripped mudjack, libtomlplusplus.so.3,
# probe/ and suites/capability/ (the data folder); results go to $OUT.
#   gpu/gpu-capability.sh   (copied beside the binary, as FOLDER/gpu-cap.sh)
cd "$(dirname "$0")" || exit 1
export LD_LIBRARY_PATH=$PWD MUDJACK_DATA_DIR=$PWD PYTHONUNBUFFERED=1
py=$(command -v python3)
printf '[python]\nnumpy = "%s"\ntorch = "%s"\njax = "%s"\n' "$py" "$py" "$py" > mudjack.toml
out=${OUT:-/tmp/out}; mkdir -p "$out"
{ ./mudjack devices; nvidia-smi -L; nproc; lscpu | grep 'Model name'; } > "$out/devices.txt" 2>&1
s=$(date +%s)
timeout -s INT 185 ./mudjack run --suite capability --framework numpy,torch,jax --serial --out /tmp/r1 > "$out/run1.txt" 2>&1
echo "run1 exit $? after $(( $(date +%s) - s )) s" >> "$out/devices.txt"
s=$(date +%s)
timeout -s INT 75 ./mudjack run --suite capability --framework torch,jax --device cuda:0 --filter '/xla/' \
  --param matrix_size=4096,8192 --serial --out /tmp/r2 > "$out/run2.txt" 2>&1
echo "run2 exit $? after $(( $(date +%s) - s )) s" >> "$out/devices.txt"
for r in r1 r2; do
  # shellcheck disable=SC2012  # newest by mtime; run ids are plain [0-9a-z-] names
  run=$(ls -t "/tmp/$r/runs" 2>/dev/null | head -1); [ -n "$run" ] || continue
  cp "/tmp/$r/runs/$run/summary.md" "$out/$r-summary.md"
  gzip -c "/tmp/$r/runs/$run/results.json" > "$out/$r-results.json.gz"
done
