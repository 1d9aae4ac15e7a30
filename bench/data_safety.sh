#!/usr/bin/env bash
# Data safety under SIGKILL: the numpy cases of the `paper` suite, default
# rounds (3), and the engine killed (SIGKILL, its pid only: its probes die
# with it) at KILLS random moments, resumed after each (`run --resume`), then
# resumed to the end. What the store held at each kill is compared with what
# the finished run stored, and every request the probes received is logged
# (a sitecustomize.py on PYTHONPATH wraps the probe's run_case; nothing of
# the engine or the suite is changed):
#
#   lost        planned pairs without an outcome at the end, or an outcome
#               (or a held round) stored at a kill that the end does not have
#   duplicated  pairs stored twice (results.json, the results table), or
#               both held and stored
#   re-run      stored work taken again: an outcome stored at a kill whose
#               start time changed, a held round whose median is not among
#               the final rounds; and requests the probes received more than
#               once (each kill's request in flight is one of them)
#
#   bench/data_safety.sh [KILLS]      # default 20
#
# SEED (default 1) draws the moments, spread over the run's work (first
# rounds and later rounds alike): kill k comes once the probes have started
# a number of requests drawn uniformly from 1..REQUESTS (default 260; the
# run makes about 90 * 3), sorted, plus 0..2 s; a kill whose number was
# reached before its session started comes 1..3 s after the start.
# MUDJACK=path/to/mudjack tests another build; OUT=folder keeps the results
# folder and the logs.
# Targets: 0 lost, 0 duplicated, at most 1 case re-run per kill.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MUDJACK:-build/mudjack}
kills=${1:-20}
seed=${SEED:-1}
span=${REQUESTS:-260}
tmp=${OUT:-$(mktemp -d)}
mkdir -p "$tmp"
engine=""
cleanup() {
  if [ -n "$engine" ]; then kill -KILL "$engine" 2>/dev/null || true; fi
  if [ -z "${OUT:-}" ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
out=$tmp/results
db=$out/mudjack.db
requests=$tmp/requests.log
: >"$requests"
mkdir -p "$tmp/site"
cat >"$tmp/site/sitecustomize.py" <<'EOF'
"""Logs every request a probe runs: 'start|end SESSION DEVICE TIMING_ONLY CASE'."""
import os

_log = os.environ.get("MUDJACK_BENCH_REQUESTS")
if _log:
    try:
        import mudjack_probe.runner as _runner
    except Exception:  # not a probe (or not numpy): nothing to log
        _runner = None
    if _runner is not None:
        _run_case = _runner.run_case

        def _note(what, adapter, case, policy):
            line = " ".join([what, os.environ.get("MUDJACK_BENCH_SESSION", "?"), adapter.device_id,
                             str(int(bool(policy.timing_only))), case.id])
            with open(_log, "a", encoding="utf-8") as f:
                f.write(line + "\n")

        def run_case(adapter, case, seed, policy, artifact_dir):
            _note("start", adapter, case, policy)
            result = _run_case(adapter, case, seed, policy, artifact_dir)
            _note("end", adapter, case, policy)
            return result

        _runner.run_case = run_case
EOF
export PYTHONPATH=$tmp/site${PYTHONPATH:+:$PYTHONPATH}
export MUDJACK_BENCH_REQUESTS=$requests

# What the store holds now: each stored result's start and rounds, each held
# pair's rounds (a store without the `held` table, schema < 1.5, holds none).
snapshot() {
  python3 - "$db" "$1" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
def rounds(timing):
    t = json.loads(timing) if timing else None
    return (t or {}).get("rounds") or []
snap = {"results": {}, "held": {}}
for case, device, started, timing in db.execute(
        "SELECT case_id, device, started_at, timing_json FROM results"):
    snap["results"][case + " " + device] = {"started_at": started, "rounds": rounds(timing)}
if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'held'").fetchone():
    for case, device, n, timing in db.execute(
            "SELECT case_id, device, rounds, timing_json FROM held"):
        snap["held"][case + " " + device] = {"rounds": n, "medians": rounds(timing)}
json.dump(snap, open(sys.argv[2], "w"))
EOF
}

run_id() {
  "$bin" runs --out "$out" --json 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(r[0]["id"] if r else "")' || true
}

read -r -a marks <<<"$(python3 -c "import random; r = random.Random($seed)
print(' '.join(str(n) for n in sorted(r.randint(1, $span) for _ in range($kills))))")"
read -r -a delays <<<"$(python3 -c "import random; r = random.Random($seed + 1)
print(' '.join(str(round(r.uniform(0, 2) * 1000)) for _ in range($kills)))")"
started() { grep -c '^start' "$requests" || true; }
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(uname -r); $("$bin" --version 2>/dev/null | head -1)"
echo "# paper suite, numpy, default rounds; $kills kills, seed $seed, at requests: ${marks[*]}"
printf '%-5s %8s %8s %7s %12s  %s\n' kill requests after_s stored held:rounds "in flight"
: >"$tmp/kills.txt"
id=""
begin=$(date +%s%3N)
session=0
while :; do
  session=$((session + 1))
  export MUDJACK_BENCH_SESSION=$session
  if [ -z "$id" ]; then
    args=(run --suite paper --framework numpy --out "$out")
  else
    args=(run --resume "$id" --out "$out")
  fi
  start=$(date +%s%3N)
  "$bin" "${args[@]}" >>"$tmp/engine.log" 2>&1 &
  engine=$!
  if [ "$session" -gt "$kills" ]; then  # the last resume runs to the end
    code=0
    wait "$engine" || code=$?
    engine=""
    [ "$code" -le 1 ] || { echo "final resume exited $code:"; tail -5 "$tmp/engine.log"; exit 1; }
    break
  fi
  mark=${marks[session - 1]}
  if [ "$(started)" -ge "$mark" ]; then
    deadline=$((start + 1000 + delays[session - 1]))
  else
    while kill -0 "$engine" 2>/dev/null && [ "$(started)" -lt "$mark" ]; do sleep 0.05; done
    deadline=$(($(date +%s%3N) + delays[session - 1]))
  fi
  while kill -0 "$engine" 2>/dev/null && [ "$(date +%s%3N)" -lt "$deadline" ]; do
    sleep 0.05
  done
  after=$(python3 -c "print(f'{($(date +%s%3N) - $start) / 1000:.1f}')")
  kill -KILL "$engine" 2>/dev/null || true
  code=0
  wait "$engine" 2>/dev/null || code=$?
  engine=""
  if [ "$code" -ne 137 ]; then  # it ended before its moment
    echo "# the run ended (exit $code) before kill $session"
    break
  fi
  [ -n "$id" ] || id=$(run_id)
  held="-"
  stored="-"
  if [ -s "$db" ]; then
    snapshot "$tmp/snap-$session.json"
    read -r stored held < <(python3 -c "import json; s = json.load(open('$tmp/snap-$session.json'))
print(len(s['results']), f\"{len(s['held'])}:{sum(h['rounds'] for h in s['held'].values())}\")")
  fi
  flight=$(python3 - "$requests" "$session" <<'EOF'
import collections, sys
open_ = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8"):
    what, session, device, timing, case = line.split(maxsplit=4)
    if session == sys.argv[2]:
        open_[(device, timing, case.strip())] += 1 if what == "start" else -1
left = [f"{c} {'round 2+' if t == '1' else 'round 1'}" for (d, t, c), n in open_.items() if n > 0]
print(", ".join(left) or "-")
EOF
)
  echo "$session $after" >>"$tmp/kills.txt"
  printf '%-5s %8s %8s %7s %12s  %s\n' "$session" "$(started)" "$after" "$stored" "$held" "$flight"
done
total=$((($(date +%s%3N) - begin) / 1000))
[ -n "$id" ] || id=$(run_id)

python3 - "$db" "$out/runs/$id/results.json" "$requests" "$tmp" "$total" <<'EOF'
import collections, glob, json, os, sqlite3, sys
db_path, results_path, requests_path, tmp, total = sys.argv[1:6]
db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
planned = {f"{c} {d}" for c, d in db.execute("SELECT case_id, device FROM planned")}
rows = collections.Counter(f"{c} {d}" for c, d in db.execute("SELECT case_id, device FROM results"))
final = {}
for case, device, started, timing, extra in db.execute(
        "SELECT case_id, device, started_at, timing_json, extra_json FROM results"):
    t = json.loads(timing) if timing else None
    final[f"{case} {device}"] = {"started_at": started, "rounds": (t or {}).get("rounds") or [],
                                  "round_failed": "round_failed" in json.loads(extra or "{}")}
held_left = 0
if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'held'").fetchone():
    held_left = db.execute("SELECT count(*) FROM held").fetchone()[0]
report = json.load(open(results_path))
in_report = collections.Counter(f"{c['id']} {c['device']}" for c in report["cases"])

lost = set(planned - set(final))
duplicated = {k for k, n in rows.items() if n > 1} | {k for k, n in in_report.items() if n > 1}
stored_redone = collections.defaultdict(set)  # kill -> pairs whose stored work ran again
for path in sorted(glob.glob(os.path.join(tmp, "snap-*.json"))):
    kill = int(path.rsplit("-", 1)[1].split(".")[0])
    snap = json.load(open(path))
    for pair, r in snap["results"].items():
        if pair not in final:
            lost.add(pair)
        elif final[pair]["started_at"] != r["started_at"]:
            stored_redone[kill].add(pair)
    for pair, h in snap["held"].items():
        if pair in snap["results"]:
            duplicated.add(pair)
        if pair not in final:
            lost.add(pair)
        elif final[pair]["rounds"][:len(h["medians"])] != h["medians"]:
            stored_redone[kill].add(pair)

# Requests: each pair's first round once, each later round once.
starts = collections.Counter()
in_flight = collections.defaultdict(set)  # kill -> pairs whose request it killed
open_ = collections.Counter()
for line in open(requests_path, encoding="utf-8"):
    what, session, device, timing, case = line.split(maxsplit=4)
    key = (int(session), f"{case.strip()} {device}", timing)
    if what == "start":
        starts[(key[1], timing)] += 1
        open_[key] += 1
    else:
        open_[key] -= 1
for (session, pair, timing), n in open_.items():
    if n > 0:
        in_flight[session].add(pair)
rerun_requests = 0
for pair, f in final.items():
    later = max(0, len(f["rounds"]) - 1) + (1 if f["round_failed"] else 0)
    rerun_requests += max(0, starts[(pair, "0")] - 1) + max(0, starts[(pair, "1")] - later)
kills = [line.split() for line in open(os.path.join(tmp, "kills.txt"))]
# Requests each kill wasted, by pair: those its session (and the ones before)
# started beyond the requests the store had kept by the kill (a request the
# probe had answered that the engine had not stored yet is one of them).
started_by = collections.defaultdict(collections.Counter)  # session -> pair -> starts
for line in open(requests_path, encoding="utf-8"):
    what, session, device, timing, case = line.split(maxsplit=4)
    if what == "start":
        started_by[int(session)][f"{case.strip()} {device}"] += 1
wasted = collections.defaultdict(set)  # kill -> pairs
total_started, before = collections.Counter(), collections.Counter()
for k, _ in kills:
    k = int(k)
    total_started.update(started_by[k])
    snap = json.load(open(os.path.join(tmp, f"snap-{k}.json"))) if os.path.exists(
        os.path.join(tmp, f"snap-{k}.json")) else {"results": {}, "held": {}}
    for pair, n in total_started.items():
        kept = snap["held"][pair]["rounds"] if pair in snap["held"] else (
            max(1, len(snap["results"][pair]["rounds"])) if pair in snap["results"] else 0)
        if n - kept > before[pair]:
            wasted[k].add(pair)
        before[pair] = max(before[pair], n - kept)
per_kill = [len(wasted[int(k)] | stored_redone[int(k)]) for k, _ in kills]
rounds = collections.Counter(len(f["rounds"]) for f in final.values())
n = max(1, len(kills))
print()
print(f"pairs planned {len(planned)}, stored {len(final)}, held left {held_left}; "
      f"rounds per case: " + ", ".join(f"{k}: {v}" for k, v in sorted(rounds.items())))
print(f"kills {len(kills)}, wall {total} s ({float(total) / n:.1f} s per kill and resume)")
print(f"{'outcomes lost':<40} {len(lost)}")
print(f"{'outcomes duplicated':<40} {len(duplicated) + held_left}")
print(f"{'stored outcomes or rounds run again':<40} {sum(len(s) for s in stored_redone.values())}")
print(f"{'requests run again (in flight at a kill)':<40} {rerun_requests} "
      f"({sum(len(s) for s in in_flight.values())})")
print(f"{'cases run again per kill (max, mean)':<40} {max(per_kill, default=0)}, "
      f"{sum(per_kill) / n:.2f}")
print("cases run again, by kill:", " ".join(str(x) for x in per_kill))
for pair in sorted(lost)[:5]:
    print("  lost:", pair)
for pair in sorted(duplicated)[:5]:
    print("  duplicated:", pair)
EOF
