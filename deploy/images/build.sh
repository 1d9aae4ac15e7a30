#!/usr/bin/env bash
# Builds MudJack's container images with podman:
#
#   deploy/images/build.sh [--profile current|paper-2023|latest|xla] [--arch amd64|arm64]
#                          [--engine PATH] [--push REGISTRY] VARIANT...
#   deploy/images/build.sh --list
#
# VARIANT is <framework>-<accelerator> from deploy/images/variants.txt
# (numpy-cpu, torch-cuda, jax-tpu, ...; torch-tpu exists only for --profile
# xla, torch_xla 2.9 with torch 2.9). Each becomes
#   localhost/mudjack:<variant>-<profile>-<arch>
# and, with --push, REGISTRY/mudjack:<variant>-<profile>-<arch> is tagged and
# pushed. The Debian 12 base image is built first with debootstrap when it
# is missing (deploy/images/base.sh). Variants whose vendor wheels live outside
# PyPI need MUDJACK_PIP_EXTRA_INDEX_URL or MUDJACK_PIP_FIND_LINKS in the
# environment (the pin file says which index); the build refuses to start
# without it, in one line, before anything is built. (The host's own PIP_*
# settings never reach the image.)
#
# --engine PATH puts an engine already built from this tree on a Debian 12
# host of the same architecture (build/mudjack) in the image instead of
# compiling one in stage 1, which takes most of an hour on two cores; it is
# stripped on the way in. Runs record their source tree either way.
#
# Podman reads deploy/containers.conf (runc, ulimits, host network) unless
# CONTAINERS_CONF is set. RUN steps use the host network.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/deploy/containers.conf}

profile=current
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
push=""
engine=""
variants=()
say() { printf 'build: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --profile) profile=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --push) push=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    --list) grep -v '^#' "$here/variants.txt"; exit 0 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) variants+=("$1"); shift ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || die "name at least one variant (--list shows them)"
case $profile in current|paper-2023|latest|xla) ;; *) die "unknown profile $profile" ;; esac
command -v podman >/dev/null || die "podman is missing: run deploy/install.sh"

# The build context: only what the image needs, copied from the working tree
# (uncommitted changes included), so build/ and results never travel.
context=$(mktemp -d "${TMPDIR:-/var/tmp}/mudjack-context.XXXXXX")
trap 'rm -rf "$context"' EXIT
copied=(CMakeLists.txt src bench tools probe suites schemas envs intolerable.toml deploy/images)
(cd "$root" && cp -r --parents "${copied[@]}" "$context"/)
find "$context" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$context/prebuilt"
if [ -n "$engine" ]; then
  [ -x "$engine" ] || die "--engine $engine is not an executable"
  strip -o "$context/prebuilt/mudjack" "$engine"
  say "engine: $engine ($("$engine" --version 2>&1 | head -1)), not compiled here"
else
  : >"$context/prebuilt/mudjack"  # the unused engine-prebuilt stage's COPY finds a file
fi
revision=$(git -C "$root" describe --always --dirty --tags 2>/dev/null || echo unknown)
# source.json: the commit and whether what the image copies (the paths
# above) differed from it, tracked or untracked; runs in the image record it.
if commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
  changed=$(git -C "$root" status --porcelain=v1 --untracked-files=all -- "${copied[@]}" | head -1 | cut -c4-)
  if [ -n "$changed" ]; then state="true, \"changed\": \"$changed\""; else state="false, \"changed\": null"; fi
  printf '{"commit": "%s", "dirty": %s}\n' "$commit" "$state"
else
  printf '{"commit": null, "dirty": null, "why_unknown": "the image was built from a tree without git"}\n'
fi >"$context/source.json"

# Every variant is checked before anything is built: a variant that cannot be
# built here (wrong profile or architecture, a vendor index not given) stops
# the build with one line.
profiles=(current paper-2023 latest xla)
for variant in "${variants[@]}"; do
  row=$(awk -v v="$variant" '$1 == v' "$here/variants.txt")
  [ -n "$row" ] || die "unknown variant $variant (--list shows them)"
  read -r _ arches needs_row <<<"$row"
  read -r -a needs <<<"$needs_row"
  need="" has=""
  for i in "${!profiles[@]}"; do
    [ "${profiles[$i]}" != "$profile" ] || need=${needs[$i]:-unpinned}
    case ${needs[$i]:-unpinned} in unsupported|unpinned) ;; *) has="$has${has:+, }${profiles[$i]}" ;; esac
  done
  [[ ",$arches," == *",$arch,"* ]] || die "$variant is built for $arches, not $arch"
  [ "$need" != unsupported ] || die "$variant has no $profile build (its profiles: ${has:-none}): see deploy/images/variants.txt"
  [ "$need" != unpinned ] || die "$variant has no $profile pins (its profiles: ${has:-none}): see deploy/images/variants.txt"
  if [ "$need" != - ] && [ -z "${!need:-}" ]; then
    die "$variant ($profile) needs $need: the vendor's wheel index named in deploy/images/pins/$profile/$variant.txt"
  fi
done

"$here/base.sh" --arch "$arch"
base=localhost/mudjack-base:bookworm-$arch

for variant in "${variants[@]}"; do
  framework=${variant%-*} accel=${variant##*-}
  tag=localhost/mudjack:$variant-$profile-$arch
  say "$tag"
  start=$(date +%s)
  podman build --format docker --network host --arch "$arch" \
    -f "$here/Containerfile" -t "$tag" \
    --build-arg BASE="$base" --build-arg FRAMEWORK="$framework" --build-arg ACCEL="$accel" \
    --build-arg PROFILE="$profile" --build-arg REVISION="$revision" \
    --build-arg ENGINE="$([ -n "$engine" ] && echo prebuilt || echo source)" \
    --build-arg PIP_EXTRA_INDEX_URL="${MUDJACK_PIP_EXTRA_INDEX_URL:-}" \
    --build-arg PIP_FIND_LINKS="${MUDJACK_PIP_FIND_LINKS:-}" \
    "$context"
  size=$(podman image inspect --format '{{.Size}}' "$tag")
  say "$tag built in $(( $(date +%s) - start )) s, $(( size / 1000000 )) MB"
  if [ -n "$push" ]; then
    podman tag "$tag" "$push/mudjack:$variant-$profile-$arch"
    podman push "$push/mudjack:$variant-$profile-$arch"
  fi
done
