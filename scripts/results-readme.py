#!/usr/bin/env python3
"""Writes the generated sections of results/README.md from the committed
results (results/*/.../results.json.gz), or checks that they are current.

    scripts/results-readme.py            rewrite the sections in place
    scripts/results-readme.py --check    exit 1, with a diff, if they differ

Every number in a generated section comes from the JSON: the verdicts the
engine wrote, the cases' outcomes and latencies. Nothing is judged here; this
only counts and formats. Standard library only.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
README = RESULTS / "README.md"

CPU_HERE = RESULTS / "2026-11-26-amd-epyc" / "results.json.gz"
H200 = RESULTS / "2026-11-26-nvidia-h200"
H200_RUNS = {"run1": ["torch-tensorflow", "jax"], "run2": ["torch-tensorflow", "jax"]}
FRAMEWORKS = ["torch", "jax", "tensorflow", "numpy"]
VERDICTS = ["portable", "partial_failure", "complete_failure", "divergent", "intolerable_latency", "unavailable"]


def load(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def columns() -> list[tuple[str, dict[str, Any]]]:
    """(column label, results document) per source, in report order."""
    out = [("amd-epyc (here)", load(CPU_HERE))]
    for fw_dir in H200_RUNS["run1"]:
        out.append(("nvidia-h200", load(H200 / "run1" / fw_dir / "results.json.gz")))
    return out


def machine(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["environment"]["machines"][0]


def gpu_model(doc: dict[str, Any]) -> str:
    for d in machine(doc)["devices"]:
        if d.get("kind") == "cuda":
            return str(d.get("model", ""))
    return ""


def pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:.0f}%" if total else "–"


def section_runs(docs: list[tuple[str, dict[str, Any]]], run2: list[dict[str, Any]]) -> str:
    lines = ["| machine | run | started (UTC) | devices | frameworks (versions) | cases × devices | mudjack |",
             "|---|---|---|---|---|--:|---|"]
    for label, doc in docs + [("nvidia-h200 (repeat)", d) for d in run2]:
        m = machine(doc)
        devices = ", ".join(f"`{d['id']}` {d.get('model', '')}".strip() for d in m["devices"])
        fws = ", ".join(f"{fw} {v.get('version') or 'not installed'}" for fw, v in sorted(m["frameworks"].items()))
        lines.append(f"| {label} | `{doc['run']['id']}` | {doc['run']['created_at'][:16].replace('T', ' ')} | {devices} "
                     f"| {fws} | {len(doc['cases'])} | {m.get('mudjack_revision', '')} |")
    drivers = sorted({d.get("driver_version", "") for _, doc in docs for d in machine(doc)["devices"] if d.get("kind") == "cuda"})
    lines.append("")
    lines.append(f"GPU driver {', '.join(drivers)}; CUDA runtime "
                 f"{', '.join(sorted({d.get('runtime_version', '') for _, doc in docs for d in machine(doc)['devices'] if d.get('kind') == 'cuda'}))}.")
    return "\n".join(lines)


def verdict_counts(docs: list[tuple[str, dict[str, Any]]]) -> dict[tuple[str, str], Counter[str]]:
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for label, doc in docs:
        for v in doc["verdicts"]:
            counts[(v["framework"], f"{label.split(' ')[0]}/{v['device']}")][v["verdict"]] += 1
    return counts


def section_matrix(docs: list[tuple[str, dict[str, Any]]]) -> str:
    counts = verdict_counts(docs)
    lines = ["| framework | device | functions | " + " | ".join(v.replace("_", " ") for v in VERDICTS) + " | not portable |",
             "|---|---|--:|" + "--:|" * len(VERDICTS) + "--:|"]
    for fw in FRAMEWORKS:
        for (f, dev), c in sorted(counts.items()):
            if f != fw:
                continue
            total = sum(c.values())
            attempted = total - c["unavailable"]
            bad = attempted - c["portable"]
            cells = " | ".join(str(c[v]) for v in VERDICTS)
            lines.append(f"| {fw} | `{dev}` | {total} | {cells} | {bad} of {attempted} ({pct(bad, attempted)}) |")
    return "\n".join(lines)


def first_error(doc: dict[str, Any], case_ids: list[str], device: str) -> str:
    by = {(c["id"], c["device"]): c for c in doc["cases"]}
    for cid in case_ids:
        c = by.get((cid, device))
        if not c:
            continue
        err = c.get("error") or {}
        msg = err.get("message") or (c.get("numeric") or {}).get("message") or c["outcome"]
        kind = err.get("kind") or c["outcome"]
        msg = " ".join(str(msg).split())
        if len(msg) > 140:
            msg = msg[:140] + "…"
        return f"{cid.split('/', 2)[2]}: {kind}: {msg}".replace("|", "\\|")
    return ""


def section_problems(docs: list[tuple[str, dict[str, Any]]]) -> str:
    lines = ["| framework | function | device | verdict | failing / differing cases | first such case and its error |",
             "|---|---|---|---|--:|---|"]
    rows = []
    for label, doc in docs:
        for v in doc["verdicts"]:
            if v["verdict"] in ("portable", "unavailable", "intolerable_latency"):
                continue
            ids = v["failing"] + v["mismatching"]
            rows.append((FRAMEWORKS.index(v["framework"]), v["function"], f"{label.split(' ')[0]}/{v['device']}",
                         v["verdict"].replace("_", " "), f"{len(v['failing'])} / {len(v['mismatching'])} of {v['cases']}",
                         first_error(doc, ids, v["device"])))
    for r in sorted(rows):
        lines.append(f"| {FRAMEWORKS[r[0]]} | `{r[1]}` | `{r[2]}` | {r[3]} | {r[4]} | {r[5]} |")
    return "\n".join(lines)


def section_latency(docs: list[tuple[str, dict[str, Any]]]) -> str:
    lines = []
    for label, doc in docs:
        if not gpu_model(doc):
            continue
        gpu = [v for v in doc["verdicts"] if v["device"] != "cpu" and v.get("latency_ratio") is not None]
        if not gpu:
            continue
        fw = gpu[0]["framework"]
        ratios = sorted(v["latency_ratio"] for v in gpu)
        slow = [v for v in gpu if (v.get("latency_ratio_low") or v["latency_ratio"]) > 10]
        fast = [v for v in gpu if (v.get("latency_ratio_high") or v["latency_ratio"]) < 0.1]
        bands = Counter("< 0.1×" if r < 0.1 else "0.1–1×" if r < 1 else "1–10×" if r <= 10 else "> 10×" for r in ratios)
        lines.append(f"**{fw}, `cuda:0` against `cpu` of the same {gpu_model(doc)} machine** "
                     f"({len(ratios)} functions with a ratio; median {statistics.median(ratios):.2f}×): "
                     + ", ".join(f"{b}: {bands[b]}" for b in ("< 0.1×", "0.1–1×", "1–10×", "> 10×")) + ".")
        lines.append("")
        lines.append("- Intolerable on the GPU (95% interval wholly above 10×): "
                     + (", ".join(f"`{v['function']}` {v['latency_ratio']:.1f}× [{v['latency_ratio_low']:.1f}–{v['latency_ratio_high']:.1f}]"
                                  for v in sorted(slow, key=lambda v: -v["latency_ratio"])) or "none") + ".")
        lines.append("- The reverse, the CPU 10× slower than the GPU (interval wholly below 0.1×): "
                     + (", ".join(f"`{v['function']}` {v['latency_ratio']:.3f}×" for v in sorted(fast, key=lambda v: v["latency_ratio"]))
                        or "none") + ".")
        lines.append("")
    return "\n".join(lines).rstrip()


def section_cold(docs: list[tuple[str, dict[str, Any]]]) -> str:
    lines = ["| machine · device | mode | passing cases | median cold | median warm | median cold ÷ warm | p90 cold ÷ warm |",
             "|---|---|--:|--:|--:|--:|--:|"]
    for label, doc in docs:
        by: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
        for c in doc["cases"]:
            lat = c["latency"]
            if c["framework"] != "jax" or c["outcome"] != "pass" or not lat.get("cold_ns") or not lat.get("median_ns"):
                continue
            by[(c["device"], c["mode"])].append((float(lat["cold_ns"]), float(lat["median_ns"])))
        for (device, mode), pairs in sorted(by.items()):
            ratios = sorted(cold / warm for cold, warm in pairs)
            p90 = ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]
            lines.append(f"| {label.split(' ')[0]} · `{device}` | {mode} | {len(pairs)} | "
                         f"{statistics.median(c for c, _ in pairs) / 1e6:.2f} ms | {statistics.median(w for _, w in pairs) / 1e3:.1f} µs | "
                         f"{statistics.median(ratios):.0f}× | {p90:.0f}× |")
    return "\n".join(lines)


def section_agreement() -> str:
    lines = ["| runs | framework | device | verdicts equal | outcomes equal | cases timed twice | median within ±10% | within ±25% | within 2× | geometric mean second ÷ first |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    pairs = [("run1, run2: cpu and cuda:0 lanes in parallel", H200 / "run1" / d / "results.json.gz", H200 / "run2" / d / "results.json.gz")
             for d in H200_RUNS["run1"]]
    for what, path_a, path_b in pairs:
        a = load(path_a)
        b = load(path_b)
        devices = sorted({c["device"] for c in a["cases"]})
        for device in devices:
            va = {(v["framework"], v["function"]): (v["verdict"], tuple(v["flags"])) for v in a["verdicts"] if v["device"] == device}
            vb = {(v["framework"], v["function"]): (v["verdict"], tuple(v["flags"])) for v in b["verdicts"] if v["device"] == device}
            ca = {c["id"]: c for c in a["cases"] if c["device"] == device}
            cb = {c["id"]: c for c in b["cases"] if c["device"] == device}
            for fw in sorted({k[0] for k in va}, key=FRAMEWORKS.index):
                keys = [k for k in va if k[0] == fw]
                same_v = sum(va[k] == vb.get(k) for k in keys)
                ids = [i for i in ca if ca[i]["framework"] == fw]
                same_o = sum(ca[i]["outcome"] == cb.get(i, {}).get("outcome") for i in ids)
                ratios = []
                for i in ids:
                    ma, mb = ca[i]["latency"].get("median_ns"), cb.get(i, {}).get("latency", {}).get("median_ns")
                    if ma and mb:
                        ratios.append(mb / ma)
                if ratios:
                    within = lambda t: pct(sum(1 / t <= r <= t for r in ratios), len(ratios))  # noqa: E731
                    gm = statistics.geometric_mean(ratios)
                    timing = f"{len(ratios)} | {pct(sum(0.9 <= r <= 1.1 for r in ratios), len(ratios))} | " \
                             f"{pct(sum(0.75 <= r <= 1.25 for r in ratios), len(ratios))} | {within(2.0)} | {gm:.2f}"
                else:
                    timing = "0 | – | – | – | –"
                lines.append(f"| {what} | {fw} | `{device}` | {same_v} of {len(keys)} | {same_o} of {len(ids)} | {timing} |")
    return "\n".join(lines)


def section_headline(docs: list[tuple[str, dict[str, Any]]]) -> str:
    counts = verdict_counts(docs)

    def line(fw: str, dev: str) -> str:
        c = counts[(fw, dev)]
        attempted = sum(c.values()) - c["unavailable"]
        failed = c["partial_failure"] + c["complete_failure"]
        return (f"{failed} of {attempted} functions fail in part or whole ({pct(failed, attempted)}), "
                f"{c['divergent']} diverge, {c['intolerable_latency']} crawl")

    out = [
        f"- PyTorch on `nvidia-h200/cuda:0`: {line('torch', 'nvidia-h200/cuda:0')}; on its own CPU: {line('torch', 'nvidia-h200/cpu')}.",
        f"- JAX on `nvidia-h200/cuda:0`: {line('jax', 'nvidia-h200/cuda:0')}; on its own CPU: {line('jax', 'nvidia-h200/cpu')}.",
        f"- TensorFlow on this machine's CPU (`amd-epyc/cpu`): {line('tensorflow', 'amd-epyc/cpu')}. "
        f"On the H200 machine all {sum(counts[('tensorflow', 'nvidia-h200/cuda:0')].values())} of its functions are `unavailable`: "
        "TensorFlow is not installed there.",
    ]
    return "\n".join(out)


SURFACE = [("nvidia-h100", RESULTS / "2026-11-27-nvidia-h100-surface"),
           ("amd-epyc", RESULTS / "2026-11-27-amd-epyc-surface")]
SURFACE_SUITES = ["opinfo", "jax-primitives"]


def _ran(outcome: str) -> bool:
    return outcome in ("pass", "mismatch")


def _failed(outcome: str) -> bool:
    return outcome in ("fail", "crash", "timeout")


def section_surface() -> str:
    """The whole-surface suites (run policy `once`): per machine, suite and
    device the outcomes and the claimed-versus-actual counts the engine
    wrote (results.json `claims`), then the functions that fail only on one
    device of a machine, with the dtypes."""
    rows = ["| machine | suite | device | cases | pass | mismatch | fail | skip | other | agree with claims | claimed but failing | working but unclaimed |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    only: list[str] = []
    for label, folder in SURFACE:
        for suite in SURFACE_SUITES:
            path = folder / suite / "results.json.gz"
            if not path.exists():
                continue
            doc = load(path)
            by_device: dict[str, Counter[str]] = defaultdict(Counter)
            for c in doc["cases"]:
                by_device[c["device"]][c["outcome"]] += 1
            for device, n in sorted(by_device.items()):
                claims = next(iter(doc.get("claims", {}).values()), {}).get(device, {})
                other = sum(n.values()) - n["pass"] - n["mismatch"] - n["fail"] - n["skip"]
                rows.append(f"| {label} | `{suite}` | `{device}` | {sum(n.values())} | {n['pass']} | {n['mismatch']} | {n['fail']} | {n['skip']} | {other} | "
                            f"{claims.get('agrees', 0)} | {len(claims.get('claimed_failing', []))} | {len(claims.get('unclaimed_working', []))} |")
            pairs: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
            for c in doc["cases"]:
                pairs[c["id"]][c["device"]] = c
            devices = sorted(by_device)
            if len(devices) != 2:
                continue
            for a, b in (devices, devices[::-1]):
                fails: dict[str, set[str]] = defaultdict(set)
                for both in pairs.values():
                    if a in both and b in both and _ran(both[a]["outcome"]) and _failed(both[b]["outcome"]):
                        fails[both[b]["function"]].add(both[b]["dtype"])
                listed = "; ".join(f"`{f}` ({', '.join(sorted(d))})" for f, d in sorted(fails.items()))
                only.append(f"- {label}, `{suite}`, fails only on `{b}` ({len(fails)} functions): {listed or 'none'}")
    return "\n".join(rows) + "\n\n" + "\n".join(only) + "\n"


FUZZ = [("amd-epyc", RESULTS / "2026-11-27-amd-epyc-fuzz"), ("nvidia-h100", RESULTS / "2026-11-27-nvidia-h100-fuzz")]


def section_fuzz() -> str:
    """The fuzz campaigns (`mudjack fuzz --publish`): per campaign, what ran
    and each backend's acceptance, then every unique finding with its
    reduced ops, duplicates and whether its script reproduced it alone."""
    out: list[str] = []
    for label, folder in FUZZ:
        path = folder / "findings.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        acc = ", ".join(f"`{b}` {a['ran']}/{a['attempted']}" for b, a in sorted(doc.get("acceptance", {}).items()))
        out.append(f"**{label}** (`{folder.name}`): {doc['graphs_generated']} graphs of {doc['options']['nodes']} nodes "
                   f"(dtypes {', '.join(doc['options']['dtypes'])}), {doc['cases']} cases in {doc['seconds']:.0f} s; "
                   f"{doc['rejected_by_all']} rejected by every backend; {doc['suite_errors']} suite errors. "
                   f"Graphs each backend ran: {acc}. {len(doc['findings'])} unique findings:\n")
        out.append("| # | symptom | backend | device | reduced ops | nodes | duplicates | alone |\n|---|---|---|---|---|---|---:|---|")
        for i, f in enumerate(doc["findings"], 1):
            ops = ", ".join(f["reduced_ops"] or f["ops"])
            nodes = f"{f['nodes']} → {f['reduced_nodes']}" if f["reduced"] else f"{f['nodes']} (not reduced)"
            alone = {True: "reproduces", False: "does not reproduce", None: "not run"}[f.get("standalone")]
            out.append(f"| {i} | {f['symptom']} | `{f['backend']}` | `{f['device']}` | {ops} | {nodes} | {f['duplicates']} | {alone} |")
        suspects = doc.get("suspects", [])
        out.append(f"\n{len(suspects)} suspects (a float64 reference at its dtype's noise floor; never findings)"
                   + (":" if suspects else "."))
        for f in suspects:
            out.append(f"- `{f['backend']}` on `{f['device']}` ({', '.join(f['reduced_ops'] or f['ops'])}): {f['suspect']}")
        out.append("")
    return "\n".join(out)


MODELS = [("amd-epyc", RESULTS / "2026-11-27-amd-epyc-models" / "corpus"),
          ("nvidia-h100", RESULTS / "2026-11-27-nvidia-h100-models" / "corpus"),
          # the models the corpus run above did not reach, run on a later machine (CORPUS_FILTER)
          ("nvidia-h100", RESULTS / "2026-11-27-nvidia-h100-models" / "corpus-rest"),
          ("nvidia-h100", RESULTS / "2026-11-27-nvidia-h100-models" / "core")]
MODEL_OUTCOMES = ["pass", "mismatch", "fail", "crash", "timeout", "error", "unavailable", "skip"]


def _first_line(text: str, width: int = 160) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    line = line.replace("|", "\\|")
    return line if len(line) <= width else line[: width - 1] + "…"


def section_models() -> str:
    """The models suite (results.json `models`, one row per model × device
    × stage): per published run the outcome counts per stage and device and
    whether the run completed, then every row that did not pass with its
    error or the oracle's cause. Rows that say the same thing of many models
    (one unavailable reason; a divergence the framework's full-precision
    switch removes) are one line each, naming the models."""
    counts = ["| machine | run | stage | device | rows | " + " | ".join(MODEL_OUTCOMES) + " |",
              "|---|---|---|---|--:|" + "--:|" * len(MODEL_OUTCOMES)]
    states: list[str] = []
    failures = ["| machine | model | framework | stage | device | outcome | error or cause |", "|---|---|---|---|---|---|---|"]
    for label, folder in MODELS:
        path = folder / "results.json.gz"
        if not path.exists():
            continue
        doc = load(path)
        rows = doc.get("models", [])
        run = doc["run"]
        pairs = len(doc["cases"])
        states.append(f"- {label} `{folder.name}`: run `{run['id']}`, {run['state']}, "
                      f"{pairs} case × device results, commit `{doc['environment']['machines'][0]['source']['commit'][:7]}`.")
        by: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for r in rows:
            by[(r["stage"], r["device"])][r["outcome"]] += 1
        for (stage, device), n in sorted(by.items()):
            cells = " | ".join(str(n[o]) for o in MODEL_OUTCOMES)
            counts.append(f"| {label} | `{folder.name}` | {stage} | `{device}` | {sum(n.values())} | {cells} |")
        grouped: dict[tuple[str, str, str, str, str], list[str]] = defaultdict(list)
        for r in sorted(rows, key=lambda r: (r["model"], r["framework"], r["stage"], r["device"])):
            if r["outcome"] in ("pass", "skip"):
                continue
            if r["outcome"] == "unavailable":
                key = (r["framework"], r["stage"], r["device"], "unavailable", _first_line(r.get("error") or "", 120))
                grouped[key].append(r["model"])
                continue
            if r["outcome"] == "mismatch" and r.get("cause") == "precision_default":
                grouped[(r["framework"], r["stage"], r["device"], "mismatch", "precision_default")].append(r["model"])
                continue
            if r["outcome"] == "mismatch":
                why = f"{r['cause']}: error {r['error_eps']:.3g} eps, bound {r['bound_eps']:.3g} eps" \
                    if r.get("error_eps") is not None and r.get("bound_eps") is not None \
                    else f"{r['cause']}: {_first_line(r.get('error') or '')}"
            else:
                why = _first_line(r.get("error") or "")
            failures.append(f"| {label} | {r['model']} | {r['framework']} | {r['stage']} | `{r['device']}` | {r['outcome']} | {why} |")
        for (framework, stage, device, outcome, why), models in sorted(grouped.items()):
            if why == "precision_default":
                why = "precision_default: each agrees with the float64 model once the framework's full-precision switch is set"
            failures.append(f"| {label} | {len(models)} models: {', '.join(models)} | {framework} | {stage} | `{device}` | {outcome} | {why} |")
    return "\n".join(counts) + "\n\n" + "\n".join(states) + "\n\n" + "\n".join(failures) + "\n"


AXIS = RESULTS / "2026-11-27-intel-xeon-version-axis"
AXIS_VERDICTS = ["portable", "unverified", "partial_failure", "complete_failure", "divergent", "unavailable"]


def section_version_axis() -> str:
    """The version axis (studies/version-axis/version-axis.sh and version-axis.py, bisects
    by studies/version-axis/bisect-release.py): per profile and framework the release that
    ran and its verdict counts; per framework and pair of profiles the
    functions fixed, broken, added, removed, changed numerically and timed
    beyond noise; every fixed and broken function with the error on its
    failing side; per function the cases fixed and newly failing (a function
    can gain cases without changing its verdict); and the bisected releases."""
    if not (AXIS / "axis.json").exists():
        return f"Not published yet: `{AXIS.relative_to(ROOT)}/axis.json` is missing.\n"
    axis = json.loads((AXIS / "axis.json").read_text(encoding="utf-8"))
    runs = ["| profile | framework | release | Python | run | commit | seconds | " + " | ".join(v.replace("_", " ") for v in AXIS_VERDICTS) + " |",
            "|---|---|---|---|---|---|--:|" + "--:|" * len(AXIS_VERDICTS)]
    for profile in ("paper-2023", "current", "latest"):
        for fw, env in sorted(axis["profiles"].get(profile, {}).items()):
            cells = " | ".join(str(env["verdicts"].get(v, 0)) for v in AXIS_VERDICTS)
            runs.append(f"| {profile} | {fw} | {env['version']} | {env['python']} | `{env['run']}` | `{env['commit'][:7]}` "
                        f"| {env['seconds']} | {cells} |")
    pairs = ["| framework | from | to | fixed | broken | added | removed | numeric | functions slower | functions faster | cases slower / faster / inside noise |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    details = ["| framework | from → to | change | function | verdicts | error on the failing side |", "|---|---|---|---|---|---|"]
    for p in axis["pairs"]:
        lat = p["latency"]
        pairs.append(f"| {p['framework']} | {p['from']} ({p['from_version']}) | {p['to']} ({p['to_version']}) "
                     f"| {len(p['fixed'])} | {len(p['broken'])} | {len(p['added'])} | {len(p['removed'])} | {len(p['numeric'])} "
                     f"| {lat['functions_slower']} | {lat['functions_faster']} "
                     f"| {lat['cases']['regression']} / {lat['cases']['improvement']} / {lat['cases']['inside_noise']} |")
        for change in ("fixed", "broken", "added", "removed", "numeric"):
            for e in p[change]:
                why = _first_line(e.get("error") or e.get("reason") or "", 200)
                details.append(f"| {p['framework']} | {p['from']} → {p['to']} | {change} | `{e['function']}` "
                               f"| {e['old'].replace('_', ' ')} → {e['new'].replace('_', ' ')} | {why} |")
    outcomes = ["| framework | from → to | function | cases fixed | cases newly failing |", "|---|---|---|--:|--:|"]
    for p in axis["pairs"]:
        for o in p["latency"].get("outcomes", []):
            outcomes.append(f"| {p['framework']} | {p['from']} → {p['to']} | `{o['function']}` | {o['fixed']} | {o['new_failure']} |")
    bisects = ["| framework | function | between | changed in | last release before | releases tried (class) |",
               "|---|---|---|---|---|---|"]
    for path in sorted((AXIS / "bisect").glob("*.json")):
        b = json.loads(path.read_text(encoding="utf-8"))
        tried = ", ".join(f"{t['version']} ({t['class']})" for t in b["tried"])
        bisects.append(f"| {b['framework']} | `{b['function']}` | {b['old']} – {b['new']} | {b.get('changed_in') or '–'} "
                       f"| {b.get('last_before') or '–'} | {tried} |")
    return ("\n".join(runs) + "\n\n" + "\n".join(pairs) + "\n\n" + "\n".join(details) + "\n\n"
            + "\n".join(outcomes) + "\n\n" + "\n".join(bisects) + "\n")


def generate() -> dict[str, str]:
    docs = columns()
    run2 = [load(H200 / "run2" / d / "results.json.gz") for d in H200_RUNS["run2"]]
    return {
        "headline": section_headline(docs),
        "runs": section_runs(docs, run2),
        "matrix": section_matrix(docs),
        "problems": section_problems(docs),
        "latency": section_latency(docs),
        "cold": section_cold(docs),
        "agreement": section_agreement(),
        "surface": section_surface(),
        "fuzz": section_fuzz(),
        "models": section_models(),
        "version-axis": section_version_axis(),
    }


def render(text: str, sections: dict[str, str]) -> str:
    for name, body in sections.items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- /generated:{name} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"results/README.md has no <!-- generated:{name} --> block")
        text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md is not what the JSON gives")
    args = parser.parse_args()
    current = README.read_text(encoding="utf-8")
    wanted = render(current, generate())
    if args.check:
        if wanted != current:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), wanted.splitlines(True),
                                                       "results/README.md", "from the committed JSON"))
            print("results/README.md differs from what the committed results give: run scripts/results-readme.py",
                  file=sys.stderr)
            return 1
        print("results/README.md matches the committed results")
        return 0
    README.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
