"""JAX's primitive test harnesses as cases: the whole lax surface, every dtype.

JAX describes each use of each primitive it tests as a harness
(`jax._src.internal_test_util.test_harnesses`): a function, how to draw its
arguments, its dtype, and the `Limitation`s that say where JAX itself does
not support it. manifest.json, beside this file, lists them
(scripts/update-jax-primitives-manifest.py writes it from an installed jax),
and this file declares one case per harness, without importing jax:

- function: the harness group (the primitive: `cumsum`, `dot_general`);
  dtype: the harness's; shape: the harness's name within its group, made
  safe for case ids (`-` becomes `m`, `+` `p`, `:` `c`), with no dims; mode
  eager only; policy `once` (one call, judged, no timing loop).
- claims: for `cpu` and `cuda` (JAX's "gpu"), whether JAX claims the
  harness's dtype there, i.e. no enabled limitation applies; the note gives
  the limitations that do.
- The body finds the harness in the installed jax by its full name
  (`unavailable` when that jax has no such harness: names change between
  versions), draws its dynamic arguments on the host from the case's seed
  (`harness.dyn_args_maker(np.random.RandomState(seed))`), puts them on the
  device and calls `harness.dyn_fun` on them.
- The float64 reference is the same function on the same arguments widened.
  Where the harness's function cannot take float64 arguments (a dtype fixed
  in its parameters: a bitcast, a preferred element type), or takes no
  floating argument at all, the case says so with `no_reference` instead of
  a reference that would fail or judge nothing (found with `jax.eval_shape`,
  no computation).
- Random draws (the `random_*` groups, `rng_bit_generator`) are neither
  compared across devices nor given a reference.
- Outputs that a right answer does not fix are made comparable inside the
  timed function: eigenvectors and singular vectors by their absolute values
  (a sign or phase per vector is free), eigenvalues of `eig` sorted, the
  columns or rows of Q, U, V^T beyond min(m, n) dropped (any orthonormal
  completion is right), and an unstable sort with fewer keys than arrays
  returns its keys only (ties may order the other arrays either way).
- JAX marks a few harnesses not to be invoked at all on a device (they may
  crash the process: `skip_run`); those cases are skipped there, with the
  reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

from mudjack_probe.api import WIDE, Call, Cases, Ctx, np  # np: numpy, loaded on first use (listing needs none)
from mudjack_probe.errors import Skip, Unavailable, one_line

MANIFEST = Path(__file__).resolve().with_name("manifest.json")

RANDOM_GROUPS = frozenset(("rng_bit_generator", "random_categorical", "random_gamma", "random_randint", "random_split", "random_uniform"))
"""Groups whose outputs are random draws: not compared, no reference."""

REDUCING_GROUPS = frozenset((
    "dot_general", "conv_general_dilated", "cumsum", "cumprod", "cumlogsumexp", "reduce", "reduce_sum", "reduce_prod",
    "reduce_window_add", "reduce_window_mul", "select_and_gather_add", "select_and_scatter_add", "scatter_add", "scatter_mul",
    "fft", "cholesky", "eig", "eigh", "lu", "qr", "svd", "triangular_solve", "tridiagonal_solve", "custom_linear_solve",
))
"""Groups whose output elements sum (or multiply) over up to the harness's
largest dimension: their accuracy bound grows with its square root."""

_ID_SAFE = {"-": "m", "+": "p", ":": "c"}
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")

cases = Cases("jax")


def id_safe(name: str) -> str:
    """A harness name as a case id's shape: letters, digits and `_` stay;
    `-` becomes `m`, `+` `p`, `:` `c`, anything else `x<hex>`."""
    return _UNSAFE.sub(lambda m: _ID_SAFE.get(m.group(), f"x{ord(m.group()):x}"), name)


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return manifest


# --------------------------------------------------------------------------
# Run time (in the probe, with jax as t.fw)
# --------------------------------------------------------------------------

_HARNESSES: dict[str, dict[str, Any]] = {}
"""The installed jax's harnesses by full name, under the key "all" once imported."""


def _harness(t: Ctx, fullname: str) -> Any:
    """The installed jax's harness named `fullname`; Unavailable when it has none."""
    version = str(getattr(t.fw, "__version__", "?"))
    if "all" not in _HARNESSES:
        import importlib

        # The harnesses draw one literal argument (of the multiple-array sorts)
        # from NumPy's global generator when they are defined: seeded here, so
        # every probe defines the same one, and the generator's state restored.
        # Importing them registers JAX's config as absl flags, each with its
        # current value: outside the adapter's `jax.default_device(device)`
        # scope, since absl takes no Device object for a string flag.
        state = np.random.get_state()
        np.random.seed(0)
        try:
            with t.fw.default_device(None):
                module = importlib.import_module("jax._src.internal_test_util.test_harnesses")
        except Exception as exc:  # absl-py missing, or a jax without the module
            raise Unavailable(f"jax {version} has no primitive test harnesses: {one_line(exc)}") from exc
        finally:
            np.random.set_state(state)
        _HARNESSES["all"] = {h.fullname: h for h in module.all_harnesses}
    harness = _HARNESSES["all"].get(fullname)
    if harness is None:
        raise Unavailable(f"harness {fullname} is not in jax {version}")
    return harness


CLEAR_EVERY = 200
"""Every this many cases a probe runs, JAX's caches are cleared: every
harness compiles its own executable (a primitive at a shape and dtype, about
1 MB kept each), and a probe that runs the whole suite would otherwise hold
them all. Cleared before a case is built, never between its calls."""
_RUN_COUNT = [0]


def _clear_caches_now_and_then(jax: Any) -> None:
    _RUN_COUNT[0] += 1
    if _RUN_COUNT[0] % CLEAR_EVERY == 0:
        jax.clear_caches()


def _comparable(group: str, harness: Any) -> Callable[..., Any]:
    """The harness's function, its outputs made comparable where a right
    answer leaves them free (see the module docstring)."""
    fn: Callable[..., Any] = harness.dyn_fun
    params = harness.params
    if group == "sort" and not params.get("is_stable", True) and params.get("num_keys", 1) < params.get("num_arrays", 1):
        keys = int(params["num_keys"])
        return lambda *a: tuple(fn(*a))[:keys]
    if group not in ("eig", "eigh", "svd", "qr"):
        return fn

    def comparable(*a: Any) -> Any:
        import jax.numpy as jnp

        out = fn(*a)
        if group == "eigh":  # (v, w): w ascending; each column of v up to a sign (phase)
            v, w = out
            return jnp.abs(v), w
        if group == "eig":  # [w, vl?, vr?]: w in no set order; vectors up to a phase
            w, *vectors = out  # w is complex: sorted by real part, then imaginary part
            order = jnp.lexsort((w.imag, w.real), axis=-1)
            w = jnp.take_along_axis(w, order, axis=-1)
            return (w, *[jnp.take_along_axis(jnp.abs(v), order[..., None, :], axis=-1) for v in vectors])
        if group == "svd":  # [s] or [s, u, vt]: pairs of vectors up to a sign; a full U, V^T completed freely
            if len(out) == 1:
                return out
            s, u, vt = out
            k = s.shape[-1]
            return s, jnp.abs(u[..., :, :k]), jnp.abs(vt[..., :k, :])
        q, r = out  # qr: up to a sign per column of Q and row of R; a full Q completed freely
        k = min(r.shape[-2], r.shape[-1])
        return jnp.abs(q[..., :, :k]), jnp.abs(r[..., :k, :])

    return comparable


def _reference_trouble(jax: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """Why the widened call cannot be this case's float64 reference ("" when
    it can), from the shapes and dtypes alone (`jax.eval_shape`)."""
    jnp = jax.numpy

    def spec(a: Any, widen: bool) -> Any:
        if not isinstance(a, jax.Array):
            return a
        dtype = a.dtype
        if widen and jnp.issubdtype(dtype, jnp.complexfloating):
            dtype = jnp.complex128
        elif widen and jnp.issubdtype(dtype, jnp.floating):
            dtype = jnp.float64
        return jax.ShapeDtypeStruct(a.shape, dtype)

    if not any(isinstance(a, jax.Array) and jnp.issubdtype(a.dtype, jnp.inexact) for a in args):
        return "the harness's function takes no floating argument: its dtype is fixed inside it"
    try:
        narrow = jax.eval_shape(fn, *[spec(a, False) for a in args])
    except Exception:  # not traceable abstractly: the reference run will say
        return ""
    try:
        wide = jax.eval_shape(fn, *[spec(a, True) for a in args])
    except Exception as exc:
        return f"the harness's function refuses float64 arguments ({one_line(exc)[:200]})"
    narrow_leaves, narrow_tree = jax.tree.flatten(narrow)
    wide_leaves, wide_tree = jax.tree.flatten(wide)
    if narrow_tree != wide_tree or any(n.shape != w.shape for n, w in zip(narrow_leaves, wide_leaves)):
        return "the harness's outputs change shape with float64 arguments (its dtype is part of what it computes)"
    return ""


def _make_body(fullname: str, group: str, skip_run: frozenset[str]) -> Callable[[Ctx], Call]:
    def harness_case(t: Ctx) -> Call:
        jax = t.fw
        harness = _harness(t, fullname)
        kind = t.adapter.device_id.split(":")[0]
        if kind in skip_run:
            raise Skip(f"JAX's harness says not to run it on {kind} (skip_run: it may crash the process)")
        fn = _comparable(group, harness)
        if t.widen:  # the reference: the runner passes the timed arguments, widened
            return t.call(fn)
        _clear_caches_now_and_then(jax)
        host = harness.dyn_args_maker(np.random.RandomState(t.seed % (1 << 32)))
        args = tuple(jax.device_put(a, t.device) if isinstance(a, (np.ndarray, np.generic)) else a for a in host)
        call = t.call(fn, *args)
        if group in RANDOM_GROUPS:
            return call.no_compare().no_reference("random draws")
        if harness.params.get("device") == "cpu":  # device_put to the CPU: the output belongs there
            call.host_outputs(0)
        if t.dtype_name in WIDE and WIDE[t.dtype_name] != t.dtype_name:
            trouble = _reference_trouble(jax, fn, args)
            if trouble:
                call.no_reference(trouble)
        return call

    return harness_case


# --------------------------------------------------------------------------
# Declaration (listing: json only)
# --------------------------------------------------------------------------


def _note(entry: dict[str, Any]) -> str:
    parts = [f"{kind}: {'; '.join(texts)}" for kind, texts in sorted(entry.get("limits", {}).items())]
    text = f"JAX's limitations: {', '.join(parts)}" if parts else ""
    if entry.get("skip_run"):
        text += f" (not run on {', '.join(entry['skip_run'])}: JAX's skip_run)"
    return text


def shape_name(entry: dict[str, Any]) -> str:
    """The case's shape: the harness's name within its group, id-safe
    ("default" for the one harness of a group named by the group alone)."""
    group, fullname = entry["group"], entry["fullname"]
    name = fullname[len(group) + 1:] if fullname.startswith(group + "_") else fullname
    return id_safe(name) or "default"


def declare(manifest: dict[str, Any]) -> int:
    """One case per manifest harness; the number declared."""
    ids: set[str] = set()
    for entry in manifest["harnesses"]:
        group, dtype, fullname = entry["group"], entry["dtype"], entry["fullname"]
        shape = shape_name(entry)
        case_id = f"jax/{group}/{dtype}-{shape}-eager"
        assert case_id not in ids, f"two harnesses make case {case_id}"
        ids.add(case_id)
        cases.case(
            group,
            dtype=(dtype,),
            shape={shape: ()},
            policy="once",
            claims={kind: [dtype] if entry[kind] else [] for kind in ("cpu", "cuda")},
            reduction=max(1, int(entry.get("largest_dim", 1))) if group in REDUCING_GROUPS else None,
            note=_note(entry),
        )(_make_body(fullname, group, frozenset(entry.get("skip_run", ()))))
    return len(ids)


declare(load_manifest())
