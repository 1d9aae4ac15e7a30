"""`mudjack check`'s loading of its target (mudjack_probe.checking), with no
framework: a model's class named instead of a model is refused in one line
that says what to pass. Classes shaped as the frameworks' own (a class named
Module defined in torch.nn.modules.module) stand in for them; tests/api's
test_check_script.py runs it through the engine with torch.

Run by CTest through scripts/python-tests.sh with the numpy environment.
"""

from __future__ import annotations

import tempfile
import textwrap
import unittest
from pathlib import Path
from typing import Any

from mudjack_probe.checking import CheckTargetError, load_target, model_base

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


if __name__ == "__main__":
    unittest.main()
