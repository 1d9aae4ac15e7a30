"""The models suite's machinery without a framework (mudjack_probe.models,
mudjack_probe.network): labels lines, the declarations' ids, modes and tags,
a script that does not import, the build cache's reuse, and the probe's
refusal of every connection that is not loopback.

Runs with the numpy environment; no framework needed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import types
import unittest
from pathlib import Path
from typing import Any

from mudjack_probe import api, models
from mudjack_probe.loading import load_suites

SCRIPT = """\
# labels: name::tiny author::mudjack task::Tabular framework::{framework} family::mlp set::core
from __future__ import annotations

from mudjack_probe.models import {declare}, tensor


def build(*_):
    raise AssertionError("never built while listing")


{declare}(__file__, build, tensor("b2-f16", (2, 16), samples=2))
"""


class Scripts(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.folder = Path(self.dir.name)

    def tearDown(self) -> None:
        self.dir.cleanup()
        api.reset()

    def write(self, name: str, text: str) -> str:
        path = self.folder / name
        path.write_text(text)
        return str(path)

    def test_labels_are_key_value_words_of_the_first_line(self) -> None:
        path = self.write("a.py", "# labels: name::a author::x task::T framework::torch family::f set::core\n")
        self.assertEqual(models.read_labels(path)["set"], "core")
        bad = self.write("b.py", "# labels: name::a author::x task::T framework::torch\n")
        with self.assertRaisesRegex(ValueError, "lacks family::"):
            models.read_labels(bad)
        with self.assertRaisesRegex(ValueError, "is not key::value"):
            models.read_labels(self.write("c.py", "# labels: name::a author task::T framework::t family::f\n"))
        with self.assertRaisesRegex(ValueError, "first line must be"):
            models.read_labels(self.write("d.py", '"""no labels"""\n'))

    def test_a_torch_model_is_one_case_per_stage_with_its_labels_as_tags(self) -> None:
        self.write("tiny.py", SCRIPT.format(framework="torch", declare="torch_model"))
        cases = load_suites([self.dir.name], "torch")
        self.assertEqual(sorted(cases), [f"torch/tiny/{d}-b2-f16-{m}" for d, m in (
            ("bfloat16", "amp"), ("float32", "compiled"), ("float32", "eager"),
            ("float32", "onnxruntime"), ("float32", "train"))])
        self.assertIn("task::Tabular", cases["torch/tiny/float32-b2-f16-eager"].tags)
        self.assertEqual(cases["torch/tiny/float32-b2-f16-eager"].shape, (2, 16))

    def test_a_keras_model_is_declared_on_every_backend(self) -> None:
        self.write("tiny.py", SCRIPT.format(framework="keras", declare="keras_model"))
        for backend in ("jax", "tensorflow", "torch"):
            ids = sorted(load_suites([self.dir.name], backend))
            self.assertEqual(ids, [f"{backend}/tiny/bfloat16-b2-f16-amp", f"{backend}/tiny/float32-b2-f16-compiled",
                                   f"{backend}/tiny/float32-b2-f16-eager"])

    def test_a_script_that_does_not_import_is_its_own_error_and_the_others_load(self) -> None:
        self.write("tiny.py", SCRIPT.format(framework="torch", declare="torch_model"))
        self.write("broken.py", "# labels: name::broken author::x task::T framework::torch family::f\ndef f(:\n")
        cases = load_suites([self.dir.name], "torch")
        broken = cases["torch/broken/float32-script-eager"]
        self.assertIn("broken.py does not load: SyntaxError", broken.invalid)
        self.assertIn("torch/tiny/float32-b2-f16-eager", cases)

    def test_a_file_without_labels_still_fails_the_suite(self) -> None:
        self.write("plain.py", "def f(:\n")
        with self.assertRaises(ValueError):
            load_suites([self.dir.name], "torch")


MANIFEST = {"library": "gen", "version": "1.0", "labels": {"author": "mudjack", "framework": "torch", "corpus": "gen"},
            "models": [{"name": "tiny", "labels": {"name": "gen-tiny", "task": "Tabular", "family": "mlp", "size": "tiny"},
                        "builder": {"call": "gen.build"}, "forward": "positional",
                        "inputs": [["x", "float", ["batch_size", "num_channels", "height", "width"]],
                                   ["ids", 50, ["batch_size", 7]]],
                        "defaults": {"batch_size": 1, "num_channels": 3, "height": 32, "width": 32}}],
            "unbuildable": [{"name": "huge", "reason": "too large"}]}


def alone() -> Any:
    """suites/models/_standalone.py, imported as a test's own module."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "suites" / "models" / "_standalone.py"
    spec = importlib.util.spec_from_file_location("_standalone_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Generated(unittest.TestCase):
    """A generated corpus (scripts/update-models-corpus.py): manifest entries
    declared by suites/models/corpora.py through `corpus_model`, their
    inputs' dims from standard parameters, their builds keyed by content."""

    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.alone = alone()
        self.meta = json.loads(json.dumps(MANIFEST))

    def tearDown(self) -> None:
        api.set_params({})
        api.reset()
        self.dir.cleanup()

    def declare(self, entry: dict[str, Any]) -> dict[str, api.CaseDef]:
        api.reset()
        labels = self.alone.entry_labels(self.meta, entry)
        models.corpus_model("gen.json#tiny", labels, entry, self.alone.entry_build(entry),
                            self.alone.entry_forward(entry))
        return {c.id: c for coll in api.collected() for c in coll.defs}

    def test_an_entry_is_declared_with_its_defaults_and_the_parameters_over_them(self) -> None:
        entry = self.meta["models"][0]
        cases = self.declare(entry)
        self.assertIn("torch/gen-tiny/float32-b1-3x32x32-eager", cases)
        case = cases["torch/gen-tiny/float32-b1-3x32x32-eager"]
        self.assertEqual(case.shape, (1, 3, 32, 32))
        self.assertEqual(case.tags[:6], ["name::gen-tiny", "author::mudjack", "task::Tabular", "framework::torch",
                                         "family::mlp", "corpus::gen"])
        api.set_params({"batch_size": "2", "height": "8", "opset": "17"})
        self.assertIn("torch/gen-tiny/float32-b2-3x8x32-onnxruntime", self.declare(entry))
        self.assertLessEqual({"batch_size", "height", "width", "num_channels", "opset"}, set(api.params_read()))

    def test_a_duplicate_carries_the_hand_written_name_and_its_own_id(self) -> None:
        entry = {**self.meta["models"][0], "duplicate_of": "tiny"}
        case = self.declare(entry)["torch/gen-tiny/float32-b1-3x32x32-eager"]
        self.assertIn("duplicate-of::tiny", case.tags)

    def test_builds_are_keyed_by_the_entry_not_a_file(self) -> None:
        """A generated model has no file: its labels are given and its
        identity (what keys its builds) is its entry's content."""
        case = types.SimpleNamespace(mode="onnxruntime", shape_name="b1", shape=(1,), params={}, dtype="float32")
        keys = set()
        for params in ("11689512", "11689513"):
            entry = json.loads(json.dumps(self.meta["models"][0]))
            entry["labels"]["params"] = params
            identity = hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()
            model = models.TorchModel("gen.json#tiny", lambda: None, models.tensor("t", (1,)),
                                      labels={"name": "gen-tiny"}, identity=identity)
            keys.add(models.build_key(model.identity, case, 0, {"torch": "2"}))
        self.assertEqual(len(keys), 2)

    def test_a_malformed_entry_is_its_own_error_and_the_others_load(self) -> None:
        folder = Path(self.dir.name)
        for name in ("_standalone.py", "corpora.py"):
            (folder / name).write_text((Path(__file__).resolve().parents[2] / "suites" / "models" / name).read_text())
        broken = {"name": "bad", "labels": {"name": "gen-bad"}, "forward": "positional"}  # no builder, no inputs
        for corpus in ("timm", "torchvision", "transformers"):
            meta = {**self.meta, "models": [self.meta["models"][0], broken] if corpus == "timm" else []}
            (folder / f"{corpus}.json").write_text(json.dumps(meta))
        cases = load_suites([self.dir.name], "torch")
        self.assertIn("torch/gen-tiny/float32-b1-3x32x32-eager", cases)
        self.assertIn("timm.json#bad cannot be declared: KeyError", cases["torch/gen-bad/float32-script-eager"].invalid)

    def test_the_standalone_harness_finds_entries_and_says_why_not(self) -> None:
        with self.assertRaisesRegex(ValueError, "not CORPUS/NAME"):
            self.alone.find_entry("resnet50")
        with self.assertRaisesRegex(ValueError, "timm.json has no no-such-model"):
            self.alone.find_entry("timm/no-such-model")
        self.assertEqual(self.alone.find_entry("timm/resnet50")["builder"]["args"], ["resnet50"])
        with contextlib.redirect_stderr(io.StringIO()) as usage:
            self.assertEqual(self.alone.main([]), 2)
        self.assertIn("usage:", usage.getvalue())


class Standalone(unittest.TestCase):
    """suites/models/_standalone.py, what a hand-written script imports when
    it runs alone, shapes the same inputs as mudjack_probe.models (the two
    cannot share code: a script run alone has no MudJack)."""

    def test_the_input_helpers_agree(self) -> None:
        standalone = alone()
        calls = [("text", (30522,), {}), ("text", (100,), {"batch": 2, "seq": 16}), ("image", (), {}),
                 ("image", (), {"size": (64, 32), "channels_last": True, "channels": 1}),
                 ("tensor", ("a16000", (1, 16000)), {"samples": 3})]
        for name, args, kwargs in calls:
            with self.subTest(helper=name, args=args, kwargs=kwargs):
                ours, theirs = getattr(standalone, name)(*args, **kwargs), getattr(models, name)(*args, **kwargs)
                self.assertEqual((ours.tag, tuple(ours.dims), ours.samples),
                                 (theirs.tag, tuple(theirs.dims), theirs.samples))
        for name in ("Inputs", "floats", "ids", "param", "batch_size", "seq_length", "image_size", "torch_model",
                     "keras_model"):
            self.assertTrue(callable(getattr(standalone, name)), name)


class BuildCache(unittest.TestCase):
    def test_a_build_is_made_once_then_reused_and_its_facts_kept(self) -> None:
        with tempfile.TemporaryDirectory() as root:
            os.environ["MUDJACK_BUILD_CACHE"] = root
            try:
                made: list[Path] = []

                def make(folder: Path) -> None:
                    made.append(folder)
                    (folder / "model.onnx").write_bytes(b"x" * 10)

                first, _, reused = models.cached_build("k1", {"model": "tiny"}, make)
                second, _, again = models.cached_build("k1", {"model": "tiny"}, make)
            finally:
                del os.environ["MUDJACK_BUILD_CACHE"]
            self.assertEqual((reused, again, len(made)), (False, True, 1))
            self.assertEqual(first, second)
            info = (first / "build.json").read_text()
            self.assertIn('"uses": 1', info)
            self.assertIn('"bytes": 10', info)
            # No partial folder left; the mark that makes the folder MudJack's
            # build cache for `mudjack cache clean-builds`.
            self.assertEqual(sorted(p.name for p in Path(root).iterdir()), [".mudjack-build-cache", "k1"])

    def test_a_failed_build_leaves_nothing(self) -> None:
        with tempfile.TemporaryDirectory() as root:
            os.environ["MUDJACK_BUILD_CACHE"] = root
            try:
                def fail(folder: Path) -> None:
                    (folder / "half.onnx").write_bytes(b"x")
                    raise RuntimeError("exporter failed")

                with self.assertRaisesRegex(RuntimeError, "exporter failed"):
                    models.cached_build("k2", {}, fail)
            finally:
                del os.environ["MUDJACK_BUILD_CACHE"]
            self.assertEqual([p.name for p in Path(root).iterdir()], [".mudjack-build-cache"])


class Network(unittest.TestCase):
    def test_the_probe_refuses_what_is_not_loopback(self) -> None:
        # In a child: an audit hook cannot be removed from this process.
        code = textwrap.dedent("""
            import socket
            from mudjack_probe import network
            network.guard()
            for target in (("192.0.2.1", 443), ("example.invalid", 80)):
                try:
                    socket.create_connection(target, timeout=5)
                except ConnectionRefusedError as exc:
                    print(type(exc).__name__, exc)
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            socket.create_connection(server.getsockname(), timeout=5).close()
            print("loopback ok")
        """)
        out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(Path(api.__file__).parents[1])})
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertIn("NetworkRefused network access refused: connection to '192.0.2.1' is not loopback", lines[0])
        self.assertIn("name lookup of 'example.invalid' is not loopback", lines[1])
        self.assertEqual(lines[2], "loopback ok")


if __name__ == "__main__":
    unittest.main()
