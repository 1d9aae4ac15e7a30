#!/usr/bin/env bash
# Runs a MudJack image for real with podman and checks that its API answers
# from inside the container on 127.0.0.1; then does the same with the local
# kustomize overlay through `podman kube play`, and runs the sweep Job's
# command in a container against two servers.
#
#   deploy/images/smoke.sh [IMAGE [IMAGE2]]
#   (IMAGE defaults to localhost/mudjack:numpy-cpu-current-<arch>, IMAGE2 to IMAGE)
#
# 0. `mudjack doctor` and `mudjack devices` in a container of IMAGE: its
#    framework is ready, cpu is listed, and the image's accelerator is either
#    listed or, where this host lacks it, named absent with the reason
#    (`accelerators_absent`: no TPU chip, no NVIDIA driver).
# 1. `podman run --network host` (never podman's bridge network), server bound
#    to 127.0.0.1 on a free port, token from the environment: /healthz and
#    /readyz open; /v1/info 401 without or with a wrong token, 200 with it,
#    naming the image's framework as available on the cpu device; one real run
#    of a few cases through POST /v1/runs, its results fetched; the image's
#    HEALTHCHECK passes; the server runs as uid 10001 and listens on
#    127.0.0.1 only; SIGTERM stops it with exit status 0.
# 2. `kubectl kustomize deploy/k8s/overlays/local | podman kube play`: the
#    rendered ConfigMap and Deployment, the token from a podman secret for the
#    Deployment's secretKeyRef, the port moved off 8080 to a free one (image,
#    profile and framework set to IMAGE's); /healthz, /readyz and /v1/info answer on
#    127.0.0.1; `podman kube down` removes it.
# 3. The sweep Job's container command (`mudjack sweep --targets FILE --out
#    DIR`, as deploy/k8s/sweep runs it; podman plays no Jobs) run with podman
#    on the host network against two servers from IMAGE and IMAGE2 (default
#    IMAGE), its output on a mounted folder, the run on their cpu devices: the
#    sweep completes both targets and the merged results hold each target's
#    cpu device.
# Exit 0 when everything holds; 1 with the first failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/deploy/containers.conf}
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
image=${1:-localhost/mudjack:numpy-cpu-current-$arch}
image2=${2:-$image}
name=mudjack-smoke-$$
secret=mudjack-token
work=$(mktemp -d "${TMPDIR:-/tmp}/mudjack-smoke.XXXXXX")
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
kube=""
# Python with PyYAML: the deploy tests' tools environment (scripts/install.sh).
cache=${MUDJACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mudjack}
py="$cache/envs/tools-$(sha256sum "$root/tests/deploy/requirements.txt" | cut -c1-16)/bin/python"
[ -x "$py" ] || py=python3

ok() { printf 'smoke: ok   %s\n' "$*"; }
fail() {
  printf 'smoke: FAIL %s\n' "$*" >&2
  [ -n "$kube" ] || podman logs --tail 30 "$name" >&2 2>/dev/null || true
  exit 1
}
cleanup() {
  podman rm -f -t 0 "$name" "$name-a" "$name-b" "$name-sweep" >/dev/null 2>&1 || true
  if [ -n "$kube" ]; then podman kube down "$kube" >/dev/null 2>&1 || true; fi
  if [ -f "$work/mudjack-local.yaml.volumes" ]; then
    xargs -r podman volume rm -f < "$work/mudjack-local.yaml.volumes" >/dev/null 2>&1 || true
  fi
  podman secret rm "$secret" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() {
  "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# status URL [TOKEN]: the HTTP status code; the body lands in $work/body.
status() {
  local auth=()
  [ $# -lt 2 ] || auth=(-H "Authorization: Bearer $2")
  curl -s -o "$work/body" -w "%{http_code}" --max-time 10 "${auth[@]}" "$1" || true  # 000: no answer
}
wait_ready() {  # URL SECONDS
  local i
  for ((i = 0; i < $2 * 2; i++)); do
    [ "$(status "$1/readyz")" = 200 ] && return 0
    sleep 0.5
  done
  return 1
}
# A few quick paper-suite cases of a framework.
cases_of() {
  case $1 in
    numpy) echo '^numpy/numpy.argsort/float32' ;;
    torch) echo '^torch/torch.argsort/float32-(small|empty)-eager' ;;
    jax) echo '^jax/jax.numpy.add/float32-small-eager' ;;
    tensorflow) echo '^tensorflow/tf.cast/float32' ;;
    *) fail "no quick cases known for framework $1" ;;
  esac
}
json() { "$py" -c "import json, sys; d = json.load(open('$work/body')); print($1)"; }

check_api() {  # BASE_URL WHAT
  local url=$1 what=$2
  [ "$(status "$url/healthz")" = 200 ] || fail "$what: /healthz is not 200"
  [ "$(status "$url/readyz")" = 200 ] || fail "$what: /readyz is not 200"
  ok "$what: /healthz and /readyz answer 200 without a token"
  [ "$(status "$url/v1/info")" = 401 ] || fail "$what: /v1/info without a token is not 401"
  [ "$(status "$url/v1/info" "wrong-token-0123456789")" = 401 ] || fail "$what: /v1/info with a wrong token is not 401"
  ok "$what: /v1/info is 401 without a token and with a wrong one"
  [ "$(status "$url/v1/info" "$token")" = 200 ] || fail "$what: /v1/info with the token is not 200"
  local fw
  fw=$(json "d['frameworks']['$framework']['available'] and 'cpu' in d['frameworks']['$framework']['devices']")
  [ "$fw" = True ] || fail "$what: /v1/info does not report $framework available on cpu: $(cat "$work/body")"
  ok "$what: /v1/info: $framework $(json "d['frameworks']['$framework'].get('version')") on cpu," \
     "python $(json "d['frameworks']['$framework'].get('python')"), profile $(json "d['profile']")," \
     "revision $(json "d['revision']")"
}

"$py" -c 'import yaml' 2>/dev/null || fail "$py lacks PyYAML (scripts/install.sh builds the tools environment)"
podman image exists "$image" || fail "no image $image (deploy/images/build.sh numpy-cpu)"
framework=$(podman image inspect --format '{{index .Labels "io.mudjack.framework"}}' "$image")
[ -n "$framework" ] || fail "$image has no io.mudjack.framework label: not a MudJack image"
ok "image $image ($framework), $(($(podman image inspect --format '{{.Size}}' "$image") / 1000000)) MB"

# ---- 0. doctor and devices inside the container -------------------------------
accel=$(podman image inspect --format '{{index .Labels "io.mudjack.accelerator"}}' "$image")
inside() {  # mudjack COMMAND... in a throwaway container of IMAGE
  podman run --rm --network host --entrypoint /opt/mudjack/bin/mudjack "$image" "$@" \
    --config /etc/mudjack/mudjack.toml --framework "$framework" 2>>"$work/podman.log"
}
inside doctor > "$work/doctor.txt" || fail "mudjack doctor in the image failed: $(cat "$work/doctor.txt")"
row=$(grep -E "^$framework +ready " "$work/doctor.txt" | tr -s ' ') || fail "doctor does not list $framework ready: $(cat "$work/doctor.txt")"
ok "doctor: $row"
inside devices --json > "$work/body" || fail "mudjack devices in the image failed: $(cat "$work/body")"
# The image's accelerator (rocm GPUs are listed as cuda:N) is either listed,
# or `accelerators_absent` says why not; cpu is always there.
verdict=$(ACCEL=$accel FW=$framework "$py" - "$work/body" <<'EOF'
import json, os, sys
m = json.load(open(sys.argv[1]))["machines"][0]
ids = [d["id"] for d in m["devices"]]
accel, fw = os.environ["ACCEL"], os.environ["FW"]
absent = [a for a in m["frameworks"].get(fw, {}).get("accelerators_absent", []) if a.startswith(accel + ": ")]
kind = {"rocm": "cuda"}.get(accel, accel)
if "cpu" not in ids:
    print(f"FAIL no cpu device among {ids}")
elif accel == "cpu" or any(i.startswith(kind + ":") for i in ids):
    print(f"ok devices {' '.join(ids)}")
elif absent:
    print(f"ok devices {' '.join(ids)}; {' '.join(absent)}")
else:
    print(f"FAIL devices {ids} hold no {accel} device, and accelerators_absent says nothing of {accel}")
EOF
)
case $verdict in ok*) ok "devices: ${verdict#ok devices }" ;; *) fail "devices: ${verdict#FAIL }" ;; esac
inside devices | sed 's/^/smoke:      | /'

# ---- 1. podman run on the host network ---------------------------------------
port=$(free_port)
url=http://127.0.0.1:$port
# (podman's complaints that it has no systemd to time the HEALTHCHECK with go
# to podman.log: the check is run on demand below.)
podman run -d --name "$name" --network host -e MUDJACK_TOKEN="$token" -e MUDJACK_PORT="$port" "$image" \
  --config /etc/mudjack/mudjack.toml --host 127.0.0.1 --port "$port" --framework "$framework" \
  >/dev/null 2>>"$work/podman.log" || { cat "$work/podman.log" >&2; fail "podman run failed"; }
wait_ready "$url" 180 || fail "podman run: not ready on $url within 180 s"
check_api "$url" "podman run"

# A real run inside the container: a few cases of the image's framework.
body="{\"suite\": \"paper\", \"frameworks\": [\"$framework\"], \"filter\": \"$(cases_of "$framework")\"}"
code=$(curl -s -o "$work/body" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -d "$body" "$url/v1/runs")
[ "$code" = 202 ] || fail "POST /v1/runs answered $code: $(cat "$work/body")"
run=$(json "d['id']")
for ((i = 0; i < 240; i++)); do
  status "$url/v1/runs/$run" "$token" >/dev/null
  state=$(json "d['state']")
  case $state in queued|running) sleep 0.5 ;; *) break ;; esac
done
[ "$state" = complete ] || fail "run $run ended $state: $(cat "$work/body")"
[ "$(status "$url/v1/runs/$run/results" "$token")" = 200 ] || fail "GET results of $run is not 200"
summary=$(json "', '.join(sorted({c['outcome'] for c in d['cases']})) + ' in ' + str(len(d['cases'])) + ' cases'")
passes=$(json "sum(c['outcome'] == 'pass' for c in d['cases'])")
[ "$passes" -gt 0 ] || fail "run $run passed no case: $summary"
ok "run $run: $state, outcomes $summary"

podman healthcheck run "$name" >/dev/null || fail "the image's HEALTHCHECK failed"
ok "HEALTHCHECK (curl $url/healthz inside the container) passes"
uid=$(podman exec "$name" id -u)
[ "$uid" = 10001 ] || fail "the server runs as uid $uid, not 10001"
ok "the server runs as uid 10001 (non-root)"
listen=$(ss -Hltn "sport = :$port" | awk '{print $4}' | sort -u | tr '\n' ' ')
[ "$listen" = "127.0.0.1:$port " ] || fail "listening on '$listen', expected 127.0.0.1:$port only"
ok "listening on 127.0.0.1:$port only"
podman stop -t 30 "$name" >/dev/null 2>>"$work/podman.log"
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "after SIGTERM the server exited $code"
ok "SIGTERM: the server stopped with exit status 0"
podman rm "$name" >/dev/null 2>>"$work/podman.log"

# ---- 2. podman kube play of the local overlay --------------------------------
command -v kubectl >/dev/null || fail "kubectl is needed to render deploy/k8s/overlays/local"
port=$(free_port)
url=http://127.0.0.1:$port
kube=$work/mudjack-local.yaml
kubectl kustomize "$root/deploy/k8s/overlays/local" > "$work/rendered.yaml"
# The port moves to a free one, so a server already on 8080 can't answer in
# this one's place.
# The ConfigMap's profile follows the image's (the overlay's is `current`).
profile=$(podman image inspect --format '{{index .Labels "io.mudjack.profile"}}' "$image")
"$py" - "$work/rendered.yaml" "$kube" "$port" "$image" "$profile" "$framework" <<'EOF'
import sys, yaml
src, dst, port, image, profile, framework = sys.argv[1:3] + [int(sys.argv[3])] + sys.argv[4:7]
docs = [d for d in yaml.safe_load_all(open(src)) if d]
for d in docs:
    if d["kind"] == "ConfigMap" and "mudjack.toml" in d["data"]:
        d["data"]["mudjack.toml"] = d["data"]["mudjack.toml"].replace(
            'profile = "current"', f'profile = "{profile}"')
    if d["kind"] == "Deployment":
        c = d["spec"]["template"]["spec"]["containers"][0]
        c["args"] = [f"--port={port}" if a.startswith("--port=") else
                     f"--framework={framework}" if a.startswith("--framework=") else a for a in c["args"]]
        for probe in ("readinessProbe", "livenessProbe"):
            c[probe]["httpGet"]["port"] = port
        c["image"] = image
yaml.safe_dump_all(docs, open(dst, "w"), sort_keys=False)
# podman keeps each ConfigMap as a volume of that name after `kube down`.
open(dst + ".volumes", "w").write("".join(d["metadata"]["name"] + "\n" for d in docs if d["kind"] == "ConfigMap"))
EOF
# The Deployment's secretKeyRef (mudjack-token, key token) reads a podman
# secret of that name holding a JSON object of base64 values, key -> value.
printf '{"token": "%s"}' "$(printf %s "$token" | base64 -w0)" | podman secret create "$secret" - >/dev/null
podman kube play "$kube" >/dev/null 2>>"$work/podman.log" ||
  { cat "$work/podman.log" >&2; fail "podman kube play refused the local overlay"; }
wait_ready "$url" 180 || fail "kube play: not ready on $url within 180 s"
check_api "$url" "kube play"
podman kube down "$kube" >/dev/null 2>>"$work/podman.log"
kube=""
[ "$(status "$url/healthz")" = 000 ] || fail "after kube down something still answers on $url"
ok "podman kube down: the pod is gone"

# ---- 3. the sweep Job's command in a container --------------------------------
fw2=$(podman image inspect --format '{{index .Labels "io.mudjack.framework"}}' "$image2") ||
  fail "no image $image2"
pa=$(free_port)
pb=$(free_port)
podman run -d --name "$name-a" --network host -e MUDJACK_TOKEN="$token" -e MUDJACK_PORT="$pa" "$image" \
  --config /etc/mudjack/mudjack.toml --host 127.0.0.1 --port "$pa" >/dev/null 2>>"$work/podman.log"
podman run -d --name "$name-b" --network host -e MUDJACK_TOKEN="$token" -e MUDJACK_PORT="$pb" "$image2" \
  --config /etc/mudjack/mudjack.toml --host 127.0.0.1 --port "$pb" >/dev/null 2>>"$work/podman.log"
wait_ready "http://127.0.0.1:$pa" 180 || fail "sweep target a: not ready"
wait_ready "http://127.0.0.1:$pb" 180 || fail "sweep target b: not ready"
mkdir -p "$work/sweep" "$work/results"
chmod 0777 "$work/results"  # the container's user (10001) writes here
cat > "$work/sweep/targets.toml" <<EOF
[run]
suite = "paper"
filter = "($(cases_of "$framework"))|($(cases_of "$fw2"))"
devices = ["cpu"]

[[target]]
label = "a"
url = "http://127.0.0.1:$pa"
chip = "local"
framework = "$framework"
image = "$image"

[[target]]
label = "b"
url = "http://127.0.0.1:$pb"
chip = "local"
framework = "$fw2"
image = "$image2"
EOF
podman run --name "$name-sweep" --network host -e MUDJACK_TOKEN="$token" \
  -v "$work/sweep:/etc/mudjack-sweep:ro" -v "$work/results:/results" \
  --entrypoint /opt/mudjack/bin/mudjack "$image" \
  sweep --targets=/etc/mudjack-sweep/targets.toml --out=/results/smoke --json \
  > "$work/body" 2>>"$work/podman.log" || { tail -20 "$work/podman.log" >&2; fail "the sweep failed"; }
devices=$(json "' '.join(sorted({c['device'] for c in d['cases']}))")
[ "$devices" = "a/cpu b/cpu" ] || fail "merged results hold devices '$devices', expected 'a/cpu b/cpu'"
ls "$work/results/smoke/runs/"*/results.json >/dev/null 2>&1 || fail "no merged results.json under --out"
ok "sweep container: both targets complete; merged results ($(json "len(d['cases'])") cases) hold a/cpu and b/cpu"
podman rm -f -t 5 "$name-a" "$name-b" "$name-sweep" >/dev/null 2>>"$work/podman.log"
echo "smoke: all checks passed"
