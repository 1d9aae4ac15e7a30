"""The Python API (python/mudjack) and its pytest plugin, with the real
engine and this interpreter as numpy's Python (scripts/api-tests.sh). The
plugin is loaded here with `-p mudjack.pytest_plugin`; test_plugin_*
install the package and let pytest find it by its entry point."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import mudjack
import numpy as np
import pytest
from mudjack.testing import assert_portable
from portable_fns import doubled, layer_norm_eps_outside, layer_norm_reference, overflows, scaled_cumsum, total

REPO = Path(__file__).resolve().parents[2]
X = np.linspace(0, 1, 64, dtype=np.float32)


def run_python(code: str, cwd: Path, extra_path: str = "") -> subprocess.CompletedProcess[str]:
    """`code` fed to a plain `python -` on stdin: what a person types at a prompt."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (extra_path, str(REPO / "python")) if p))
    return subprocess.run([sys.executable, "-"], input=textwrap.dedent(code), capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300, check=False)


def test_the_fixture_checks_a_right_function(mudjack_check):
    # By default the grid `mudjack check` runs (numpy: eager; bfloat16 is
    # numpy's gap, no failure), not float32 eager alone.
    result = mudjack_check(scaled_cumsum, X)
    rows = {(r.device, r.mode, r.dtype): r.outcome for r in result.rows}
    assert rows == {("cpu", "eager", "float16"): "pass", ("cpu", "eager", "bfloat16"): "unsupported",
                    ("cpu", "eager", "float32"): "pass", ("cpu", "eager", "float64"): "pass"}, result
    # The float64 row is the reference the others were judged against, not a
    # pass checked by nothing.
    assert result.ok and not result.unverified and "portable here" in result._repr_html_(), result
    quick = mudjack_check(scaled_cumsum, X, quick=True)
    assert [(r.dtype, r.outcome) for r in quick.rows] == [("float32", "pass")], quick


def test_a_pass_checked_by_nothing_is_not_ok():
    result = mudjack.check(doubled, np.arange(8, dtype=np.int32), budget_ms=2)
    assert [(r.dtype, r.outcome, r.checked) for r in result.rows] == [("int32", "pass", "none")], result
    assert not result.ok and result.unverified == result.rows
    assert "1 passes checked by nothing (unverified)" in result._repr_html_()
    with pytest.raises(mudjack.CheckFailed, match=r"^1 passes checked by nothing \(unverified\) \(int32 on cpu\)"):
        result.raise_for_failure()


def test_a_trusted_reference_catches_a_formula_bug_its_own_float64_run_shares():
    x = (np.linspace(-1, 1, 256, dtype=np.float32) * 0.01).reshape(4, 64)
    alone = mudjack.check(layer_norm_eps_outside, x, quick=True, budget_ms=2)
    assert [r.outcome for r in alone.rows] == ["pass"], alone  # its float64 run has the same bug
    judged = mudjack.check(layer_norm_eps_outside, x, quick=True, budget_ms=2, reference=layer_norm_reference)
    assert [r.outcome for r in judged.rows] == ["mismatch"], judged
    right = mudjack.check(layer_norm_reference, x, dtypes=["float32", "float64"], modes=["eager"], budget_ms=2,
                          reference=layer_norm_reference)
    assert right.ok, right
    assert {r.checked for r in right.rows if r.outcome == "pass"} == {"reference"}, right
    with pytest.raises(mudjack.CheckError, match="reference must be a function"):
        mudjack.check(scaled_cumsum, X, quick=True, reference=3)


def test_assert_portable_names_the_dtypes_to_run():
    result = assert_portable(scaled_cumsum, X, dtypes=["float16", "float32"], modes=["eager"])
    assert sorted(r.dtype for r in result.rows) == ["float16", "float32"]


@pytest.fixture(autouse=True)
def kept_folders_in_tmp(tmp_path, monkeypatch):
    """A failed check keeps its mudjack-check-* folder (for `mudjack repro`):
    under the test's own tmp_path, not /tmp."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def test_a_failing_function_prints_with_a_float_infinite_error():
    result = mudjack.check(overflows, X, quick=True, budget_ms=2)
    row = result.rows[0]
    assert row.outcome == "mismatch" and isinstance(row.error_eps, float) and math.isinf(row.error_eps), row
    assert isinstance(row.bound_eps, float) and row.bound_eps > 0
    text = str(result)
    assert "inf" in text and "beyond" in text, text
    html = result._repr_html_()
    assert "background:#f6d0d0" in html and f"<b>inf / {row.bound_eps:.3g} eps</b>" in html and "1 of 1 cases failed" in html, html
    with pytest.raises(mudjack.CheckFailed, match="1 of 1 cases failed \\(float32 on cpu\\)"):
        result.raise_for_failure()
    assert not result.ok


def test_a_failed_row_says_the_mudjack_repro_line_that_reproduces_it(tmp_path):
    result = mudjack.check(overflows, X, quick=True, budget_ms=2)
    (row,) = result.rows
    assert row.case_id == "numpy/overflows/float32-given-eager", row
    # Kept, so that the line runs: the target and the run are in its folder.
    assert result.folder and result.results_dir == str(Path(result.folder) / "results"), result
    line = f"mudjack repro {row.case_id} --device cpu --run {result.run_id} --out {result.results_dir}"
    assert result.repro_command(row) == line
    assert f"\n    {line}" in str(result), str(result)
    assert f"<code>{line}</code>" in result._repr_html_()
    with pytest.raises(mudjack.CheckFailed) as failed:
        result.raise_for_failure()
    assert line in str(failed.value)
    script = tmp_path / "repro.py"
    done = subprocess.run([os.environ["MUDJACK_BINARY"], *line.split()[1:], "-o", str(script)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Reproduces numpy/overflows/float32-given-eager on cpu" in script.read_text()
    # keep=False: nothing kept, no line that would not run; the case id still said.
    gone = mudjack.check(overflows, X, quick=True, budget_ms=2, keep=False)
    assert gone.folder is None and gone.results_dir is None, gone
    assert "\n    case numpy/overflows/float32-given-eager" in str(gone) and "mudjack repro" not in str(gone)


def test_a_passing_check_keeps_nothing_and_its_rows_stay_one_line():
    result = mudjack.check(scaled_cumsum, X, quick=True, budget_ms=2)
    assert result.ok and result.folder is None and result.results_dir is None, result
    assert len(str(result).splitlines()) == 2 and "repro" not in str(result), str(result)


def test_a_numpy_function_is_portable_though_numpy_has_no_bfloat16():
    result = mudjack.check(scaled_cumsum, X, modes=["eager"], budget_ms=2)
    outcomes = {r.dtype: r.outcome for r in result.rows}
    assert outcomes == {"float16": "pass", "bfloat16": "unsupported", "float32": "pass", "float64": "pass"}, result
    assert result.ok and result.raise_for_failure() is result
    assert "background:#eeeeee" in result._repr_html_()
    # `unstable` is the engine's word, in the API's rows and its table as in every view.
    timed = [r for r in result.rows if r.spread is not None]
    assert all(isinstance(r.unstable, bool) for r in result.rows)
    assert all(r.unstable == (r.spread > 0.10) for r in timed), result.rows
    assert ("unstable" in str(result)) == any(r.unstable for r in result.rows), str(result)


def test_a_model_class_is_refused_naming_the_instance_to_pass():
    # Shaped as torch.nn.Module is (this environment has no torch): a class
    # named Module defined in torch.nn.modules.module.
    module = type("Module", (), {"__module__": "torch.nn.modules.module"})
    net = type("Net", (module,), {})
    with pytest.raises(mudjack.CheckError, match=r"^Net is a class \(a torch\.nn\.Module subclass\), not a model: "
                       r"pass an instance, mudjack\.check\(Net\(\.\.\.\), \.\.\.\)$"):
        mudjack.check(net, X)
    keras = type("Model", (), {"__module__": "keras.src.models.model"})
    with pytest.raises(mudjack.CheckError, match=r"a keras\.Model subclass"):
        mudjack.check(type("Classifier", (keras,), {}), X)


def test_integer_inputs_keep_their_dtype():
    result = mudjack.check(doubled, np.arange(8, dtype=np.int32), budget_ms=2)
    assert [(r.dtype, r.outcome) for r in result.rows] == [("int32", "pass")], result
    result = mudjack.check(doubled, np.array([True, False]), quick=True, budget_ms=2)
    assert [r.dtype for r in result.rows] == ["bool"], result


def test_a_python_float_return_is_refused_in_one_line():
    with pytest.raises(mudjack.CheckError, match=r"^total returns float; return the tensor$"):
        mudjack.check(total, X, quick=True)


def test_to_pandas_and_its_one_line_without_pandas(tmp_path):
    frame = mudjack.check(scaled_cumsum, X, quick=True, budget_ms=2).to_pandas()
    assert list(frame["outcome"]) == ["pass"] and frame["error_eps"].dtype == np.float64
    done = run_python("""
        import sys
        sys.modules["pandas"] = None  # as where pandas is not installed
        import numpy as np, mudjack
        def f(x):
            return x + 1
        try:
            mudjack.check(f, np.ones(3, dtype=np.float32), quick=True).to_pandas()
        except mudjack.CheckError as e:
            print("refused:", e)
        """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused: to_pandas needs pandas: pip install pandas (or read result.rows)"


def test_functions_lambdas_and_classes_typed_at_a_prompt(tmp_path):
    done = run_python("""
        import numpy as np, mudjack
        SCALE = 3.0
        def f(x):
            return np.cumsum(x) * SCALE
        class Scaled:
            def __call__(self, x):
                return x * SCALE
        x = np.linspace(0, 1, 32, dtype=np.float32)
        for fn in (f, lambda x: x * 2, Scaled()):
            r = mudjack.check(fn, x, quick=True, budget_ms=2)
            print(type(fn).__name__, [(row.dtype, row.outcome) for row in r.rows])
        """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["function [('float32', 'pass')]", "function [('float32', 'pass')]",
                                        "Scaled [('float32', 'pass')]"], done.stdout


def test_a_prompt_function_without_cloudpickle_is_one_line(tmp_path):
    done = run_python("""
        import sys
        sys.modules["cloudpickle"] = None  # as where cloudpickle is not installed
        import numpy as np, mudjack
        def f(x):
            return x + 1
        try:
            mudjack.check(f, np.ones(3, dtype=np.float32), quick=True)
        except mudjack.CheckError as e:
            print("refused:", e)
        """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: f was defined at a prompt (no source file): checking it needs cloudpickle")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The package installed (pip, no network, no dependencies: the
    environment has cloudpickle), so that pytest finds the plugin by its
    pytest11 entry point."""
    target = tmp_path_factory.mktemp("site")
    # From a copy: an in-tree build leaves build/ and an egg-info in python/.
    source = tmp_path_factory.mktemp("source") / "python"
    shutil.copytree(REPO / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return target


def test_plugin_failures_print_the_table(installed, tmp_path):
    (tmp_path / "test_two.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import numpy as np
        from portable_fns import overflows, scaled_cumsum

        X = np.linspace(0, 1, 64, dtype=np.float32)

        def test_right(mudjack_check):
            mudjack_check(scaled_cumsum, X)

        def test_wrong(mudjack_check):
            mudjack_check(overflows, X)
        """))
    env = dict(os.environ, PYTHONPATH=str(installed), TMPDIR=str(tmp_path))  # the kept folder of its failure
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300, check=False)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 1 passed" in out, out
    # The default grid (float16, bfloat16 — numpy's gap —, float32, float64):
    # float32 overflows where float64 does not.
    assert re.search(r"CheckFailed: \d of 4 cases failed.*float32 on cpu", out), out
    # The fixture was found with no -p: by the installed package's pytest11 entry point.
    # Its table: the mismatch, its infinite error and the bound it was held to.
    assert re.search(r"mismatch\s+-\s+inf / 6 eps", out), out
    # Under the failed row, the line that writes it as a script.
    assert re.search(r"\n[E ]+mudjack repro numpy/overflows/float32-given-eager --device cpu --run \S+ --out \S+/results\n", out), out


def test_a_refused_fail_reads_in_the_engines_words(tmp_path):
    """results 1.10: a case's `refusal` decides its row; kernel_missing stays
    a failure (not ok), unsupported is none."""
    def case(dtype: str, refusal: dict | None) -> dict:
        return {"device": "cuda:0", "mode": "eager", "dtype": dtype, "function": "f", "outcome": "fail",
                "error": {"kind": "unsupported_dtype", "message": f'"f_cuda" not implemented for {dtype}'},
                "numeric": {}, "latency": {}, "refusal": refusal}
    doc = {"run": {"id": "r1"}, "verdicts": [], "cases": [
        case("complex64", {"refusal": "kernel_missing", "source": "op_database", "documented": True,
                           "reason": "kernel missing on cuda"}),
        case("int8", {"refusal": "unsupported", "source": "message", "documented": False, "reason": "domain"})]}
    (tmp_path / "results.json").write_text(__import__("json").dumps(doc))
    result = mudjack.load(tmp_path)
    assert [(r.outcome, r.refusal, r.documented) for r in result.rows] == [
        ("fail", "kernel_missing", True), ("unsupported", "unsupported", False)]
    assert not result.ok
    assert [r.dtype for r in result.failures] == ["complex64"]
    assert 'kernel_missing (documented): "f_cuda" not implemented' in str(result)


def test_times_read_as_the_engines_tables_and_an_unstable_median_in_brackets(tmp_path):
    """The CLI's units (report::duration_text: ns, us, ms, s); an unstable timing's
    median in brackets and its spread as slowest over fastest, never as a
    percent; an error beyond its bound with the digits that show it."""
    def case(i: int, median_ns: float, rounds: list[float], unstable: bool, error: float | None = None) -> dict:
        return {"id": f"numpy/f/float32-given-eager-{i}", "device": "cpu", "mode": "eager", "dtype": "float32",
                "function": "f", "outcome": "pass" if error is None else "mismatch", "checked": "float64",
                "numeric": {"error_eps": error, "bound_eps": 6.0},
                "latency": {"median_ns": median_ns, "p10_ns": median_ns, "p90_ns": 3 * median_ns,
                            "timing": {"bound": "host_bound", "rounds": rounds, "unstable": unstable,
                                       "spread": (max(rounds) - min(rounds)) / median_ns}}}
    doc = {"run": {"id": "r1"}, "verdicts": [], "cases": [
        case(0, 812.4, [812.4, 830.0], False), case(1, 15936000.0, [15936000.0, 16000000.0], False),
        case(2, 44.0e6, [25.0e6, 44.0e6, 45.0e6], True, 6.0004), case(3, 2.5e9, [2.5e9], True)]}
    run = tmp_path / "results" / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "results.json").write_text(__import__("json").dumps(doc))
    (tmp_path / "results" / "mudjack.db").write_text("")
    result = mudjack.load(run)
    lines = str(result).splitlines()
    assert re.search(r"\s812 ns\s+host_bound\s+\u00d71.02$", lines[1]), lines[1]
    assert re.search(r"\s15.9 ms\s+host_bound\s+\u00d71.00$", lines[2]), lines[2]
    assert re.search(r"6.0004 / 6 eps\s+\[44.0 ms\]\s+host_bound\s+\u00d71.80 unstable$", lines[3]), lines[3]
    # One round: the engine's spread of its samples, p90 / p10.
    assert re.search(r"\[2.50 s\]\s+host_bound\s+\u00d73.00 unstable$", lines[-1]), lines[-1]
    assert result.rows[3].spread == 0.0 and result.rows[3].ratio == 3.0, result.rows[3]
    assert "%" not in str(result) and " us" not in str(result)
    # A stored run's results folder is the one `mudjack repro --out` reads.
    assert result.results_dir == str(tmp_path.resolve() / "results"), result
    assert lines[4] == f"    mudjack repro numpy/f/float32-given-eager-2 --device cpu --run r1 --out {tmp_path.resolve()}/results"
