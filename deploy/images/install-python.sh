#!/bin/sh
# Runs inside the image build (runtime stage): installs the Python a profile
# needs from Debian's packages:
#   install-python.sh PROFILE [FRAMEWORK]
# For torch also a C++ compiler and that Python's headers: torch.compile's
# Inductor compiles C++ for the CPU when a case runs (without them every
# compiled case fails with "No working C++ compiler found").
#   current     Debian 12's python3 (3.11)
#   xla         the same (torch_xla 2.9.0 has wheels for Python 3.11)
#   paper-2023  python3.9 from Debian 11 (bullseye): the study's wheels
#               (torch 1.12.1, TensorFlow 2.11, jaxlib 0.4.7) need Python <= 3.10
#               and Debian 12 has none. Bullseye comes from the same archives the
#               image's own apt sources name (copied from the host by base.sh),
#               pinned low so nothing else is taken from it.
#   latest      python3.13 from Debian 13 (trixie): the newest releases (JAX
#               0.12 among them) need Python >= 3.12 and Debian 12 has 3.11.
#               Trixie's Python needs trixie's C library, so apt takes libc6
#               and Python's other dependencies from trixie as well (a newer
#               glibc and libstdc++ still run the engine built on Debian 12).
set -eu
profile=$1
framework=${2:-}

# Adds Debian release $1 from the same archives the image's own apt sources
# name (copied from the host by base.sh), pinned low (priority 100): nothing
# comes from it unless asked for.
add_release() {
  for f in /etc/apt/sources.list.d/host-*; do
    sed "s/\bbookworm\b/$1/g; s/\bbookworm-/$1-/g" "$f" > "/etc/apt/sources.list.d/$1-${f##*/host-}"
  done
  printf 'Package: *\nPin: release n=%s\nPin-Priority: 100\n\nPackage: *\nPin: release n=%s-security\nPin-Priority: 100\n' \
    "$1" "$1" > "/etc/apt/preferences.d/$1"
}

case $profile in
  current|xla)
    apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
    dev="g++ python3-dev"
    ln -sf /usr/bin/python3 /usr/local/bin/mudjack-python ;;
  paper-2023)
    add_release bullseye
    # The python3 packages python3.9-venv needs through python3-distutils
    # (which want python3 < 3.10) are preferred from bullseye. python3.9 itself
    # is bullseye-security's, the only candidate.
    cat >> /etc/apt/preferences.d/bullseye <<'EOF'

Package: python3 python3-minimal libpython3-stdlib python3-distutils python3-lib2to3
Pin: release n=bullseye
Pin-Priority: 600
EOF
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends python3.9 python3.9-venv >/dev/null
    dev="g++ python3.9-dev"
    ln -sf /usr/bin/python3.9 /usr/local/bin/mudjack-python ;;
  latest)
    add_release trixie
    # -t trixie asks for python3.13 and lets apt take what it depends on
    # (libc6 among them) from there.
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends -t trixie python3.13 python3.13-venv >/dev/null
    dev="-t trixie g++ python3.13-dev"
    ln -sf /usr/bin/python3.13 /usr/local/bin/mudjack-python ;;
  *) echo "install-python.sh: unknown profile $profile" >&2; exit 2 ;;
esac
if [ "$framework" = torch ]; then
  # shellcheck disable=SC2086 # $dev is a list of apt arguments
  apt-get install -y -qq --no-install-recommends $dev >/dev/null
  g++ --version | head -1
fi
mudjack-python --version
