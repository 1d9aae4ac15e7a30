"""One-off (issue 49): the generated corpora's scripts (suites/models/timm/*.py,
torchvision/*.py, transformers/*.py) as manifests, without building a model:
each script's labels line, INPUTS, DEFAULTS, build() and forward() are read
into the entry scripts/update-models-corpus.py writes, and
suites/models/unbuildable.json into each manifest's `unbuildable`. Only the
transformers family label is taken afresh, from the generator's rule on the
type's default config (AutoConfig.for_model: no model is built). Run with the
torch env's python; deleted with the scripts it reads.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent / "suites" / "models"
spec = importlib.util.spec_from_file_location("generator", Path(__file__).with_name("update-models-corpus.py"))
assert spec is not None and spec.loader is not None
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

DETECTION = """\
features = m.backbone(args[0])
maps = list(features.values()) if isinstance(features, dict) else [features]
head = m.head(maps) if hasattr(m, "head") else m.rpn.head(maps)
outs = list(head.values()) if isinstance(head, dict) else [t for part in head for t in part]
return tuple(maps) + tuple(outs)"""
FORWARDS = {"return m(*args)": "positional", 'return m(*args)["out"]': "segmentation",
            "return m(*args, num_flow_updates=4)[-1]": "optical_flow"}


def body(source: str, name: str) -> str:
    tree = ast.parse(source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return "\n".join(ast.get_source_segment(source, s) for s in fn.body)


def literal(source: str, name: str) -> Any:
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == name)
    return ast.literal_eval(node.value)


def builder(corpus: str, name: str, build: str) -> dict[str, Any]:
    if corpus == "timm":
        assert build == f"import timm\nreturn timm.create_model({name!r}, pretrained=False)", build
        return {"call": "timm.create_model", "args": [name], "kwargs": {"pretrained": False}}
    if corpus == "torchvision":
        m = re.fullmatch(r"import torchvision\nreturn torchvision\.models\.get_model_builder\('([^']+)'\)\((.*)\)", build)
        assert m and m.group(1) == name, build
        kwargs = {k: ast.literal_eval(v) for k, v in (kv.split("=") for kv in m.group(2).split(", "))}
        return {"call": "torchvision.models.get_model", "args": [name], "kwargs": kwargs}
    m = re.fullmatch(r"import transformers\nconfig = transformers\.AutoConfig\.for_model\('([^']+)'\)\n"
                     r"return transformers\.([\w.]+)\(config\)", build)
    assert m and m.group(1) == name, build
    return {"call": f"transformers.{m.group(2)}", "config": name}


def forward_kind(corpus: str, forward: str, inputs: list[Any]) -> str:
    if corpus == "transformers":
        names = [i[0] for i in inputs]
        assert forward == f"return m(**dict(zip({names!r}, args)), return_dict=True)", forward
        return "keywords"
    if forward == DETECTION:
        return "detection"
    return FORWARDS[forward]


def convert(path: Path, corpus: str) -> tuple[dict[str, Any], str]:
    source = path.read_text(encoding="utf-8")
    name = path.stem
    labels = dict(w.split("::", 1) for w in source.split("\n", 1)[0][len("# labels:"):].split())
    version = re.search(rf"from {corpus} (\S+)'s registry", source).group(1)
    inputs, defaults = literal(source, "INPUTS"), literal(source, "DEFAULTS")
    build = "\n".join(line.strip() for line in body(source, "build").splitlines() if line.strip())
    forward = body(source, "forward").strip()
    title = source.split('"""', 2)[1].split("\n", 1)[0]
    extra: dict[str, Any] = {}
    if corpus == "timm" and "input (fixed)," in title:
        extra["fixed_input_size"] = True
    if corpus == "transformers":
        extra["class"] = re.match(rf"transformers {re.escape(name)} \((\w+): ", title).group(1)
    common = {**gen.COMMON[corpus], "framework": "torch", "corpus": corpus, "license": gen.LICENSES[corpus]}
    assert all(labels.pop(k) == v for k, v in common.items()), labels
    mine = gen.labels_for(labels["name"], labels["task"], labels["family"], int(labels["params"]))
    assert mine == labels, (mine, labels)
    e = gen.entry(name, mine, builder(corpus, name, build), inputs, defaults, forward_kind(corpus, forward, inputs),
                  **extra)
    return e, version


def family(entry: dict[str, Any]) -> str:
    """The transformers family by the generator's (fixed) rule."""
    from transformers import AutoConfig

    return gen.hf_family(AutoConfig.for_model(entry["name"]), entry["labels"]["task"])


def main() -> int:
    unbuildable = json.loads((ROOT / "unbuildable.json").read_text(encoding="utf-8"))
    hand = gen.hand_written(ROOT)
    for corpus in ("timm", "torchvision", "transformers"):
        entries, versions = [], set()
        for path in sorted((ROOT / corpus).glob("*.py")):
            e, version = convert(path, corpus)
            if corpus == "transformers":
                e["labels"]["family"] = family(e)
            entries.append(e)
            versions.add(version)
        (version,) = versions
        failed = {k.split("/", 1)[1]: v for k, v in unbuildable.items() if k.startswith(corpus + "/")}
        dups = gen.mark_duplicates(corpus, entries, hand)
        (ROOT / f"{corpus}.json").write_text(gen.manifest_text(corpus, version, entries, failed), encoding="utf-8")
        print(f"{corpus}: {len(entries)} entries ({dups} duplicates), {len(failed)} unbuildable, {version}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
