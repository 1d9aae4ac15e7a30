#!/usr/bin/env bash
# CTest deploy_container_smoke (label `container`): runs deploy/images/smoke.sh
# against the locally built numpy cpu image. Opt-in: set
# MUDJACK_CONTAINER_TESTS=1. Exits 77 (skipped), saying why, when it is not
# opted in, podman is missing, or the image has not been built.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/containers.conf}
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
image=${MUDJACK_SMOKE_IMAGE:-localhost/mudjack:numpy-cpu-current-$arch}
if [ "${MUDJACK_CONTAINER_TESTS:-0}" != 1 ]; then
  echo "SKIPPED: container test is opt-in (MUDJACK_CONTAINER_TESTS=1; needs podman and $image)"
  exit 77
fi
if ! command -v podman >/dev/null; then
  echo "SKIPPED: podman is not installed (deploy/install.sh installs it)"
  exit 77
fi
if ! podman image exists "$image"; then
  echo "SKIPPED: image $image is not built (deploy/images/build.sh numpy-cpu)"
  exit 77
fi
exec deploy/images/smoke.sh "$image"
