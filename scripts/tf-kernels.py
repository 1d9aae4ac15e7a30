#!/usr/bin/env python3
"""TensorFlow's kernel registry against what the CPU did, from one run.

  scripts/tf-kernels.py RESULTS.json [--kernels FILE]

For every TensorFlow case the run has on `cpu`, the probe records what the
kernel registry predicts (result field `kernels`, from
TensorflowAdapter.kernel_support): is there a kernel for every op of the
call, with its dtypes, on CPU and on GPU. This prints, per function and
dtype, the predicted CPU, the observed CPU (the run's outcome: pass and
mismatch ran, fail, crash and timeout did not), and the predicted GPU with
its missing kernels; then a summary: where the CPU prediction and the CPU
outcome disagree, in both directions, and the functions predicted to fail on
a GPU.

Where the predictions come from: the cases' `extra.kernels` in RESULTS.json
(the engine keeps the probe's `kernels` field), or --kernels FILE (JSON
lines {"case", "status", "error", "kernels"}, as earlier versions of this
script saved them). The script reads files only: it never starts a probe
(the engine is the protocol's only client).

Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

# The engine's outcome flags (schemas/vocabulary.json, model::props).
_OUTCOMES = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "vocabulary.json")
                       .read_text(encoding="utf-8"))["outcome_properties"]
RAN = frozenset(o for o, p in _OUTCOMES.items() if p["ran"])  # the call ran: its kernels existed
FAILED = frozenset(o for o, p in _OUTCOMES.items() if p["failed"])  # it failed without an answer


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
    ap.add_argument("--kernels", help="JSON lines of earlier predictions: {case, status, error, kernels}")
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
    elif not preds:
        sys.exit("tf-kernels: no case of this run carries extra.kernels (an older engine dropped the probe's "
                 "`kernels` field): run the TensorFlow cases again, or pass --kernels FILE")
    print(f"# TensorFlow kernel registry vs the CPU: {args.results}\npredictions from {source}\n")
    table(cases, preds)
    summary(cases, preds, args.examples)


if __name__ == "__main__":
    main()
