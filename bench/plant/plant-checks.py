#!/usr/bin/env python3
"""How many wrong answers do the suites' checks catch?

    bench/plant/plant-checks.py [RESULTS.json[.gz]] [--device cpu] [--framework F ...]
                            [--suite-dir suites/paper] [--match TEXT] [--json OUT] [--list]

Takes every case that passed on DEVICE in a results.json (without one: every
case of the suites, for each --framework, that runs and passes its checks
here), runs it once more in
its framework's environment (mudjack_probe.plant) and plants two wrong answers
into its outputs: every value times (1+1e-2), and a NaN. Prints, per
framework: passes, the fraction with any check, with a reference check (a host
computation independent of the framework), and the fraction of each plant
caught. Cases whose plant has no effect (all-zero outputs scaled) are left out
of that plant's fraction. Environments are the ones scripts/install.sh built.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def env_python(framework: str) -> Path:
    cache = Path(os.environ.get("MUDJACK_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mudjack")
    pins = ROOT / "envs" / "current" / f"{framework}.txt"
    digest = hashlib.sha256(pins.read_bytes()).hexdigest()[:16]
    return cache / "envs" / f"{framework}-current-{digest}" / "bin" / "python"


def load(path: str) -> dict:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def passes(results: dict, device: str, frameworks: set[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = collections.defaultdict(list)
    for case in results.get("cases", []):
        fw = case.get("framework") or case.get("id", "").split("/")[0]
        if case.get("device") == device and case.get("outcome") == "pass" and (not frameworks or fw in frameworks):
            out[fw].append(case["id"])
    return out


def plant(framework: str, ids: list[str] | None, device: str, suite_dirs: list[str], match: str = "") -> list[dict]:
    python = env_python(framework)
    if not python.exists():
        sys.exit(f"plant-checks: no {framework} environment at {python}: run scripts/install.sh")
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.jsonl"
        cmd = [str(python), "-m", "mudjack_probe.plant", "--framework", framework, "--device", device,
               "--out", str(rows), "--match", match]
        if ids is not None:
            listing = Path(tmp) / "cases.txt"
            listing.write_text("\n".join(ids) + "\n", encoding="utf-8")
            cmd += ["--cases", str(listing)]
        for d in suite_dirs:
            cmd += ["--suite-dir", d]
        env = dict(os.environ, PYTHONPATH=str(ROOT / "probe"))
        done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"plant-checks: the {framework} probe failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
        return [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines() if line.strip()]


def fraction(n: int, d: int) -> str:
    return f"{n}/{d} ({100.0 * n / d:.1f}%)" if d else "0/0"


def summarize(framework: str, rows: list[dict], everything: bool) -> dict:
    ran = [r for r in rows if r.get("ran") and r.get("passed")]
    s = {
        "framework": framework,
        "passes": len(rows) if not everything else len(ran),
        "rerun": len(ran),
        "checked": sum(1 for r in ran if r.get("kinds")),
        "reference": sum(1 for r in ran if "reference" in r.get("kinds", [])),
    }
    for plant_name in ("scaled", "nan"):
        applicable = [r for r in ran if r.get(plant_name) != "none"]
        s[plant_name] = {"caught": sum(1 for r in applicable if r[plant_name] == "caught"), "of": len(applicable)}
    s["unchecked"] = sorted(r["case"] for r in ran if not r.get("kinds"))
    s["missed"] = sorted(r["case"] for r in ran if "missed" in (r.get("scaled"), r.get("nan")))
    s["not_rerun"] = sorted(r["case"] for r in rows if not (r.get("ran") and r.get("passed")))
    s["failing"] = sorted(f"{r['case']}: {r.get('error', 'its checks fail')}" for r in rows if not (r.get("ran") and r.get("passed")))
    return s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("results", nargs="?")
    parser.add_argument("--match", default="", help="only the case ids containing this text")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--framework", action="append", default=[])
    parser.add_argument("--suite-dir", action="append", default=[])
    parser.add_argument("--json", help="write the per-framework summaries, with case lists, here")
    parser.add_argument("--list", action="store_true", help="print the unchecked and missed cases")
    args = parser.parse_args()
    suite_dirs = [str(Path(d).resolve()) for d in args.suite_dir] or [str(ROOT / "suites" / "paper")]
    if args.results:
        by_fw: dict[str, list[str] | None] = dict(passes(load(args.results), args.device, set(args.framework)))
    elif args.framework:
        by_fw = {fw: None for fw in args.framework}
    else:
        parser.error("give a results.json, or --framework for every case of the suites")
    summaries = []
    print("| framework | passes | with a check | with a reference | x(1+1e-2) caught | NaN caught |")
    print("|---|---|---|---|---|---|")
    for fw in sorted(by_fw):
        s = summarize(fw, plant(fw, by_fw[fw], args.device, suite_dirs, args.match), args.results is None)
        summaries.append(s)
        print(f"| {fw} | {s['passes']} | {fraction(s['checked'], s['rerun'])} | {fraction(s['reference'], s['rerun'])} | "
              f"{fraction(s['scaled']['caught'], s['scaled']['of'])} | {fraction(s['nan']['caught'], s['nan']['of'])} |")
    for s in summaries:
        if s["not_rerun"]:
            what = "cases did not run or failed their checks" if args.results is None else "passes did not pass again here"
            print(f"{s['framework']}: {len(s['not_rerun'])} {what} (left out)")
        if args.list:
            for key in ("unchecked", "missed", "failing"):
                for case_id in s[key]:
                    print(f"  {key}: {case_id}")
    if args.json:
        Path(args.json).write_text(json.dumps(summaries, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
