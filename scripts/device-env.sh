# shellcheck shell=bash
# Sourced by the device-call scripts (gpu-models-call.sh, gpu-timing-call.sh)
# from the repository root on a lent GPU machine, over a copy of the working
# tree with .device/ carried (scripts/device-bundle.sh): makes the copy a
# clean checkout of the bundled commit, so what it runs is publishable, and
# points MUDJACK, MUDJACK_DATA_DIR and the library path at the bundle.
if [ ! -d .git ]; then cp -a .device/gitdir/.git .git; fi
git checkout -qf HEAD && git clean -qfd
echo "tree: $(git rev-parse --short HEAD), $(git status --porcelain | wc -l) paths changed"
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MUDJACK=$PWD/.device/mudjack MUDJACK_DATA_DIR=$PWD
