"""The timing benchmark's suite (issue 14): device-bound and host-bound torch
ops, timed by MudJack and by the independent timers of bench/agreement.

  mudjack run --suite-dir bench/suites/timing --framework torch --device cuda:0 --out DIR

The op table (shapes, dtypes, functions) lives in bench/agreement/ops.py so
that the independent timers use identical shapes; it is loaded here by path
under a private module name (this folder and that one are never put on
sys.path). Values do not matter for timing and outputs are not compared.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from mudjack_probe.api import Call, Cases, Ctx


def _load_ops() -> Any:
    name = "mudjack_bench_agreement_ops"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[2] / "agreement" / "ops.py"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


ops = _load_ops()
cases = Cases("torch")


def _declare(op: Any) -> None:
    def body(t: Ctx) -> Call:
        fn = op.build(t.fw)
        args = [t.randn(i.dims, i.dtype) for i in op.inputs]
        return t.call(fn, *args).no_compare()

    note = f"{op.bound}: {' x '.join(str(i.dims) for i in op.inputs)} (bench/agreement/ops.py)"
    cases.case(op.function, dtype=[op.dtype], shape={op.shape_name: op.inputs[0].dims}, mode=["eager"], note=note, tags=[op.bound])(body)


for _op in ops.OPS:
    _declare(_op)
