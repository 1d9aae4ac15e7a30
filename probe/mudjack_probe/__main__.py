"""Probe entry point: `python -m mudjack_probe --framework F --device D --suite-dir DIR...`.

Protocol v1 (schemas/probe-protocol-v1.md): one JSON object per line. The probe
writes `hello` first, then answers each request line on stdin with exactly one
reply line, in order. Before anything else the real stdout is moved to a
private descriptor and fd 1 is pointed at stderr, so whatever a framework or a
case prints (from Python or from C) lands in stderr and cannot corrupt the
channel.
"""

from __future__ import annotations

import importlib.util
import os
import sys

# Take the channel before importing anything that might print. It is neither
# advertised (no environment variable names it) nor inherited (close-on-exec):
# a program a case starts cannot write result lines on it. Code running in
# this process is trusted (docs/deploy.md, "What a token holder can and
# cannot do").
_CHANNEL_FD = os.dup(1)
os.set_inheritable(_CHANNEL_FD, False)
os.dup2(2, 1)
sys.stdout = sys.stderr


def _drop_working_folder() -> None:
    """`python -m` puts the working folder first on sys.path, where `mudjack
    check FILE.py` is usually run from FILE's own folder: a json.py or
    secrets.py there would shadow the standard library for the probe and
    the frameworks. The probe imports nothing from it (suites and check
    targets are loaded by path)."""
    if getattr(sys.flags, "safe_path", False) or not sys.path:  # -P: nothing was put there
        return
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the working folder was removed
        return
    if os.path.realpath(sys.path[0] or ".") == here:
        del sys.path[0]


_drop_working_folder()

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from . import PROTOCOL_MINOR, PROTOCOL_VERSION, __version__, api, network  # noqa: E402
from .errors import MachineFault, machine_fault, one_line  # noqa: E402
from .loading import load_suites  # noqa: E402

_channel = os.fdopen(_CHANNEL_FD, "w", encoding="utf-8", buffering=1)


def send(message: dict[str, Any]) -> None:
    _channel.write(json.dumps(message, separators=(",", ":"), allow_nan=False, default=str) + "\n")
    _channel.flush()


def _repro(adapter: Any, case: api.CaseDef, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to `repro`: the case as a standalone script, or why it cannot be one."""
    from .minimal import make_minimal
    from .repro import make_script
    from .script_writer import CannotWrite

    reply: dict[str, Any] = {"type": "repro", "case": case.id, "script": "", "unwritable": None}
    bound = request.get("bound_eps")
    write = make_minimal if request.get("minimal") else make_script
    try:
        reply["script"] = write(adapter, case, int(request.get("seed", 0)), adapter.device_id,
                                str(request.get("seen", "")), list(request.get("expected", [])),
                                float(request.get("rtol", 1e-3)), float(request.get("atol", 1e-3)),
                                None if bound is None else float(bound))
    except CannotWrite as exc:
        reply["unwritable"] = str(exc)
    except Exception as exc:  # the case body itself failed while building its call
        reply["unwritable"] = f"the case body raised while building its call: {type(exc).__name__}: {exc}"
    return reply


def _load_adapter(framework: str, device: str, hello: dict[str, Any]) -> Any:
    """The framework's adapter bound to `device`, its facts put in `hello`; None
    when it cannot load, with `unavailable` saying why. A machine fault (the
    framework's libraries do not fit in the address space) also sets
    `engine_fault`: the engine then stores no outcome (protocol 1.1), while an
    older engine still reads `unavailable`."""
    try:
        from . import adapters
        from .models import compiler_caches

        # Before the framework reads where its caches are; an unwritable build
        # cache leaves the compilers their own.
        with contextlib.suppress(OSError):
            compiler_caches()
        adapter = adapters.load(framework)
    except Exception as exc:  # whatever the import raised is the reason
        _import_failed(framework, exc, hello)
        return None
    try:
        hello["framework_version"] = adapter.version()
        hello["devices"] = adapter.devices()
        try:  # 1.10: only a report; a failure here must not cost the framework
            hello["accelerators_absent"] = adapter.accelerators_absent()
        except Exception as exc:
            hello["accelerators_absent"] = [f"?: could not tell which accelerators are absent: {type(exc).__name__}: {exc}"]
        if device:
            adapter.select(device)
        return adapter
    except Exception as exc:  # device not visible, driver broken: say so, do not die silently
        fault = machine_fault(exc)
        if fault is not None:
            hello["engine_fault"] = f"{framework} cannot load on this machine: {fault}"
            hello["unavailable"] = hello["engine_fault"]
        else:
            hello["unavailable"] = f"{framework} could not start on {device or 'this machine'}: {type(exc).__name__}: {exc}"
        return None


def _import_failed(framework: str, exc: BaseException, hello: dict[str, Any]) -> None:
    """A framework that is not installed is `unavailable` (its cases say so);
    one that is installed but fails to import is broken here, not missing:
    an `engine_fault` with the reason, so the run stops instead of storing
    outcomes that blame the framework."""
    fault = machine_fault(exc)
    if fault is not None:
        hello["engine_fault"] = f"{framework} cannot load on this machine: {fault}"
    elif importlib.util.find_spec(framework) is None:
        hello["unavailable"] = f"{framework} is not installed in {sys.executable}: {exc}"
        return
    else:
        hello["engine_fault"] = (f"{framework} is installed in {sys.executable} but fails to import: "
                                 f"{one_line(exc)}")
    hello["unavailable"] = hello["engine_fault"]


def _pin_main_thread(adapter: Any) -> None:
    """Keeps the thread that calls every case on one core (MUDJACK_MAIN_CPU,
    set by the engine): the cores of one machine can differ in speed by half
    (cloud vCPUs), and a thread the scheduler moves between them makes a
    host-bound case's time jump between runs. The framework's own thread
    pools are started first, on every core the probe has; only this thread
    is pinned (sched_setaffinity of pid 0 is the calling thread)."""
    cpu = os.environ.get("MUDJACK_MAIN_CPU", "")
    if not cpu.isdigit():
        return
    try:
        adapter.start_pools()
        os.sched_setaffinity(0, {int(cpu)})
    except Exception:  # timing is less steady, nothing is wrong: the engine records drift
        pass


def _run(adapter: Any, case: api.CaseDef, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to `run`: the case's result, or, when the machine failed
    around the case (its outputs could not be saved, numpy could not load),
    an `engine_fault` and no outcome (protocol 1.1)."""
    try:
        from .runner import Policy, run_case  # numpy is needed only to run

        policy = Policy.from_json(request.get("policy", {}))
        started_ns = time.perf_counter_ns()
        result = run_case(adapter, case, int(request.get("seed", 0)), policy, request.get("artifact_dir"))
        result["case_ns"] = time.perf_counter_ns() - started_ns  # all the probe spent on it
        return result
    except (MachineFault, OSError, MemoryError, ImportError) as exc:  # outside the call under test
        return {"type": "result", "case": case.id, "device": adapter.device_id,
                "engine_fault": machine_fault(exc) or one_line(exc)}


class _Server:
    """Answers every request but `shutdown`: each with one reply line, but
    `build`, which streams a `built` line per case and then `build_done`."""

    def __init__(self, args: argparse.Namespace, adapter: Any, unavailable: str) -> None:
        self.args, self.adapter, self.unavailable = args, adapter, unavailable
        self.cases: dict[str, api.CaseDef] | None = None

    def serve(self, kind: Any, request: dict[str, Any]) -> None:
        if kind == "list":
            self.cases = load_suites(self.args.suite_dir, request.get("framework") or self.args.framework)
            send({"type": "cases", "cases": [c.metadata() for c in self.cases.values()], "params": api.params_read()})
        elif kind == "reference":  # needs numpy only, no framework
            from .fuzz.facts import reference_facts

            send(reference_facts(str(request.get("graph", "")), int(request.get("seed", 0))))
        elif kind == "repro_graph":  # writing a script imports no framework
            from .repro import graph_script

            send(graph_script(request))
        elif kind in ("run", "repro", "build"):
            if self.adapter is None:
                send({"type": "error", "message": "no framework is loaded in this probe: " + self.unavailable})
            elif kind == "build":
                from .prebuild import build

                build(self.args.framework, self.args.device, self.args.suite_dir, api.parse_param_args(self.args.param),
                      request, send)
            else:
                self._case_request(kind, request)
        else:
            send({"type": "error", "message": f"unknown request type {kind!r}"})

    def _case_request(self, kind: str, request: dict[str, Any]) -> None:
        if self.cases is None:
            self.cases = load_suites(self.args.suite_dir, self.args.framework)
        case = self.cases.get(request.get("case", ""))
        if case is None:
            send({"type": "error", "message": f"unknown case {request.get('case')!r}"})
        elif kind == "repro":
            send(_repro(self.adapter, case, request))
        else:
            send(_run(self.adapter, case, request))


def main() -> int:
    parser = argparse.ArgumentParser(prog="mudjack_probe")
    parser.add_argument("--framework", help="numpy, torch, jax, tensorflow or onnxruntime; omit to only list cases")
    parser.add_argument("--device", default="", help="device id to bind, e.g. cpu or cuda:0; empty for discovery only")
    parser.add_argument("--suite-dir", action="append", default=[])
    parser.add_argument("--protocol", type=int, default=PROTOCOL_VERSION)
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a run parameter that suites read with api.param(NAME, default)")
    args = parser.parse_args()
    network.guard()  # before any suite or framework loads
    try:
        api.set_params(api.parse_param_args(args.param))
    except ValueError as exc:
        parser.error(str(exc))

    hello: dict[str, Any] = {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "protocol_minor": PROTOCOL_MINOR,
        "probe_version": __version__,
        "framework": args.framework,
        "framework_version": None,
        "python": platform.python_version(),
        "executable": sys.executable,
        "pid": os.getpid(),
        "devices": [],
        "unavailable": None,
        "engine_fault": None,
        "accelerators_absent": [],
    }
    if args.protocol != PROTOCOL_VERSION:
        hello["unavailable"] = f"engine asked for protocol {args.protocol}, this probe speaks {PROTOCOL_VERSION}"
        send(hello)
        return 3

    adapter = _load_adapter(args.framework, args.device, hello) if args.framework else None
    if adapter is not None and not hello["unavailable"]:
        _pin_main_thread(adapter)
    send(hello)

    server = _Server(args, adapter, str(hello["unavailable"]))
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
            kind = request.get("type")
        except (json.JSONDecodeError, AttributeError) as exc:
            send({"type": "error", "message": f"request is not a JSON object: {exc}"})
            continue
        if kind == "shutdown":
            send({"type": "bye"})
            return 0
        try:
            server.serve(kind, request)
        except ValueError as exc:
            send({"type": "error", "message": str(exc)})
        except MachineFault as exc:  # a suite could not be loaded
            if kind == "run":
                send({"type": "result", "case": request.get("case", ""), "device": args.device, "engine_fault": one_line(exc)})
            else:
                send({"type": "error", "message": one_line(exc)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
