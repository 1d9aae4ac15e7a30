#!/bin/sh
# Runs inside the image build (runtime stage): installs the Python a profile
# needs from Debian's packages.
#   current     Debian 12's python3 (3.11)
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
case $profile in
  current)
    apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
    ln -sf /usr/bin/python3 /usr/local/bin/mudjack-python ;;
  paper-2023)
    for f in /etc/apt/sources.list.d/host-*; do
      sed 's/\bbookworm\b/bullseye/g; s/\bbookworm-/bullseye-/g' "$f" \
        > "/etc/apt/sources.list.d/paper-bullseye-${f##*/host-}"
    done
    # Nothing comes from bullseye unless asked for (priority 100), except the
    # python3 packages python3.9-venv needs through python3-distutils (which
    # want python3 < 3.10): those are preferred from bullseye. python3.9 itself
    # is bullseye-security's, the only candidate.
    cat > /etc/apt/preferences.d/paper-bullseye <<'EOF'
Package: *
Pin: release n=bullseye
Pin-Priority: 100

Package: *
Pin: release n=bullseye-security
Pin-Priority: 100

Package: python3 python3-minimal libpython3-stdlib python3-distutils python3-lib2to3
Pin: release n=bullseye
Pin-Priority: 600
EOF
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends python3.9 python3.9-venv >/dev/null
    ln -sf /usr/bin/python3.9 /usr/local/bin/mudjack-python ;;
  latest)
    for f in /etc/apt/sources.list.d/host-*; do
      sed 's/\bbookworm\b/trixie/g; s/\bbookworm-/trixie-/g' "$f" \
        > "/etc/apt/sources.list.d/latest-trixie-${f##*/host-}"
    done
    # Nothing comes from trixie unless asked for (priority 100); -t trixie
    # asks for python3.13 and lets apt take what it depends on (libc6 among
    # them) from there.
    cat > /etc/apt/preferences.d/latest-trixie <<'EOF'
Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: *
Pin: release n=trixie-security
Pin-Priority: 100
EOF
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends -t trixie python3.13 python3.13-venv >/dev/null
    ln -sf /usr/bin/python3.13 /usr/local/bin/mudjack-python ;;
  *) echo "install-python.sh: unknown profile $profile" >&2; exit 2 ;;
esac
mudjack-python --version
