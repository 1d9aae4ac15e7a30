#!/usr/bin/env python3
"""Hold every closed list to one spelling (CTest `vocabulary`).

schemas/vocabulary.json is written by the engine (`build/vocabulary`) from its
C++ definitions. This check fails, one line per difference, when the
committed file differs from what the engine prints now, when a list the
other JSON schemas spell out (the table below) differs from the vocabulary,
or when the outcomes' and verdicts' flags (outcome_properties,
verdict_properties: model::props) do not name each word of their list once,
in its order, with the same boolean flags.

    check-vocabulary.py --engine build/vocabulary [--root DIR]
    check-vocabulary.py --engine build/vocabulary --write   # regenerate the file
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

# (schema file, JSON pointer of an "enum", vocabulary list, extra words the
# schema allows: "" is the engine's "none" for causes, null a hello without a framework).
SPELLED: tuple[tuple[str, str, str, tuple[str | None, ...]], ...] = (
    ("results-v1.schema.json", "/$defs/outcome", "outcome", ()),
    ("results-v1.schema.json", "/$defs/verdict", "verdict", ()),
    ("results-v1.schema.json", "/$defs/error_kind", "error_kind", ()),
    ("results-v1.schema.json", "/$defs/numeric/properties/cause", "cause", ("",)),
    ("results-v1.schema.json", "/$defs/verdict_row/properties/cause", "cause", ("",)),
    ("results-v1.schema.json", "/$defs/case/properties/checked", "check", ()),
    ("results-v1.schema.json", "/$defs/refusal", "refusal", ()),
    ("results-v1.schema.json", "/$defs/refusal_source", "refusal_source", ()),
    ("results-v1.schema.json", "/$defs/case/properties/policy", "policy", ()),
    ("results-v1.schema.json", "/$defs/case/properties/excused/additionalProperties", "excuse", ()),
    ("results-v1.schema.json", "/properties/models/items/properties/stage", "mode", ()),
    ("probe-protocol-v1.schema.json", "/$defs/case/properties/mode", "mode", ()),
    ("probe-protocol-v1.schema.json", "/$defs/case/properties/excused/additionalProperties", "excuse", ()),
    ("probe-protocol-v1.schema.json", "/$defs/error_info/properties/kind", "error_kind", ()),
    ("probe-protocol-v1.schema.json", "/$defs/hello/properties/framework", "framework", (None,)),
    ("openapi.json", "/components/schemas/RunRequest/properties/policy", "policy", ()),
    ("fuzz-findings-v1.schema.json", "/$defs/finding/properties/symptom", "fuzz_symptom", ()),
)
# (top-level key of the flags, the list whose words it holds)
PROPERTIES = (("outcome_properties", "outcome"), ("verdict_properties", "verdict"))


def pointer(doc: Any, ptr: str) -> Any:
    for part in ptr.split("/")[1:]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


def property_problems(doc: dict[str, Any]) -> list[str]:
    """The flags' shape: every word of the list, in its order, each with the
    same flags, every flag a boolean."""
    out: list[str] = []
    for key, name in PROPERTIES:
        props = doc.get(key)
        words = doc["$defs"][name]["enum"]
        if not isinstance(props, dict) or list(props) != words:
            out.append(f"schemas/vocabulary.json {key}: does not hold each {name} once, in order")
            continue
        flags = {tuple(p) if isinstance(p, dict) else () for p in props.values()}
        if len(flags) != 1 or not all(isinstance(v, bool) for p in props.values() for v in p.values()):
            out.append(f"schemas/vocabulary.json {key}: every {name} needs the same boolean flags")
    return out


def problems(root: Path, emitted: str) -> list[str]:
    out: list[str] = []
    path = root / "schemas" / "vocabulary.json"
    committed = path.read_text(encoding="utf-8") if path.exists() else ""
    if committed != emitted:
        out.append(f"{path}: differs from what the engine writes; run scripts/check-vocabulary.py --write")
    doc = json.loads(emitted)
    out += property_problems(doc)
    lists = doc["$defs"]
    for file, ptr, name, extra in SPELLED:
        try:
            spelled = pointer(json.loads((root / "schemas" / file).read_text(encoding="utf-8")), ptr)["enum"]
        except (OSError, KeyError, IndexError, ValueError, TypeError):
            out.append(f"schemas/{file}: no enum at {ptr}")
            continue
        want = set(lists[name]["enum"]) | set(extra)
        if set(spelled) != want:
            missing = sorted(want - set(spelled), key=str)
            stray = sorted(set(spelled) - want, key=str)
            out.append(f"schemas/{file} {ptr}: {name} differs from schemas/vocabulary.json"
                       f" (missing {missing}, not in the vocabulary {stray})")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", required=True, help="the built `vocabulary` program")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--write", action="store_true", help="write schemas/vocabulary.json")
    args = ap.parse_args()
    try:
        emitted = subprocess.run([args.engine], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"check-vocabulary: {args.engine} failed: {exc}", file=sys.stderr)
        return 2
    root = Path(args.root)
    if args.write:
        (root / "schemas" / "vocabulary.json").write_text(emitted, encoding="utf-8")
    found = problems(root, emitted)
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
