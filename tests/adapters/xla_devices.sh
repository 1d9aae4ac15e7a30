#!/usr/bin/env bash
# Device naming with the real frameworks: the JAX adapter under a faked TPU
# platform (jax_tpu_names.py; `tpu`), or torch_xla's discovery on this CPU
# through PJRT (`xla`: the xla profile's environment; exit 77 without it).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
case "$1" in
  tpu)
    python="$cache/envs/jax-current-$(sha256sum envs/current/jax.txt | cut -c1-16)/bin/python"
    [ -x "$python" ] || { echo "no jax environment at $python" >&2; exit 77; }
    PYTHONPATH=probe exec "$python" tests/adapters/jax_tpu_names.py ;;
  xla)
    mudjack=$2
    env="$cache/envs/torch-xla-$(sha256sum envs/xla/torch.txt | cut -c1-16)"
    [ -f "$env/.mudjack-complete" ] || { echo "no xla environment: MUDJACK_PROFILE=xla MUDJACK_FRAMEWORKS=torch scripts/install.sh" >&2; exit 77; }
    out=$(PJRT_DEVICE=CPU "$mudjack" devices --profile xla --framework torch)
    echo "$out"
    grep -E '^xla:0 .*PJRT CPU' <<<"$out" >/dev/null || { echo "torch_xla's xla:0 (PJRT CPU) not listed" >&2; exit 1; } ;;
esac
