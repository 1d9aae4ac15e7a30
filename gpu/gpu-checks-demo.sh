#!/usr/bin/env bash
# On a CUDA machine whose system python3 has torch: the device-state and
# unverified demonstrations of docs/design.md, with MudJack's own output.
#   gpu/gpu-checks-demo.sh OUT_DIR
# 1. tests/fixtures/suites/cuda on cuda:0: a device-side assert, then ten
#    ordinary cases (which must pass), with the cpu baseline run beside it.
# 2. The same suite's planted wrong GPU answer with --no-baseline: unverified.
# 3. report --publish of the first run (refused from a dirty tree).
# Env: MUDJACK (binary, default build/mudjack).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=$1
bin=${MUDJACK:-build/mudjack}
mkdir -p "$out"
export MUDJACK_DATA_DIR=$PWD
py=$(command -v python3)
cfg="$out/mudjack.toml"
printf '[python]\nnumpy = "%s"\ntorch = "%s"\njax = "%s"\n' "$py" "$py" "$py" > "$cfg"
suite=tests/fixtures/suites/cuda
"$bin" run --config "$cfg" --out "$out/with-baseline" --suite-dir "$suite" --framework torch \
  --device cuda:0 --budget-ms 20 > "$out/with-baseline.txt" 2>&1
echo "with baseline: exit $?"
"$bin" run --config "$cfg" --out "$out/no-baseline" --suite-dir "$suite" --framework torch \
  --device cuda:0 --no-baseline --filter planted --budget-ms 20 > "$out/no-baseline.txt" 2>&1
echo "no baseline: exit $?"
"$bin" report --config "$cfg" --out "$out/with-baseline" latest --publish "$out/published" \
  > "$out/publish.txt" 2>&1
echo "publish: exit $?"
git status --porcelain=v1 > "$out/git-status.txt" 2>&1
echo "git status: exit $? ($(wc -l < "$out/git-status.txt") lines)"
