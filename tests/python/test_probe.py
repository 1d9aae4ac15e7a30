"""Unit tests of the probe's own logic (no framework needed, only numpy).

Run by CTest through scripts/python-tests.sh with the numpy environment.
"""

from __future__ import annotations

import gc
import statistics
import time
import unittest
from typing import ClassVar

import numpy as np

from mudjack_probe import api
from mudjack_probe.adapters.base import classify_exception, compile_cache_state, host_values
from mudjack_probe.runner import Policy, block_calls, enough_samples, measure, slow_and_steady

# The policy fields of protocol 1.0, as the engine sends its defaults.
ENGINE_1_0 = {"budget_ms": 7, "min_samples": 5, "max_samples": 1000, "warmup_ms": 5, "block_ms": 1}


class Classify(unittest.TestCase):
    """Real messages seen from the frameworks, and the kind each must get."""

    CASES: ClassVar[list[tuple[BaseException, str]]] = [
        (RuntimeError('"addmm_impl_cpu_" not implemented for \'Half\''), "unsupported_dtype"),
        (TypeError("svd does not accept dtype float16 at position 0. Accepted dtypes ..."), "unsupported_dtype"),
        (NotImplementedError("(KeyError(<class 'numpy.float16'>), 'Unsupported dtype float16.')"), "unsupported_dtype"),
        (RuntimeError("This function doesn't handle types other than float and double"), "unsupported_dtype"),
        (RuntimeError("linalg.slogdet: Low precision dtypes not supported. Got Half"), "unsupported_dtype"),
        # torch refusing a dtype by kind (seen in the paper suite's grid cases on a CPU)
        (RuntimeError("only Tensors of floating point dtype can require gradients"), "unsupported_dtype"),
        (RuntimeError("Only Tensors of floating point and complex dtype can require gradients"), "unsupported_dtype"),
        (RuntimeError("kl_div: Integral inputs not supported."), "unsupported_dtype"),
        (RuntimeError(" Sort does not support complex dtypes on CPU"), "unsupported_dtype"),
        (RuntimeError("multinomial only supports floating-point dtypes for input, got: Int"), "unsupported_dtype"),
        (RuntimeError("linalg.slogdet: Expected a floating point or complex tensor as input. Got Long"),
         "unsupported_dtype"),
        (RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point"),
         "unsupported_dtype"),
        (RuntimeError("result type Float can't be cast to the desired output type Long"), "unsupported_dtype"),
        (RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"), "out_of_memory"),
        (MemoryError(), "out_of_memory"),
        (RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes."), "out_of_memory"),
        (NotImplementedError("The operator 'aten::foo' is not currently implemented for the MPS device"), "not_implemented"),
        (RuntimeError("Could not run 'aten::empty_strided' with arguments from the 'XLA' backend."), "not_implemented"),
        (RuntimeError("CUDA error: an illegal memory access was encountered"), "device_error"),
        (RuntimeError("cuDNN error: CUDNN_STATUS_NOT_SUPPORTED"), "device_error"),
        (TypeError("unsupported operand type(s) for +: 'int' and 'str'"), "type_error"),
        (ValueError("operands could not be broadcast together"), "other"),
        (RuntimeError("Conv2DCustomBackpropInputOp only supports NHWC."), "not_implemented"),
        (RuntimeError("Detected unsupported operations when trying to compile graph: PyFunc"), "not_implemented"),
    ]

    def test_kinds(self) -> None:
        for exc, kind in self.CASES:
            with self.subTest(exc=str(exc)):
                self.assertEqual(classify_exception(exc), kind)


class Declaration(unittest.TestCase):
    def setUp(self) -> None:
        api.reset()

    def test_cross_product_names_and_where(self) -> None:
        cases = api.Cases("torch")

        @cases.case(
            "torch.sum",
            dtype=["float32", "int64"],
            shape={"vec": (4,), "empty": (0,)},
            mode=["eager", "compiled"],
            params={"keepdim": [True, False]},
            where=lambda d, s, m, p: not (m == "compiled" and d == "int64"),
        )
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: a, t.randn())

        ids = [c.id for c in cases.defs]
        self.assertEqual(len(ids), 12)
        self.assertEqual(len(set(ids)), 12)
        self.assertIn("torch/torch.sum/float32-vec-keepdim=true-compiled", ids)
        self.assertNotIn("torch/torch.sum/int64-vec-keepdim=true-compiled", ids)
        meta = cases.defs[0].metadata()
        self.assertEqual(meta["compiler"], "")
        self.assertEqual(meta["dims"], [4])
        compiled = next(c for c in cases.defs if c.mode == "compiled").metadata()
        self.assertEqual(compiled["compiler"], "torch.compile")

    def test_bad_mode_is_refused(self) -> None:
        cases = api.Cases("jax")
        with self.assertRaises(ValueError):
            cases.case("jax.numpy.sum", mode=["fast"])

    def test_lazy_numpy(self) -> None:
        self.assertEqual(api.np.float32, np.float32)

    def test_explicit_case_id(self) -> None:
        cases = api.Cases("torch")

        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: a, t.randn())

        cases.case("fuzz/0123abcd", dtype=["float16"], mode=["compiled"], case_id="fuzz/0123abcd/torch-compile")(body)
        cases.case("other", case_id="elsewhere/x")(body)
        first, second = cases.defs
        self.assertEqual((first.id, first.variant, first.function, first.mode), ("fuzz/0123abcd/torch-compile", "torch-compile", "fuzz/0123abcd", "compiled"))
        self.assertEqual((second.id, second.variant), ("elsewhere/x", "float32-default-eager"))  # not under the function: the usual variant
        with self.assertRaisesRegex(ValueError, "exactly one case, not 2"):
            cases.case("two", dtype=["float32", "float64"], case_id="two/x")(body)
        with self.assertRaisesRegex(ValueError, "exactly one case"):
            cases.case("grid", grid="default", case_id="grid/x")(body)
        with self.assertRaisesRegex(ValueError, "declared twice"):
            cases.case("fuzz/0123abcd", case_id="fuzz/0123abcd/torch-compile")(body)


class NamedShapesAndPredicates(unittest.TestCase):
    """api.shapes, api.cross and api.compiled_only keep what the lambdas they replace kept."""

    GRID: ClassVar[list[tuple[str, str, str]]] = [(d, s, m) for d in ("float32", "float16", "int32") for s in ("scalar", "small", "large") for m in api.MODES]

    def setUp(self) -> None:
        api.reset()

    def kept(self, where: api.Predicate, params: dict[str, object] | None = None) -> set[tuple[str, str, str]]:
        return {(d, s, m) for d, s, m in self.GRID if where(d, s, m, dict(params or {}))}

    def test_shapes_in_the_order_given_then_extra(self) -> None:
        table = api.shapes("small", "scalar", matrix=(64, 128))
        self.assertEqual(list(table.items()), [("small", (1000,)), ("scalar", ()), ("matrix", (64, 128))])
        self.assertEqual(api.shapes("large"), {"large": (1 << 20,)})
        with self.assertRaises(KeyError):
            api.shapes("huge")

    def test_cross(self) -> None:
        self.assertEqual(self.kept(api.cross("float32", "small")), self.kept(lambda d, s, m, p: d == "float32" or s == "small"))
        self.assertEqual(
            self.kept(api.cross(("float32", "int32"), ("small", "large"))),
            self.kept(lambda d, s, m, p: d in ("float32", "int32") or s in ("small", "large")),
        )

    def test_compiled_only(self) -> None:
        self.assertEqual(self.kept(api.compiled_only("float32", "large")), self.kept(lambda d, s, m, p: m == "eager" or (d == "float32" and s == "large")))
        self.assertEqual(self.kept(api.compiled_only(shape=("small", "large"))), self.kept(lambda d, s, m, p: m == "eager" or s in ("small", "large")))
        self.assertEqual(self.kept(api.compiled_only()), set(self.GRID))
        only = api.compiled_only("float32", training=True)
        self.assertTrue(only("float32", "small", "compiled", {"training": True}))
        self.assertFalse(only("float32", "small", "compiled", {"training": False}))
        self.assertTrue(only("int32", "small", "eager", {"training": False}))

    def test_combinations(self) -> None:
        both = api.cross("float32", "small") & api.compiled_only("float32")
        self.assertEqual(self.kept(both), self.kept(lambda d, s, m, p: (d == "float32" or s == "small") and (m == "eager" or d == "float32")))
        no_scalar = (lambda d, s, m, p: s != "scalar") & api.cross("float32", "small")
        self.assertEqual(self.kept(no_scalar), self.kept(lambda d, s, m, p: s != "scalar" and (d == "float32" or s == "small")))
        either = api.cross("int32", "large") | (lambda d, s, m, p: m == "compiled")
        self.assertEqual(self.kept(either), self.kept(lambda d, s, m, p: d == "int32" or s == "large" or m == "compiled"))
        self.assertIn("cross", repr(both))

    def test_used_by_cases(self) -> None:
        cases = api.Cases("jax")

        @cases.case(
            "jax.numpy.sum", dtype=["float32", "int32"], shape=api.shapes("scalar", "small"), mode=api.MODES, where=api.compiled_only("float32", "small")
        )
        def body(t: api.Ctx) -> api.Call:
            return t.call(lambda a: a, t.randn())

        self.assertEqual(
            sorted(c.variant for c in cases.defs),
            ["float32-scalar-eager", "float32-small-compiled", "float32-small-eager", "int32-scalar-eager", "int32-small-eager"],
        )


class HostValues(unittest.TestCase):
    def test_same_seed_same_bytes_for_every_device(self) -> None:
        a = host_values((3, 4), "float32", "randn", 7)
        b = host_values((3, 4), "float32", "randn", 7)
        self.assertTrue(np.array_equal(a, b))
        self.assertEqual(a.dtype, np.float32)

    def test_kinds_and_dtypes(self) -> None:
        self.assertTrue((host_values((1000,), "float64", "positive", 1) >= 0.5).all())
        self.assertEqual(host_values((5,), "bfloat16", "randn", 1).dtype, np.float32)
        self.assertEqual(host_values((5,), "bool", "randn", 1).dtype, np.bool_)
        self.assertTrue((host_values((100,), "uint8", "randn", 1) >= 0).all())
        self.assertEqual(host_values((), "complex64", "randn", 1).shape, ())


def _spin(ns: int) -> None:
    end = time.perf_counter_ns() + ns
    while time.perf_counter_ns() < end:
        pass


class CompileCache(unittest.TestCase):
    """A case's compile is cold when one of its compiles missed the
    persistent cache, warm when every one hit it (protocol 1.11)."""

    def test_cold_warm_or_nothing(self) -> None:
        self.assertEqual(compile_cache_state((4, 2), (4, 3)), "cold")
        self.assertEqual(compile_cache_state((4, 2), (6, 3)), "cold")
        self.assertEqual(compile_cache_state((4, 2), (5, 2)), "warm")
        self.assertIsNone(compile_cache_state((4, 2), (4, 2)))

    def test_counters_reset_in_between_count_from_zero(self) -> None:
        self.assertEqual(compile_cache_state((4, 2), (1, 0)), "warm")
        self.assertEqual(compile_cache_state((4, 2), (0, 1)), "cold")


class SlowCalls(unittest.TestCase):
    """A slow call (its samples' median at least slow_call_ms) stops at the
    fewest samples its spread allows (protocol 1.11, src/stats/timing.hpp)."""

    POLICY = Policy(budget_ms=7, min_samples=5, max_samples=1000, warmup_ms=5, block_ms=1, slow_call_ms=500,
                    slow_min_samples=3, slow_spread=0.10)

    def test_three_steady_slow_samples_are_enough(self) -> None:
        self.assertFalse(enough_samples([600e6, 610e6], self.POLICY, True))
        self.assertTrue(enough_samples([600e6, 610e6, 620e6], self.POLICY, True))
        self.assertTrue(slow_and_steady([500e6, 550e6, 520e6], self.POLICY))  # spread 50/520 = 9.6%

    def test_a_wide_spread_goes_on_to_the_minimum(self) -> None:
        self.assertFalse(slow_and_steady([500e6, 560e6, 520e6], self.POLICY))  # 60/520 = 11.5%
        self.assertFalse(enough_samples([500e6, 560e6, 520e6, 530e6], self.POLICY, True))
        self.assertTrue(enough_samples([500e6, 560e6, 520e6, 530e6, 540e6], self.POLICY, True))

    def test_fast_calls_and_no_rule_keep_the_default_count(self) -> None:
        self.assertFalse(slow_and_steady([499e6, 499e6, 499e6], self.POLICY))
        off = Policy(budget_ms=7, min_samples=5, max_samples=1000, warmup_ms=5, block_ms=1)
        self.assertEqual(off.slow_call_ms, 0.0)
        self.assertFalse(enough_samples([600e6] * 4, off, True))
        self.assertTrue(enough_samples([600e6] * 5, off, True))
        self.assertFalse(enough_samples([1e3] * 6, self.POLICY, False))  # budget not spent
        self.assertTrue(enough_samples([1e3] * 1000, self.POLICY, False))  # max_samples

    def test_the_engine_sends_the_rule(self) -> None:
        p = Policy.from_json({**ENGINE_1_0, "slow_call_ms": 500, "slow_min_samples": 2, "slow_spread": 0.05})
        self.assertEqual((p.slow_call_ms, p.slow_min_samples, p.slow_spread), (500.0, 2, 0.05))

    def test_measure_stops_a_slow_steady_call_at_three_samples(self) -> None:
        policy = Policy(budget_ms=0, min_samples=5, max_samples=100, warmup_ms=0, block_ms=0.001,
                        slow_call_ms=20, slow_min_samples=3, slow_spread=10.0)
        _, timing = measure(lambda: time.sleep(0.03), lambda: None, policy)
        self.assertEqual(len(timing["samples_ns"]), 3)
        self.assertEqual(timing["calls_per_sample"], 1)


class Measure(unittest.TestCase):
    def test_respects_min_and_max_samples(self) -> None:
        calls = []
        out, timing = measure(lambda: calls.append(1) or 5, lambda: None,
                              Policy(budget_ms=0, min_samples=3, max_samples=3, warmup_ms=0, block_ms=0.001))
        self.assertEqual(out, 5)
        self.assertEqual(len(timing["samples_ns"]), 3)
        self.assertGreater(timing["cold_ns"], 0)
        self.assertEqual(len(calls), 1 + timing["warmup_calls"] + 3 * timing["calls_per_sample"])

    def test_blocks_grow_for_fast_calls(self) -> None:
        _, timing = measure(lambda: None, lambda: None,
                            Policy(budget_ms=1, min_samples=2, max_samples=50, warmup_ms=1, block_ms=1))
        self.assertGreater(timing["calls_per_sample"], 10)

    def test_blocks_last_block_ms_of_a_wall_clock_call(self) -> None:
        # A call that spins 10 us of wall time: blocks of 1 ms hold at most
        # 100 calls (a preempted warm-up block only reads slower: fewer).
        k, calls = block_calls(_spin, (10_000,), lambda: None, lambda out: None, time.perf_counter_ns, 1e6, 20e6)
        self.assertLessEqual(k, 100)
        self.assertGreaterEqual(k, 10)
        self.assertGreater(calls, k)  # the doubling reached a block of about k calls

    def test_blocks_outlast_a_hundred_empty_blocks(self) -> None:
        # A sync of 200 us makes an empty block cost that: blocks then last
        # at least 20 ms however small block_ms is, so the syncs stay under 1%.
        _, timing = measure(_spin, lambda: time.sleep(0.0002),
                            Policy(budget_ms=0, min_samples=2, max_samples=2, warmup_ms=100, block_ms=0.001), args=(100_000,))
        self.assertGreaterEqual(timing["block_overhead_ns"], 200_000)
        self.assertGreaterEqual(timing["calls_per_sample"], 50)  # about 200 unless preempted

    def test_the_timed_loop_calls_fn_on_args_with_gc_off(self) -> None:
        seen: list[tuple[int, int, bool]] = []
        measure(lambda a, b: seen.append((a, b, gc.isenabled())), lambda: None,
                Policy(budget_ms=0, min_samples=2, max_samples=2, warmup_ms=0, block_ms=0.001), args=(3, 4))
        self.assertTrue(all(a == 3 and b == 4 for a, b, _ in seen))
        self.assertTrue(seen[0][2])  # the cold call runs as the case would
        self.assertFalse(any(on for _, _, on in seen[1:]))  # every timed call: gc off, as timeit has it
        self.assertTrue(gc.isenabled())  # and back on after

    def test_every_block_ends_on_a_sync(self) -> None:
        events: list[str] = []
        measure(lambda: events.append("call"), lambda: events.append("sync"),
                Policy(budget_ms=0, min_samples=2, max_samples=2, warmup_ms=0, block_ms=0.001))
        self.assertEqual(events[-1], "sync")
        self.assertEqual(events[:3], ["sync", "call", "sync"])  # the cold call, alone between syncs

    def test_enqueue_time_is_part_of_each_block(self) -> None:
        _, timing = measure(lambda: time.sleep(0.0002), lambda: time.sleep(0.001),
                            Policy(budget_ms=0, min_samples=3, max_samples=3, warmup_ms=0, block_ms=0.001))
        self.assertGreater(timing["enqueue_ns"], 150_000)
        # every block's wall time holds its enqueue time and the closing sync
        self.assertLess(timing["enqueue_ns"], statistics.median(timing["samples_ns"]))
        self.assertNotIn("device_samples_ns", timing)

    def test_device_timer_gets_half_the_budget_within_the_sample_limits(self) -> None:
        class Timer:
            overhead_ns = 0.0

            def __init__(self) -> None:
                self.asked: list[tuple[int, float]] = []

            def settle(self, fn: object, wall_ns: float, max_ns: float) -> dict[str, object]:
                return {"blocks": 2}

            def time(self, fn: object, n: int, enqueue_ns: float) -> list[float]:
                self.asked.append((n, enqueue_ns))
                return [1.0] * n

        timer = Timer()
        _, timing = measure(lambda: None, lambda: None,
                            Policy(budget_ms=0, min_samples=4, max_samples=7, warmup_ms=0, block_ms=0.001, settle_ms=200),
                            timer=timer)
        self.assertEqual(timing["device_samples_ns"], [1.0] * 4)  # budget 0: the minimum
        self.assertEqual(timing["device_settle"], {"blocks": 2})
        _, timing = measure(lambda: None, lambda: None,
                            Policy(budget_ms=50, min_samples=4, max_samples=7, warmup_ms=0, block_ms=0.001), timer=timer)
        self.assertEqual(len(timing["device_samples_ns"]), 7)  # never past the maximum
        self.assertEqual(timer.asked[-1][1], timing["enqueue_ns"])

    def test_a_failing_device_timer_leaves_the_host_timing_and_says_why(self) -> None:
        class Broken:
            overhead_ns = 0.0

            def settle(self, fn: object, wall_ns: float, max_ns: float) -> dict[str, object]:
                return {}

            def time(self, fn: object, n: int, enqueue_ns: float) -> list[float]:
                raise RuntimeError("events unavailable")

        _, timing = measure(lambda: None, lambda: None,
                            Policy(budget_ms=0, min_samples=2, max_samples=2, warmup_ms=0, block_ms=0.001), timer=Broken())
        self.assertEqual(len(timing["samples_ns"]), 2)
        self.assertIn("events unavailable", timing["device_error"])

    def test_every_value_is_the_engines(self) -> None:
        # The probe keeps no default of its own (src/run/options.hpp holds them).
        p = Policy.from_json(ENGINE_1_0)
        self.assertEqual((p.budget_ms, p.min_samples, p.max_samples, p.warmup_ms, p.block_ms), (7.0, 5, 1000, 5.0, 1.0))
        self.assertEqual(Policy.from_json({**ENGINE_1_0, "settle_ms": 50}).settle_ms, 50.0)
        self.assertFalse(Policy.from_json({**ENGINE_1_0, "device_timer": False}).device_timer)

    def test_a_field_of_1_0_left_out_is_refused_in_one_line(self) -> None:
        for key in ENGINE_1_0:
            with self.assertRaisesRegex(ValueError, f"^the run request's policy lacks {key} "):
                Policy.from_json({k: v for k, v in ENGINE_1_0.items() if k != key})

    def test_a_later_field_left_out_reads_as_off(self) -> None:
        p = Policy.from_json(ENGINE_1_0)
        self.assertEqual((p.settle_ms, p.slow_call_ms, p.reference, p.timing_only, p.once), (0.0, 0.0, False, False, False))
        self.assertTrue(p.device_timer)  # the device pass runs unless the engine turns it off

    def test_bad_policy(self) -> None:
        with self.assertRaises(ValueError):
            Policy.from_json({**ENGINE_1_0, "min_samples": 5, "max_samples": 2})


if __name__ == "__main__":
    unittest.main()
