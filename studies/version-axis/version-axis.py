#!/usr/bin/env python3
"""What changed between framework releases: reads the runs version-axis.sh
listed in OUT/runs.tsv and writes OUT/axis.json.

    studies/version-axis/version-axis.py OUT [--mudjack build/mudjack]

For each framework and each pair of profiles (paper-2023 -> current,
current -> latest, paper-2023 -> latest), per function on the CPU, its
verdict's flags as the engine gives them (schemas/vocabulary.json,
verdict_properties):
  fixed     failed (complete or partial failure) in the older release, runs in
            the newer (flag `ran`: portable, unverified, intolerable_latency or
            divergent, whose answers differ)
  broken    the reverse
  added     unavailable in the older release (the API did not exist), attempted
            in the newer; removed: the reverse
  numeric   divergent in one release and not in the other, both running (a
            running verdict that is a `failure` is divergent)
  outcomes  per function, cases that failed in the older release and pass in
            the newer (fixed) or the reverse (new_failure), from `mudjack
            compare`: a function can gain cases without changing its verdict
  latency   cases `mudjack compare` found slower or faster beyond the U test,
            the 1.2x threshold and both runs' own noise, and the function's
            geometric-mean ratio newer / older
Every entry carries the verdict on each side and the first failing case's
error in the release that failed, so a missing keyword argument is told apart
from a missing kernel.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PROFILES = ("paper-2023", "current", "latest")
PAIRS = (("paper-2023", "current"), ("current", "latest"), ("paper-2023", "latest"))
# The engine's verdict flags (model::props): failed without an answer, ran
# (divergent ran: its answers differ), attempted, failure (ran and failure: divergent).
FLAGS = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "vocabulary.json")
                   .read_text(encoding="utf-8"))["verdict_properties"]
FAILED = tuple(v for v, p in FLAGS.items() if p["failed"])
RUNS = tuple(v for v, p in FLAGS.items() if p["ran"])


def load_runs(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    table = out / "runs.tsv"
    if not table.exists():
        raise SystemExit(f"version-axis: {table} is missing: run studies/version-axis/version-axis.sh first")
    for line in table.read_text().splitlines():
        if not line.strip():
            continue
        profile, fw, run_id, seconds = line.split("\t")
        path = out / profile / "runs" / run_id / "results.json"
        if not path.exists():
            raise SystemExit(f"version-axis: {path} is missing (listed in {table})")
        runs[(profile, fw)] = {"path": path, "doc": json.loads(path.read_text()), "seconds": int(seconds)}
    return runs


def first_error(doc: dict[str, Any], row: dict[str, Any]) -> str:
    failing = set(row.get("failing") or [])
    for case in doc["cases"]:
        if case["id"] in failing and case.get("error"):
            return f"{case['id'].split('/')[-1]}: {case['error']['message'][:200]}"
    return ""


def verdicts(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["function"]: v for v in doc["verdicts"] if v["device"] == "cpu"}


def environment(doc: dict[str, Any], fw: str) -> dict[str, Any]:
    machine = doc["environment"]["machines"][0]
    info = machine["frameworks"].get(fw, {})
    return {"version": info.get("version", ""), "python": info.get("python", ""),
            "cpu": machine.get("cpu_model", ""), "revision": machine.get("mudjack_revision", ""),
            "commit": (machine.get("source") or {}).get("commit") or "",
            "dirty": (machine.get("source") or {}).get("dirty"),
            "run": doc["run"]["id"]}


def latency(mudjack: str, a: Path, b: Path) -> dict[str, Any]:
    done = subprocess.run([mudjack, "compare", f"{a}@cpu", f"{b}@cpu", "--format", "json"],
                          capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"version-axis: mudjack compare {a} {b} failed: {done.stderr.strip()[:300]}")
    doc = json.loads(done.stdout)
    slower = [f for f in doc["functions"] if f["changes"].get("regression", 0) > f["changes"].get("improvement", 0)]
    faster = [f for f in doc["functions"] if f["changes"].get("improvement", 0) > f["changes"].get("regression", 0)]
    top = sorted((f for f in doc["functions"] if f.get("ratio")), key=lambda f: f["ratio"])
    outcomes = [{"function": f["function"].split("/", 1)[1], "fixed": f["changes"].get("fixed", 0),
                 "new_failure": f["changes"].get("new_failure", 0)}
                for f in doc["functions"] if f["changes"].get("fixed", 0) or f["changes"].get("new_failure", 0)]
    return {"cases": {k: doc["counts"].get(k, 0) for k in ("regression", "improvement", "inside_noise", "unchanged",
                                                           "fixed", "new_failure")},
            "outcomes": outcomes,
            "functions_slower": len(slower), "functions_faster": len(faster),
            "fastest": [brief(f) for f in top if f["ratio"] < 1][:5],
            "slowest": [brief(f) for f in reversed(top) if f["ratio"] > 1][:5]}


def brief(f: dict[str, Any]) -> dict[str, Any]:
    return {"function": f["function"].split("/", 1)[1], "ratio": round(f["ratio"], 3), "changes": f["changes"]}


def diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    vo, vn = verdicts(old), verdicts(new)
    found: dict[str, list[dict[str, Any]]] = {k: [] for k in ("fixed", "broken", "added", "removed", "numeric")}
    for fn in sorted(set(vo) & set(vn)):
        a, b = vo[fn]["verdict"], vn[fn]["verdict"]
        entry = {"function": fn, "old": a, "new": b}
        if a in FAILED and b in RUNS:
            found["fixed"].append({**entry, "error": first_error(old, vo[fn])})
        elif a in RUNS and b in FAILED:
            found["broken"].append({**entry, "error": first_error(new, vn[fn])})
        elif not FLAGS[a]["attempted"] and FLAGS[b]["attempted"]:
            found["added"].append({**entry, "reason": vo[fn].get("reason", "")})
        elif FLAGS[a]["attempted"] and not FLAGS[b]["attempted"]:
            found["removed"].append({**entry, "reason": vn[fn].get("reason", "")})
        elif a in RUNS and b in RUNS and FLAGS[a]["failure"] != FLAGS[b]["failure"]:
            found["numeric"].append(entry)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--mudjack", default=str(Path(__file__).resolve().parents[2] / "build" / "mudjack"))
    args = ap.parse_args()
    runs = load_runs(args.out)
    axis: dict[str, Any] = {"profiles": {}, "pairs": []}
    for (profile, fw), run in sorted(runs.items()):
        env = environment(run["doc"], fw)
        env["seconds"] = run["seconds"]
        env["verdicts"] = {}
        for v in verdicts(run["doc"]).values():
            env["verdicts"][v["verdict"]] = env["verdicts"].get(v["verdict"], 0) + 1
        axis["profiles"].setdefault(profile, {})[fw] = env
    for fw in sorted({fw for _, fw in runs}):
        for a, b in PAIRS:
            if (a, fw) not in runs or (b, fw) not in runs:
                continue
            old, new = runs[(a, fw)], runs[(b, fw)]
            entry: dict[str, Any] = {"framework": fw, "from": a, "to": b,
                                     "from_version": axis["profiles"][a][fw]["version"],
                                     "to_version": axis["profiles"][b][fw]["version"]}
            entry.update(diff(old["doc"], new["doc"]))
            entry["latency"] = latency(args.mudjack, old["path"], new["path"])
            axis["pairs"].append(entry)
    target = args.out / "axis.json"
    target.write_text(json.dumps(axis, indent=1, sort_keys=True) + "\n")
    for p in axis["pairs"]:
        print(f"{p['framework']:<11} {p['from']} ({p['from_version']}) -> {p['to']} ({p['to_version']}): "
              f"fixed {len(p['fixed'])}, broken {len(p['broken'])}, added {len(p['added'])}, "
              f"removed {len(p['removed'])}, numeric {len(p['numeric'])}, "
              f"slower {p['latency']['functions_slower']}, faster {p['latency']['functions_faster']}")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
