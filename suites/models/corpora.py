"""The generated corpora's models: one per entry of timm.json, torchvision.json
and transformers.json, beside this file (scripts/update-models-corpus.py
writes them from the libraries' registries, offline, random weights).

Each entry is declared as a hand-written script's model is (one case per
stage, its labels as tags: the manifest's and its own), built by
`_standalone.entry_build` and called by `_standalone.entry_forward`, the
same harness that runs it alone (`python suites/models/_standalone.py
timm/resnet50`). Its builds are keyed by the entry's content. An entry that
cannot be declared (a malformed manifest line) is its own suite `error`
case; the others still load. Listing reads the manifests only: no
framework is imported.
"""

from __future__ import annotations

from typing import Any

from mudjack_probe.models import corpus_model, declare_error

from _standalone import CORPORA, entry_build, entry_forward, entry_labels, manifest


def declare(corpus: str, meta: dict[str, Any], entry: dict[str, Any]) -> None:
    """The entry's cases; a malformed entry's error case."""
    source = f"{corpus}.json#{entry.get('name')}"
    try:
        labels = entry_labels(meta, entry)
        keyed = {**entry, "library": meta["library"], "version": meta["version"]}
        corpus_model(source, labels, keyed, entry_build(entry), entry_forward(entry))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        name = (entry.get("labels") or {}).get("name") or f"{corpus}-{entry.get('name')}"
        declare_error({"name": str(name), "framework": "torch", "corpus": corpus},
                      f"{source} cannot be declared: {type(exc).__name__}: {exc}")


for _corpus in CORPORA:
    _meta = manifest(_corpus)
    for _entry in _meta["models"]:
        declare(_corpus, _meta, _entry)
