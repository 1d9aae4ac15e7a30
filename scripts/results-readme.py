#!/usr/bin/env python3
"""Writes the generated sections of results/README.md (and of
results/rejudge-2026-11-26-amd-epyc.md) from the committed results
(results/*/.../results.json.gz), or checks that they are current, and checks
that every published folder records its provenance.

    scripts/results-readme.py                    rewrite the sections in place
    scripts/results-readme.py --check            exit 1, with a diff, if they differ,
                                                 or if a folder lacks provenance
    scripts/results-readme.py --provenance DIR   only the provenance rule, on DIR
                                                 (a results folder; exit 1 naming each
                                                 folder outside DIR/history without it)
    scripts/results-readme.py --rejudge MUDJACK  re-judge the old headline's CPU run
                                                 with that engine binary (writes
                                                 results/history/2026-11-26-amd-epyc/rejudged.json
                                                 from the run in git history, OLD_CPU_RUN)

Every number in a generated section comes from the JSON: the verdicts the
engine wrote, the cases' outcomes and latencies. Nothing is judged here; this
only counts and formats. The verdict list and every grouping of outcomes and
verdicts (which ran, failed, were attempted) are the engine's
(schemas/vocabulary.json: $defs.verdict, outcome_properties,
verdict_properties). Standard library only.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import re
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
README = RESULTS / "README.md"

HISTORY = RESULTS / "history"
VOCABULARY = json.loads((ROOT / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))
FRAMEWORKS = ["torch", "jax", "tensorflow", "numpy"]  # the tables' order (tests/python/test_vocabulary.py: the engine's words)
NO_RUN = ("No complete published run of the `paper` suite yet: the headline reads only complete runs that "
          "`mudjack report --publish` accepts (a clean, known source tree). The earlier headline's runs (now in "
          "`history/`) were made from a dirty tree or record no source state; the 2026-11-28 H100 runs stopped "
          "after 360 s (the device time ran out) and are evidence of timing, not a headline.")
NONE_YET = "No published `paper` run yet (see the headline)."


def having(name: str, flag: str) -> frozenset[str]:
    """The engine's outcomes or verdicts (`name`) whose `flag` is true
    (model::props: ran, failed, failure, attempted; an outcome's judged, fine)."""
    return frozenset(w for w, props in VOCABULARY[f"{name}_properties"].items() if props[flag])


def verdict_list() -> list[str]:
    """The engine's verdicts (most severe first in the vocabulary), mildest
    first: portable, unverified, ..., the ones never attempted (unavailable) last."""
    enum = VOCABULARY["$defs"]["verdict"]["enum"]
    attempted = having("verdict", "attempted")
    return [v for v in reversed(enum) if v in attempted] + [v for v in enum if v not in attempted]


VERDICTS = verdict_list()


def load(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def unpublishable(doc: dict[str, Any]) -> str | None:
    """Why `mudjack report --publish` refuses this run (run::unpublishable,
    envs::unpublishable): no machine, no source state, unknown, or dirty
    (the source tree or the engine's)."""
    machines = doc.get("environment", {}).get("machines") or []
    if not machines:
        return "records no machine, so no source state"
    for m in machines:
        source = m.get("source")
        if not isinstance(source, dict):
            return "records no source state"
        if not isinstance(source.get("dirty"), bool):
            return "its source tree's state is unknown"
        if source["dirty"]:
            return "made from a dirty tree"
        if str(m.get("mudjack_revision", "")).endswith("-dirty"):
            return "run by an engine built from a dirty tree"
    return None


def published_folders(root: Path) -> list[Path]:
    return sorted(d for d in root.iterdir() if d.is_dir() and d.name != "history")


def columns(root: Path = RESULTS) -> list[tuple[str, dict[str, Any]]]:
    """(machine label, results document) of every complete `paper` run
    outside history/ that `report --publish` accepts, folder by folder; a version
    axis (a folder with axis.json) is its own section."""
    out = []
    for folder in published_folders(root):
        if (folder / "axis.json").exists():
            continue
        for path in sorted(folder.rglob("results.json.gz")):
            doc = load(path)
            # A run stopped before its end (state `incomplete`) covers only
            # the cases it reached: it is evidence, not a headline.
            # A narrowed run (--function, --dtype, --mode) is a study, not a
            # headline; one of fewer frameworks (a GPU machine without
            # TensorFlow) is a headline of those it ran.
            if (doc["run"].get("suite") == "paper" and doc["run"].get("state") == "complete"
                    and frameworks_only(doc["run"].get("options", {}).get("narrowed") or "")
                    and unpublishable(doc) is None):
                out.append((folder.name[11:] if folder.name[:4].isdigit() else folder.name, doc))
    return out


def frameworks_only(narrowed: str) -> bool:
    """Whether a run's narrowing (`--framework torch --framework jax: 3518
    of 4787 cases`) names frameworks only, or nothing."""
    flags = [w for w in narrowed.split(":")[0].split() if w.startswith("--")]
    return all(f == "--framework" for f in flags)


def not_run(docs: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, str]]:
    """(framework, machine label, why) for each framework of the tables a
    headline run left out, with the reason its machine record gives."""
    out = []
    for label, doc in docs:
        ran = set(doc["run"].get("options", {}).get("frameworks") or FRAMEWORKS)
        have = machine(doc).get("frameworks", {})
        for fw in FRAMEWORKS:
            if fw in ran:
                continue
            why = (f"not installed on that machine (its {', '.join(sorted(have))} only)" if fw not in have
                   else "left out of that run")
            out.append((fw, label.split(" ")[0], why))
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


def section_runs(docs: list[tuple[str, dict[str, Any]]]) -> str:
    if not docs:
        return NONE_YET
    lines = ["| machine | run | started (UTC) | devices | frameworks (versions) | cases × devices | mudjack | source |",
             "|---|---|---|---|---|--:|---|---|"]
    for label, doc in docs:
        m = machine(doc)
        devices = ", ".join(f"`{d['id']}` {d.get('model', '')}".strip() for d in m["devices"])
        fws = ", ".join(f"{fw} {v.get('version') or 'not installed'}" for fw, v in sorted(m["frameworks"].items()))
        lines.append(f"| {label} | `{doc['run']['id']}` | {doc['run']['created_at'][:16].replace('T', ' ')} | {devices} "
                     f"| {fws} | {len(doc['cases'])} | {m.get('mudjack_revision', '')} | `{m['source']['commit'][:7]}` |")
    cuda = [d for _, doc in docs for d in machine(doc)["devices"] if d.get("kind") == "cuda"]
    if cuda:
        lines.append("")
        lines.append(f"GPU driver {', '.join(sorted({d.get('driver_version', '') for d in cuda}))}; CUDA runtime "
                     f"{', '.join(sorted({d.get('runtime_version', '') for d in cuda}))}.")
    return "\n".join(lines)


def verdict_counts(docs: list[tuple[str, dict[str, Any]]]) -> dict[tuple[str, str], Counter[str]]:
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for label, doc in docs:
        for v in doc["verdicts"]:
            counts[(v["framework"], f"{label.split(' ')[0]}/{v['device']}")][v["verdict"]] += 1
    return counts


def section_matrix(docs: list[tuple[str, dict[str, Any]]]) -> str:
    if not docs:
        return NONE_YET
    counts = verdict_counts(docs)
    lines = ["| framework | device | functions | " + " | ".join(v.replace("_", " ") for v in VERDICTS) + " | not portable |",
             "|---|---|--:|" + "--:|" * len(VERDICTS) + "--:|"]
    for fw in FRAMEWORKS:
        for (f, dev), c in sorted(counts.items()):
            if f != fw:
                continue
            total = sum(c.values())
            attempted = sum(c[v] for v in having("verdict", "attempted"))
            bad = attempted - c["portable"]
            cells = " | ".join(str(c[v]) for v in VERDICTS)
            lines.append(f"| {fw} | `{dev}` | {total} | {cells} | {bad} of {attempted} ({pct(bad, attempted)}) |")
        lines.extend(f"| {fw} | `{label}` | not run: {why} |" + " |" * len(VERDICTS) + " |"
                     for f, label, why in not_run(docs) if f == fw)
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
    if not docs:
        return NONE_YET
    lines = ["| framework | function | device | verdict | failing / differing cases | first such case and its error |",
             "|---|---|---|---|--:|---|"]
    rows = []
    for label, doc in docs:
        for v in doc["verdicts"]:
            if v["verdict"] not in having("verdict", "failure"):  # no failing or differing case
                continue
            ids = v["failing"] + v["mismatching"]
            rows.append((FRAMEWORKS.index(v["framework"]), v["function"], f"{label.split(' ')[0]}/{v['device']}",
                         v["verdict"].replace("_", " "), f"{len(v['failing'])} / {len(v['mismatching'])} of {v['cases']}",
                         first_error(doc, ids, v["device"])))
    for r in sorted(rows):
        lines.append(f"| {FRAMEWORKS[r[0]]} | `{r[1]}` | `{r[2]}` | {r[3]} | {r[4]} | {r[5]} |")
    return "\n".join(lines)


def section_latency(docs: list[tuple[str, dict[str, Any]]]) -> str:
    if not docs:
        return NONE_YET
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
    if not docs:
        return NONE_YET
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


def section_headline(docs: list[tuple[str, dict[str, Any]]]) -> str:
    if not docs:
        return NO_RUN
    counts = verdict_counts(docs)
    out = []
    for fw in FRAMEWORKS:
        for (f, dev), c in sorted(counts.items()):
            if f != fw:
                continue
            attempted = sum(c[v] for v in having("verdict", "attempted"))
            if not attempted:
                out.append(f"- {fw} on `{dev}`: all {sum(c.values())} functions `unavailable`.")
                continue
            failed = sum(c[v] for v in having("verdict", "failed"))
            out.append(f"- {fw} on `{dev}`: {failed} of {attempted} functions fail in part or whole ({pct(failed, attempted)}), "
                       f"{c['divergent']} diverge, {c['unverified']} `unverified` (a pass checked by nothing), "
                       f"{c['intolerable_latency']} crawl.")
        out.extend(f"- {fw} on `{label}`: not run: {why}." for f, label, why in not_run(docs) if f == fw)
    return "\n".join(out)


SURFACE = [("nvidia-h100", RESULTS / "2026-11-27-nvidia-h100-surface"),
           ("amd-epyc", RESULTS / "2026-11-27-amd-epyc-surface")]
SURFACE_SUITES = ["opinfo", "jax-primitives"]


def _ran(outcome: str) -> bool:
    return outcome in having("outcome", "ran")


def _failed(outcome: str) -> bool:
    return outcome in having("outcome", "failed")


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


# in history/: the campaigns record no source commit (docs: results/history/README.md)
FUZZ = [("amd-epyc", HISTORY / "2026-11-27-amd-epyc-fuzz"), ("nvidia-h100", HISTORY / "2026-11-27-nvidia-h100-fuzz")]


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


MODELS = [("intel-xeon", RESULTS / "2026-11-27-intel-xeon-models" / "corpus"),
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
        default = [r for r in rows if r.get("cause") == "precision_default" and r.get("error_eps") is not None]
        if default:
            per = Counter(f"{r['framework']} on `{r['device']}`" for r in default)
            states.append(f"  - Default precision (`precision_default`: agrees once the framework's full-precision switch is set): "
                          f"{len(default)} rows ({', '.join(f'{k} {n}' for k, n in sorted(per.items()))}), "
                          f"error against the float64 model {min(r['error_eps'] for r in default):.3g} to "
                          f"{max(r['error_eps'] for r in default):.3g} eps (bounds {min(r['bound_eps'] for r in default):.3g} "
                          f"to {max(r['bound_eps'] for r in default):.3g} eps).")
        by: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for r in rows:
            by[(r["stage"], r["device"])][r["outcome"]] += 1
        for (stage, device), n in sorted(by.items()):
            cells = " | ".join(str(n[o]) for o in MODEL_OUTCOMES)
            counts.append(f"| {label} | `{folder.name}` | {stage} | `{device}` | {sum(n.values())} | {cells} |")
        grouped: dict[tuple[str, str, str, str, str], list[str]] = defaultdict(list)
        for r in sorted(rows, key=lambda r: (r["model"], r["framework"], r["stage"], r["device"])):
            if r["outcome"] in having("outcome", "fine"):
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
AXIS_VERDICTS = [v for v in VERDICTS if v != "intolerable_latency"]  # one device: no latency verdict
# in history/: the bisects record no source commit; scripts/bisect-release.py now records it
BISECTS = [AXIS / "bisect", HISTORY / "2026-11-27-intel-xeon-bisect"]


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
    totals = ["| framework | from → to | cases fixed | cases newly failing | functions with a newly failing case |",
              "|---|---|--:|--:|---|"]
    for p in axis["pairs"]:
        rows = p["latency"].get("outcomes", [])
        for o in rows:
            outcomes.append(f"| {p['framework']} | {p['from']} → {p['to']} | `{o['function']}` | {o['fixed']} | {o['new_failure']} |")
        worse = ", ".join(f"`{o['function']}`" for o in rows if o["new_failure"]) or "none"
        totals.append(f"| {p['framework']} | {p['from']} → {p['to']} | {sum(o['fixed'] for o in rows)} "
                      f"| {sum(o['new_failure'] for o in rows)} | {worse} |")
    bisects = ["| framework | function | between | changed in | last release before | releases tried of those between (class) |",
               "|---|---|---|---|---|---|"]
    for path in sorted(p for d in BISECTS for p in d.glob("*.json")):
        b = json.loads(path.read_text(encoding="utf-8"))
        tried = ", ".join(f"{t['version']} ({t['class']})" for t in b["tried"])
        bisects.append(f"| {b['framework']} | `{b['function']}` | {b['old']} – {b['new']} | {b.get('changed_in') or '–'} "
                       f"| {b.get('last_before') or '–'} | {len(b['tried'])} of {len(b['releases'])}: {tried} |")
    return ("\n".join(runs) + "\n\n" + "\n".join(pairs) + "\n\n" + "\n".join(details) + "\n\n"
            + "\n".join(totals) + "\n\n" + "\n".join(outcomes) + "\n\n" + "\n".join(bisects) + "\n")


PROVENANCE_FILES = ("results.json.gz", "findings.json", "campaign.json", "axis.json", "provenance.json")


def _record(where: str, source: Any, revision: Any, cpu: Any, devices: list[dict[str, Any]]) -> dict[str, Any]:
    """One machine's provenance, normalised, with what is missing of it."""
    source = source if isinstance(source, dict) else {}
    commit, dirty = source.get("commit"), source.get("dirty")
    missing = []
    if not (isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40}", commit)):
        missing.append("source commit")
    if not isinstance(dirty, bool):
        missing.append("clean or dirty")
    if not revision:
        missing.append("engine revision")
    if not cpu:
        missing.append("CPU model")
    gpus = [d for d in devices if d.get("kind") == "cuda" or str(d.get("id", "")).startswith(("cuda", "tpu", "rocm"))]
    if any(not d.get("model") or not d.get("driver_version") for d in gpus):
        missing.append("GPU model and driver")
    return {"file": where, "commit": commit if isinstance(commit, str) else None, "dirty": dirty,
            "revision": revision or None, "cpu": cpu or None,
            "gpus": sorted({f"{d.get('model', '')} (driver {d.get('driver_version', '')})" for d in gpus}),
            "missing": missing}


def _records_of(path: Path, where: str) -> list[dict[str, Any]]:
    """The provenance records one file holds: results.json machines[], a
    published fuzz campaign's or a bisect's `provenance`, a version axis's
    profiles, or a folder's own provenance.json (a list of machines in the
    fuzz format). A file of these kinds with none gives one empty record."""
    doc = load(path) if path.name.endswith(".gz") else json.loads(path.read_text(encoding="utf-8"))
    out = []
    if path.name == "results.json.gz":
        for m in doc.get("environment", {}).get("machines") or []:
            out.append(_record(where, m.get("source"), m.get("mudjack_revision"), m.get("cpu_model"), m.get("devices") or []))
    elif path.name == "axis.json":
        for profile in doc.get("profiles", {}).values():
            for env in profile.values():
                out.append(_record(where, {"commit": env.get("commit"), "dirty": env.get("dirty")}, env.get("revision"),
                                   env.get("cpu"), []))
    else:
        prov = doc.get("provenance") if isinstance(doc, dict) else doc
        for m in prov if isinstance(prov, list) else [prov] if isinstance(prov, dict) else []:
            out.append(_record(where, m.get("source"), m.get("mudjack_revision"), m.get("cpu_model"), m.get("devices") or []))
    return out or [_record(where, None, None, None, [])]


def provenance(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Per published folder (every folder of `root` but history/): its
    provenance records, and one line per folder that lacks any part of it."""
    records, problems = [], []
    for folder in published_folders(root):
        files = sorted(p for p in folder.rglob("*") if p.name in PROVENANCE_FILES or p.parent.name == "bisect")
        mine = [r for p in files for r in _records_of(p, str(p.relative_to(root)))]
        if not mine:
            problems.append(f"results/{folder.name}: records no provenance (no results.json.gz, findings.json, "
                            "axis.json or provenance.json)")
        for r in mine:
            if r["missing"]:
                problems.append(f"results/{r['file']}: no {', no '.join(r['missing'])}")
        records.extend(dict(r, folder=folder.name) for r in mine)
    return records, problems


def section_provenance() -> str:
    records, problems = provenance(RESULTS)
    rows = ["| folder | records | source commit | tree | engine revision | CPU | GPU (driver) |", "|---|--:|---|---|---|---|---|"]
    grouped: dict[tuple[Any, ...], int] = Counter()
    for r in records:
        tree = "unknown" if r["dirty"] is None else "dirty" if r["dirty"] else "clean"
        grouped[(r["folder"], f"`{r['commit'][:7]}`" if r["commit"] else "unknown", tree, r["revision"] or "unknown",
                 r["cpu"] or "unknown", ", ".join(r["gpus"]) or "–")] += 1
    for key, n in sorted(grouped.items()):
        rows.append(f"| `{key[0]}` | {n} | {' | '.join(key[1:])} |")
    return "\n".join(rows) + ("\n\nMissing:\n" + "\n".join(f"- {p}" for p in problems) if problems else "")


LIMIT = 20 * 1024 * 1024  # results/ must stay a small download
OLD_CPU = HISTORY / "2026-11-26-amd-epyc"
REJUDGE = RESULTS / "rejudge-2026-11-26-amd-epyc.md"


# The old headline's CPU run was made from a dirty tree, so it is not
# published under results/; it is read from git history where the page is
# generated (a clone without that history leaves the page as committed).
OLD_CPU_RUN = "365f58c:results/2026-11-26-amd-epyc/results.json.gz"


def old_cpu_run() -> bytes | None:
    """The old run's results.json.gz as committed at OLD_CPU_RUN, or None."""
    done = subprocess.run(["git", "-C", str(ROOT), "show", OLD_CPU_RUN], capture_output=True, check=False)
    return done.stdout if done.returncode == 0 and done.stdout else None


def rejudge(mudjack: str) -> int:
    """Today's engine on the old headline's CPU run: `mudjack report FILE
    --format json` judges its stored cases again; its verdicts, with the
    engine's version and the source tree's state, go to rejudged.json."""
    import tempfile

    run = old_cpu_run()
    if run is None:
        print(f"results-readme: cannot read {OLD_CPU_RUN} from git history (a shallow clone?)", file=sys.stderr)
        return 1
    with tempfile.NamedTemporaryFile(suffix=".json.gz") as f:
        f.write(run)
        f.flush()
        done = subprocess.run([mudjack, "report", f.name, "--format", "json"],
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"results-readme: {mudjack} report failed: {done.stderr.strip()}", file=sys.stderr)
        return 1
    verdicts = [{k: v.get(k) for k in ("framework", "function", "device", "verdict", "reason", "flags")}
                for v in json.loads(done.stdout)["verdicts"]]
    version = subprocess.run([mudjack, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True, check=False).stdout  # noqa: E731
    doc = {"command": f"git show {OLD_CPU_RUN} > old.json.gz; mudjack report old.json.gz --format json",
           "engine": {"version": version, "commit": git("rev-parse", "HEAD").strip(),
                      "dirty": bool(git("status", "--porcelain", "--untracked-files=no").strip())},
           "verdicts": verdicts}
    (OLD_CPU / "rejudged.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0


WHY = {"judge: unchecked": "a pass that no check of its own checked (the old run records its checks: none) makes the "
                          "function `unverified`, no longer `portable`",
       "judge: listed name missing": "a listed name that does not exist is `unavailable`; its successor's verdict is "
                                     "reported beside it, no longer as its own"}


def _why_changed(old: str, new: dict[str, Any]) -> str:
    reason = new.get("reason") or ""
    if new["verdict"] == "unverified" and "checked by nothing" in reason:
        return "judge: unchecked"
    if new["verdict"] == "unavailable" and reason.startswith("listed name missing"):
        return "judge: listed name missing"
    return f"judge: {old} → {new['verdict']}"


def section_rejudge() -> str | None:
    run = old_cpu_run()
    if run is None:
        return None
    old = {(v["framework"], v["function"], v["device"]): v for v in json.loads(gzip.decompress(run))["verdicts"]}
    doc = json.loads((OLD_CPU / "rejudged.json").read_text(encoding="utf-8"))
    new = {(v["framework"], v["function"], v["device"]): v for v in doc["verdicts"]}
    changed = sorted((k for k in old if k in new and old[k]["verdict"] != new[k]["verdict"]),
                     key=lambda k: (FRAMEWORKS.index(k[0]), k[1]))
    eng = doc["engine"]
    out = [f"Engine: `{eng['version']}`, tree `{eng['commit'][:7]}` ({'dirty' if eng['dirty'] else 'clean'}); "
           f"command: `{doc['command']}`. {len(old)} verdicts before, {len(new)} after; "
           f"{len(changed)} changed, {len(set(old) ^ set(new))} added or gone.", ""]
    trans: Counter[tuple[str, str, str]] = Counter((k[0], old[k]["verdict"], new[k]["verdict"]) for k in changed)
    out.append("| framework | before | after | functions |")
    out.append("|---|---|---|--:|")
    for (fw, a, b), n in sorted(trans.items(), key=lambda t: (FRAMEWORKS.index(t[0][0]), t[0][1:])):
        out.append(f"| {fw} | {a} | {b} | {n} |")
    why = Counter(_why_changed(old[k]["verdict"], new[k]) for k in changed)
    out.append("")
    out.append("By cause (the cases are the stored ones, so the grid, the suites' semantics and the versions cannot "
               "differ here: every change is the judge's):")
    out.append("")
    for c, n in sorted(why.items()):
        out.append(f"- `{c}`: {n} functions" + (f": {WHY[c]}." if c in WHY else "."))
    out.append("")
    out.append("| framework | function | device | before | after | why | the engine's reason |")
    out.append("|---|---|---|---|---|---|---|")
    for k in changed:
        out.append(f"| {k[0]} | `{k[1]}` | `{k[2]}` | {old[k]['verdict']} | {new[k]['verdict']} | "
                   f"{_why_changed(old[k]['verdict'], new[k])} | {_first_line(new[k].get('reason') or '', 200)} |")
    return "\n".join(out)


def _cases_by_function(doc: dict[str, Any], device: str) -> dict[tuple[str, str], dict[str, str]]:
    out: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for c in doc["cases"]:
        if c["device"] == device:
            out[(c["framework"], c["function"])][c["id"]] = c["outcome"]
    return out


def _excused(doc: dict[str, Any], row: dict[str, Any]) -> set[str]:
    """The ids of the row's failed cases that its judge excused: the case
    failed, its dtype is among the row's `unsupported` (outside the
    function's domain by the claims or the message, never a failure) and
    not among its `kernel_missing` (a gap of the chip, a failure), and the
    row does not list the case as failing or mismatching (a dtype may be
    excused in one mode and fail for another reason in the other)."""
    unsupported = {u["dtype"] for u in row.get("unsupported") or []}
    unsupported -= {k["dtype"] for k in row.get("kernel_missing") or []}
    counted = set(row.get("failing") or []) | set(row.get("mismatching") or [])
    return {c["id"] for c in doc["cases"]
            if c["device"] == row["device"] and c["framework"] == row["framework"] and c["function"] == row["function"]
            and _failed(c["outcome"]) and c.get("dtype") in unsupported and c["id"] not in counted}


CLAIMS = "excused by the judge's claims"


def _attribute(old: dict[str, str], new: dict[str, str], same_versions: bool, was: str, now: str,
               excused: frozenset[str] = frozenset()) -> str:
    """Why a function's verdict differs between the old run re-judged by
    today's engine (`was`) and today's run (`now`): `checks` when only
    the old cases' missing checks made it `unverified`; `excused by the
    judge's claims` when no case both runs have changed outcome, no case
    only the old run has failed, every failing case only today's run has is
    one its judge excused (`excused`: an unsupported dtype of the row), and
    a case failing in both is excused today (the old run carries no kernel
    registry, so its re-judge counted it); `grid` when a counted case only
    one run has decides it; else `semantics or machine` (a shared case
    changed outcome; `version` joins when the versions differ), with the
    other causes that also moved it in brackets."""
    if was == "unverified" and now == "portable":
        return "checks (the suite's cases now check their passes)"
    shared_changed = [i for i in old.keys() & new.keys() if old[i] != new[i]]
    fine = having("outcome", "fine")
    new_only_bad = [i for i in new.keys() - old.keys() if new[i] not in fine and i not in excused]
    old_only_bad = [i for i in old.keys() - new.keys() if old[i] not in fine]
    excused_shared = [i for i in old.keys() & new.keys() if i in excused and old[i] == new[i]]
    if not shared_changed and not new_only_bad and not old_only_bad and excused_shared:
        return CLAIMS
    if not shared_changed and (new_only_bad or old_only_bad or old.keys() != new.keys()):
        return "grid"
    cause = "semantics or machine" if same_versions else "semantics, machine or version"
    also = (["grid"] if new_only_bad or old_only_bad else []) + ([CLAIMS] if excused_shared else [])
    return cause + (f" (and {' and '.join(also)})" if also else "")


def section_attribution(docs: list[tuple[str, dict[str, Any]]]) -> str:
    """The old headline's CPU verdicts, the same run re-judged by today's
    engine (the judge alone), and today's complete CPU run side by side,
    with every changed verdict attributed."""
    run = old_cpu_run()
    cpu = [doc for _, doc in docs if all(d["id"] == "cpu" for d in machine(doc)["devices"])]
    rejudged = OLD_CPU / "rejudged.json"
    if run is None or not cpu or not rejudged.exists():
        return "Needs the old run (git history), its re-judge and a complete published CPU `paper` run."
    old_doc, new_doc = json.loads(gzip.decompress(run)), cpu[0]
    key = lambda v: (v["framework"], v["function"])  # noqa: E731
    old = {key(v): v["verdict"] for v in old_doc["verdicts"] if v["device"] == "cpu"}
    mid = {key(v): v["verdict"] for v in json.loads(rejudged.read_text(encoding="utf-8"))["verdicts"] if v["device"] == "cpu"}
    new = {key(v): v for v in new_doc["verdicts"] if v["device"] == "cpu"}
    vers = [{fw: (v.get("version") or "") for fw, v in machine(d)["frameworks"].items()} for d in (old_doc, new_doc)]
    same = vers[0] == vers[1]
    out = [f"Old: `history/2026-11-26-amd-epyc` (first engine, AMD EPYC). Re-judged: the same stored cases, today's "
           f"judge. New: `{new_doc['run']['id']}` ({machine(new_doc).get('cpu_model', 'cpu')}), "
           f"{len(old_doc['cases'])} → {len(new_doc['cases'])} cases; framework versions "
           f"{'the same' if same else 'differ'} ({', '.join(f'{k} {v}' for k, v in sorted(vers[1].items()))}).", "",
           "| framework | functions old / re-judged / new | portable | unverified | partial failure | complete failure "
           "| divergent | unavailable |", "|---|---|---|---|---|---|---|---|"]
    for fw in FRAMEWORKS:
        cols = [Counter(v for k, v in d.items() if k[0] == fw) for d in (old, mid, {k: v["verdict"] for k, v in new.items()})]
        cells = " | ".join(" / ".join(str(c[v]) for c in cols) for v in
                           ("portable", "unverified", "partial_failure", "complete_failure", "divergent", "unavailable"))
        out.append(f"| {fw} | {' / '.join(str(sum(c.values())) for c in cols)} | {cells} |")
    oc, nc = _cases_by_function(old_doc, "cpu"), _cases_by_function(new_doc, "cpu")
    changed = sorted((k for k in new if k in mid and mid[k] != new[k]["verdict"]),
                     key=lambda k: (FRAMEWORKS.index(k[0]), k[1]))
    why = {k: _attribute(oc.get(k, {}), nc.get(k, {}), same, mid[k], new[k]["verdict"], frozenset(_excused(new_doc, new[k])))
           for k in changed}
    out += ["", f"Judge: {sum(1 for k in mid if k in old and old[k] != mid[k])} verdicts changed from old to re-judged "
            "(`rejudge-2026-11-26-amd-epyc.md`). From re-judged to new, "
            f"{len(changed)} changed: " + ", ".join(f"{n} {c}" for c, n in sorted(Counter(why.values()).items())) +
            f"; {len(new.keys() - mid.keys())} functions are new in today's suite and {len(mid.keys() - new.keys())} gone.",
            "", "| framework | function | old | re-judged | new | cause | the engine's reason (new) |",
            "|---|---|---|---|---|---|---|"]
    for k in changed:
        out.append(f"| {k[0]} | `{k[1]}` | {old.get(k, '–')} | {mid[k]} | {new[k]['verdict']} | {why[k]} | "
                   f"{_first_line(new[k].get('reason') or '', 160)} |")
    return "\n".join(out)


def generate() -> dict[str, str]:
    docs = columns()
    return {
        "headline": section_headline(docs),
        "attribution": section_attribution(docs),
        "runs": section_runs(docs),
        "matrix": section_matrix(docs),
        "problems": section_problems(docs),
        "latency": section_latency(docs),
        "cold": section_cold(docs),
        "provenance": section_provenance(),
        "surface": section_surface(),
        "fuzz": section_fuzz(),
        "models": section_models(),
        "version-axis": section_version_axis(),
    }


def render(text: str, sections: dict[str, str], name_of: str = "results/README.md") -> str:
    for name, body in sections.items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- /generated:{name} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"{name_of} has no <!-- generated:{name} --> block")
        text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is not what the JSON gives, or a folder lacks provenance")
    parser.add_argument("--provenance", metavar="DIR", help="check only the provenance rule on the results folder DIR")
    parser.add_argument("--rejudge", metavar="MUDJACK", help="re-judge the old headline's CPU run with this engine binary")
    args = parser.parse_args()
    if args.provenance:
        _, problems = provenance(Path(args.provenance))
        for line in problems:
            print(f"results-readme: {line}", file=sys.stderr)
        return 1 if problems else 0
    if args.rejudge:
        return rejudge(args.rejudge)
    pages = [(README, generate())]
    rejudged = section_rejudge()
    if rejudged is None:
        print(f"results-readme: {OLD_CPU_RUN} is not in this clone's history: {REJUDGE.name} left as committed",
              file=sys.stderr)
    else:
        pages.append((REJUDGE, {"rejudge": rejudged}))
    bad = False
    for page, sections in pages:
        current = page.read_text(encoding="utf-8")
        wanted = render(current, sections, str(page.relative_to(ROOT)))
        if not args.check:
            page.write_text(wanted, encoding="utf-8")
        elif wanted != current:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), wanted.splitlines(True),
                                                       str(page.relative_to(ROOT)), "from the committed JSON"))
            print(f"{page.relative_to(ROOT)} differs from what the committed results give: run scripts/results-readme.py",
                  file=sys.stderr)
            bad = True
    _, problems = provenance(RESULTS)
    for line in problems:
        print(f"results-readme: {line}: a published folder must record its source commit, clean or dirty, "
              "engine revision and machine (or move to results/history/)", file=sys.stderr)
    size = sum(f.stat().st_size for f in RESULTS.rglob("*") if f.is_file())
    if size > LIMIT:
        print(f"results-readme: results/ holds {size:,} bytes, over its {LIMIT:,} (20 MiB): slim it "
              "(results/history/README.md says how)", file=sys.stderr)
        bad = True
    if args.check and not bad and not problems:
        print("results/README.md and rejudge-2026-11-26-amd-epyc.md match the committed results; every folder records its provenance")
    return 1 if bad or problems else 0


if __name__ == "__main__":
    sys.exit(main())
