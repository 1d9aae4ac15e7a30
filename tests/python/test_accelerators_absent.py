"""Why an accelerator a framework's build targets is absent
(mudjack_probe/adapters/absent.py, hello's `accelerators_absent`): the
reasons read from faked device nodes and driver libraries, and which kinds
get a line. The real checks on this machine (no GPU, no TPU) run last.

Runs with the numpy environment; no framework needed.
"""

from __future__ import annotations

import unittest
from collections.abc import Callable
from typing import ClassVar

from mudjack_probe.adapters import absent


def nodes_of(*present: str):
    """A glob over a faked /dev holding exactly `present`."""
    import fnmatch

    return lambda pattern: [p for p in present if fnmatch.fnmatch(p, pattern)]


class Reasons(unittest.TestCase):
    def test_nvidia(self) -> None:
        no_lib = absent.nvidia_reason(nodes_of(), lambda name: f"{name}: cannot open shared object file")
        self.assertEqual(no_lib, "the NVIDIA driver is not here (libcuda.so.1: cannot open shared object file)")
        no_node = absent.nvidia_reason(nodes_of("/dev/nvidiactl"), lambda name: None)
        self.assertIn("no GPU device node", no_node)
        both = absent.nvidia_reason(nodes_of("/dev/nvidiactl", "/dev/nvidia0"), lambda name: None)
        self.assertIn("yet the framework sees no GPU", both)

    def test_amd(self) -> None:
        self.assertIn("no /dev/kfd", absent.amd_reason(nodes_of()))
        self.assertIn("no GPU render node", absent.amd_reason(nodes_of("/dev/kfd", "/dev/dri/card0")))
        self.assertIn("yet the framework", absent.amd_reason(nodes_of("/dev/kfd", "/dev/dri/renderD128")))

    def test_tpu_nodes(self) -> None:
        # /dev/vfio/vfio is the VFIO container device every Linux with vfio has:
        # not a chip. A numbered group (v5e and later) or /dev/accelN (v4) is.
        self.assertFalse(absent.tpu_nodes(nodes_of("/dev/vfio/vfio")))
        self.assertTrue(absent.tpu_nodes(nodes_of("/dev/vfio/vfio", "/dev/vfio/0")))
        self.assertTrue(absent.tpu_nodes(nodes_of("/dev/accel0")))
        self.assertEqual(absent.tpu_reason(nodes_of("/dev/vfio/vfio")),
                         "no TPU chip on this host (no /dev/accel* or /dev/vfio/N device)")
        self.assertIn("yet the framework found no TPU chip", absent.tpu_reason(nodes_of("/dev/accel0")))


class Lines(unittest.TestCase):
    REASONS: ClassVar[dict[str, Callable[[], str]]] = {
        "cuda": lambda: "no driver", "rocm": lambda: "no kfd", "tpu": lambda: "no chip"}

    def test_only_kinds_no_device_is(self) -> None:
        wanted = {"cuda": "torch 2.9.0+cu128 is a CUDA 12.8 build", "tpu": "libtpu 0.0.21 is installed for torch_xla"}
        self.assertEqual(absent.lines(["cpu", "xla"], wanted, self.REASONS),
                         ["cuda: torch 2.9.0+cu128 is a CUDA 12.8 build, but no driver",
                          "tpu: libtpu 0.0.21 is installed for torch_xla, but no chip"])
        self.assertEqual(absent.lines(["cpu", "tpu", "tpu"], wanted, self.REASONS),
                         ["cuda: torch 2.9.0+cu128 is a CUDA 12.8 build, but no driver"])
        self.assertEqual(absent.lines(["cpu", "cuda", "tpu"], wanted, self.REASONS), [])
        self.assertEqual(absent.lines(["cpu"], {}, self.REASONS), [], "a cpu-only build wants nothing")

    def test_amd_gpus_are_listed_as_cuda(self) -> None:
        wanted = {"rocm": "torch 2.11.0+rocm7.2 is a ROCm 7.2 build"}
        self.assertEqual(absent.lines(["cpu", "cuda"], wanted, self.REASONS), [])
        self.assertEqual(absent.lines(["cpu"], wanted, self.REASONS),
                         ["rocm: torch 2.11.0+rocm7.2 is a ROCm 7.2 build, but no kfd"])

    def test_a_kind_without_a_reason_says_so(self) -> None:
        self.assertEqual(absent.lines(["cpu"], {"npu": "x is installed"}, {}), ["npu: x is installed, but none is visible"])


class ThisMachine(unittest.TestCase):
    """The real checks here: the project's machines have neither an NVIDIA
    driver nor TPU chips (the lent GPU machines run no unit tests)."""

    def test_installed(self) -> None:
        self.assertIsNotNone(absent.installed("numpy"))
        self.assertIsNone(absent.installed("no-such-distribution-mudjack"))

    def test_reasons_are_one_line(self) -> None:
        for reason in (absent.nvidia_reason(), absent.amd_reason(), absent.tpu_reason()):
            self.assertTrue(reason)
            self.assertNotIn("\n", reason)


if __name__ == "__main__":
    unittest.main()
