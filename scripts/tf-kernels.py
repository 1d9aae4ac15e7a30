#!/usr/bin/env python3
"""TensorFlow's kernel registry against what the CPU did, from one run.

  scripts/tf-kernels.py RESULTS.json [--probe [PYTHON]] [--save FILE] [--kernels FILE]

For every TensorFlow case the run has on `cpu`, the probe records what the
kernel registry predicts (result field `kernels`, from
TensorflowAdapter.kernel_support): is there a kernel for every op of the
call, with its dtypes, on CPU and on GPU. This prints, per function and
dtype, the predicted CPU, the observed CPU (the run's outcome: pass and
mismatch ran, fail, crash and timeout did not), and the predicted GPU with
its missing kernels; then a summary: where the CPU prediction and the CPU
outcome disagree, in both directions, and the functions predicted to fail on
a GPU.

Where the predictions come from, first found first used:
  - the cases' `extra.kernels` in RESULTS.json (an engine that keeps the field);
  - --kernels FILE: JSON lines {"case", "status", "error", "kernels"} saved by --save;
  - --probe [PYTHON]: the probe itself (python -m mudjack_probe, this checkout's
    probe/ and the run's suite folders) runs each of the run's TensorFlow cpu
    cases once more (policy `once`, nothing saved) and its `kernels` are read
    from its answers. PYTHON defaults to the run's TensorFlow interpreter.
    A case that kills or hangs the probe (--timeout-s) is recorded as such and
    a new probe goes on with the next.

Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RAN = frozenset(("pass", "mismatch"))  # the call ran: its kernels existed
FAILED = frozenset(("fail", "crash", "timeout"))


def load(path: str) -> dict[str, Any]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return dict(json.load(f))


def tf_cpu_cases(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in results["cases"] if c["framework"] == "tensorflow" and c["device"] == "cpu"]


# --------------------------------------------------------------------------- predictions


def from_results(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c["extra"]["kernels"] for c in cases if isinstance((c.get("extra") or {}).get("kernels"), dict)}


def from_file(path: str) -> dict[str, dict[str, Any]]:
    found = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                if isinstance(row.get("kernels"), dict):
                    found[row["case"]] = row["kernels"]
    return found


class Probe:
    """One TensorFlow probe on cpu, spoken to as the engine does (schemas/probe-protocol-v1.md)."""

    def __init__(self, python: str, suite_dirs: list[str], log: Any) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO / "probe"), TF_CPP_MIN_LOG_LEVEL="3")
        command = [python, "-m", "mudjack_probe", "--protocol", "1", "--framework", "tensorflow", "--device", "cpu"]
        for d in suite_dirs:
            command += ["--suite-dir", d]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                     text=True, env=env, start_new_session=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def answer(self, timeout_s: float) -> dict[str, Any] | None:
        """The next reply line; None when the probe died or said nothing in time."""
        try:
            line = self.lines.get(timeout=timeout_s)
        except queue.Empty:
            return None
        return None if line is None else dict(json.loads(line))

    def ask(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any] | None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except OSError:
            return None
        return self.answer(timeout_s)

    def stop(self, kill: bool) -> None:
        if kill:
            os.killpg(self.proc.pid, signal.SIGKILL)  # its own process group (start_new_session)
        else:
            self.ask({"type": "shutdown"}, 30)
        self.proc.wait()


def from_probe(results: dict[str, Any], cases: list[dict[str, Any]], python: str, timeout_s: float,
               save: str | None) -> dict[str, dict[str, Any]]:
    suite_dirs = [s["dir"] for s in results["run"]["options"]["suites"]]
    policy = {"budget_ms": 1, "min_samples": 1, "max_samples": 2, "warmup_ms": 0, "block_ms": 0.01, "once": True}
    rows: list[dict[str, Any]] = []
    pending = [c["id"] for c in cases]
    with open(os.devnull, "w", encoding="utf-8") as log:
        while pending:
            probe = Probe(python, suite_dirs, log)
            hello = probe.answer(600)
            if hello is None or hello.get("unavailable"):
                probe.stop(kill=True)
                sys.exit(f"tf-kernels: the probe did not start with {python}: {hello and hello.get('unavailable')}")
            broken = False
            while pending and not broken:
                case_id = pending.pop(0)
                reply = probe.ask({"type": "run", "case": case_id, "device": "cpu", "seed": 0,
                                   "policy": policy, "artifact_dir": None}, timeout_s)
                if reply is None:
                    rows.append({"case": case_id, "status": "crash", "error": "the probe died or hung", "kernels": None})
                    broken = True
                else:
                    rows.append({"case": case_id, "status": reply.get("status", reply.get("type")),
                                 "error": (reply.get("error") or {}).get("message", reply.get("message", "")),
                                 "kernels": reply.get("kernels")})
                if len(rows) % 100 == 0 or len(rows) == len(cases):
                    print(f"tf-kernels: the probe answered {len(rows)} of {len(cases)} cases", file=sys.stderr)
            probe.stop(kill=broken)
    if save:
        with open(save, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    return {r["case"]: r["kernels"] for r in rows if isinstance(r.get("kernels"), dict)}


# --------------------------------------------------------------------------- the comparison


def predicted(kernels: dict[str, Any] | None, kind: str) -> bool | None:
    """Every kernel there on `kind` (cpu, gpu)? None: no prediction (none made, or the trace failed)."""
    if not kernels or kind not in kernels:
        return None
    return bool(kernels[kind]["kernels"])


def observed(case: dict[str, Any]) -> bool | None:
    """Did the call run on the CPU? None for outcomes that say nothing about kernels (skip, error, unavailable)."""
    if case["outcome"] in RAN:
        return True
    if case["outcome"] in FAILED:
        return False
    return None


def missing(kernels: dict[str, Any] | None, kind: str) -> list[str]:
    return list((kernels or {}).get(kind, {}).get("missing", []))


def error_of(case: dict[str, Any]) -> str:
    e = case.get("error") or {}
    return f"{e.get('kind', '')}: {e.get('message', '')}"[:160] if e else ""


def ratio(flags: list[bool | None], yes: str, no: str) -> str:
    known = [f for f in flags if f is not None]
    if not known:
        return "?"
    ok = sum(known)
    text = yes if ok == len(known) else no if ok == 0 else f"{ok}/{len(known)} {yes}"
    return text + (f" ({len(flags) - len(known)}?)" if len(known) < len(flags) else "")


def table(cases: list[dict[str, Any]], preds: dict[str, dict[str, Any]]) -> None:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in cases:
        groups[(c["function"], c["dtype"])].append(c)
    rows = [("function", "dtype", "cases", "predicted CPU", "observed CPU", "predicted GPU (missing kernels)")]
    for (function, dtype), group in sorted(groups.items()):
        ks = [preds.get(c["id"]) for c in group]
        gpu_missing = sorted({m for k in ks for m in missing(k, "gpu")})
        gpu = ratio([predicted(k, "gpu") for k in ks], "ok", "MISSING")
        if gpu_missing:
            gpu += ": " + ", ".join(gpu_missing[:3]) + (f" +{len(gpu_missing) - 3}" if len(gpu_missing) > 3 else "")
        rows.append((function, dtype, str(len(group)), ratio([predicted(k, "cpu") for k in ks], "ok", "MISSING"),
                     ratio([observed(c) for c in group], "ran", "FAILED"), gpu))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(r[i].ljust(widths[i]) for i in range(5)) + "  " + r[5])


def summary(cases: list[dict[str, Any]], preds: dict[str, dict[str, Any]], examples: int) -> None:
    with_pred = [c for c in cases if predicted(preds.get(c["id"]), "cpu") is not None]
    errors = [c for c in cases if c["id"] in preds and predicted(preds[c["id"]], "cpu") is None]
    print(f"\n## Summary: {len(cases)} TensorFlow cases on cpu; outcomes {dict(sorted(Counter(c['outcome'] for c in cases).items()))}")
    print(f"- a prediction: {len(with_pred)}; the trace failed ({{error}}): {len(errors)}; no `kernels` at all "
          f"(the body raised before building its call, or nothing recorded): {len(cases) - len(with_pred) - len(errors)}")
    traced_ran = [c for c in errors if observed(c)]
    print(f"- trace failed: {len(errors) - len(traced_ran)} of them failed on the CPU too, {len(traced_ran)} ran")
    for c in traced_ran[:examples]:
        print(f"    {c['id']}: {preds[c['id']]['error'][:140]}")

    quad: dict[tuple[bool, bool], list[dict[str, Any]]] = defaultdict(list)
    for c in with_pred:
        obs = observed(c)
        if obs is not None:
            quad[(bool(predicted(preds[c['id']], 'cpu')), obs)].append(c)
    print("\n### CPU: prediction against outcome (cases)")
    print(f"- kernels predicted, ran: {len(quad[(True, True)])}")
    print(f"- kernels missing, failed: {len(quad[(False, False)])}")
    print(f"- DISAGREE kernels missing, but ran: {len(quad[(False, True)])}")
    for c in quad[(False, True)][:examples]:
        print(f"    {c['id']}: missing {', '.join(missing(preds[c['id']], 'cpu'))}")
    wrong = quad[(True, False)]
    print(f"- DISAGREE kernels predicted, but failed: {len(wrong)}; by error kind "
          f"{dict(sorted(Counter((c.get('error') or {}).get('kind', '?') for c in wrong).items()))}")
    for c in wrong[:examples]:
        print(f"    {c['id']}: {error_of(c)}")
    kernel_msgs = ("No OpKernel", "Could not find device", "No registered kernel", "not in the list of allowed values")
    about_kernels = [c for c in wrong if any(m in error_of(c) for m in kernel_msgs)]
    print(f"  of which the CPU's error names a missing kernel or refused dtype: {len(about_kernels)}")
    for c in about_kernels[:examples]:
        print(f"    {c['id']}: {error_of(c)}")

    gpu_gap = [c for c in with_pred if predicted(preds[c["id"]], "gpu") is False]
    gpu_only = [c for c in gpu_gap if predicted(preds[c["id"]], "cpu")]
    print(f"\n### GPU: {len(gpu_gap)} cases predicted to lack a GPU kernel; {len(gpu_only)} of them have every CPU kernel "
          f"(they run on the CPU and are predicted to fail on a GPU)")
    by_fn: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for c in gpu_only:
        for m in missing(preds[c["id"]], "gpu") or ["?"]:
            by_fn[c["function"]][m].add(c["dtype"])
    all_fns = {c["function"] for c in cases}
    print(f"- functions predicted to fail on a GPU where the CPU has the kernels: {len(by_fn)} of {len(all_fns)}")
    for function, kernels in sorted(by_fn.items()):
        listed = "; ".join(f"{m} [{','.join(sorted(d))}]" for m, d in sorted(kernels.items()))
        print(f"    {function}: {listed}")
    maybe = [c for c in with_pred if preds[c["id"]].get("gpu", {}).get("maybe")]
    if maybe:
        names = Counter(m for c in maybe for m in preds[c["id"]]["gpu"]["maybe"])
        print(f"- cases whose only GPU gaps are in a cond branch of an eager call (run only if taken; not counted "
              f"as predicted failures): {len([c for c in maybe if predicted(preds[c['id']], 'gpu')])}, "
              f"e.g. {', '.join(m for m, _ in names.most_common(4))}")
    moved = Counter(m for c in with_pred for m in preds[c["id"]].get("gpu", {}).get("to_cpu", []))
    if moved:
        print(f"- ops of TF1 graphs and nested functions the placer would put on the CPU of a GPU machine "
              f"(no failure predicted): {len(moved)} kinds, e.g. {', '.join(m for m, _ in moved.most_common(6))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="a run's results.json (or .json.gz)")
    ap.add_argument("--kernels", help="JSON lines saved by --save: the probe's predictions")
    ap.add_argument("--probe", nargs="?", const="", metavar="PYTHON",
                    help="ask the probe (default interpreter: the run's TensorFlow one)")
    ap.add_argument("--save", help="with --probe: write what the probe answered here, as JSON lines")
    ap.add_argument("--timeout-s", type=float, default=300.0, help="with --probe: deadline per case")
    ap.add_argument("--examples", type=int, default=8, help="examples listed per disagreement")
    args = ap.parse_args()
    results = load(args.results)
    cases = tf_cpu_cases(results)
    if not cases:
        sys.exit("tf-kernels: the run has no TensorFlow case on cpu")
    preds = from_results(cases)
    source = "results.json extra.kernels"
    if not preds and args.kernels:
        preds, source = from_file(args.kernels), args.kernels
    elif not preds and args.probe is not None:
        fw = results["environment"]["machines"][0]["frameworks"].get("tensorflow", {})
        python = args.probe or fw.get("python_executable", "")
        if not python:
            sys.exit("tf-kernels: the run names no TensorFlow interpreter; pass --probe PYTHON")
        preds, source = from_probe(results, cases, python, args.timeout_s, args.save), f"the probe ({python})"
    elif not preds:
        sys.exit("tf-kernels: no case of this run carries extra.kernels (an engine that does not keep the probe's "
                 "`kernels` field drops it); pass --probe to ask the probe, or --kernels FILE")
    print(f"# TensorFlow kernel registry vs the CPU: {args.results}\npredictions from {source}\n")
    table(cases, preds)
    summary(cases, preds, args.examples)


if __name__ == "__main__":
    main()
