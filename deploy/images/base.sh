#!/usr/bin/env bash
# Builds MudJack's base image, a minimal Debian 12 (bookworm) root made with
# debootstrap and imported into podman, since no container registry is
# reachable from the project's machines:
#
#   deploy/images/base.sh [--arch amd64|arm64]   -> localhost/mudjack-base:bookworm-<arch>
#
# The Debian mirror is the one the host's own apt sources name (read from
# /etc/apt/sources.list and /etc/apt/sources.list.d/), and those same source
# entries are copied into the image, so the image reaches Debian's packages
# the way the host does. Likewise the certificate authorities the host adds
# to Debian's (/usr/local/share/ca-certificates, e.g. a TLS-inspecting egress
# proxy's) are added to the image's trust store, so pip inside the build
# reaches the package index the way the host's pip does; --no-host-ca leaves
# them out (do that for images you publish). Needs root, debootstrap and podman
# (deploy/install.sh). A foreign --arch also needs qemu-user-static and
# binfmt support on the host (not available on the project's machines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/../containers.conf}

arch=$(dpkg --print-architecture)
suite=bookworm
host_ca=1
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    --no-host-ca) host_ca=0; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "base.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
tag=localhost/mudjack-base:$suite-$arch
say() { printf 'base: %s\n' "$*" >&2; }

# The host's active apt source files (one-line .list or deb822 .sources).
source_files() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -s "$f" ] && printf '%s\n' "$f"
  done
}

# The first URI the host uses for Debian's main archive of $suite.
host_mirror() {
  local f
  source_files | while read -r f; do
    case $f in
      *.sources)
        awk -v suite="$suite" '
          BEGIN { RS = ""; FS = "\n" }
          {
            uri = ""; ok = 0
            for (i = 1; i <= NF; i++) {
              if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
              if ($i ~ /^Suites:/) { n = split($i, s, /[ \t]+/); for (j = 2; j <= n; j++) if (s[j] == suite) ok = 1 }
              if ($i ~ /^Enabled: *no/) ok = 0
            }
            if (ok && uri != "") { print uri; exit }
          }' "$f" ;;
      *)
        awk -v suite="$suite" '$1 == "deb" && $0 !~ /^#/ {
            for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { uri = $i; if ($(i + 1) == suite) { print uri; exit } else break }
          }' "$f" ;;
    esac
  done | head -n 1
}

# The host's source entries for Debian $suite (main, updates, security),
# to copy into the image.
copy_sources() {
  local root=$1 f n=0
  rm -f "$root/etc/apt/sources.list"
  source_files | while read -r f; do
    if grep -qE "(^|[[:space:]])$suite(-updates|-security)?([[:space:]]|$)" "$f"; then
      n=$((n + 1))
      cp "$f" "$root/etc/apt/sources.list.d/host-$n-$(basename "$f")"
    fi
  done
  ls "$root"/etc/apt/sources.list.d/host-* >/dev/null 2>&1 ||
    { say "no apt source for $suite among the host's"; exit 1; }
}

if podman image exists "$tag"; then
  say "$tag exists (remove it to rebuild: podman rmi $tag)"
  exit 0
fi
command -v debootstrap >/dev/null || { say "debootstrap is missing: run deploy/install.sh"; exit 1; }
[ "$(id -u)" -eq 0 ] || { say "debootstrap needs root"; exit 1; }

mirror=$(host_mirror)
[ -n "$mirror" ] || { say "the host's apt sources name no Debian $suite archive"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/mudjack-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "debootstrap $suite ($arch) from the host's Debian mirror into $work"
start=$(date +%s)
foreign=()
[ "$arch" = "$(dpkg --print-architecture)" ] || foreign=(--foreign)
debootstrap --variant=minbase --arch="$arch" "${foreign[@]}" \
  --include=ca-certificates "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
if [ ${#foreign[@]} -gt 0 ]; then
  chroot "$work/root" /debootstrap/debootstrap --second-stage
fi
copy_sources "$work/root"
if [ "$host_ca" = 1 ] && ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  cp /usr/local/share/ca-certificates/*.crt "$work/root/usr/local/share/ca-certificates/"
  chroot "$work/root" update-ca-certificates >/dev/null
  say "added the host's local CA certificates: $(cd /usr/local/share/ca-certificates && echo *.crt)"
fi
# Smaller and reproducible-ish: no apt lists, caches or logs in the image.
rm -rf "$work/root"/var/lib/apt/lists/* "$work/root"/var/cache/apt/*.bin \
  "$work/root"/var/cache/apt/archives/*.deb "$work/root"/var/log/*.log "$work/root"/debootstrap
tar -C "$work/root" --numeric-owner -c . |
  podman import --arch "$arch" --change 'CMD ["/bin/bash"]' - "$tag" >/dev/null
say "$tag built in $(( $(date +%s) - start )) s"
