"""The models suite's machinery without a framework (mudjack_probe.models,
mudjack_probe.network): labels lines, the declarations' ids, modes and tags,
a script that does not import, the build cache's reuse, and the probe's
refusal of every connection that is not loopback.

Runs with the numpy environment; no framework needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

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


GENERATED = """\
# labels: name::gen-tiny author::mudjack task::Tabular framework::torch family::mlp corpus::gen size::tiny
from __future__ import annotations

INPUTS = [("x", "float", ("batch_size", "num_channels", "height", "width")), ("ids", 50, ("batch_size", 7))]
DEFAULTS = {"batch_size": 1, "num_channels": 3, "height": 32, "width": 32}


def build():
    raise AssertionError("never built while listing")


if __name__.startswith("mudjack_suite_"):
    from mudjack_probe.models import generated

    generated(__file__, build, INPUTS, DEFAULTS, lambda m, *a: m(*a))
else:
    raise AssertionError("run alone while listing")
"""


class Generated(unittest.TestCase):
    """A generated corpus (scripts/update-models-corpus.py): a script in a
    sub-folder of the suite, its inputs' dims from standard parameters."""

    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.cache = tempfile.TemporaryDirectory()
        (Path(self.dir.name) / "gen").mkdir()
        (Path(self.dir.name) / "gen" / "tiny.py").write_text(GENERATED)
        (Path(self.dir.name) / ".gen.new").mkdir()  # a corpus being regenerated: not read
        (Path(self.dir.name) / ".gen.new" / "tiny.py").write_text(GENERATED)
        self.env = dict(os.environ)
        os.environ["MUDJACK_CACHE_DIR"] = self.cache.name

    def tearDown(self) -> None:
        os.environ.clear()
        os.environ.update(self.env)
        api.set_params({})
        api.reset()
        self.dir.cleanup()
        self.cache.cleanup()

    def test_a_sub_folder_script_is_read_with_its_defaults_and_the_parameters_over_them(self) -> None:
        cases = load_suites([self.dir.name], "torch")
        self.assertIn("torch/gen-tiny/float32-b1-3x32x32-eager", cases)
        self.assertEqual(cases["torch/gen-tiny/float32-b1-3x32x32-eager"].shape, (1, 3, 32, 32))
        api.set_params({"batch_size": "2", "height": "8", "opset": "17"})
        cases = load_suites([self.dir.name], "torch")
        self.assertIn("torch/gen-tiny/float32-b2-3x8x32-onnxruntime", cases)
        self.assertLessEqual({"batch_size", "height", "width", "num_channels", "opset"}, set(api.params_read()))

    def test_its_bytecode_goes_to_the_cache_never_beside_the_source(self) -> None:
        load_suites([self.dir.name], "torch")
        self.assertFalse((Path(self.dir.name) / "gen" / "__pycache__").exists())
        self.assertTrue(list((Path(self.cache.name) / "suite-bytecode").rglob("tiny*.pyc")))


class Standalone(unittest.TestCase):
    """suites/models/_standalone.py, what a hand-written script imports when
    it runs alone, shapes the same inputs as mudjack_probe.models (the two
    cannot share code: a script run alone has no MudJack)."""

    def test_the_input_helpers_agree(self) -> None:
        import importlib.util

        path = Path(__file__).resolve().parents[2] / "suites" / "models" / "_standalone.py"
        spec = importlib.util.spec_from_file_location("_standalone_under_test", path)
        assert spec is not None and spec.loader is not None
        alone = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(alone)
        calls = [("text", (30522,), {}), ("text", (100,), {"batch": 2, "seq": 16}), ("image", (), {}),
                 ("image", (), {"size": (64, 32), "channels_last": True, "channels": 1}),
                 ("tensor", ("a16000", (1, 16000)), {"samples": 3})]
        for name, args, kwargs in calls:
            with self.subTest(helper=name, args=args, kwargs=kwargs):
                ours, theirs = getattr(alone, name)(*args, **kwargs), getattr(models, name)(*args, **kwargs)
                self.assertEqual((ours.tag, tuple(ours.dims), ours.samples),
                                 (theirs.tag, tuple(theirs.dims), theirs.samples))
        for name in ("Inputs", "floats", "ids", "param", "batch_size", "seq_length", "image_size", "torch_model",
                     "keras_model"):
            self.assertTrue(callable(getattr(alone, name)), name)


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
                             env={**os.environ, "PYTHONPATH": str(Path(models.__file__).parents[1])})
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertIn("NetworkRefused network access refused: connection to '192.0.2.1' is not loopback", lines[0])
        self.assertIn("name lookup of 'example.invalid' is not loopback", lines[1])
        self.assertEqual(lines[2], "loopback ok")


if __name__ == "__main__":
    unittest.main()
