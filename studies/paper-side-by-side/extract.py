#!/usr/bin/env python3
"""Extracts the per-function outcomes and timings of "The Grand Illusion"
(Mince et al. 2023) from its authors' repository into paper-outcomes.json.

    studies/paper-side-by-side/extract.py GIT_DIR [-o OUT]

GIT_DIR is a clone (bare or not) of github.com/for-ai/portability. Only facts
are taken: per (framework, test file, device) the pytest counts, the first
error line and a timing summary; none of the repository's code. Each test
file of the paper tests one function; NAMES below ties it to the name the
paper printed (suites/paper/catalog/), or to None where the paper tested it
but did not print it. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPOSITORY = "for-ai/portability"

# (framework, device key, report path, what it is). The first per framework and
# kind (gpu-T4, tpu) is the one the side-by-side reads.
REPORTS = [
    ("torch", "gpu-T4", "pytorch_timings/t4_vm/test_failure_report.json", "T4 VM"),
    ("torch", "tpu", "pytorch_timings/tpu_vm/test_failure_report.json", "TPU VM, torch_xla"),
    ("tensorflow", "gpu-T4", "tensorflow_timings/t4_vm/gpu/test_failure_report.json",
     "T4 VM, soft placement off"),
    ("tensorflow", "gpu-T4-run2", "tensorflow_timings/t4_vm/test_failure_report.json",
     "T4 VM, soft placement off, another run (3 more tests)"),
    ("tensorflow", "gpu-T4-soft", "tensorflow_timings/soft_placement/gpu/test_failure_report.json",
     "T4 VM, soft placement on"),
    ("tensorflow", "tpu", "tensorflow_timings/tpu_vm/tpu/test_failure_report.json", "TPU VM, soft placement off"),
    ("tensorflow", "tpu-run2", "tensorflow_timings/tpu_vm/test_failure_report.json",
     "TPU VM, soft placement off, another run (3 more tests)"),
    ("jax", "gpu-T4", "jax_timings/t4_vm/gpu/test_failure_report.json",
     ("a non-CPU backend (linalg.eig: 'only implemented on the CPU backend') on a 4.19 cloud kernel like the "
     "T4 VM's reports; the same file (one blob) is committed as jax_timings/t4_vm/ and jax_timings/tpu_vm/"
     "test_failure_report.json, so no JAX TPU report exists")),
]

# (framework, device key, folder, file pattern): the timing runs per device.
TIMINGS = [
    ("torch", "gpu-T4", "pytorch_timings/t4_vm", r"gpu_\d\.json"),
    ("torch", "gpu-A100", "pytorch_timings/a100_vm", r"gpu_\d\.json"),
    ("torch", "tpu", "pytorch_timings/tpu_vm", r"tpu_\d\.json"),
    ("torch", "tpu-v2", "pytorch_timings/tpu_v2", r"tpu_\d\.json"),
    ("tensorflow", "gpu-T4", "tensorflow_timings/t4_vm/gpu", r"gpu_\d\.json"),
    ("tensorflow", "gpu-A100", "tensorflow_timings/a100_vm", r"gpu_\d\.json"),
    ("tensorflow", "tpu", "tensorflow_timings/tpu_vm/tpu", r"tpu_\d\.json"),
    ("tensorflow", "tpu-v2", "tensorflow_timings/tpu_v2", r"tpu_\d\.json"),
    ("tensorflow", "cpu", "tensorflow_timings/t4_vm/cpu", r"cpu_\d\.json"),
    ("jax", "gpu-T4", "jax_timings/t4_vm/gpu", r"gpu_\d\.json"),
    ("jax", "gpu-A100", "jax_timings/a100_vm", r"gpu_\d\.json"),
    ("jax", "tpu", "jax_timings/tpu_vm/tpu", r"tpu_\d\.json"),
    ("jax", "tpu-v2", "jax_timings/tpu_v2_vm/tpu", r"tpu_\d\.json"),
    ("jax", "cpu", "jax_timings/t4_vm/cpu", r"cpu_\d\.json"),
]

# Test file (without _test.py) -> the name the paper printed; None: tested, not printed.
NAMES: dict[str, dict[str, str | None]] = {
    "torch": {
        "Adamax": "torch.optim.Adamax", "Conv3d": "torch.nn.Conv3d", "Dataset": "torch.utils.data.Dataset",
        "ExponentialLR": "torch.optim.lr_scheduler.ExponentialLR", "GELU": "torch.nn.GELU",
        "LBFGS": "torch.optim.LBGFS", "RProp": None, "Sequential": "torch.nn.Sequential",
        "Subset": "torch.utils.data.Subset", "TransformerEncoderLayer": None, "Transformer": "torch.nn.Transformer",
        "adaptiveavgpool3d": "torch.nn.AdaptiveAvgPool3d", "add_module": None, "addr": "torch.addr", "apply": None,
        "argsort": "torch.argsort", "batch_norm": None, "bcewithlogitsloss": "torch.nn.BCEWithLogitsLoss",
        "bitwise_not": "torch.bitwise_not", "broadcast_tensors": "torch.broadcast_tensors", "cat": "torch.cat",
        "concatdataset": "torch.utils.data.ConcatDataset", "conv2d": "torch.nn.Conv2d", "cuda": "torch.cuda",
        "data_ptr": None, "diag": "torch.diag", "dropout3d": None, "dropout": "torch.nn.functional.dropout",
        "fliplr": "torch.fliplr", "group_norm": None, "is_same_size": "torch.Tensor.is_same_size",
        "jvp": "torch.autograd.functional.jvp", "kldivloss": "torch.nn.KLDivLoss", "linear": "torch.nn.Linear",
        "log1p": None, "logdet": "torch.slogdet", "lstmcell": "torch.nn.LSTMCell", "lt": "torch.lt",
        "matrix_rank": "torch.linalg.matrix_rank", "moveaxis": "torch.moveaxis",
        "multinomial": "torch.multinomial", "ormqr": None, "randperm": None, "range": "torch.range",
        "register_parameter": "torch.nn.Parameter.register_parameter", "relaxedonehotcategorical": None,
        "reset_running_stats": None, "round": "torch.round", "saddmm": None, "size": None,
        "smoothl1loss": None, "state_dict": "torch.nn.Module.state_dict", "sum": "torch.sum",
        "synchronize": None, "tensor": None, "to": "torch.Tensor.to", "triangular_solve": "torch.triangular_solve",
        "unbind": None, "unsqueeze": None, "variable": "torch.autograd.Variable",
        "vonmises": "torch.von_mises.VonMises", "xavier_uniform": None, "zero_grad": "torch.nn.Module.zero_grad",
        "zeros": "torch.zeros",
    },
    "tensorflow": {
        "CheckpointSaverHook": "tf.estimator.CheckpointSaverHook",
        "KeyValueTensorInitializer": "tf.lookup.KeyValueTensorInitializer",
        "LoggingTensorHook": "tf.estimator.LoggingTensorHook", "Normal": "tf.compat.v1.distributions.Normal",
        "Variable": "tf.Variable", "accuracy": "tf.compat.v1.metrics.accuracy",
        "adadeltaoptimizer": "tf.keras.optimizers.experimental.Adadelta",
        "adjust_brightness": "tf.image.adjust_brightness", "as_default": "tf.Graph.as_default",
        "as_dtype": "tf.dtypes.as_dtype", "assertEqual": "tf.test.TestCase.assert_equal",
        "assert_less": "tf.debugging.assert_less", "cast": "tf.cast", "clip": "tf.python.ops.numpy_ops.clip",
        "compute_gradient_error": "tf.compat.v1.test.compute_gradient_error", "concat": None,
        "constant": "tf.constant", "conv2d_transpose": "tf.nn.conv2d_transpose", "conv3d": "tf.nn.conv3d",
        "convert_to_tensor": "tf.convert_to_tensor", "cum_prod": None, "decode": None,
        "dense_to_ragged_batch": None, "diagflat": None, "draw_bounding_boxes": None, "eval": "tf.Tensor.eval",
        "exponentialmovingaverage": "tf.train.ExponentialMovingAverage", "fill": None,
        "flush": "tf.summary.flush", "from_list": None, "gamma": None,
        "get_collection": "tf.compat.v1.get_collection", "get_global_step": "tf.compat.v1.train.get_global_step",
        "get_per_replica_batch_size": "tf.distribute.Strategy.get_per_replica_batch_size",
        "get_shape": "tf.Tensor.get_shape",
        "global_variables_initializer": "tf.compat.v1.global_variables_initializer",
        "idct": "tf.signal.idct", "igammac": "tf.math.igammac", "intersection": "tf.sets.intersection",
        "is_variable_initialized": None, "list_variables": "tf.train.list_variables",
        "log_survival_function": None, "map_structure": "tf.nest.map_structure",
        "map_structure_up_to": "tf.contrib.framework.nest.map_structure_up_to",
        "numpy_function": "tf.numpy_function", "param_shapes": "tf.compat.v1.distributions.Normal.param_shapes",
        "parse_single_sequence_example": None, "placeholder": "tf.compat.v1.placeholder", "print": None,
        "queuerunner": None, "rad2deg": None, "range": "tf.range", "raw_rnn": None,
        "reduce_logsumexp": "tf.math.reduce_logsumexp", "reduce_mean": "tf.math.reduce_mean",
        "reshape": "tf.reshape", "restore_state": "tf.compat.v1.TextLineReader.restore_state",
        "run": "tf.compat.v1.Session.run", "sequence_mask": "tf.sequence_mask", "set_diag": "tf.linalg.set_diag",
        "shard": None, "shuffle_and_repeat": None, "simple_save": "tf.compat.v1.saved_model.simple_save",
        "smart_cond": "tf.python.framework.smart_cond", "space_to_batch": "tf.nn.space_to_batch",
        "standard_normal": None, "survival_function": "tf.compat.v1.distributions.Normal.survival_function",
        "svd": "tf.linalg.svd", "tensor_scatter_update": "tf.tensor_scatter_nd_update", "true_divide": None,
        "variable_scope": "tf.compat.v1.variable_scope", "zeros": None,
    },
    "jax": {
        "PRNGKey": "jax.random.PRNGKey", "PRNG": None, "add": "jax.numpy.add", "all_gather": "jax.lax.all_gather",
        "all": "jax.numpy.all", "arange": "jax.numpy.arange", "array": "jax.numpy.array",
        "average": "jax.numpy.average", "bitwise_and": "jax.lax.bitwise_and", "cdf": "jax.scipy.stats.norm.cdf",
        "compress": "jax.numpy.compress", "convolve_2d": "jax.scipy.signal.convolve2d",
        "convolve": "jax.numpy.convolve", "cos": "jax.numpy.cos", "delete": "jax.numpy.delete",
        "disable_jit": "jax.disable_jit", "eig": None, "einsum_path": "jax.numpy.einsum_path", "erf": "jax.lax.erf",
        "eval_context": "jax.core.eval_context", "exp": "jax.numpy.exp", "flip": "jax.numpy.flip",
        "fliplr": "jax.numpy.fliplr", "gammaln": "jax.scipy.special.gammaln", "ge": "jax.lax.ge",
        "get_aval": "jax._src.core.get_aval", "i0": "jax.scipy.special.i0", "infeed": None,
        "integer_pow": "jax.lax.integer_pow", "isscalar": "jax.numpy.isscalar", "log": "jax.numpy.log",
        "lu": "jax.scipy.linalg.lu", "make_jax_pr": "jax.make_jaxpr", "max": "jax.numpy.max",
        "mean": "jax.numpy.mean", "named_call": "jax.named_call", "ndtr": "jax.scipy.special.ndtr",
        "one_hot": "jax.nn.one_hot", "ones": "jax.numpy.ones", "partial": "jax.tree_util.Partial",
        "partial_val": "jax._src.interpreters.partial_eval", "pmax": "jax.lax.pmax", "power": "jax.numpy.power",
        "prod": "jax.numpy.prod", "reshape": "jax.numpy.reshape", "save": None, "select": "jax.lax.select",
        "size": "jax.numpy.size", "slice_in_dim": "jax.lax.slice_in_dim", "split": "jax.numpy.split",
        "sqrt": "jax.numpy.sqrt", "stack": "jax.numpy.stack", "stop_gradient": "jax.lax.stop_gradient",
        "sum": "jax.numpy.sum", "svd": "jax.numpy.linalg.svd", "top_k": "jax.lax.top_k",
        "trace_to_jax_pr_dynamic": "jax._src.interpreters.partial_eval.trace_to_jax_pr_dynamic",
        "tree_map": "jax.tree_util.tree_map", "tree_unflatten": "jax.tree_util.tree_unflatten",
        "tril_indices_from": "jax.numpy.tril_indices_from", "tril": "jax.numpy.tril",
        "triu_indices": "jax.numpy.triu_indices", "var": "jax.numpy.var", "vjp": "jax.vjp",
        "zeros": "jax.numpy.zeros",
    },
}
# Why a tested file has no printed name, where it is not simply left out of the printed list.
NOTES = {("jax", "PRNG"): "an untimed copy of PRNGKey's test; in no printed list",
         ("jax", "partial_val"): "tests partial_eval.PartialVal (the printed name is the module)",
         ("torch", "logdet"): "tests det, logdet and slogdet (printed as torch.slogdet)",
         ("tensorflow", "flush"): "in src/ but in no failure report",
         ("jax", "select"): "in src/ but in no failure report"}
# A torch test instantiated for the host (TestFooCPU, test_foo_cpu) beside the device's copy.
HOST_TEST = re.compile(r"CPU::|_cpu(_|$)")


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True,
                          check=True).stdout


def show(git_dir: Path, path: str) -> Any:
    return json.loads(git(git_dir, "show", f"HEAD:{path}"))


def stem(nodeid_or_key: str) -> str:
    """'src/x_tests_reduced/cat_test.py::T::t' or 'cat_test.py:t' -> 'cat'."""
    return re.split(r"::?", nodeid_or_key)[0].rsplit("/", 1)[-1].removesuffix(".py").removesuffix("_test")


def first_error(test: dict[str, Any]) -> str:
    """The first line of a failed test's error (pytest-json-report's crash
    message, else the last line of its traceback), cut to 200 characters."""
    for phase in ("setup", "call", "teardown"):
        part = test.get(phase) or {}
        if part.get("outcome") == "failed":
            text = (part.get("crash") or {}).get("message") or str(part.get("longrepr") or "").strip()
            lines = [line for line in text.strip().splitlines() if line.strip()]
            return (lines[0] if part.get("crash") else lines[-1]).strip()[:200] if lines else ""
    return ""


def outcomes(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per test file: pytest's counts, the result (fail: any test failed, as the
    paper counts; pass: none failed and one passed; skip: all skipped), how many
    failures were torch's host copies, and the first error (a device copy's first)."""
    per: dict[str, dict[str, Any]] = {}
    failing: dict[str, list[dict[str, Any]]] = {}
    for test in report["tests"]:
        rec = per.setdefault(stem(test["nodeid"]), {"passed": 0, "failed": 0, "skipped": 0, "host_failed": 0})
        kind = test["outcome"] if test["outcome"] in ("passed", "skipped") else "failed"
        rec[kind] += 1
        if kind == "failed":
            failing.setdefault(stem(test["nodeid"]), []).append(test)
    for name, rec in per.items():
        rec["result"] = "fail" if rec["failed"] else "pass" if rec["passed"] else "skip"
        tests = failing.get(name, [])
        host = [t for t in tests if HOST_TEST.search(t["nodeid"])]
        rec["host_failed"] = len(host)
        if tests:
            rec["error"] = first_error(([t for t in tests if t not in host] or tests)[0])
    return per


def timing(runs: list[dict[str, Any]], framework: str, device: str) -> dict[str, float]:
    """Per test file: the median over the runs of the summed per-call times
    (`operations`, seconds) of its tests; torch's host copies left out on an
    accelerator. Files with no timed call are left out."""
    sums: dict[str, list[float]] = {}
    for run in runs:
        total: dict[str, float] = {}
        for key, rec in run.items():
            if framework == "torch" and device != "cpu" and HOST_TEST.search(key):
                continue
            total[stem(key)] = total.get(stem(key), 0.0) + sum(rec.get("operations") or [])
        for name, value in total.items():
            sums.setdefault(name, []).append(value)
    return {n: float(f"{statistics.median(v):.4g}") for n, v in sums.items() if statistics.median(v) > 0}


def blobs(git_dir: Path) -> dict[str, str]:
    """Every file at HEAD -> its blob id."""
    out = {}
    for line in git(git_dir, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out


def extract(git_dir: Path) -> dict[str, Any]:
    files = blobs(git_dir)
    doc: dict[str, Any] = {
        "source": {"repository": REPOSITORY, "commit": git(git_dir, "rev-parse", "HEAD").strip(),
                   "extracted_by": "studies/paper-side-by-side/extract.py"},
        "definitions": {
            "outcomes": "per failure report (reports: its path) and test file: pytest's passed/failed/skipped "
                        "counts; result fail when any test failed, pass when none failed and one passed, skip "
                        "when all were skipped; host_failed: failures of torch's CPU copies of a device test; "
                        "error: the first failing test's first error line (a device copy's first)",
            "timing_s": "per timing folder (timings: its run files): the median over the runs of the summed "
                        "per-call times ('operations') of the file's tests, seconds, torch's CPU copies left out "
                        "on an accelerator; gpu-A100, tpu-v2 and cpu have timings only, no failure report"},
        "reports": {}, "timings": {}, "functions": {}}
    funcs: dict[str, dict[str, Any]] = doc["functions"]
    for framework, names in NAMES.items():
        funcs[framework] = {s: {"name": n} | ({"note": NOTES[framework, s]} if (framework, s) in NOTES else {})
                            for s, n in sorted(names.items())}
    for framework, device, path, what in REPORTS:
        report = show(git_dir, path)
        same = sorted(p for p, b in files.items() if b == files[path] and p != path)
        doc["reports"][f"{framework}/{device}"] = {
            "path": path, "what": what, "summary": report.get("summary"),
            "python": report["environment"].get("Python"), "platform": report["environment"].get("Platform"),
            **({"same_file_as": same} if same else {})}
        for name, rec in outcomes(report).items():
            funcs[framework].setdefault(name, {"name": None})
            funcs[framework][name].setdefault("outcomes", {})[device] = rec
    for framework, device, folder, pattern in TIMINGS:
        paths = sorted(p for p in files if p.rsplit("/", 1)[0] == folder and re.fullmatch(pattern, p.rsplit("/", 1)[1]))
        doc["timings"][f"{framework}/{device}"] = paths
        for name, seconds in timing([show(git_dir, p) for p in paths], framework, device).items():
            if name in funcs[framework]:  # not a timing of a file no longer tested (TensorFlow's `append`)
                funcs[framework][name].setdefault("timing_s", {})[device] = seconds
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("-o", "--out", type=Path, default=HERE / "paper-outcomes.json")
    args = ap.parse_args()
    args.out.write_text(json.dumps(extract(args.git_dir), indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
