#!/usr/bin/env python3
"""Writes results/paper-side-by-side.md: the paper's per-function outcomes
(paper-outcomes.json, from for-ai/portability) beside MudJack's published
verdicts for the same functions, or checks that the page is current.

    studies/paper-side-by-side/side_by_side.py           write the page
    studies/paper-side-by-side/side_by_side.py --check   exit 1, with a diff, if it differs

Nothing is judged here: the paper's result per function is its pytest
reports' (any test failed: fail), MudJack's is the engine's verdict; this
only lines them up and counts. Standard library only.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PAGE = ROOT / "results" / "paper-side-by-side.md"
OUTCOMES = HERE / "paper-outcomes.json"
H200 = "results/2026-11-29-nvidia-h200-d/paper/results.json.gz"
XLA = "results/2026-11-28-intel-xeon-xla/results.json.gz"
XEON = "results/2026-11-28-intel-xeon-paper/results.json.gz"
CATALOG = ROOT / "suites" / "paper" / "catalog"
FRAMEWORKS = ["torch", "jax", "tensorflow"]
FAILURE = {v for v, p in json.loads((ROOT / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))
           ["verdict_properties"].items() if p["failure"]}
# The paper's first error lines that say its own harness or environment failed,
# not the function (a missing import, its timer's signature, a CUDA-only test).
HARNESS = ("partial_timed()", "NameError", "Found no NVIDIA driver", "Timeout >", "Cannot allocate memory",
           "Unable to allocate", "test does not take parameters", "test requires parameters")


def load(rel: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    with gzip.open(ROOT / rel, "rt", encoding="utf-8") as f:
        return {(v["framework"], v["function"], v["device"]): v for v in json.load(f)["verdicts"]}


def mudjack() -> dict[str, dict[tuple[str, str, str], dict[str, Any]]]:
    """Per column: (framework, function, device) -> verdict record."""
    h200, xla, xeon = load(H200), load(XLA), load(XEON)
    return {"cuda:0": {k: v for k, v in h200.items() if k[2] == "cuda:0"},
            "xla:0": {k: v for k, v in xla.items() if k[2] == "xla:0"},
            "cpu": {k: v for k, v in h200.items() if k[2] == "cpu"}
            | {k: v for k, v in xeon.items() if k[0] == "tensorflow" and k[2] == "cpu"}}


def mj_class(v: dict[str, Any] | None) -> str:
    """pass (ran, no failure: portable, unverified, intolerable_latency), fail
    (partial or complete failure, divergent), or '' (not run); a name gone
    today is judged through its documented successor."""
    if v is None:
        return ""
    verdict = v["successor_verdict"] if v["verdict"] == "unavailable" else v["verdict"]
    return "" if verdict in (None, "unavailable") else "fail" if verdict in FAILURE else "pass"


def mj_cell(v: dict[str, Any] | None) -> str:
    if v is None:
        return "—"
    if v["verdict"] == "unavailable":
        return f"unavailable → `{v['successor']}` {v['successor_verdict'] or ''}".rstrip()
    return str(v["verdict"])


def paper_cell(rec: dict[str, Any] | None) -> str:
    if rec is None:
        return "no report"
    if rec["result"] != "fail":
        return f"{rec['result']} ({rec['passed']} tests)"
    error = rec.get("error", "").replace("|", "/").replace("`", "'")
    return f"fail ({rec['failed']} of {rec['passed'] + rec['failed']}): {error[:90]}"


def compare(framework: str, column: str, rec: dict[str, Any] | None, v: dict[str, Any] | None) -> tuple[str, str]:
    """(agree | disagree | not comparable | not measured, why) for one paper
    result beside one MudJack verdict."""
    if v is None:
        why = {"tensorflow": "MudJack cannot measure here: no TensorFlow on the H200",
               "jax": "MudJack cannot measure here: no TPU (xla:0 is torch_xla only)"}
        return "not measured", why.get(framework, "no verdict in the xla:0 run (float32 and bfloat16 only)")
    if rec is None or rec["result"] == "skip":
        return "not comparable", "no paper result: " + ("not in its report" if rec is None else "all its tests skipped")
    mine, theirs = mj_class(v), rec["result"]
    gone = " (the 2023 name is gone: MudJack judged its successor)" if v["verdict"] == "unavailable" else ""
    if not mine:
        return "not comparable", "version: the name is gone today and has no successor"
    if mine == theirs:
        return "agree", gone.strip(" ()")
    error = rec.get("error", "")
    if theirs == "fail" and any(h in error for h in HARNESS):
        return "disagree", "harness: the paper's test failed for its own reasons, not the function's" + gone
    if theirs == "fail":
        stand_in = "; xla:0 is a PJRT CPU device, not a TPU" if column == "xla:0" else ""
        return "disagree", ("version or harness: fixed since 2023, or the paper's tests reach what MudJack's cases "
                            "do not (gradcheck, error messages, layouts)" + stand_in + gone)
    return "disagree", f"harness or chip: MudJack's dtype grid and oracle: {v['reason'][:60]}…{gone}"


def rows(paper: dict[str, Any], mj: dict[str, dict[tuple[str, str, str], dict[str, Any]]]) -> list[list[str]]:
    """One row per function the paper tested and MudJack tests (by printed name)."""
    out = []
    for fw in FRAMEWORKS:
        for _stem, f in sorted(paper["functions"][fw].items(), key=lambda kv: str(kv[1]["name"])):
            name = f["name"]
            if name is None or (fw, name, "cpu") not in mj["cpu"]:
                continue
            got = f.get("outcomes", {})
            gpu, tpu = got.get("gpu-T4"), got.get("tpu")
            cuda, xla, cpu = (mj[c].get((fw, name, c)) for c in ("cuda:0", "xla:0", "cpu"))
            g = compare(fw, "cuda:0", gpu, cuda)
            t = compare(fw, "xla:0", tpu, xla) if fw == "torch" else (
                "not measured", "MudJack cannot measure here: no TPU" + (", and no JAX TPU report" if fw == "jax" else ""))
            out.append([fw, f"`{name}`", paper_cell(gpu), paper_cell(tpu), mj_cell(cuda), mj_cell(xla), mj_cell(cpu),
                        g[0], t[0], "; ".join(dict.fromkeys(w for w in (g[1], t[1]) if w))])
    return out


def unmatched(paper: dict[str, Any]) -> list[str]:
    """The paper's tested functions with no MudJack counterpart, and printed
    names the paper's reports lack."""
    out = []
    for fw in FRAMEWORKS:
        printed = (CATALOG / f"paper_{fw}.txt").read_text(encoding="utf-8").split()
        funcs = paper["functions"][fw]
        names = {f["name"] for f in funcs.values()}
        gone = sorted(s for s, f in funcs.items() if f["name"] is None)
        out.append(f"- {fw}: {len(gone)} tested by the paper, not printed, so not in MudJack's `paper` suite: "
                   + ", ".join(f"`{s}`" + (f" ({funcs[s]['note']})" if "note" in funcs[s] else "") for s in gone) + ".")
        lost = [n for n in printed if n not in names]
        noreport = [f"`{f['name']}` ({f['note']})" for f in funcs.values() if f["name"] and "outcomes" not in f]
        out.append(f"- {fw}: printed names with no test file: {', '.join(lost) or 'none'}; with a test file but no "
                   f"report row: {', '.join(noreport) or 'none'}.")
    return out


CLAIMED = {("tensorflow", "gpu-T4"): "22%", ("torch", "tpu"): "44%"}


def rates(paper: dict[str, Any]) -> list[str]:
    """The paper's failure rate per report: functions with any failing test over
    the functions in that report, then without harness failures and torch's
    host-only ones."""
    lines = [("| framework | report | functions failing (any test failed) | % | without harness or host-only failures "
             "| % | paper says |"), "|---|---|--:|--:|--:|--:|---|"]
    for key, rep in paper["reports"].items():
        fw, device = key.split("/")
        recs = [f["outcomes"][device] for f in paper["functions"][fw].values() if device in f.get("outcomes", {})]
        fail = [r for r in recs if r["result"] == "fail"]
        real = [r for r in fail if r["failed"] > r["host_failed"] and not any(h in r.get("error", "") for h in HARNESS)]
        lines.append(f"| {fw} | {device}: `{rep['path']}` | {len(fail)} of {len(recs)} | {100 * len(fail) / len(recs):.1f} "
                     f"| {len(real)} of {len(recs)} | {100 * len(real) / len(recs):.1f} | {CLAIMED.get((fw, device), '')} |")
    return lines


def tally(table: list[list[str]]) -> list[str]:
    lines = ["| framework | paper T4 ↔ H200 `cuda:0` | paper TPU ↔ `xla:0` (PJRT CPU) |", "|---|---|---|"]
    for fw in FRAMEWORKS:
        cells = []
        for col in (7, 8):
            c = Counter(r[col] for r in table if r[0] == fw)
            cells.append(", ".join(f"{c[k]} {k}" for k in ("agree", "disagree", "not comparable", "not measured") if c[k]))
        lines.append(f"| {fw} | {cells[0]} | {cells[1]} |")
    return lines


def failing(paper: dict[str, Any], key: str) -> tuple[int, int]:
    fw, device = key.split("/")
    recs = [f["outcomes"][device] for f in paper["functions"][fw].values() if device in f.get("outcomes", {})]
    return sum(r["result"] == "fail" for r in recs), len(recs)


def headline(paper: dict[str, Any]) -> list[str]:
    """How the paper's two headline numbers come out of its reports, and what MudJack can measure of them."""
    tf, soft, tpu = failing(paper, "tensorflow/gpu-T4"), failing(paper, "tensorflow/gpu-T4-soft"), failing(paper, "torch/tpu")
    tested = len(paper["functions"]["tensorflow"])
    return [
        ("Counted as the paper counts: a function fails on a device when any of its tests failed there; the "
        "denominator is the functions (test files) in that report. The repository's README gives no definition "
        "and holds no notebook; the failure categories and the 22%/44% claims are the paper's (`suites/paper/catalog/README.md`)."),
        "",
        (f"- **TensorFlow on GPU, 22%: reproduced.** {tf[0]} of {tf[1]} functions fail on the T4 with soft placement "
        f"off ({100 * tf[0] / tf[1]:.1f}%; {100 * tf[0] / tested:.1f}% of the {tested} tested, counting "
        f"`tf.summary.flush`, which has a test file but no report row). With soft placement on, {soft[0]} fail, "
        "the paper's \"16 to 3\". Most of the 16 are `Could not satisfy device specification`: an op with no GPU "
        "kernel, refused instead of placed on the CPU."),
        (f"- **PyTorch on TPU, 44%: not reproduced exactly.** The committed TPU report gives {tpu[0]} of {tpu[1]} "
        f"({100 * tpu[0] / tpu[1]:.1f}%); without the failures that are the paper's own harness or environment "
        "(a timeout, a missing `scipy.stats` import, a CUDA-only test) the table above gives the rest. 44% is "
        f"28 of {tpu[1]} (43.8%) or {tpu[0]} of 72 (44.4%); which count the paper used, or whether it read another "
        "run than the one committed, the repository does not say."),
        ("- **JAX:** its one report (from a non-CPU backend; no TPU report exists) fails 4 functions, three of "
        "them with the paper's timer wrapper's own `TypeError` (`partial_timed()`), leaving `linalg.eig` "
        "(CPU-only then), as the paper says."),
        "",
        "What MudJack can measure of these on the machines it has:",
        "",
        ("- **H200 GPU:** torch and JAX, yes (the table's `cuda:0` column). TensorFlow, no: it is not installed "
        "on the GPU machines, so the 22% has no MudJack counterpart on a GPU; TensorFlow's `cpu` column is "
        "shown for reference only."),
        "- **TPU:** no; no TPU is available, so neither the 44% nor any TPU cell has a direct counterpart.",
        ("- **torch_xla on a PJRT CPU device (`xla:0`):** a stand-in that runs torch through the same XLA "
        "lowering a TPU uses, on the CPU: it sees missing lowerings and host fallbacks, not a TPU's numerics, "
        "memory or speed."),
    ]


def versions() -> str:
    out = []
    for rel in (H200, XLA, XEON):
        with gzip.open(ROOT / rel, "rt", encoding="utf-8") as f:
            fws = json.load(f)["environment"]["machines"][0]["frameworks"]
        out.append(f"`{rel.split('/')[1]}`: " + ", ".join(f"{k} {v['version']}" for k, v in sorted(fws.items())))
    return "; ".join(out)


def render() -> str:
    paper = json.loads(OUTCOMES.read_text(encoding="utf-8"))
    src = paper["source"]
    table = rows(paper, mudjack())
    head = ["framework", "function", "paper GPU (T4)", "paper TPU", "MudJack H200 `cuda:0`",
            "MudJack `xla:0` (torch_xla, PJRT CPU)", "MudJack `cpu`", "GPU", "TPU", "why"]
    text = [
        "# The paper side by side",
        "",
        ("<!-- written by studies/paper-side-by-side/side_by_side.py; its --check (CTest paper_side_by_side) fails "
        "if this page and the data disagree -->"),
        "",
        (f"The per-function results of \"The Grand Illusion\" (Mince et al. 2023), from its authors' repository "
        f"`{src['repository']}` at commit `{src['commit']}` (its pytest failure reports, extracted to "
        "`studies/paper-side-by-side/paper-outcomes.json` by `extract.py`), beside MudJack's published verdicts "
        "for the same functions."),
        "",
        ("- **Paper GPU** is the T4: the repository's only GPU failure reports are from its T4 VM (the A100 has "
        "timings only). TensorFlow's is the run with soft device placement off (`tensorflow_timings/t4_vm/gpu/`); "
        "JAX's one report is from a non-CPU backend on the T4 VM's kernel and is committed, the same file, under "
        "`t4_vm/` and `tpu_vm/`, so JAX has no TPU report. **Paper TPU** is the TPU VM (torch through torch_xla)."),
        ("- **Paper result:** `fail` when any of the function's tests failed (the count the paper reports), with "
        "the first failing test's first error line; `pass` when none failed."),
        (f"- **MudJack:** `cuda:0` and `cpu` of torch and JAX from `{H200}` (one H200 and its host CPU); torch's "
        f"`xla:0` from `{XLA}` (torch_xla on a PJRT **CPU** device: a stand-in for a TPU, not a TPU); TensorFlow's "
        f"`cpu` from `{XEON}` (the CPU headline; TensorFlow has no GPU run). Versions: {versions()}. The paper used "
        "PyTorch 1.12.1, TensorFlow 2.11 and JAX 0.4.8."),
        ("- **Agree** means the paper's `pass` beside a MudJack verdict that is not a failure (`portable`, "
        "`unverified`, `intolerable_latency`), or the paper's `fail` beside a failure (`partial_failure`, "
        "`complete_failure`, `divergent`: wrong answers fail the paper's tests too). A name gone today "
        "(`unavailable`) is compared through the successor MudJack judged. **Not measured:** MudJack has no run "
        "there. **Why** names the likeliest kind of cause of a disagreement: version (2023 releases against "
        "today's), chip (T4, TPU v3 against H200, a CPU XLA device), harness (the paper's trimmed unit tests against "
        "MudJack's dtype grid and float64 oracle); it is a kind, not a diagnosis of each case."),
        "",
        "## Agreement",
        "",
        *tally(table),
        "",
        "## Every function",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(r) + " |" for r in table),
        "",
        "## Not matched",
        "",
        *unmatched(paper),
        "",
        "## The paper's headline, from its reports",
        "",
        *rates(paper),
        "",
        *headline(paper),
    ]
    return "\n".join(text) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is not what the data give")
    args = ap.parse_args()
    want = render()
    if not args.check:
        PAGE.write_text(want, encoding="utf-8")
        return 0
    have = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    if have == want:
        return 0
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True), str(PAGE), "generated"))
    print(f"{PAGE.relative_to(ROOT)} is stale: run studies/paper-side-by-side/side_by_side.py", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
