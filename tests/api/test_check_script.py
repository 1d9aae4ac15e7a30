"""`mudjack check FILE.py:NAME` of a script in a folder of its own, through
the engine binary ($MUDJACK_BINARY, scripts/api-tests.sh) and the numpy
environment (a file that imports torch: the torch environment), as a person
runs it: from the script's folder."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

TARGET = """
    import numpy as np
    from helpers import scale  # a module beside the script

    def f(x):
        return np.cumsum(x) * scale()

    def f_inputs():
        return (np.linspace(0, 1, 16, dtype=np.float32),)
    """


def check_cli(folder: Path, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([os.environ["MUDJACK_BINARY"], "check", target, "--quick", "--budget-ms", "2", "--json",
                           "--out", str(folder / "results")],
                          capture_output=True, text=True, cwd=folder, timeout=300, check=False)


def test_modules_named_like_the_standard_library_beside_the_script_shadow_nothing(tmp_path):
    (tmp_path / "target.py").write_text(textwrap.dedent(TARGET))
    (tmp_path / "helpers.py").write_text("def scale():\n    return 2.0\n")
    for stdlib in ("secrets", "json", "random", "tempfile"):
        (tmp_path / f"{stdlib}.py").write_text(f"raise RuntimeError('the {stdlib}.py beside the script was imported')\n")
    done = check_cli(tmp_path, "target.py:f")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [(c["dtype"], c["outcome"]) for c in doc["cases"]] == [("float32", "pass")], doc["cases"]


def test_a_script_that_exits_at_import_says_so_in_one_line(tmp_path):
    (tmp_path / "exits.py").write_text(textwrap.dedent(TARGET).replace("from helpers import scale", "import sys")
                                       .replace("* scale()", "") + "\nsys.exit(3)\n")
    done = check_cli(tmp_path, "exits.py:f")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"mudjack: error: {tmp_path / 'exits.py'}: the script exited at import (SystemExit: 3)"


MODELS = """
    import torch


    class Pair(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = torch.nn.Linear(8, 4)
            self.decoder = torch.nn.Linear(4, 8)


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.lin(x)


    model = Net  # the class, not a model


    def model_inputs():
        return (torch.randn(4, 8),)


    def run():
        head = torch.nn.Sequential(torch.nn.Linear(8, 2))
        return head(torch.randn(3, 8))


    mlp = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    pair = Pair()
    with torch.no_grad():
        mlp(torch.randn(4, 8))
        pair.encoder(torch.randn(2, 8))
        run()
        torch.nn.Sequential(torch.nn.Tanh())(torch.randn(2))
    """


def torch_check(folder: Path, target: str) -> subprocess.CompletedProcess[str]:
    """check_cli of a file that imports torch: skipped where the engine finds
    no torch environment (exit 3)."""
    (folder / "models.py").write_text(textwrap.dedent(MODELS))
    done = check_cli(folder, target)
    if done.returncode == 3:
        pytest.skip(f"no torch environment: {done.stderr.strip()}")
    return done


def test_a_scripts_models_are_named_by_the_variables_that_hold_them(tmp_path):
    done = torch_check(tmp_path, "models.py")
    assert done.returncode == 0, done.stderr
    names = [c["function"] for c in json.loads(done.stdout)["cases"]]
    # A global, an attribute path below one, a function's local; none: the class.
    assert names == ["mlp", "pair.encoder", "head", "Sequential"], names


def test_a_model_class_is_refused_naming_the_instance_to_pass(tmp_path):
    done = torch_check(tmp_path, "models.py:model")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("mudjack: error: model is the class Net (a torch.nn.Module subclass), not a model: "
                                   "pass an instance (model = Net(...))"), done.stderr
