#!/usr/bin/env bash
# ctest with the given arguments, failing when a test that is not opt-in
# reports itself skipped. Opt-in labels (their tests may skip, saying why):
# `container` (needs podman and a locally built image, MUDJACK_CONTAINER_TESTS=1),
# `xla` (the xla profile's torch_xla environment; scripts/test.sh leaves it out).
#   scripts/ctest-no-skips.sh --test-dir DIR [more ctest arguments...]
set -uo pipefail
if [ "${1:-}" != --test-dir ] || [ -z "${2:-}" ]; then
  echo "usage: scripts/ctest-no-skips.sh --test-dir DIR [ctest arguments...]" >&2
  exit 2
fi
opt_in_labels=(container xla)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"
# ctest's summary lists each skipped test as "<n> - <name> (Skipped)".
mapfile -t skipped < <(sed -n 's/^[[:space:]]*[0-9]\+ - \(.*\) (Skipped)$/\1/p' "$log")
bad=()
for name in "${skipped[@]}"; do
  labels=$(ctest "${@:1:2}" -N -R "^${name}\$" --show-only=json-v1 2>/dev/null |
    python3 -c 'import json,sys; t=json.load(sys.stdin)["tests"]; print(" ".join(l for x in t for p in x.get("properties", []) if p["name"]=="LABELS" for l in p["value"]))')
  optin=0
  for l in $labels; do
    for o in "${opt_in_labels[@]}"; do [ "$l" = "$o" ] && optin=1; done
  done
  [ "$optin" -eq 1 ] || bad+=("$name")
done
if [ "${#bad[@]}" -gt 0 ]; then
  echo "ctest-no-skips: ${#bad[@]} test(s) that must run were skipped: ${bad[*]} (the reason is in its output above)" >&2
  exit 1
fi
exit 0
