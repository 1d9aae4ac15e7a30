#!/usr/bin/env python3
"""Portability weighted by use, with Python alone: what share of a models
corpus's eager aten operator calls run right on each device of an OpInfo
surface run. A cross-check of `mudjack portability` (docs/portability.md),
which the engine computes: the same join and the same rules, written again.

  studies/portability/portability.py --surface SURFACE.json[.gz] CORPUS.json[.gz]... \\
      [--manifest suites/opinfo/manifest.json] [--json OUT.json] [--top 20]

The rules, as docs/portability.md states them:

- A model is (framework, model, dtype) of an `eager` case of the corpus runs
  that is a composition (tag name::, a models-suite model; or
  check.target::model, a model `mudjack check` was given) with an aten
  histogram (metrics op:aten.<op>); a later run's case replaces an earlier
  one's outcome, and its histogram where it has one. Its histogram on device
  D is the one recorded on D, else on cpu, else any; its outcome on D is its
  eager case's on D.
- An aten op (`aten.X`) maps to OpInfo entries, the first rule that finds one:
  the table of internal ops (DISPATCHED_BY: what public op dispatches X);
  an entry whose `aten_name` or one of whose `aliases` is X; an entry whose
  dotted name ends in `.X`; for an in-place X_, the same rules for X.
- The op's status on (D, dtype) pools the surface's opinfo cases (torch's,
  tagged "opinfo") of its entries on D in that dtype, leaving out error,
  unavailable and skip and the fails refused as `unsupported` (outside the
  op's domain): none left -> unverified;
  all failures (fail, crash, timeout, mismatch) -> failing; some -> partial;
  a pass checked by nothing -> unverified; else portable. No entry: unmapped.
- A model is predicted `fail` when an op is failing, `risk` when one is
  partial, `fine` when every op is portable, `unknown` otherwise; against its
  outcome on D (fine: pass; not_fine: any failure; else not_run).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
STATUSES = ("portable", "partial", "failing", "unverified", "unmapped")
PREDICTIONS = ("fail", "risk", "fine", "unknown")
ACTUALS = ("fine", "not_fine", "not_run")

_CONV = ("nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
         "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d")
_SDPA = ("nn.functional.scaled_dot_product_attention",)
DISPATCHED_BY: dict[str, tuple[str, ...]] = {
    # Internal aten ops no OpInfo entry names, and the public ops (OpInfo
    # function names: name.variant) that dispatch them. A copy of the engine's
    # table (src/portability/join.cpp, kDispatchedBy): keep the two the same.
    "_adaptive_avg_pool2d": ("nn.functional.adaptive_avg_pool2d",),
    "_adaptive_avg_pool3d": ("nn.functional.adaptive_avg_pool3d",),
    "_convolution": _CONV,
    "_fft_c2c": ("fft.fft", "fft.fft2", "fft.fftn", "fft.ifft", "fft.ifft2", "fft.ifftn"),
    "_fft_c2r": ("fft.irfft", "fft.irfft2", "fft.irfftn", "fft.hfft", "fft.hfft2", "fft.hfftn"),
    "_fft_r2c": ("fft.rfft", "fft.rfft2", "fft.rfftn", "fft.ihfft", "fft.ihfft2", "fft.ihfftn"),
    "_log_softmax": ("log_softmax",),
    "_native_multi_head_attention": ("nn.functional.multi_head_attention_forward",),
    "_prelu_kernel": ("nn.functional.prelu",),
    "_safe_softmax": ("softmax",),
    "_scaled_dot_product_cudnn_attention": _SDPA,
    "_scaled_dot_product_efficient_attention": _SDPA,
    "_scaled_dot_product_flash_attention": _SDPA,
    "_scaled_dot_product_flash_attention_for_cpu": _SDPA,
    "_softmax": ("softmax",),
    "_to_copy": ("to",),
    "_unique2": ("unique",),
    "_unsafe_view": ("reshape",),
    "_upsample_nearest_exact1d": ("nn.functional.interpolate.nearest-exact",),
    "_upsample_nearest_exact2d": ("nn.functional.interpolate.nearest-exact",),
    "_upsample_nearest_exact3d": ("nn.functional.interpolate.nearest-exact",),
    "convolution": _CONV,
    "index": ("__getitem__",),
    "max_pool2d_with_indices": ("nn.functional.max_pool2d",),
    "max_pool3d_with_indices": ("nn.functional.max_pool3d",),
    "native_group_norm": ("nn.functional.group_norm",),
    "reflection_pad1d": ("nn.functional.pad.reflect",),
    "reflection_pad2d": ("nn.functional.pad.reflect",),
    "reflection_pad3d": ("nn.functional.pad.reflect",),
    "replication_pad1d": ("nn.functional.pad.replicate",),
    "replication_pad2d": ("nn.functional.pad.replicate",),
    "replication_pad3d": ("nn.functional.pad.replicate",),
    "upsample_bicubic2d": ("nn.functional.interpolate.bicubic",),
    "upsample_bilinear2d": ("nn.functional.interpolate.bilinear", "nn.functional.upsample_bilinear"),
    "upsample_linear1d": ("nn.functional.interpolate.linear",),
    "upsample_nearest1d": ("nn.functional.interpolate.nearest",),
    "upsample_nearest2d": ("nn.functional.interpolate.nearest", "nn.functional.upsample_nearest"),
    "upsample_nearest3d": ("nn.functional.interpolate.nearest",),
    "upsample_trilinear3d": ("nn.functional.interpolate.trilinear",),
}

OUTCOMES = json.loads((ROOT / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["outcome_properties"]


def load(path: str) -> dict[str, Any]:
    opener: Any = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return dict(json.load(f))


def function_name(rec: dict[str, Any]) -> str:
    return f"{rec['name']}.{rec['variant']}" if rec["variant"] else str(rec["name"])


class Mapper:
    """aten op -> (OpInfo function names, how they were found)."""

    def __init__(self, manifest: dict[str, Any]) -> None:
        self.functions = {function_name(r) for r in manifest["ops"]}
        self.by_aten: dict[str, list[str]] = defaultdict(list)
        self.by_alias: dict[str, list[str]] = defaultdict(list)
        self.by_tail: dict[str, list[str]] = defaultdict(list)
        for r in manifest["ops"]:
            fn = function_name(r)
            self.by_aten[r["aten_name"]].append(fn)
            for a in r["aliases"]:
                self.by_alias[a].append(fn)
            if "." in r["name"]:
                self.by_tail[r["name"].rsplit(".", 1)[1]].append(fn)

    def _find(self, name: str) -> tuple[list[str], str]:
        table = [f for f in DISPATCHED_BY.get(name, ()) if f in self.functions]
        if table:
            return table, "table"
        if self.by_aten.get(name):
            return sorted(self.by_aten[name]), "aten_name"
        if self.by_alias.get(name):
            return sorted(self.by_alias[name]), "alias"
        if self.by_tail.get(name):
            return sorted(self.by_tail[name]), "name"
        return [], ""

    def map(self, op: str) -> tuple[list[str], str]:
        if not op.startswith("aten."):
            return [], ""
        name = op.removeprefix("aten.")
        found, how = self._find(name)
        if not found and name.endswith("_") and not name.endswith("__"):
            found, how = self._find(name[:-1])
            how = f"inplace+{how}" if found else ""
        return found, how


def case_facts(surface: dict[str, Any]) -> dict[tuple[str, str, str], list[tuple[bool, bool]]]:
    """(function, device, dtype) -> [(failure, unchecked pass)] of the attempted, in-domain torch cases."""
    out: dict[tuple[str, str, str], list[tuple[bool, bool]]] = defaultdict(list)
    for c in surface["cases"]:
        props = OUTCOMES[c["outcome"]]
        if c["framework"] != "torch" or "opinfo" not in c.get("tags", []) or not props["attempted"]:
            continue
        refusal = (c.get("refusal") or {}).get("refusal", "")
        if c["outcome"] == "fail" and refusal == "unsupported":
            continue
        unchecked = c["outcome"] == "pass" and c.get("checked", "none") == "none"
        out[(c["function"], c["device"], c["dtype"])].append((bool(props["failure"]), unchecked))
    return out


def status_of(facts: list[tuple[bool, bool]]) -> tuple[str, int, int]:
    """(status, failed cases, attempted cases) of an op's pooled cases."""
    n = len(facts)
    failed = sum(1 for f, _ in facts if f)
    if n == 0:
        return "unverified", 0, 0
    if failed == n:
        return "failing", failed, n
    if failed:
        return "partial", failed, n
    if any(u for _, u in facts):
        return "unverified", 0, n
    return "portable", 0, n


def model_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's eager compositions as the engine reads them: a case whose tags
    carry name:: (a models-suite model) or check.target::model (a model
    `mudjack check` was given), its histogram the metrics op:aten.<op>."""
    rows = []
    for c in doc["cases"]:
        tags = c.get("tags", [])
        if c["mode"] != "eager" or not (any(t.startswith("name::") for t in tags) or "check.target::model" in tags):
            continue
        ops = {name[3:]: int(m["value"]) for name, m in (c.get("metrics") or {}).items()
               if name.startswith("op:aten.") and m.get("value") is not None}
        rows.append({"framework": c["framework"], "model": c["function"], "dtype": c["dtype"], "device": c["device"],
                     "outcome": c["outcome"], "ops": ops})
    return rows


def corpus_models(paths: list[str]) -> tuple[dict[tuple[str, str, str], dict[str, dict[str, int]]], dict[tuple[str, str, str, str], str]]:
    """((framework, model, dtype) -> {device: histogram}, (framework, model, dtype, device) -> outcome)."""
    hist: dict[tuple[str, str, str], dict[str, dict[str, int]]] = defaultdict(dict)
    outcome: dict[tuple[str, str, str, str], str] = {}
    for p in paths:
        for m in model_rows(load(p)):
            key = (m["framework"], m["model"], m["dtype"])
            outcome[key + (m["device"],)] = m["outcome"]
            if m["ops"]:
                hist[key][m["device"]] = m["ops"]
    return hist, outcome


def histogram_on(by_device: dict[str, dict[str, int]], device: str) -> dict[str, int]:
    if device in by_device:
        return by_device[device]
    if "cpu" in by_device:
        return by_device["cpu"]
    return by_device[sorted(by_device)[0]]


def actual_of(outcome: str | None) -> str:
    if outcome is None or not OUTCOMES[outcome]["attempted"]:
        return "not_run"
    return "fine" if OUTCOMES[outcome]["fine"] else "not_fine"


def predict(statuses: set[str]) -> str:
    if "failing" in statuses:
        return "fail"
    if "partial" in statuses:
        return "risk"
    if statuses <= {"portable"}:
        return "fine"
    return "unknown"


def device_view(device: str, dtype: str, models: list[tuple[str, str, dict[str, int]]], outcome: dict[tuple[str, str, str, str], str],
                mapper: Mapper, facts: dict[tuple[str, str, str], list[tuple[bool, bool]]], top: int) -> dict[str, Any]:
    op_status: dict[str, tuple[str, int, int]] = {}
    calls: Counter[str] = Counter()
    model_count: Counter[str] = Counter()
    confusion = {p: dict.fromkeys(ACTUALS, 0) for p in PREDICTIONS}
    rows = []
    for framework, model, ops in models:
        seen = set()
        for op, n in ops.items():
            if op not in op_status:
                functions, _ = mapper.map(op)
                if not functions:
                    op_status[op] = ("unmapped", 0, 0)
                else:
                    pooled = [x for f in functions for x in facts.get((f, device, dtype), [])]
                    op_status[op] = status_of(pooled)
            calls[op] += n
            model_count[op] += 1
            seen.add(op_status[op][0])
        pred = predict(seen)
        actual = actual_of(outcome.get((framework, model, dtype, device)))
        confusion[pred][actual] += 1
        bad = sorted(op for op in ops if op_status[op][0] in ("failing", "partial"))
        rows.append({"framework": framework, "model": model, "prediction": pred, "actual": actual,
                     "outcome": outcome.get((framework, model, dtype, device), ""), "failing_ops": bad})
    total = sum(calls.values())
    by_status = Counter()
    for op, n in calls.items():
        by_status[op_status[op][0]] += n
    ranked = sorted((op for op in calls if op_status[op][0] in ("failing", "partial")),
                    key=lambda op: (-calls[op] * op_status[op][1] / op_status[op][2], op))
    unknown = sorted((op for op in calls if op_status[op][0] in ("unverified", "unmapped")), key=lambda op: (-calls[op], op))
    return {
        "device": device, "dtype": dtype, "models": len(models), "calls": total,
        "calls_by_status": {s: by_status[s] for s in STATUSES},
        "shares": {s: by_status[s] / total if total else 0.0 for s in STATUSES},
        "top": [{"op": op, "status": op_status[op][0], "calls": calls[op], "models": model_count[op],
                 "failed_cases": op_status[op][1], "attempted_cases": op_status[op][2],
                 "failing_calls": calls[op] * op_status[op][1] / op_status[op][2]} for op in ranked[:top]],
        "unknown": [{"op": op, "status": op_status[op][0], "calls": calls[op], "models": model_count[op]} for op in unknown[:top]],
        "confusion": confusion,
        "model_rows": rows,
    }


def print_view(v: dict[str, Any]) -> None:
    print(f"\n{v['device']} {v['dtype']}: {v['models']} models, {v['calls']} aten calls")
    print("  " + "  ".join(f"{s} {100 * v['shares'][s]:.1f}%" for s in STATUSES))
    print("  ops that matter most (calls x share of their cases that failed):")
    for t in v["top"]:
        print(f"    {t['op']:<52} {t['status']:<8} {t['calls']:>8} calls, {t['failed_cases']}/{t['attempted_cases']} cases failed, "
              f"{t['models']} models")
    print("  largest unknowns (unverified or unmapped, by calls):")
    for t in v["unknown"][:10]:
        print(f"    {t['op']:<52} {t['status']:<10} {t['calls']:>8} calls, {t['models']} models")
    print("  prediction x actual outcome on this device:")
    print(f"    {'':<9}" + "".join(f"{a:>10}" for a in ACTUALS))
    for p in PREDICTIONS:
        print(f"    {p:<9}" + "".join(f"{v['confusion'][p][a]:>10}" for a in ACTUALS))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="+", help="models corpus results.json[.gz], later ones replacing earlier rows")
    ap.add_argument("--surface", required=True, help="an opinfo surface run's results.json[.gz]")
    ap.add_argument("--manifest", default=str(ROOT / "suites" / "opinfo" / "manifest.json"))
    ap.add_argument("--json", help="write the whole view here")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    mapper = Mapper(json.loads(Path(args.manifest).read_text(encoding="utf-8")))
    surface = load(args.surface)
    facts = case_facts(surface)
    hist, outcome = corpus_models(args.corpus)
    devices = sorted({c["device"] for c in surface["cases"] if c["framework"] == "torch" and "opinfo" in c.get("tags", [])})
    views = []
    for device in devices:
        for dtype in sorted({k[2] for k in hist}):
            models = [(fw, m, histogram_on(by_dev, device)) for (fw, m, dt), by_dev in sorted(hist.items()) if dt == dtype]
            views.append(device_view(device, dtype, models, outcome, mapper, facts, args.top))
    all_calls: Counter[str] = Counter()
    for by_dev in hist.values():
        all_calls.update(histogram_on(by_dev, "cpu"))
    total = sum(all_calls.values())
    blind = Counter(o for (fw, m, dt, dev), o in outcome.items() if (fw, m, dt) not in hist)
    print(f"model rows without an aten histogram (never weighed, never predicted): {sum(blind.values())} {dict(blind)}")
    unmapped = [{"op": op, "calls": n, "share": n / total} for op, n in all_calls.most_common() if not mapper.map(op)[0]]
    mapping = {op: dict(zip(("functions", "how"), mapper.map(op))) for op in sorted(all_calls)}
    print(f"{len(hist)} models, {len(all_calls)} distinct aten ops, {total} calls; "
          f"unmapped: {len(unmapped)} ops, {100 * sum(u['calls'] for u in unmapped) / total:.2f}% of calls")
    print("  by how they map: " + ", ".join(f"{how or 'unmapped'} {n}" for how, n in Counter(m['how'] for m in mapping.values()).most_common()))
    for u in unmapped:
        print(f"    unmapped {u['op']:<52} {u['calls']:>8} calls ({100 * u['share']:.2f}%)")
    for v in views:
        print_view(v)
    if args.json:
        Path(args.json).write_text(json.dumps({"mapping": mapping, "unmapped": unmapped, "views": views}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
