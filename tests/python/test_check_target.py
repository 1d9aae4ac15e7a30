"""`mudjack check`'s loading of its target (mudjack_probe.checking), with no
framework: a model's class named instead of a model is refused in one line
that says what to pass; a script's models are named by the variables that
hold them. Classes shaped as the frameworks' own (a class named Module
defined in torch.nn.modules.module) stand in for them; tests/api's
test_check_script.py runs both through the engine with torch.

Run by CTest through scripts/python-tests.sh with the numpy environment.
"""

from __future__ import annotations

import tempfile
import textwrap
import unittest
from pathlib import Path
from typing import Any

from mudjack_probe.checking import CheckTargetError, holder_name, load_target, model_base

TORCH_MODULE = type("Module", (), {"__module__": "torch.nn.modules.module"})
KERAS_MODEL = type("Model", (), {"__module__": "keras.src.models.model"})
KERAS_LAYER = type("Layer", (), {"__module__": "keras.src.layers.layer"})
FLAX_MODULE = type("Module", (), {"__module__": "flax.linen.module"})


class ModelClasses(unittest.TestCase):
    def test_each_frameworks_model_class_is_known_by_its_bases(self) -> None:
        self.assertEqual(model_base(type("Net", (TORCH_MODULE,), {})), "torch.nn.Module")
        self.assertEqual(model_base(type("Net", (FLAX_MODULE,), {})), "flax.linen.Module")
        self.assertEqual(model_base(type("Net", (KERAS_MODEL, KERAS_LAYER), {})), "keras.Model")
        self.assertEqual(model_base(type("Dense", (KERAS_LAYER,), {})), "keras.layers.Layer")
        self.assertIsNone(model_base(type("Scaled", (), {})))
        self.assertIsNone(model_base(type("Module", (), {"__module__": "mylib.nn"})))

    def load(self, source: str, name: str) -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "net.py"
            path.write_text(textwrap.dedent(source))
            return load_target(f"{path}:{name}")

    SOURCE = """
        Module = type("Module", (), {"__module__": "torch.nn.modules.module"})

        class Net(Module):
            def forward(self, x):
                return x

        model = Net

        def model_inputs():
            return (1.0,)

        def Net_inputs():
            return (1.0,)
        """

    def test_a_model_class_is_refused_naming_the_instance_to_pass(self) -> None:
        # Was: "model(self, x) does not take the 1 inputs model_inputs()
        # returns: missing a required argument: 'x'".
        with self.assertRaises(CheckTargetError) as caught:
            self.load(self.SOURCE, "model")
        self.assertEqual(str(caught.exception), "model is the class Net (a torch.nn.Module subclass), not a model: "
                                                "pass an instance (model = Net(...))")
        with self.assertRaises(CheckTargetError) as caught:
            self.load(self.SOURCE, "Net")
        self.assertEqual(str(caught.exception), "Net is a class (a torch.nn.Module subclass), not a model: check an "
                                                "instance (model = Net(...) with model_inputs(), then net.py:model)")

    def test_an_instance_and_a_plain_class_load(self) -> None:
        obj, _, name = self.load(self.SOURCE.replace("model = Net\n", "model = Net()\n"), "model")
        self.assertEqual((type(obj).__name__, name), ("Net", "model"))
        obj, _, _ = self.load("class Scaled:\n    pass\n\ndef Scaled_inputs():\n    return ()\n", "Scaled")
        self.assertIsInstance(obj, type)  # no framework's model: the call itself says what is wrong


class Tree:
    """A module with submodules, as nn.Module.named_modules lists them:
    ("", itself) first, then each by its dotted path."""

    def __init__(self, **children: Tree) -> None:
        self.children = children

    def named_modules(self, prefix: str = "") -> Any:
        yield prefix, self
        for key, child in self.children.items():
            yield from child.named_modules(f"{prefix}.{key}" if prefix else key)


def children(value: Any) -> Any:
    return value.named_modules() if isinstance(value, Tree) else ()


class ScriptModelNames(unittest.TestCase):
    def test_the_variable_that_holds_it_else_the_attribute_path_below_one(self) -> None:
        mlp, encoder, inner = Tree(), Tree(), Tree()
        model = Tree(encoder=encoder, head=Tree(inner=inner))
        space = {"__builtins__": mlp, "_": mlp, "mlp": mlp, "model": model, "other": 3}
        self.assertEqual(holder_name(mlp, [space], children), "mlp")
        self.assertEqual(holder_name(encoder, [space], children), "model.encoder")
        self.assertEqual(holder_name(inner, [space], children), "model.head.inner")
        self.assertIsNone(holder_name(Tree(), [space], children))

    def test_the_innermost_frame_first_and_a_direct_holder_before_a_path(self) -> None:
        block = Tree()
        local, globals_ = {"block": block}, {"net": Tree(block=block), "first": block}
        self.assertEqual(holder_name(block, [local, globals_], children), "block")
        self.assertEqual(holder_name(block, [{}, globals_], children), "first")
        self.assertEqual(holder_name(block, [{"x": 1}, {"net": globals_["net"]}], children), "net.block")


if __name__ == "__main__":
    unittest.main()
