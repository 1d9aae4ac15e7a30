#!/usr/bin/env bash
# Every fuzz backend (docs/fuzz.md) against the NumPy float64 reference on the
# fixture graphs (tests/fixtures/fuzz/graphs: every op, float16, float32,
# float64 and int32), with each framework's real environment on this
# machine's cpu, one framework after another: the materializers' CTest. Prints
# one line per (graph, backend), then a table per framework. Exits 1 when a
# backend disagrees (an output beyond the oracle's bound, integers that differ,
# an exception) and tests/fixtures/fuzz/expected.txt does not list it as a
# known finding of that backend; else 77 (skipped) when a framework's
# environment is missing (the others still run; the missing ones are named).
#   tests/adapters/fuzz_backends.sh [FRAMEWORK...]   (default: all five)
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
frameworks=("$@")
[ ${#frameworks[@]} -gt 0 ] || frameworks=(numpy torch jax tensorflow onnxruntime)
graphs=(tests/fixtures/fuzz/graphs/*.json)
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

summary=() failed=0 missing=()
for fw in "${frameworks[@]}"; do
  env="$cache/envs/$fw-current-$(sha256sum "envs/current/$fw.txt" | cut -c1-16)"
  if [ ! -f "$env/.mudjack-complete" ]; then
    summary+=("$(printf '%-12s  %s' "$fw" "skipped: no environment at $env (scripts/install.sh builds it)")")
    missing+=("$fw")
    continue
  fi
  status=0
  PYTHONPATH=probe "$env/bin/python" -m mudjack_probe.fuzz check "${graphs[@]}" --framework "$fw" \
    --expect tests/fixtures/fuzz/expected.txt >"$log/$fw.txt" 2>"$log/$fw.err" || status=$?
  cat "$log/$fw.txt"
  if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "fuzz_backends: $fw: the check itself failed (exit $status):" >&2
    tail -20 "$log/$fw.err" >&2
    failed=1
    summary+=("$(printf '%-12s  %s' "$fw" "the check failed (exit $status)")")
    continue
  fi
  [ "$status" -eq 0 ] || failed=1
  agree=$(grep -c '  agrees  ' "$log/$fw.txt" || true)
  known=$(grep -c '  expected  ' "$log/$fw.txt" || true)
  differ=$(grep -cE '  (DIFFERS|RAISES)  ' "$log/$fw.txt" || true)
  backends=$(awk 'length($1) == 16 && NF > 3 {print $3}' "$log/$fw.txt" | sort -u | paste -sd, -)
  summary+=("$(printf '%-12s  %-32s  %7s  %6s  %8s' "$fw" "$backends" "$agree" "$known" "$differ")")
done

echo
printf '%-12s  %-32s  %7s  %6s  %8s\n' framework backends agree known disagree
printf '%s\n' "${summary[@]}"
echo "graphs: ${#graphs[@]}"
[ "$failed" -eq 0 ] || exit 1
if [ ${#missing[@]} -gt 0 ]; then
  echo "SKIPPED: no environment for ${missing[*]} (scripts/install.sh builds them)" >&2
  exit 77
fi
exit 0
