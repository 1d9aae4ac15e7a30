#!/usr/bin/env python3
"""The release where one function's result changed, bisected over the package
index's releases between two versions:

    studies/version-axis/bisect-release.py OUT FRAMEWORK FUNCTION OLD NEW [--filter REGEX]

OLD and NEW are the framework versions of two profiles whose runs disagree on
FUNCTION (version-axis.py names them). Each tried release gets its own
environment, built inside a MudJack image whose Python the release supports
(the paper-2023 image's 3.9 where it can, else the latest image's 3.13) with
the index reachable; the `paper` suite's cases of FUNCTION then run in that
image with no network (`mudjack run --python FRAMEWORK=<env>`). A release's
result is the function's class on the CPU, from its verdict's flags
(schemas/vocabulary.json, verdict_properties, as version-axis.py reads them):
fails (failed: complete or partial failure), unavailable (not attempted), or
it ran (ran: portable, unverified, intolerable_latency, divergent), told
apart by whether its answers differ (failure): divergent, else runs. A
numeric change (version-axis.py's `numeric`) is thus bisectable too.
The search finds the first release whose class is NEW's, assuming one change
between OLD and NEW; every release it tried, with its class and error, is
written to OUT/bisect/<framework>-<function>.json. Environments stay in
OUT/bisect/envs/ (delete it when done: torch's are GB each).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

class Version(tuple):
    """A release number ("2.1.2", "0.12.0.1"), ordered numerically; local labels (+cu130) dropped."""

    def __new__(cls, text: str) -> "Version":
        return super().__new__(cls, (int(x) for x in text.split("+")[0].split(".")))

    def __str__(self) -> str:
        return ".".join(str(x) for x in self)


def final(text: str) -> bool:
    """A final release: digits and dots only (no rc, a, b, dev or post)."""
    return re.fullmatch(r"\d+(\.\d+)*", text) is not None


PACKAGE = {"torch": "torch", "jax": "jax", "tensorflow": "tensorflow"}
# The package whose wheels decide which Pythons a release runs on: jax itself
# is pure Python, its compiled half jaxlib is released with the same numbers.
WHEELS = {"torch": "torch", "jax": "jaxlib", "tensorflow": "tensorflow"}
IMAGES = (("3.9", "paper-2023"), ("3.13", "latest"))
ROOT = Path(__file__).resolve().parents[2]
CONF = {"CONTAINERS_CONF": str(ROOT / "deploy" / "containers.conf")}
# The engine's verdict flags (model::props): failed, ran, failure, attempted.
FLAGS = json.loads((ROOT / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["verdict_properties"]


def say(msg: str) -> None:
    print(f"bisect: {msg}", file=sys.stderr, flush=True)


def releases(package: str, python: str) -> list[Version]:
    done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package, "--python-version",
                           python, "--only-binary=:all:"], capture_output=True, text=True, check=False)
    m = re.search(r"Available versions: (.*)", done.stdout)
    if not m:
        return []
    return [Version(v) for v in m.group(1).split(", ") if final(v)]


def provenance(doc: dict[str, Any]) -> dict[str, Any]:
    """Where and from what a run ran (results.json machines[0]): the source
    tree's state, the engine's revision, the CPU and each device."""
    m = (doc.get("environment", {}).get("machines") or [{}])[0]
    devices = [{k: d.get(k, "") for k in ("id", "kind", "model", "driver_version")} for d in m.get("devices", [])]
    return {"source": m.get("source"), "mudjack_revision": m.get("mudjack_revision", ""),
            "cpu_model": m.get("cpu_model", ""), "devices": devices}


def podman(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=False,
                          env={**os.environ, **CONF})


def classify(doc: dict[str, Any], function: str) -> tuple[str, str]:
    rows = [v for v in doc["verdicts"] if v["function"] == function and v["device"] == "cpu"]
    if not rows:
        return "missing", "no cases of the function ran"
    v = rows[0]
    flags = FLAGS[v["verdict"]]
    if flags["failed"]:
        klass = "fails"
    elif not flags["attempted"]:
        klass = "unavailable"
    else:  # it ran; divergent (a failure that ran) is told apart: a numeric change is bisected too
        klass = "divergent" if flags["failure"] else "runs"
    error = ""
    failing = set(v.get("failing") or [])
    for case in doc["cases"]:
        if case["id"] in failing and case.get("error"):
            error = case["error"]["message"][:200]
            break
    return klass, f"{v['verdict']}: {v.get('reason', '')}" + (f"; {error}" if error else "")


class Bisect:
    def __init__(self, out: Path, framework: str, function: str, case_filter: str, arch: str):
        self.out, self.fw, self.function, self.filter, self.arch = out, framework, function, case_filter, arch
        self.tried: dict[str, dict[str, Any]] = {}
        (out / "envs").mkdir(parents=True, exist_ok=True)
        (out / "runs").mkdir(parents=True, exist_ok=True)

    def image(self, profile: str) -> str:
        return f"localhost/mudjack:{self.fw}-cpu-{profile}-{self.arch}"

    def own_version(self, profile: str) -> Version | None:
        """The framework release the image's own environment holds (its pip-freeze.txt)."""
        done = podman(["run", "--rm", "--network", "none", "--entrypoint", "sh", self.image(profile), "-c",
                       "cat /opt/mudjack/cache/envs/*/pip-freeze.txt"])
        m = re.search(rf"^{PACKAGE[self.fw]}==(\S+)$", done.stdout, re.M)
        return Version(m.group(1)) if m else None

    def requirements(self, version: Version, python: str) -> list[str]:
        reqs = [f"{PACKAGE[self.fw]}=={version}"]
        if self.fw == "jax":
            reqs.append(f"jaxlib=={version}")
        if python == "3.9":  # the releases a 3.9 Python can take predate NumPy 2 or accept 1.x
            reqs.append("numpy<2")
        return reqs

    def run(self, version: Version, python: str, profile: str) -> dict[str, Any]:
        key = str(version)
        if key in self.tried:
            return self.tried[key]
        env = f"/bisect/envs/{self.fw}-{version}-py{python}"
        image = self.image(profile)
        own = self.own_version(profile) == version
        python_flag = [] if own else ["--python", f"{self.fw}={env}/bin/python"]
        say(f"{self.fw} {version}: " + ("the image's own environment" if own else f"building its environment in {image}"))
        done = subprocess.CompletedProcess([], 0, "", "") if own else podman(["run", "--rm", "--network", "host", "--user", "0", "-v", f"{self.out}:/bisect",
                       "--entrypoint", "sh", image, "-c",
                       f"test -x {env}/bin/python || {{ mudjack-python -m venv {env}.tmp && "
                       f"{env}.tmp/bin/pip install -q --no-input {' '.join(repr(r) for r in self.requirements(version, python))} "
                       f"&& mv {env}.tmp {env}; }}"])
        if done.returncode != 0:
            result = {"version": key, "python": python, "class": "no-environment",
                      "detail": (done.stderr.strip().splitlines() or ["?"])[-1][:300]}
            self.tried[key] = result
            return result
        say(f"{self.fw} {version}: running {self.function}")
        done = podman(["run", "--rm", "--network", "none", "--user", "0", "-v", f"{self.out}:/bisect",
                       "--entrypoint", "/opt/mudjack/bin/mudjack", image, "run", "--config",
                       "/etc/mudjack/mudjack.toml", "--suite", "paper", "--framework", self.fw, "--device", "cpu",
                       "--filter", self.filter, *python_flag, "--budget-ms", "5",
                       "--out", "/bisect"])
        m = re.search(r"^run (\S+) \(complete\)", done.stdout, re.M)
        if not m:
            result = {"version": key, "python": python, "class": "no-run",
                      "detail": (done.stdout + done.stderr).strip()[-300:]}
        else:
            doc = json.loads((self.out / "runs" / m.group(1) / "results.json").read_text())
            klass, detail = classify(doc, self.function)
            result = {"version": key, "python": python, "class": klass, "detail": detail, "run": m.group(1),
                      "provenance": provenance(doc)}
        say(f"{self.fw} {version}: {result['class']} ({result['detail'][:120]})")
        self.tried[key] = result
        return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("framework", choices=sorted(PACKAGE))
    ap.add_argument("function")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--filter", help="case filter (default: the function's cases, eager)")
    ap.add_argument("--arch", default="amd64")
    args = ap.parse_args()
    old, new = Version(args.old), Version(args.new)
    by_python = {py: set(releases(WHEELS[args.framework], py)) for py, _ in IMAGES}
    candidates = sorted(v for v in set().union(*by_python.values()) if old <= v <= new)
    if len(candidates) < 2:
        raise SystemExit(f"bisect: fewer than two releases of {args.framework} between {old} and {new} on the index")
    case_filter = args.filter or f"^{args.framework}/{re.escape(args.function)}/.*-eager$"
    out = args.out.resolve() / "bisect"
    b = Bisect(out, args.framework, args.function, case_filter, args.arch)

    def at(v: Version) -> dict[str, Any]:
        for py, profile in IMAGES:
            if v in by_python[py]:
                return b.run(v, py, profile)
        return {"version": str(v), "class": "no-wheel", "detail": "no wheel for Python 3.9 or 3.13"}

    lo, hi = 0, len(candidates) - 1
    start, end = at(candidates[lo]), at(candidates[hi])
    report: dict[str, Any] = {"framework": args.framework, "function": args.function, "filter": case_filter,
                              "old": str(old), "new": str(new), "releases": [str(v) for v in candidates]}
    if start["class"] == end["class"]:
        report["changed_in"] = None
        report["note"] = f"{old} and {new} agree here ({start['class']}): nothing to bisect"
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            r = at(candidates[mid])
            if r["class"] == end["class"]:
                hi = mid
            elif r["class"] == start["class"]:
                lo = mid
            else:  # a third state (no wheel, no environment): step past it toward the old end
                report.setdefault("skipped", []).append(r["version"])
                candidates.pop(mid)
                hi -= 1
        report["changed_in"] = str(candidates[hi])
        report["last_before"] = str(candidates[lo])
    report["tried"] = sorted(b.tried.values(), key=lambda r: Version(r["version"]))
    # the bisect's own provenance: its first run's (each tried release keeps its own)
    report["provenance"] = next((t["provenance"] for t in report["tried"] if "provenance" in t), None)
    target = out / f"{args.framework}-{args.function}.json"
    target.write_text(json.dumps(report, indent=1) + "\n")
    say(f"{args.function}: " + (f"changed in {report['changed_in']} (after {report['last_before']})"
                                if report.get("changed_in") else report.get("note", "")))
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
