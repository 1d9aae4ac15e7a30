"""A resumable whole-corpus campaign of the models suite on this machine's CPU
(issue 38): the generated corpora by size class (size::tiny first), one
`mudjack run` per class, under a time cap, with a cost estimate before it
starts and a progress line while it runs.

  python3 scripts/models-campaign.py --out /work/corpus-run [--sizes tiny,small]
      [--modes eager] [--cap-min 60] [--bin build/mudjack] [--labels corpus::timm]

Run it again with the same --out to go on where it stopped (an interrupted
class is resumed with `mudjack run --resume`). The suites and probe run are
this checkout's (MUDJACK_DATA_DIR), so a detached worktree at the commit to
measure keeps the campaign there while work goes on; it refuses to mix
commits or to start from a tree with uncommitted changes (--allow-dirty to
try anyway; the state records it). At the end, and on --summary, it prints
the counts per corpus (listed, run, passed, unverified: a pass that nothing
checked, the engine's `unverified`, is no pass) and every failing model grouped
by cause (export, runtime, accuracy, timeout, crash; unavailable counted
too) and reason, and writes them to OUT/summary.md and OUT/summary.json.
--summary reads a campaign from any checkout: its counts are of the classes
it ran, listed by --bin over this checkout's suites (run it from the
campaign's commit for the campaign's own listing).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZES = ("tiny", "small", "medium", "large")
# Seconds per eager case by size class on a 2-core VM (model build, float64
# reference, cold call, timing), the estimate's default until the campaign
# has measured its own.
DEFAULT_CASE_S = {"tiny": 20.0, "small": 45.0, "medium": 180.0, "large": 900.0}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def listed(binary: str, size: str, modes: str, labels: list[str]) -> list[dict[str, Any]]:
    cmd = [binary, "list", "--suite", "models", "--json", "--mode", modes, "--labels", f"size::{size}"]
    for label in labels:
        cmd += ["--labels", label]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env={**os.environ, "MUDJACK_DATA_DIR": str(ROOT)})
    if done.returncode != 0:
        if "carries" in done.stderr or "no listed case" in done.stderr:
            return []
        sys.exit(f"models-campaign: {' '.join(cmd)} failed: {done.stderr.strip().splitlines()[-1:]}")
    cases: list[dict[str, Any]] = json.loads(done.stdout)
    return cases


def load_state(out: Path) -> dict[str, Any]:
    path = out / "campaign.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def save_state(out: Path, state: dict[str, Any]) -> None:
    tmp = out / "campaign.json.tmp"
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True))
    os.replace(tmp, out / "campaign.json")


def done_cases(out: Path, size: str, state: dict[str, Any]) -> int:
    """Cases an interrupted class's run has already finished (its results.json,
    written when the run stopped), so the estimate counts only what is left."""
    run_id = state.get("classes", {}).get(size, {}).get("run_id")
    path = out / size / "runs" / str(run_id) / "results.json"
    if not run_id or not path.is_file():
        return 0
    return len(json.loads(path.read_text(encoding="utf-8")).get("cases", []))


def estimate(state: dict[str, Any], counts: dict[str, int]) -> tuple[float, str]:
    total, parts = 0.0, []
    for size, n in counts.items():
        measured = state.get("measured_case_s", {}).get(size)
        per = float(measured or DEFAULT_CASE_S[size])
        total += n * per
        parts.append(f"{size} {n} x {per:.0f} s{' (measured)' if measured else ''}")
    return total, "; ".join(parts)


def run_class(args: argparse.Namespace, state: dict[str, Any], size: str, deadline: float) -> bool:
    """One size class's run, resumed if it was cut short; False when the cap stopped it."""
    out = Path(args.out) / size
    out.mkdir(parents=True, exist_ok=True)
    info = state.setdefault("classes", {}).setdefault(size, {})
    if info.get("complete"):
        return True
    cmd = [args.bin, "run", "--out", str(out)]
    if info.get("run_id"):
        cmd += ["--resume", info["run_id"]]
    else:
        cmd += ["--suite", "models", "--labels", f"size::{size}", "--mode", args.modes, "--device", "cpu",
                "--budget-ms", "2", "--rounds", "1", "--timeout-s", str(args.case_timeout_s)]
        for label in args.labels:
            cmd += ["--labels", label]
    print(f"models-campaign: {' '.join(cmd)}", flush=True)
    start = time.time()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                             env={**os.environ, "MUDJACK_DATA_DIR": str(ROOT)})
    done, total, last = 0, 0, 0.0
    with open(out / "run.log", "a", encoding="utf-8") as log:
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(child, lines), daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=5)
            except queue.Empty:
                line = ""  # no line for a while: still print progress and watch the cap
            if line is None:
                break
            log.write(line)
            if m := re.match(r"run (\S+): (\d+) cases", line):
                info["run_id"], total = m.group(1), int(m.group(2))
                save_state(Path(args.out), state)
            if m := re.match(r"\[(\d+)/(\d+)\]", line):
                done, total = int(m.group(1)), int(m.group(2))
            now = time.time()
            if now - last > 30:
                last = now
                print(f"models-campaign: size::{size} {done}/{total} cases, {(now - start) / 60:.1f} min in this class, "
                      f"{(deadline - now) / 60:.1f} min left of the cap", flush=True)
            if now > deadline and child.poll() is None:
                print("models-campaign: time cap reached; stopping (resumable)", flush=True)
                child.send_signal(signal.SIGINT)
                deadline = float("inf")
    code = child.wait()
    spent = time.time() - start
    info["wall_s"] = info.get("wall_s", 0.0) + spent
    if done:
        state.setdefault("measured_case_s", {})[size] = round(info["wall_s"] / max(done, 1), 1)
    info["complete"] = code == 0
    save_state(Path(args.out), state)
    return bool(info["complete"])


def _pump(child: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert child.stdout is not None
    for line in child.stdout:
        lines.put(line)
    lines.put(None)


CAUSES = ("export", "runtime", "accuracy", "timeout", "crash", "unavailable")


def cause(case: dict[str, Any]) -> str:
    """The issue's causes: export (the ONNX exporter refused), runtime (the
    model raised), accuracy (beyond the float64 bound, or its own check
    failed), timeout, crash; unavailable is not a failure but is counted."""
    outcome = case.get("outcome", "")
    if outcome in ("timeout", "crash", "unavailable"):
        return str(outcome)
    if outcome == "mismatch":
        return "accuracy"
    return "export" if "ONNX export" in _message(case) else "runtime"


def _message(case: dict[str, Any]) -> str:
    error = case.get("error") or {}
    return str(error.get("message", "")) if isinstance(error, dict) else str(error)


def why(case: dict[str, Any]) -> str:
    """The failure's reason with its numbers, shapes and names of tensors
    folded, so that cases failing alike group: an accuracy failure by which
    check (the float64 bound, or the case's own property), an exception by
    its type and first line."""
    message = _message(case).strip()
    if case.get("outcome") == "mismatch":
        if message.startswith("property check failed: "):
            return message[len("property check failed: "):]
        if " eps of the float64 reference" in message:
            oracle = case.get("numeric") or {}
            cause = oracle.get("cause") if isinstance(oracle, dict) else None
            return "beyond the float64 reference's bound" + (f" (oracle's cause: {cause})" if cause else "")
    first = message.splitlines()[0] if message else str(case.get("outcome", ""))
    first = re.sub(r"\[[-\d, ]*\]", "[..]", first)
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", first)[:110]


def _worst_eps(case: dict[str, Any]) -> str:
    accuracy = case.get("numeric") or {}
    eps = accuracy.get("error_eps") if isinstance(accuracy, dict) else None
    return f" ({eps:.3g} eps)" if isinstance(eps, (int, float)) else ""


def unverified(case: dict[str, Any]) -> bool:
    """A pass that nothing checked (results 1.2 `checked`: no reference,
    property, float64 oracle or checked baseline): its function's verdict is
    `unverified`, not `portable`, so the campaign counts it apart from the
    passes. A result without `checked` predates the field and stays a pass."""
    return case.get("outcome") == "pass" and case.get("checked") == "none"


def summary(args: argparse.Namespace, state: dict[str, Any], listing: dict[str, list[dict[str, Any]]]) -> None:
    per: dict[str, Counter[str]] = defaultdict(Counter)
    failures: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    unchecked: list[str] = []
    for size, cases in listing.items():
        for c in cases:
            per[corpus_of(c)]["listed"] += 1
        for results in glob.glob(str(Path(args.out) / size / "runs" / "*" / "results.json")):
            doc = json.loads(Path(results).read_text())
            for c in doc.get("cases", []):
                corpus = corpus_of(c.get("info", c))
                per[corpus]["run"] += 1
                if unverified(c):
                    per[corpus]["unverified"] += 1
                    unchecked.append(str(c.get("function", "?")))
                elif c.get("outcome") == "pass":
                    per[corpus]["passed"] += 1
                else:
                    failures[cause(c)][why(c)].append(f"{c.get('function', '?')}{_worst_eps(c)}")
    wall = sum(float(c.get("wall_s", 0)) for c in state.get("classes", {}).values())
    lines = _summary_lines(args, state, wall, per, failures, unchecked)
    machines = [m for results in sorted(glob.glob(str(Path(args.out) / "*" / "runs" / "*" / "results.json")))
                for m in json.loads(Path(results).read_text()).get("environment", {}).get("machines", [])]
    (Path(args.out) / "summary.md").write_text("\n".join(lines) + "\n")
    (Path(args.out) / "summary.json").write_text(json.dumps(
        {"counts": per, "failures": failures, "unverified": sorted(unchecked), "wall_s": wall, "commit": state.get("commit"),
         "classes": state.get("classes", {}), "modes": state.get("modes", args.modes),
         # the class runs' machines (source commit, clean or dirty, engine, CPU): results/ provenance rule
         "provenance": [{k: m.get(k) for k in ("source", "mudjack_revision", "cpu_model", "devices")}
                        for m in machines[:1]]}, indent=1, sort_keys=True))
    print("\n".join(lines))


def _summary_lines(args: argparse.Namespace, state: dict[str, Any], wall: float, per: dict[str, Counter[str]],
                   failures: dict[str, dict[str, list[str]]], unchecked: list[str]) -> list[str]:
    """summary.md: counts per corpus (an unverified pass apart from the
    checked ones), then every failing model under its cause and reason (a
    user's question is whether *their* model ran), then the unverified."""
    lines = [f"# Models corpus campaign on this CPU (commit {state.get('commit', '?')[:12]})", "",
             f"wall time {wall / 60:.1f} min; modes {state.get('modes', args.modes)}; classes "
             + ", ".join(f"{s} ({'complete' if c.get('complete') else 'incomplete'})"
                         for s, c in sorted(state.get("classes", {}).items(), key=lambda sc: SIZES.index(sc[0]))),
             "",
             "| corpus | listed | run | passed | unverified |", "|---|--:|--:|--:|--:|"]
    for corpus, n in sorted(per.items()):
        lines.append(f"| {corpus} | {n['listed']} | {n['run']} | {n['passed']} | {n['unverified']} |")
    lines.append("| all | " + " | ".join(str(sum(n[k] for n in per.values())) for k in ("listed", "run", "passed", "unverified"))
                 + " |")
    unbuildable = Counter({corpus: len(json.loads((ROOT / "suites" / "models" / f"{corpus}.json").read_text(
        encoding="utf-8"))["unbuildable"]) for corpus in ("timm", "torchvision", "transformers")})
    unbuildable = +unbuildable  # the corpora with none left out
    lines += ["", f"Listed: the cases of the classes run. Not built offline (every class), with reasons in "
              f"the manifests' `unbuildable` lists (`suites/models/<corpus>.json`): {sum(unbuildable.values())} ("
              + ", ".join(f"{corpus} {n}" for corpus, n in sorted(unbuildable.items())) + ").",
              ("Passed: a pass something checked (the float64 reference, a reference, the case's own properties); "
               "unverified: a pass that nothing checked (the engine's `unverified`), named at the end."),
              "", "## Failures by cause", ""]
    order = {c: i for i, c in enumerate(CAUSES)}
    for kind in sorted(failures, key=lambda k: order.get(k, len(order))):
        reasons = failures[kind]
        lines.append(f"- **{kind}**: {sum(len(v) for v in reasons.values())}")
        for text, models in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  - {len(models)} x {text}: {', '.join(sorted(models))}")
    if unchecked:
        lines += ["", "## Unverified (a pass checked by nothing)", "",
                  f"{len(unchecked)}: {', '.join(sorted(unchecked))}"]
    return lines


def corpus_of(case: dict[str, Any]) -> str:
    for tag in case.get("tags", []):
        if tag.startswith("corpus::"):
            return str(tag[len("corpus::"):])
    return "hand-written"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="campaign folder (outside the checkout)")
    parser.add_argument("--sizes", default="tiny,small", help="size classes in order (tiny,small,medium,large)")
    parser.add_argument("--modes", default="eager", help="stages (comma list), eager first")
    parser.add_argument("--cap-min", type=float, default=60.0, help="stop (resumably) after this many minutes")
    parser.add_argument("--case-timeout-s", type=int, default=300, help="deadline per case")
    parser.add_argument("--bin", default=str(ROOT / "build" / "mudjack"))
    parser.add_argument("--labels", action="append", default=[], help="more --labels for every run")
    parser.add_argument("--allow-dirty", action="store_true")
    parser.add_argument("--summary", action="store_true", help="only print the summary of what ran")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    if out.is_relative_to(ROOT):
        parser.error(f"--out {out} is inside the checkout; keep the campaign outside it")
    out.mkdir(parents=True, exist_ok=True)
    state = load_state(out)
    commit, dirty = git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "--untracked-files=no"))
    if args.summary:  # a reading of what ran, from any checkout; the campaign's commit stays its own
        summary(args, state, {s: listed(args.bin, s, state.get("modes", args.modes), args.labels)
                              for s in state.get("classes", {})})
        return 0
    if state.get("commit", commit) != commit:
        parser.error(f"{out} holds a campaign at {state['commit'][:12]}; this checkout is at {commit[:12]}")
    if dirty and not args.allow_dirty:
        parser.error("the tree has uncommitted changes: commit them (a campaign runs at one commit) or --allow-dirty")
    state.update({"commit": commit, "dirty": dirty or state.get("dirty", False), "modes": args.modes})
    sizes = [s for s in args.sizes.split(",") if s]
    for s in sizes:
        if s not in SIZES:
            parser.error(f"unknown size class {s!r}; known: {', '.join(SIZES)}")
    listing = {s: listed(args.bin, s, args.modes, args.labels) for s in sizes}
    left = {s: len(c) - done_cases(out, s, state) for s, c in listing.items()
            if not state.get("classes", {}).get(s, {}).get("complete")}
    seconds, detail = estimate(state, left)
    print(f"models-campaign: estimate {seconds / 60:.0f} min for the {sum(left.values())} cases of the classes left "
          f"({detail}); cap {args.cap_min:g} min", flush=True)
    save_state(out, state)
    deadline = time.time() + args.cap_min * 60
    for s in sizes:
        if not run_class(args, state, s, deadline) or time.time() > deadline:
            break
    summary(args, state, listing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
