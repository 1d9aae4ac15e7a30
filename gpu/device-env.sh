# shellcheck shell=bash
# Sourced by the device-call scripts (gpu-models-call.sh, gpu-timing-call.sh)
# from the repository root on a lent GPU machine, over a copy of the working
# tree with .device/ carried (gpu/device-bundle.sh): makes the copy a
# clean checkout of the bundled commit, so what it runs is publishable;
# points MUDJACK, MUDJACK_DATA_DIR and the library path at the bundle; sets
# `py` (the system python3, which has the frameworks), `secs` (the calling
# script's first argument), `out` ($OUT) and `state` (the folder the caller
# names in `state_dir`, kept between calls on a warm machine), and describes
# the machine into $OUT (nvidia-smi.csv, devices.txt).
# shellcheck disable=SC2034  # the calling script reads it
secs=${1:?usage: $0 SECONDS}
out=${OUT:?OUT: the folder whose files come back}
# The copy may arrive with a .git of its own (another commit's): the bundle's
# clone replaces it, so what runs is the commit the engine was built from.
rm -rf .git && cp -a .device/gitdir/.git .git
# The clone is blobless: `reset` fills the index from HEAD's trees, and the
# copy's own files are what status compares with them (no blob is fetched).
git reset -q && git clean -qfd
for packed in .device/lib/*.xz; do  # python3's lzma: xz itself may be absent there
  [ -f "$packed" ] && python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as a, open(sys.argv[1][:-3], "wb") as b:
    shutil.copyfileobj(a, b)' "$packed" && rm -f "$packed"
done
state=$PWD/${state_dir:?state_dir: the calling script sets it}
mkdir -p "$state"
echo "tree: $(git rev-parse --short HEAD), $(git status --porcelain | wc -l) paths changed"
if [ "$(git rev-parse HEAD)" != "$(cat .device/commit 2>/dev/null)" ]; then
  echo "device-env: the checkout is not the commit .device/mudjack was built from; rebuild the bundle" >&2
  exit 2
fi
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MUDJACK=$PWD/.device/mudjack MUDJACK_DATA_DIR=$PWD
py=$(command -v python3)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >"$out/nvidia-smi.csv" 2>&1
"$MUDJACK" devices --python "torch=$py" --python "jax=$py" >"$out/devices.txt" 2>&1

# The bundle's wheels (Keras, diffusers: some models need them) installed
# once into $state/py and put on the path, also through a .pth in the user
# site for children started with a PYTHONPATH of their own.
bundle_wheels() {
  if [ ! -f "$state/py/.done" ]; then
    "$py" -m pip install -q --no-index --no-deps --find-links .device/wheels --target "$state/py" \
      .device/wheels/*.whl && touch "$state/py/.done"
  fi
  export PYTHONPATH=$state/py${PYTHONPATH:+:$PYTHONPATH}
  local site
  site=$("$py" -c "import site; print(site.getusersitepackages())")
  mkdir -p "$site" && echo "$state/py" >"$site/mudjack-models-extra.pth"
}
