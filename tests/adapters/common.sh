# shellcheck shell=bash
# Shared by the adapter CTests (adapter_case.sh, surface_slice.sh); sourced
# from the repository root.

# Exit 77 (skipped, never passed) when FRAMEWORK's environment
# (scripts/install.sh, same hash rule as mudjack) is absent.
skip_without_env() {
  local framework=$1 cache env
  cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
  env="$cache/envs/$framework-current-$(sha256sum "envs/current/$framework.txt" | cut -c1-16)"
  if [ ! -f "$env/.mudjack-complete" ]; then
    echo "SKIPPED: no $framework environment at $env (scripts/install.sh builds it)" >&2
    exit 77
  fi
}

# `BINARY run ARGS... --out OUT`, its output kept in OUT; on failure its
# stderr is shown and the test exits 1.
run_into() {
  local bin=$1 out=$2
  shift 2
  "$bin" run "$@" --out "$out" >"$out/stdout.txt" 2>"$out/stderr.txt" || {
    echo "mudjack run failed:" >&2
    cat "$out/stderr.txt" >&2
    exit 1
  }
}
