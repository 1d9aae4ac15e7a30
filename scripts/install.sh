#!/usr/bin/env bash
# Installs everything MudJack needs on this machine, then builds it:
#   1. Debian packages for the engine and its tests (apt-get, as root or via sudo;
#      chromium renders report.html in the tests);
#   2. one Python environment per framework (pip without its wheel cache: the
#      torch wheels alone are GBs), from the exact pins in
#      envs/$MUDJACK_PROFILE/<framework>.txt, cached outside the checkout at
#      $MUDJACK_CACHE_DIR/envs/<framework>-<profile>-<sha256 of pins, 16 hex>
#      so every clone on the machine reuses them;
#   3. the tools environments, cached the same way: the deploy tests'
#      (tests/deploy/requirements.txt: offline Kubernetes schema validation) at
#      $MUDJACK_CACHE_DIR/envs/tools-<sha256 of pins, 16 hex>, and the Python
#      linters' (tests/lint-requirements.txt: ruff, mypy) at .../envs/lint-<hash>;
#   4. build/mudjack with CMake.
# torch on XLA devices (torch_xla pins torch 2.9.0) is the profile `xla`,
# built only on request: MUDJACK_PROFILE=xla MUDJACK_FRAMEWORKS=torch.
# Idempotent: what is already there is kept. A framework whose environment
# cannot be installed is reported and skipped; its cases run as `unavailable`.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${MUDJACK_PROFILE:-current}
frameworks=${MUDJACK_FRAMEWORKS:-numpy torch jax tensorflow onnxruntime}
python=${MUDJACK_PYTHON:-python3}
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}

say() { printf 'install: %s\n' "$*" >&2; }

packages=(g++ cmake make pkg-config git nlohmann-json3-dev libsqlite3-dev libcli11-dev
  libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libre2-dev libz3-dev zlib1g-dev
  python3 python3-venv clang-format clang-tidy shellcheck chromium wrk ccache)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

mkdir -p "$cache/envs"
for fw in $frameworks; do
  pins="envs/$profile/$fw.txt"
  if [ ! -f "$pins" ]; then
    # a profile that pins only some frameworks (xla: torch) builds those
    [ -z "${MUDJACK_FRAMEWORKS:-}" ] && continue
    say "no pin file $pins"; exit 2
  fi
  hash=$(sha256sum "$pins" | cut -c1-16)
  dir="$cache/envs/$fw-$profile-$hash"
  if [ -f "$dir/.mudjack-complete" ]; then
    continue
  fi
  say "$fw ($profile): building $dir from $pins"
  tmp="$dir.partial.$$"
  rm -rf "$tmp"
  "$python" -m venv "$tmp"
  if "$tmp/bin/python" -m pip install -q --no-input --no-cache-dir -r "$pins"; then
    "$tmp/bin/python" -c 'import platform; print(platform.python_version())' > "$tmp/.mudjack-complete"
    rm -rf "$dir"
    mv "$tmp" "$dir"
  else
    say "$fw: pip could not install $pins; its cases will be reported unavailable"
    rm -rf "$tmp"
  fi
done

# Tools for the deploy tests and the Python linters, independent of the
# framework profile: NAME:PINS:what fails without them.
for tool in "tools:tests/deploy/requirements.txt:the deploy_manifests tests" \
  "lint:tests/lint-requirements.txt:scripts/lint-python.sh"; do
  IFS=: read -r name pins needed_by <<<"$tool"
  dir="$cache/envs/$name-$(sha256sum "$pins" | cut -c1-16)"
  [ -f "$dir/.mudjack-complete" ] && continue
  say "$name: building $dir from $pins"
  tmp="$dir.partial.$$"
  rm -rf "$tmp"
  "$python" -m venv "$tmp"
  if "$tmp/bin/python" -m pip install -q --no-input --no-cache-dir -r "$pins"; then
    touch "$tmp/.mudjack-complete"
    rm -rf "$dir"
    mv "$tmp" "$dir"
  else
    say "$name: pip could not install $pins; $needed_by will fail"
    rm -rf "$tmp"
  fi
done

# kubectl renders the deployment manifests in the deploy tests. Neither
# Debian's archive nor PyPI offers a Linux build of it, so it is not installed
# here; scripts/test.sh fails, naming the test, where it is missing.
if ! command -v kubectl >/dev/null; then
  say "kubectl is not installed: the deploy tests (deploy_manifests*) cannot run and scripts/test.sh will fail on them; install kubectl from your Kubernetes packages"
fi

# The engine only (what the main job needs); scripts/test.sh
# builds the tests.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target mudjack
