#!/usr/bin/env bash
# One device call for "a GPU host's run, complete in one call" (issue 47) on
# a lent GPU machine whose system python3 has torch and jax, over a copy of
# the working tree with .device/ carried (gpu/device-bundle.sh):
#   gpu/gpu-verdict-call.sh SECONDS [STEPS]
# STEPS (default "paper slice core-eager"), each within what is left of
# SECONDS, each published into $OUT as it finishes:
#   paper       the torch+JAX paper suite on cpu and cuda:0 with the default
#               cpu lane (several pinned probes: --cpu-probes from the host's
#               cores), timed: paper.tgz (results.json.gz without raw
#               samples, summary.md) and its wall time in log.txt
#   paper-b     the same run again (its twin: run to run), paper-b.tgz
#   twin        `agreement.py pair` of paper and paper-b's raw runs (twin.txt)
#   slice       a cheap slice of the same selection on cpu with one probe
#               (--cpu-probes 1, at most 150 s), its cpu verdicts compared
#               with the paper run's (in log.txt)
#   capability  the capability suite, numpy, torch and JAX on cpu and cuda:0
#               (capability.tgz)
#   timers      `agreement.py timers` twice and `repeat` of the two
#               (timers-a.txt, timers-b.txt, repeat.txt)
#   core-eager  the ten set::core models eager on cuda:0 alone (core-eager.tgz)
#   core-rest   the same compiled, amp and train on cuda:0 alone (core-rest.tgz)
#   tiny        the generated corpus's size::tiny models eager on cuda:0
#               beside the host's cpu (four device probes taking turns), at
#               most CAP_TINY seconds (default: what is left): tiny.tgz
#   pair        the torch paper suite eager on cuda:0 alone twice, back to
#               back, and `agreement.py pair` of the two raw runs (pair.txt:
#               MudJack's estimate beside the runs' own CUDA events); then
#               `agreement.py timers` twice and `repeat` of the two
#               (timers-a.txt, timers-b.txt, repeat.txt)
# PAPER_ARGS: more `mudjack run` options for the paper step (--device-probes 4).
# Always in $OUT: nvidia-smi.csv, devices.txt, log.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2034  # read by device-env.sh
state_dir=build-verdict
# shellcheck source=gpu/device-env.sh
. gpu/device-env.sh
steps=${2:-paper slice core-eager}
CORE='^torch/(resnext|convnext|vit|deeplabv3|roberta|gpt2|t5|llama|wav2vec2|gcn)/'
SLICE='^torch/torch\.(argsort|nn\.GELU|nn\.LSTMCell|round)/'
end=$(($(date +%s) + secs))
left() { echo $((end - $(date +%s))); }
pythons=(--python "torch=$py" --python "jax=$py" --python "numpy=$py")
export MUDJACK_BUILD_CACHE=$state/builds
bundle_wheels

run() {  # run NAME ARGS...: a run within what is left (CAP: at most), timed, then published
  local name=$1 rc=0 start run_id limit
  shift
  limit=$(left)
  [ "$limit" -gt 20 ] || { echo "$name: no time left"; return 1; }
  [ -z "${CAP:-}" ] || [ "$CAP" -ge "$limit" ] || limit=$CAP
  start=$(date +%s)
  timeout -s INT "$limit" "$MUDJACK" run "$@" "${pythons[@]}" --out "$state/$name" \
    >"$state/$name.out" 2>"$state/$name.err" || rc=$?
  echo "$name: exit $rc after $(($(date +%s) - start)) s; $(grep -c '^\[' "$state/$name.err") progress lines"
  run_id=$(grep -o 'run [0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}' "$state/$name.err" | head -1 | awk '{print $2}')
  [ -n "$run_id" ] || return 1
  "$MUDJACK" report --out "$state/$name" "$run_id" --publish "$state/pub-$name" >"$state/$name-publish.txt" 2>&1 ||
    { cat "$state/$name-publish.txt"; return 1; }
  gzip -f "$state/pub-$name/results.json"
  tar -C "$state/pub-$name" -czf "$out/$name.tgz" results.json.gz summary.md
  tail -n 3 "$state/$name.out"
}

compare_slice() {  # the slice's cpu outcomes and complete functions' verdicts against the paper run's
  "$py" - "$state/pub-paper/results.json.gz" "$state/pub-slice/results.json.gz" <<'PY'
import gzip, json, sys
full, one = (json.load(gzip.open(p)) for p in sys.argv[1:3])
def outcomes(doc):
    return {c["id"]: c["outcome"] for c in doc["cases"] if c["device"] == "cpu" and c["outcome"] not in (None, "not_run")}
a, b = outcomes(full), outcomes(one)
same = sum(a.get(k) == v for k, v in b.items())
print(f"slice: {same} of {len(b)} cpu case outcomes identical with one probe and with the default probes")
for k in sorted(k for k, v in b.items() if a.get(k) != v):
    print(f"  {k}: probes {a.get(k)}, one probe {b[k]}")
# A verdict is compared only where the slice ran every case of its function:
# an interrupted slice judges a function on the cases it reached.
ran = {c["function"] for c in one["cases"] if c["device"] == "cpu"}
whole = {f for f in ran if all(c["id"] in b for c in full["cases"] if c["function"] == f and c["device"] == "cpu")}
def verdicts(doc):
    return {v["function"]: v["verdict"] for v in doc["verdicts"] if v["device"] == "cpu" and v["function"] in whole}
va, vb = verdicts(full), verdicts(one)
print(f"slice: {sum(va.get(k) == v for k, v in vb.items())} of {len(vb)} cpu verdicts identical, "
      f"of the functions whose every case the slice ran ({len(ran) - len(whole)} cut off by the cap)")
for k in sorted(vb):
    print(f"  {k}: probes {va.get(k)}, one probe {vb[k]}")
layout = [m.get("layout") for m in full["environment"]["machines"]]
print("layout of the paper run:", json.dumps(layout)[:600])
PY
}

pair_runs() {  # two runs back to back, raw results kept for the events' own reading
  local t start
  for t in a b; do
    [ "$(left)" -gt 60 ] || { echo "pair-$t: no time left"; return 1; }
    start=$(date +%s)
    timeout -s INT "$(left)" "$MUDJACK" run --suite paper --framework torch --device cuda:0 --no-baseline \
      --mode eager "${pythons[@]}" --out "$state/pair-$t" >"$state/pair-$t.out" 2>"$state/pair-$t.err"
    echo "pair-$t: exit $? after $(($(date +%s) - start)) s; $(grep -c '^\[' "$state/pair-$t.err") progress lines"
  done
  "$py" bench/agreement/agreement.py pair "$state/pair-a" "$state/pair-b" >"$out/pair.txt" 2>&1
  grep -A4 'device-bound cases >= 50' "$out/pair.txt"
  grep '^target' "$out/pair.txt"
}

timers() {  # MudJack against CUDA events and torch.utils.benchmark, twice
  local t
  for t in a b; do
    [ "$(left)" -gt 60 ] || { echo "timers-$t: no time left"; return 1; }
    timeout -s INT "$(left)" "$py" bench/agreement/agreement.py timers --mudjack "$MUDJACK" --device cuda:0 \
      --python "$py" --out "$state/timers-$t" --json-out "$state/timers-$t.json" >"$out/timers-$t.txt" 2>&1
    echo "timers-$t: exit $?"
  done
  "$py" bench/agreement/agreement.py repeat "$state/timers-a.json" "$state/timers-b.json" >"$out/repeat.txt" 2>&1
  cat "$out/repeat.txt"
}

# PAPER_ARGS: extra run options for the paper step, split into words
read -r -a paper_args <<<"${PAPER_ARGS:-}"
{
  for s in $steps; do
    case $s in
      paper | paper-b) run "$s" --suite paper --framework torch,jax --device cpu --device cuda:0 "${paper_args[@]}" ;;
      twin) "$py" bench/agreement/agreement.py pair "$state/paper" "$state/paper-b" >"$out/twin.txt" 2>&1
            grep -A4 'device-bound cases >= 50' "$out/twin.txt"; grep '^target' "$out/twin.txt" ;;
      slice) CAP=150 run slice --suite paper --filter "$SLICE" --device cpu --cpu-probes 1; compare_slice ;;
      capability) run capability --suite capability --framework numpy,torch,jax --device cpu --device cuda:0 ;;
      timers) timers ;;
      core-eager) run core-eager --suite models --filter "$CORE" --mode eager --device cuda:0 --timeout-s 300 ;;
      pair) pair_runs ;;
      tiny) CAP=${CAP_TINY:-} run tiny --suite models --labels size::tiny --mode eager --device cpu --device cuda:0 \
              --device-probes 4 --timeout-s 120 ;;
      core-rest) run core-rest --suite models --filter "$CORE" --mode compiled,amp,train --device cuda:0 --timeout-s 300 ;;
    esac
  done
} 2>&1 | tee "$out/log.txt"
