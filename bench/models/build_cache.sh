#!/usr/bin/env bash
# The build cache's benchmark: the same models' compiled and onnxruntime
# stages run twice on one device, the first time into an empty build cache
# (every ONNX export made, every torch.compile cold), the second time reusing
# it. Prints, per case and in all, the build phase of each run — an
# onnxruntime case's build_s (export, or loading the cached export) and a
# compiled case's cold call less its median (the compile) — and the ratio;
# every case is measured both times.
#
#   bench/models/build_cache.sh BINARY DEVICE [mudjack run selection flags]
#   e.g. bench/models/build_cache.sh build/mudjack cpu --labels set::tiny
#
# Env: OUT (a folder to keep; default a temporary one), extra `mudjack run`
# flags via the arguments (e.g. --python torch=/usr/bin/python3 on a GPU machine).
set -euo pipefail
bin=${1:?usage: build_cache.sh BINARY DEVICE [flags]}
device=${2:?usage: build_cache.sh BINARY DEVICE [flags]}
shift 2
out=${OUT:-$(mktemp -d)}
mkdir -p "$out/cold" "$out/warm"
export MUDJACK_BUILD_CACHE="$out/builds"
rm -rf "$MUDJACK_BUILD_CACHE"
for pass in cold warm; do
  start=$(date +%s.%N)
  "$bin" run --suite models --framework torch --device "$device" --no-baseline \
    --mode compiled,onnxruntime --rounds 1 "$@" --out "$out/$pass" >"$out/$pass/stdout.txt" 2>"$out/$pass/stderr.txt" || true
  echo "$pass run: $(echo "$(date +%s.%N) - $start" | bc) s wall" >>"$out/walls.txt"
done
python3 - "$out" <<'PY'
import glob, json, sys

out = sys.argv[1]
def phases(folder):
    doc = json.load(open(glob.glob(f"{out}/{folder}/runs/*/results.json")[0], encoding="utf-8"))
    got = {}
    for r in doc.get("models", []):
        if r["stage"] == "onnxruntime" and r["build_s"] is not None:
            got[r["case"]] = ("export", r["build_s"], r["median_ns"])
        elif r["stage"] == "compiled" and r["cold_ns"] is not None and r["median_ns"] is not None:
            got[r["case"]] = ("compile", (r["cold_ns"] - r["median_ns"]) / 1e9, r["median_ns"])
    return got

cold, warm = phases("cold"), phases("warm")
print(f"{'case':64} {'what':8} {'cold s':>8} {'warm s':>8} {'ratio':>7}  measured both times")
total_c = total_w = 0.0
for case in sorted(cold):
    what, c, _ = cold[case]
    if case not in warm:
        print(f"{case:64} {what:8} {c:8.2f} {'-':>8}")
        continue
    w, median = warm[case][1], warm[case][2]
    total_c += c
    total_w += w
    print(f"{case:64} {what:8} {c:8.2f} {w:8.2f} {c / max(w, 1e-3):7.1f}  {'yes' if median else 'NO'}")
print(f"{'build phase, all cases':64} {'':8} {total_c:8.2f} {total_w:8.2f} {total_c / max(total_w, 1e-3):7.1f}")
print(open(f"{out}/walls.txt").read().strip())
PY
