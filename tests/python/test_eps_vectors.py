"""The accuracy oracle's error in eps, in Python (mudjack_probe.eps), held to
the table the C++ oracle is held to: tests/fixtures/eps_vectors.json (its
`description` states the formula and the format)."""

from __future__ import annotations

import json
import math
import unittest
from pathlib import Path
from typing import Any

import numpy as np

from mudjack_probe import eps
from mudjack_probe.vocabulary import VOCABULARY

TABLE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "eps_vectors.json").read_text())
# The file dtype each output is saved in (bfloat16 as float32, as the probe saves it).
SAVED = {"<f2": np.float16, "<f4": np.float32, "<f8": np.float64, "<c8": np.complex64, "<c16": np.complex128}


def arrays(v: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """A vector's output, in its saved dtype, and its float64 reference."""
    def number(item: Any) -> complex | float:  # "nan", "inf", "-inf" as float() reads them
        return complex(float(item[0]), float(item[1])) if isinstance(item, list) else float(item)

    x = np.array([number(i) for i in v["output"]], dtype=np.complex128 if "c" in v["descr"] else np.float64)
    r = np.array([number(i) for i in v["reference"]], dtype=x.dtype).reshape(v["shape"])
    return x.astype(SAVED[v["descr"]]).reshape(v["shape"]), r


def old_minimal(x: np.ndarray, r: np.ndarray, e_dtype: float) -> float:
    """minimal.py's formula before issue 49, as its scripts ran it."""
    x, r = np.asarray(x, dtype=np.float64), np.asarray(r, dtype=np.float64)
    s = float(np.sqrt(np.mean(r[np.isfinite(r)] ** 2))) if np.isfinite(r).any() else 1.0
    with np.errstate(all="ignore"):
        e = np.abs(x - r) / (e_dtype * (np.abs(r) + (s or 1.0)))
    e = np.where(np.isfinite(r) & ~np.isfinite(x), np.inf, np.where(np.isnan(r) & np.isnan(x), 0.0, e))
    return float(np.nanmax(e)) if e.size else 0.0


class Vectors(unittest.TestCase):
    def assert_close(self, got: float, want: float, what: str) -> None:
        if math.isinf(want) or want == 0:
            self.assertEqual(got, want, what)
        else:
            self.assertAlmostEqual(got / want, 1.0, delta=1e-12, msg=f"{what}: {got} vs {want}")

    def test_every_vector(self) -> None:
        self.assertEqual(TABLE["format"], "mudjack.eps_vectors/1")
        for v in TABLE["vectors"]:
            with self.subTest(v["name"]):
                x, r = arrays(v)
                judged = eps.oracle_dtype(v["dtype"])
                assert judged is not None
                parts = eps.error_parts(x, r, *judged)
                want = [float(e) for e in v["errors"]]
                self.assertEqual(len(parts), len(want))
                for i, (got, w) in enumerate(zip(parts.tolist(), want)):
                    self.assert_close(got, w, f"part {i}")
                self.assert_close(eps.error_eps(x, r, v["dtype"]), float(v["max"]), "max")

    def test_the_old_minimal_formula_passed_a_finite_output_against_a_nan_reference(self) -> None:
        # np.nanmax dropped the NaN error of a finite output where the
        # reference is NaN: a minimal script printed 0 eps where the engine
        # said mismatch (issue 49).
        v = next(v for v in TABLE["vectors"] if v["name"] == "finite output, NaN reference")
        x, r = arrays(v)
        self.assertEqual(old_minimal(x, r, 2.0 ** -23), 0.0)
        self.assertEqual(eps.error_eps(x, r, v["dtype"]), math.inf)

    def test_the_dtypes_are_the_oracle_s(self) -> None:
        # The description's eps and `max` (by the file dtype `descr`).
        want = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "complex64": 2.0 ** -23,
                "float64": 2.0 ** -52, "complex128": 2.0 ** -52}
        self.assertEqual({d: e for d, (e, _) in eps.ORACLE_DTYPES.items()}, want)
        self.assertEqual(VOCABULARY["accuracy"]["dtype_eps"], {d: e for d, e in want.items() if "complex" not in d})
        big = {"<f2": 65504.0, "<f8": 1.7976931348623157e308, "<c16": 1.7976931348623157e308}
        for v in TABLE["vectors"]:
            self.assertEqual((eps.oracle_dtype(v["dtype"]) or (0.0, 0.0))[1], big.get(v["descr"], 3.4028234663852886e38))
        self.assertEqual(eps.oracle_dtype("torch.bfloat16"), (2.0 ** -7, 3.4028234663852886e38))
        self.assertIsNone(eps.oracle_dtype("int32"))
        with self.assertRaisesRegex(ValueError, "^int32: not a floating dtype"):
            eps.error_eps(np.zeros(1), np.zeros(1), "int32")

    def test_a_shape_or_kind_mismatch_is_infinite(self) -> None:
        self.assertEqual(eps.error_eps(np.zeros(2, np.float32), np.zeros(3), "float32"), math.inf)
        self.assertEqual(eps.error_eps(np.zeros(1, np.float32), np.zeros(3), "float32"), math.inf)
        self.assertEqual(eps.error_eps(np.zeros(2, np.complex64), np.zeros(2), "complex64"), math.inf)

    def test_the_embedded_source_stands_alone(self) -> None:
        text = eps.embedded("error_parts")
        self.assertNotIn('"""', text)
        self.assertNotIn("Any", text)
        scope: dict[str, Any] = {}
        exec(compile(text, "<script>", "exec"), scope)
        for v in TABLE["vectors"]:
            x, r = arrays(v)
            judged = eps.oracle_dtype(v["dtype"])
            assert judged is not None
            np.testing.assert_array_equal(scope["error_parts"](x, r, *judged), eps.error_parts(x, r, *judged))


if __name__ == "__main__":
    unittest.main()
