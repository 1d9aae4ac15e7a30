#!/usr/bin/env bash
# CTest models_prebuild (label `adapters`): `mudjack cache build` fills the
# build cache for a run, through the real binary and torch probe on this
# machine's cpu, with one tiny model (resnet18 at 64x64):
#   - a device the framework does not see is one line naming it, exit 2;
#   - SIGINT mid-build exits 130 and leaves no process behind (the probe's
#     worker processes included), and so does SIGKILL;
#   - a build past --timeout-s is given up with that reason, and the command
#     goes on (exit 0);
#   - the ONNX export and the compiled case are built, in two processes;
#   - the run that follows reuses the export (build_reused) and finds its
#     compile in Inductor's cache: no new FX graph is written, and both
#     cases pass, measured.
# Exit 77 (skipped, never passed) when the torch environment
# (scripts/install.sh) is absent.
#   tests/adapters/models_prebuild.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
# shellcheck source=tests/adapters/common.sh
. tests/adapters/common.sh
skip_without_env torch
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export MUDJACK_BUILD_CACHE="$out/builds"
sel=(--suite models --labels set::tiny --filter '^torch/resnet18/' --mode compiled --mode onnxruntime
  --param height=64 --param width=64)

rc=0
"$bin" cache build "${sel[@]}" --device nosuch:0 >"$out/bad.out" 2>"$out/bad.err" || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "^mudjack: error: .*cannot use device nosuch:0" "$out/bad.err" ||
  [ "$(grep -c . "$out/bad.err")" -gt 2 ]; then
  echo "cache build --device nosuch:0: exit $rc, expected 2 and one line naming the device:" >&2
  cat "$out/bad.err" >&2
  exit 1
fi

# Interrupted mid-compile: exit 130, and no process that had this cache.
MUDJACK_BUILD_CACHE="$out/interrupted" "$bin" cache build "${sel[@]}" --mode compiled --jobs 1 \
  >"$out/int.out" 2>"$out/int.err" &
pid=$!
sleep 8
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [ "$rc" -ne 130 ]; then
  echo "cache build after SIGINT: exit $rc, expected 130:" >&2
  cat "$out/int.err" >&2
  exit 1
fi
sleep 1
left=$(grep -l "MUDJACK_BUILD_CACHE=$out/interrupted" /proc/[0-9]*/environ 2>/dev/null || true)
if [ -n "$left" ]; then
  echo "cache build after SIGINT left processes behind: $left" >&2
  exit 1
fi
# Killed outright (SIGKILL, no cleanup of its own): the probe and its
# workers still go (PR_SET_PDEATHSIG down the chain).
MUDJACK_BUILD_CACHE="$out/killed" "$bin" cache build "${sel[@]}" --mode compiled --jobs 2 \
  >"$out/kill.out" 2>"$out/kill.err" &
pid=$!
sleep 8
kill -KILL "$pid"
wait "$pid" || true
sleep 2
left=$(grep -l "MUDJACK_BUILD_CACHE=$out/killed" /proc/[0-9]*/environ 2>/dev/null || true)
if [ -n "$left" ]; then
  echo "cache build after SIGKILL left processes behind: $left" >&2
  exit 1
fi

# A compile (tens of seconds here) past a 2 s deadline: given up, named, exit 0.
MUDJACK_BUILD_CACHE="$out/deadline" "$bin" cache build "${sel[@]}" --mode compiled --jobs 1 --timeout-s 2 \
  >"$out/deadline.out" 2>"$out/deadline.err" || {
  echo "cache build --timeout-s 2 failed:" >&2
  cat "$out/deadline.err" >&2
  exit 1
}
grep -q "^timeout .*torch/resnet18/float32-b1-64x64-compiled not built within 2 s" "$out/deadline.out" || {
  echo "cache build --timeout-s 2 did not give up the compile with its reason:" >&2
  cat "$out/deadline.out" "$out/deadline.err" >&2
  exit 1
}

"$bin" cache build "${sel[@]}" --jobs 2 >"$out/build.out" 2>"$out/build.err" || {
  echo "cache build failed:" >&2
  cat "$out/build.err" "$out/build.out" >&2
  exit 1
}
for stage in compiled onnxruntime; do
  grep -q "^built .* cpu .*torch/resnet18/float32-b1-64x64-$stage" "$out/build.out" || {
    echo "cache build did not build the $stage case:" >&2
    cat "$out/build.out" "$out/build.err" >&2
    exit 1
  }
done
graphs() { find "$MUDJACK_BUILD_CACHE/torchinductor/fxgraph" -type f 2>/dev/null | sort; }
graphs >"$out/graphs-before.txt"
[ -s "$out/graphs-before.txt" ] || { echo "cache build left no Inductor FX graph in the cache" >&2; exit 1; }

mkdir -p "$out/run"
run_into "$bin" "$out/run" "${sel[@]}" --device cpu --budget-ms 2 --rounds 1 --timeout-s 600
graphs >"$out/graphs-after.txt"
if ! diff -u "$out/graphs-before.txt" "$out/graphs-after.txt" >&2; then
  echo "the run compiled its model again (new FX graphs above): the prebuilt compile was not reused" >&2
  exit 1
fi
python3 - "$out/run" <<'PY'
import glob, json, sys

doc = json.load(open(glob.glob(f"{sys.argv[1]}/runs/*/results.json")[0], encoding="utf-8"))
rows = {r["stage"]: r for r in doc.get("models", [])}
problems = []
if set(rows) != {"compiled", "onnxruntime"}:
    problems.append(f"model rows {sorted(rows)}, expected compiled and onnxruntime")
for stage, r in sorted(rows.items()):
    if r["outcome"] != "pass" or r["median_ns"] is None:
        problems.append(f"{stage}: {r['outcome']} {r['error']}, median {r['median_ns']}")
if rows.get("onnxruntime", {}).get("build_reused") is not True:
    problems.append(f"onnxruntime: build_reused {rows.get('onnxruntime', {}).get('build_reused')}, expected the prebuilt export")
if problems:
    sys.exit("models_prebuild:\n  " + "\n  ".join(problems))
print("models_prebuild: export and compile prebuilt, both reused by the run and measured")
PY
