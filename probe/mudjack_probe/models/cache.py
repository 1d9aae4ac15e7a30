"""The build cache ($MUDJACK_BUILD_CACHE): artifacts keyed by what they
depend on, built once into place; the compilers' caches pointed into it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable


def source_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _package_hash() -> str:
    """The models package's source: its modules' names and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def build_dir() -> Path | None:
    """The engine's build cache ($MUDJACK_BUILD_CACHE), or None without one."""
    root = os.environ.get("MUDJACK_BUILD_CACHE", "")
    return Path(root) if root else None


def build_key(identity: str, case: Any, seed: int, versions: dict[str, str]) -> str:
    """What an artifact depends on: the model (`identity`: a hand-written
    script's hash, or a generated model's manifest entry's), the models
    package's source (every module of it), the case's stage, shape, dims, parameters and dtype, the seed its
    weights are drawn from, and the framework versions."""
    facts = {"model": identity, "models": _package_hash(), "stage": case.mode, "seed": seed,
             "shape": case.shape_name, "dims": list(case.shape), "params": {k: str(v) for k, v in case.params.items()},
             "dtype": case.dtype, "versions": versions}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:20]


def cached_build(key: str, facts: dict[str, Any], make: Callable[[Path], None]) -> tuple[Path, float, bool]:
    """The folder of build `key`: made by `make(folder)` when absent (into a
    private folder renamed into place, so a crash or a second probe never
    leaves half an artifact), reused when present. Returns (folder, seconds
    spent, whether it was reused). Without a cache, builds into a temporary
    folder every time."""
    root = build_dir()
    start = time.perf_counter()
    if root is None:
        folder = Path(tempfile.mkdtemp(prefix="mudjack-build-"))
        make(folder)
        return folder, time.perf_counter() - start, False
    folder = root / key
    if (folder / "build.json").is_file():
        info = json.loads((folder / "build.json").read_text())
        info["last_used"] = time.time()
        info["uses"] = int(info.get("uses", 0)) + 1
        _write_json(folder / "build.json", info)
        return folder, time.perf_counter() - start, True
    _mark_cache(root)
    partial = Path(tempfile.mkdtemp(prefix=f".{key}.partial.", dir=root))
    try:
        make(partial)
        spent = time.perf_counter() - start
        size = sum(p.stat().st_size for p in partial.rglob("*") if p.is_file())
        _write_json(partial / "build.json", {**facts, "key": key, "build_s": round(spent, 3), "bytes": size,
                                             "created": time.time(), "last_used": time.time(), "uses": 0})
        try:
            partial.rename(folder)
        except OSError:  # another probe finished the same build first: use its
            shutil.rmtree(partial, ignore_errors=True)
        return folder, spent, False
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _mark_cache(root: Path) -> None:
    """Creates the build cache and marks it as MudJack's: `mudjack cache
    clean-builds` deletes the compilers' cache folders (torchinductor,
    triton, jax) only in a folder that carries this mark or one of our
    builds, so a mis-set MUDJACK_BUILD_CACHE never costs someone's files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".mudjack-build-cache").touch(exist_ok=True)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value, indent=1, sort_keys=True))
    os.replace(tmp, path)


def compiler_caches() -> None:
    """Point torch Inductor's (its FX graph and AOT autograd caches),
    Triton's and JAX's persistent caches into the build cache, so a rerun's
    compiles, and another probe's, reuse their artifacts. The probe calls it
    before it imports the framework (JAX reads its settings at import), so
    every compiled case, the paper suite's too, uses the build cache; JAX
    caches every compile (its default keeps only those over 1 s), unless
    JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS says otherwise. A case records
    whether its compile was `cold` or `warm` (`compile_cache`, from each
    adapter's `case_facts`).

    Set, not defaulted: Inductor writes its default into
    TORCHINDUCTOR_CACHE_DIR the first time anything asks for its cache
    folder, and reads the variable again on every later compile, so only an
    assignment moves the compiles that follow. MUDJACK_BUILD_CACHE is the
    one place to move them."""
    root = build_dir()
    if root is None:
        return
    _mark_cache(root)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(root / "torchinductor")
    os.environ["TRITON_CACHE_DIR"] = str(root / "triton")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(root / "jax")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")


def probe_cpu_isa() -> None:
    """Inductor's once-per-process probe of the CPU's vector ISAs (it builds
    and loads a test program per candidate ISA, each load in a new Python
    that imports torch: 20-30 s on a 2-core VM, in every process, cached or
    not) runs while a torch compiled case on the CPU is built, not in its
    cold call: a model's compile time then does not depend on whether it
    was the first to compile in its probe."""
    try:
        from torch._inductor import cpu_vec_isa

        cpu_vec_isa.pick_vec_isa()
    except Exception:  # a private API: without it, the cold call pays the probe
        pass
