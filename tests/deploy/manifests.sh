#!/usr/bin/env bash
# CTest deploy_manifests (no argument) and deploy_manifests_mutations
# (--mutations): renders deploy/k8s with `kubectl kustomize` and validates it
# offline (tests/deploy/check_manifests.py), or proves that check catches
# broken manifests (tests/deploy/mutations.py). Python and kubernetes-validate
# come from the tools environment scripts/install.sh builds from
# tests/deploy/requirements.txt. Exit 77 (skipped) when kubectl is absent.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
pins=tests/deploy/requirements.txt
env="$cache/envs/tools-$(sha256sum "$pins" | cut -c1-16)"
if [ ! -f "$env/.mudjack-complete" ]; then
  echo "no tools environment at $env (scripts/install.sh builds it from $pins)" >&2
  exit 1
fi
if ! command -v kubectl >/dev/null; then
  echo "SKIPPED: kubectl is not installed, so the manifests cannot be rendered" >&2
  exit 77
fi
if ! kubectl kustomize --help >/dev/null 2>&1; then
  echo "SKIPPED: this kubectl ($(command -v kubectl)) has no built-in kustomize" >&2
  exit 77
fi
script=tests/deploy/check_manifests.py
[ "${1:-}" = --mutations ] && script=tests/deploy/mutations.py
exec "$env/bin/python" "$script"
