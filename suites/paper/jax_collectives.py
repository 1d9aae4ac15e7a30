"""The paper's JAX functions: collectives (jax.lax.all_gather, jax.lax.pmax): one-device
forms everywhere, two-device forms where two devices exist.

See jax.py for the plan and the conventions. Importing this file must not
import jax (nor numpy): bodies get jax as `t.fw`.
"""

from __future__ import annotations

from mudjack_probe.api import LARGE, Cases, Ctx, compiled_only, cross, np  # np: numpy, loaded on first use (listing needs none)

from _jax_common import BOTH, host_data

cases = Cases("jax")


# --------------------------------------------------------------------------
# collectives: one-device forms everywhere, two-device forms where two exist
# --------------------------------------------------------------------------


def _shard_map(jax):
    sm = getattr(jax, "shard_map", None)
    if sm is None:
        from jax.experimental.shard_map import shard_map as sm  # before jax 0.7
    return sm


def _mesh(jax, devices):
    from jax.sharding import Mesh

    return Mesh(np.array(devices), ("i",))


def _shard(jax, host, devices):
    from jax.sharding import NamedSharding, PartitionSpec

    return jax.device_put(host, NamedSharding(_mesh(jax, devices), PartitionSpec("i")))


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32"],
    shape={"small": (4, 256)},
    params={"form": ["vmap"]},
    note="one-device form: the collective over a vmapped named axis of size 4",
)
def all_gather_vmap(t: Ctx):
    jax = t.fw
    gather = jax.vmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")
    return t.call(gather, t.randn()).reference(
        "every member gets the whole input", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0], (4,) + ins[0].shape))
    )


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32", "bfloat16", "float64", "int32", "bool"],
    shape={"small": (4, 256), "large": (8, 65536)},
    params={"form": ["vmap-more"], "gather": ["stack", "tiled", "axis1"]},
    mode=BOTH,
    where=lambda d, s, m, p: (d == "float32" or (s == "small" and p["gather"] == "stack"))
    and (m == "eager" or (d == "float32" and s == "small") or (d == "float32" and p["gather"] == "stack")),
    grid="small",
    note="vmapped named axis: stack (a new leading axis), tiled=True (concatenated), axis=1 (the gathered axis second)",
)
def all_gather_vmap_more(t: Ctx):
    jax = t.fw
    how = t.p.gather
    kw = {"tiled": True} if how == "tiled" else ({"axis": 1} if how == "axis1" else {})
    gather = jax.vmap(lambda v: jax.lax.all_gather(v, "i", **kw), axis_name="i")
    n = t.shape[0]

    def ref(x):
        one = {"stack": x, "tiled": x.reshape(-1), "axis1": x.T}[how]
        return np.broadcast_to(one, (n,) + one.shape)

    return t.call(gather, t.randn()).reference("every member gets the whole input", lambda outs, ins: np.array_equal(outs[0], ref(ins[0])))


def _one_device(t: Ctx, fn_factory, host):
    """pmap or shard_map over a one-device list (the bound device)."""
    jax = t.fw
    dev = [t.device]
    if t.p.form == "pmap1":
        f = jax.pmap(fn_factory("pmap"), axis_name="i", devices=dev)
        return f, jax.device_put(host, t.device)
    from jax.sharding import PartitionSpec as P

    sm = _shard_map(jax)
    f = jax.jit(sm(fn_factory("shard_map"), mesh=_mesh(jax, dev), in_specs=P("i"), out_specs=P("i")))
    return f, _shard(jax, host, dev)


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32", "int32"],
    shape={"small": (1, 256), "large": (1, LARGE)},
    params={"form": ["pmap1", "shard_map1"]},
    where=cross("float32", "small"),
    note="one-device forms of the real collective: jax.pmap over [the bound device], and "
    "shard_map over a one-device mesh (jitted; tiled; out_specs P('i'): each member's gathered copy)",
)
def all_gather_one_device(t: Ctx):
    jax = t.fw
    host = host_data(t)

    def factory(kind):
        if kind == "pmap":
            return lambda v: jax.lax.all_gather(v, "i")
        return lambda v: jax.lax.all_gather(v, "i", tiled=True)

    f, x = _one_device(t, factory, host)

    def check(outs, ins):
        got = outs[0]
        return np.array_equal(got.reshape(-1), ins[0].reshape(-1))

    return t.call(f, x).reference("the one member's input back", check)


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32"],
    shape={"small": (2, 256)},
    params={"form": ["pmap"]},
    requires={"devices": 2},
    note="the first two devices of the bound kind, one row each, via jax.pmap",
)
def all_gather_pmap(t: Ctx):
    jax = t.fw
    kind = t.device.platform
    devices = jax.devices(kind)[:2]
    gather = jax.pmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i", devices=devices)
    rows = t.numpy_rng().standard_normal(t.shape).astype(np.float32)
    x = _shard(jax, rows, devices)  # one row per device
    return t.call(gather, x).reference("each device holds both rows", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0], (2,) + ins[0].shape)))


@cases.case(
    "jax.lax.all_gather",
    dtype=["float32", "bfloat16"],
    shape={"small": (2, 256), "large": (2, LARGE)},
    params={"form": ["shard_map"]},
    requires={"devices": 2},
    where=cross("float32", "small"),
    note="shard_map over the first two devices of the bound kind (one row each), all_gather tiled; out_specs "
    "P('i') stacks the two devices' copies (replication of all_gather output is not inferred by jax 0.10)",
)
def all_gather_shard_map(t: Ctx):
    jax = t.fw
    from jax.sharding import PartitionSpec as P

    devices = jax.devices(t.device.platform)[:2]
    sm = _shard_map(jax)
    f = jax.jit(sm(lambda v: jax.lax.all_gather(v, "i", tiled=True), mesh=_mesh(jax, devices), in_specs=P("i"), out_specs=P("i")))
    host = host_data(t)
    if t.dtype_name == "bfloat16":
        host = host.astype(t.dtype)
    return t.call(f, _shard(jax, host, devices)).reference(
        "each device's copy is the whole input", lambda outs, ins: np.array_equal(outs[0], np.concatenate([ins[0], ins[0]]))
    )


@cases.case(
    "jax.lax.pmax",
    dtype=["float32", "float16", "bfloat16", "float64", "int32", "int64"],
    shape={"small": (4, 256), "large": (8, 131072)},
    params={"form": ["vmap"]},
    mode=BOTH,
    where=cross("float32", "small") & compiled_only(("float32", "int32")),
    grid="small",
    note="one-device form: pmax over a vmapped named axis (size 4 or 8): every member gets the elementwise max",
)
def pmax_vmap(t: Ctx):
    jax = t.fw
    f = jax.vmap(lambda v: jax.lax.pmax(v, "i"), axis_name="i")
    return t.call(f, t.randn()).reference("the column max, broadcast", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0].max(0), ins[0].shape)))


@cases.case(
    "jax.lax.pmax",
    dtype=["float32", "int32"],
    shape={"small": (1, 256), "large": (1, LARGE)},
    params={"form": ["pmap1", "shard_map1"]},
    where=cross("float32", "small"),
    note="one-device forms: jax.pmap over [the bound device]; shard_map over a one-device mesh (jitted)",
)
def pmax_one_device(t: Ctx):
    jax = t.fw
    host = host_data(t)

    def factory(kind):
        return lambda v: jax.lax.pmax(v, "i")

    from jax.sharding import PartitionSpec as P

    if t.p.form == "pmap1":
        f, x = _one_device(t, factory, host)
    else:
        sm = _shard_map(jax)
        dev = [t.device]
        f = jax.jit(sm(lambda v: jax.lax.pmax(v, "i"), mesh=_mesh(jax, dev), in_specs=P("i"), out_specs=P("i")))
        x = _shard(jax, host, dev)
    return t.call(f, x).reference("max over one member is the input", lambda outs, ins: np.array_equal(outs[0].reshape(-1), ins[0].reshape(-1)))


@cases.case(
    "jax.lax.pmax",
    dtype=["float32", "int32"],
    shape={"small": (2, 256), "large": (2, LARGE)},
    params={"form": ["pmap", "shard_map"]},
    requires={"devices": 2},
    where=cross("float32", "small"),
    note="the first two devices of the bound kind, one row each: jax.pmap, or jitted shard_map (out_specs "
    "P('i'): each device's copy of the max)",
)
def pmax_two_devices(t: Ctx):
    jax = t.fw
    devices = jax.devices(t.device.platform)[:2]
    host = host_data(t)
    if t.p.form == "pmap":
        f = jax.pmap(lambda v: jax.lax.pmax(v, "i"), axis_name="i", devices=devices)
    else:
        from jax.sharding import PartitionSpec as P

        sm = _shard_map(jax)
        f = jax.jit(sm(lambda v: jax.lax.pmax(v, "i"), mesh=_mesh(jax, devices), in_specs=P("i"), out_specs=P("i")))
    return t.call(f, _shard(jax, host, devices)).reference(
        "both rows are the column max", lambda outs, ins: np.array_equal(outs[0], np.broadcast_to(ins[0].max(0), ins[0].shape))
    )
