#!/usr/bin/env bash
# The version axis: the `paper` suite on this machine's CPU under three
# profiles of framework releases, then what changed between them.
#
#   studies/version-axis/version-axis.sh OUT [FRAMEWORK...]     (default: torch jax tensorflow)
#
#   paper-2023  the study's releases (envs/paper-2023/), in the image
#               localhost/mudjack:<framework>-cpu-paper-2023-<arch>
#   current     this checkout's pins (envs/current/), on the host with this
#               checkout's suites and probe (scripts/install.sh builds them)
#   latest      the newest releases (envs/latest/), in the image
#               localhost/mudjack:<framework>-cpu-latest-<arch>
#
# A missing image is built first, with this checkout's engine
# (deploy/images/build.sh --engine build/mudjack; deploy/install.sh installs
# podman). Containers run with no network (--network none) and the
# engine inside them writes to OUT/<profile>/, a results folder of its own.
# Each (profile, framework) is one run, listed in OUT/runs.tsv when it
# completes; running the script again skips those, so an interrupted axis
# resumes. The runs are serial: one at a time, every core to it, so their
# timings compare. Then studies/version-axis/version-axis.py OUT writes OUT/axis.json
# (mudjack compare between the profiles, function by function).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
[ $# -ge 1 ] || { echo "usage: studies/version-axis/version-axis.sh OUT [FRAMEWORK...]" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
frameworks=("$@")
[ ${#frameworks[@]} -gt 0 ] || frameworks=(torch jax tensorflow)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/deploy/containers.conf}
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
mudjack=$root/build/mudjack
[ -x "$mudjack" ] || { echo "version-axis: $mudjack is missing: run scripts/install.sh" >&2; exit 2; }
say() { printf 'version-axis: %s\n' "$*" >&2; }
touch "$out/runs.tsv"

done_already() { awk -v p="$1" -v f="$2" '$1 == p && $2 == f' "$out/runs.tsv" | grep -q .; }

# The run id from the engine's last lines ("run ID (complete): ...").
run_id() { sed -n 's/^run \([0-9a-f-]*\) (complete).*/\1/p' "$1" | tail -1; }

for profile in paper-2023 current latest; do
  mkdir -p "$out/$profile"
  for fw in "${frameworks[@]}"; do
    if done_already "$profile" "$fw"; then say "$profile $fw: done"; continue; fi
    log=$out/$profile/$fw.log
    start=$(date +%s)
    if [ "$profile" = current ]; then
      say "$profile $fw: on the host"
      MUDJACK_DATA_DIR=$root "$mudjack" run --suite paper --framework "$fw" --device cpu --profile current \
        --out "$out/$profile" >"$log" 2>&1 || true
    else
      image=localhost/mudjack:$fw-cpu-$profile-$arch
      if ! podman image exists "$image"; then
        say "$profile $fw: building $image"
        deploy/images/build.sh --engine "$mudjack" --profile "$profile" "$fw-cpu"
      fi
      say "$profile $fw: in $image"
      chmod 777 "$out/$profile"
      podman run --rm --network none -v "$out/$profile:/results" \
        --entrypoint /opt/mudjack/bin/mudjack "$image" \
        run --config /etc/mudjack/mudjack.toml --suite paper --framework "$fw" --device cpu \
        --out /results >"$log" 2>&1 || true
    fi
    id=$(run_id "$log")
    if [ -z "$id" ]; then
      say "$profile $fw: the run did not complete; last lines of $log:"
      tail -5 "$log" >&2
      continue
    fi
    printf '%s\t%s\t%s\t%s\n' "$profile" "$fw" "$id" "$(( $(date +%s) - start ))" >>"$out/runs.tsv"
    say "$profile $fw: run $id in $(( $(date +%s) - start )) s"
  done
done
python3 studies/version-axis/version-axis.py "$out"
