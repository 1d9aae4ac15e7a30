#!/usr/bin/env bash
# Installs what building and running MudJack's images needs on a Debian 12
# machine, from Debian's packages: podman with the runc runtime (the project's
# machines can't run crun), debootstrap (the base image; no registry is
# reachable), fuse-overlayfs and uidmap (rootless use), slirp4netns.
# Idempotent. Then use deploy/images/build.sh and deploy/images/smoke.sh,
# which point podman at deploy/containers.conf.
set -euo pipefail
packages=(podman runc debootstrap fuse-overlayfs uidmap slirp4netns curl)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'deploy/install.sh: Debian packages: %s\n' "${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
CONTAINERS_CONF="$(cd "$(dirname "$0")" && pwd)/containers.conf" podman info \
  --format 'podman {{.Version.Version}}: runtime {{.Host.OCIRuntime.Name}}, storage {{.Store.GraphDriverName}}'
