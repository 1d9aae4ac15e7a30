"""The probe's protocol channel is private: no environment variable names
its descriptor, and a program that a case starts does not inherit it
(close-on-exec), so it cannot write result lines (docs/deploy.md, "What a
token holder can and cannot do"). Run with the numpy environment
(scripts/python-tests.sh)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A case that starts a program the most permissive way (close_fds=False) and
# writes what it and the program see to $CHANNEL_REPORT.
SUITE = textwrap.dedent('''
    import json, os, subprocess, sys
    from mudjack_probe.api import Cases, Ctx

    cases = Cases("numpy")
    CHILD = """
    import json, os, sys
    fd = int(sys.argv[1])
    path = f"/proc/self/fd/{fd}"
    print(json.dumps({"env": os.environ.get("MUDJACK_PROBE_CHANNEL_FD"),
                      "fd": os.readlink(path) if os.path.lexists(path) else None}))
    """

    @cases.case("channel.child")
    def child(t: Ctx):
        fd = sys.modules["__main__"]._CHANNEL_FD
        seen = subprocess.run([sys.executable, "-c", CHILD, str(fd)], capture_output=True, text=True,
                              close_fds=False, check=True)
        report = {"probe_env": os.environ.get("MUDJACK_PROBE_CHANNEL_FD"),
                  "probe_fd": os.readlink(f"/proc/self/fd/{fd}"), "child": json.loads(seen.stdout)}
        with open(os.environ["CHANNEL_REPORT"], "w") as f:
            json.dump(report, f)
        x = t.randn((4,))
        return t.call(lambda a: a + a, x)
    ''')


class Channel(unittest.TestCase):
    def test_a_program_a_case_starts_neither_inherits_nor_finds_the_channel(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "channel.py").write_text(SUITE)
            report_path = Path(tmp, "report.json")
            requests = [{"type": "run", "case": "numpy/channel.child/float32-default-eager", "device": "cpu",
                         "seed": 0, "policy": {"budget_ms": 1, "min_samples": 1, "max_samples": 2,
                                               "warmup_ms": 0, "block_ms": 1}},
                        {"type": "shutdown"}]
            done = subprocess.run(
                [sys.executable, "-m", "mudjack_probe", "--protocol", "1", "--framework", "numpy",
                 "--device", "cpu", "--suite-dir", tmp],
                input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True,
                env=dict(os.environ, PYTHONPATH=str(ROOT / "probe"), CHANNEL_REPORT=str(report_path)),
                timeout=120, check=False)
            replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
            self.assertEqual([r["type"] for r in replies], ["hello", "result", "bye"], done.stderr)
            self.assertEqual(replies[1].get("status"), "pass", replies[1])
            report = json.loads(report_path.read_text())
        self.assertIsNone(report["probe_env"], "the probe advertises its channel")
        self.assertIsNone(report["child"]["env"], "a child finds the channel in its environment")
        self.assertTrue(report["probe_fd"].startswith("pipe:"), report)
        self.assertNotEqual(report["child"]["fd"], report["probe_fd"], "a child inherited the channel")


if __name__ == "__main__":
    unittest.main()
