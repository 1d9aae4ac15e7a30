#!/bin/sh
# Runs inside the image build (runtime stage): builds the one framework
# environment of this image where the engine looks for it,
#   $MUDJACK_CACHE_DIR/envs/<framework>-<profile>-<first 16 hex of sha256(pin file)>
# (the layout scripts/install.sh uses), from
#   $MUDJACK_DATA_DIR/envs/<profile>/<framework>.txt              exact pins (cpu), and
#   $MUDJACK_DATA_DIR/deploy/images/pins/<profile>/<framework>-<accel>.txt  the accelerator's
#       exact pins per the vendor's documented install, installed *instead* of the
#       cpu file when present (it pins the same framework version).
# Records what pip resolved in <env>/pip-freeze.txt.
set -eu
fw=$1 accel=$2 profile=$3
data=$MUDJACK_DATA_DIR
pins=$data/envs/$profile/$fw.txt
[ -f "$pins" ] || { echo "install-framework.sh: no pin file $pins" >&2; exit 2; }
hash=$(sha256sum "$pins" | cut -c1-16)
env=$MUDJACK_CACHE_DIR/envs/$fw-$profile-$hash
req=$pins
if [ "$accel" != cpu ]; then
  req=$data/deploy/images/pins/$profile/$fw-$accel.txt
  [ -f "$req" ] || { echo "install-framework.sh: no $accel pins for $fw ($profile): $req" >&2; exit 2; }
fi
# An empty build argument must not reach pip as an empty URL.
[ -n "${PIP_EXTRA_INDEX_URL:-}" ] || unset PIP_EXTRA_INDEX_URL
[ -n "${PIP_FIND_LINKS:-}" ] || unset PIP_FIND_LINKS
mudjack-python -m venv "$env"
"$env/bin/python" -m pip install -q --no-input -r "$req"
# (PIP_EXTRA_INDEX_URL / PIP_FIND_LINKS, when a variant needs them, come from
# the build arguments of the same names, which pip reads from the environment.)
"$env/bin/python" -m pip freeze > "$env/pip-freeze.txt"
"$env/bin/python" -c 'import platform; print(platform.python_version())' > "$env/.mudjack-complete"
# The probe itself needs numpy in every environment.
"$env/bin/python" -c 'import numpy; print("numpy", numpy.__version__)'
echo "$fw ($accel, $profile): $(wc -l < "$env/pip-freeze.txt") packages in $env"
