#!/usr/bin/env bash
# Makes .device/, what a lent GPU machine (Ubuntu, Python 3.12, no Debian
# libraries, no network) needs beside a copy of the working tree to run the
# engine from a clean, committed tree:
#   .device/mudjack   the engine, Release, no tests, no Z3 (not installed
#                     there), stripped; built in build-device/
#   .device/lib/      the shared libraries it links that the machine lacks
#                     (cpp-httplib, re2, toml++), for LD_LIBRARY_PATH
#   .device/wheels/   pure-Python and cp312 wheels the models suite needs
#                     there (keras, diffusers and what they pull in that the
#                     machine lacks), at the pins of envs/current/torch.txt
#   .device/gitdir/   a depth-1, blobless clone of HEAD (its .git only), so
#                     the copy can be made a clean checkout of it
#                     (gpu/gpu-*-call.sh)
#   .device/lib/*.xz  libraries carried compressed (Z3, with
#                     MUDJACK_DEVICE_ENGINE), unpacked by device-env.sh
# The tree must be committed: the runs it makes are published.
#   gpu/device-bundle.sh          then: run ... carry [".device"]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "device-bundle: commit first: the device runs HEAD, and a dirty tree cannot publish" >&2
  exit 2
fi
out=.device
rm -rf "${out:?}/lib"  # a bundle of an earlier commit: its libraries go
mkdir -p "$out/lib" "$out/wheels"
# MUDJACK_DEVICE_ENGINE=build/mudjack: an engine already built from HEAD (the
# tests' RelWithDebInfo build, with Z3, whose library then travels too)
# instead of a Release build of its own: minutes less on a 2-core machine.
engine=${MUDJACK_DEVICE_ENGINE:-}
if [ -z "$engine" ]; then
  cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DMUDJACK_BUILD_TESTS=OFF \
    -DMUDJACK_Z3=OFF -DMUDJACK_WERROR=OFF >/dev/null
  cmake --build build-device -j2 --target mudjack
  engine=build-device/mudjack
elif [ "$engine" -ot "$(git ls-files src | xargs ls -t | head -1)" ]; then
  echo "device-bundle: $engine is older than the newest source: build it first" >&2
  exit 2
fi
strip -o "$out/mudjack" "$engine"
for lib in libcpp-httplib libre2 libtomlplusplus libz3; do
  path=$(ldd "$out/mudjack" | awk -v l="$lib" 'index($1, l) == 1 {print $3}')
  [ -n "$path" ] && cp -L "$path" "$out/lib/"
done
# Z3 is 23 MB: it travels as xz (7 MB), inside the call's 64 MiB.
for big in "$out"/lib/libz3.so*; do
  [ -f "$big" ] && xz -9 -f "$big"
done
wheels=(keras namex optree absl-py diffusers importlib_metadata zipp)
pins=()
for w in "${wheels[@]}"; do
  pins+=("$(grep -i "^${w}==" envs/current/torch.txt)")
done
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --dest "$out/wheels" "${pins[@]}"
rm -rf "$out/gitdir"
# Blobless: the copy's files travel anyway, and `git reset` (device-env.sh)
# needs only the commit and its trees to call them clean (200 KB, not 20 MB).
git clone -q --depth 1 --filter=blob:none --no-checkout \
  --upload-pack="git -c uploadpack.allowFilter=true upload-pack" "file://$PWD" "$out/gitdir"
git rev-parse HEAD >"$out/commit"
echo "device-bundle: $(git rev-parse --short HEAD), $(du -sh "$out" | cut -f1) in $out" >&2
