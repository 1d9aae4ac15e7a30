#!/usr/bin/env python3
"""Proof that the architecture checkers catch what they claim to catch.

Each test copies ARCHITECTURE.md and src/ into a temporary folder, plants a
violation there and runs the checker on the copy (scripts/check-layers.py,
scripts/check-entry-points.py). The copy's checkout is never touched.

  tests/checks/checkers_test.py [LayeringCatches | EntryPointsCatch | -v ...]
"""

import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ROOT / "scripts" / "check-layers.py"
ENTRY_POINTS = ROOT / "scripts" / "check-entry-points.py"


def run(script: Path, root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), "--root", str(root)],
                          capture_output=True, text=True, timeout=120)


class CopyOfCheckout(unittest.TestCase):
    """A temporary copy of ARCHITECTURE.md and src/ per test."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="mudjack-checkers-"))
        self.addCleanup(shutil.rmtree, self.tmp)
        shutil.copy(ROOT / "ARCHITECTURE.md", self.tmp / "ARCHITECTURE.md")
        shutil.copytree(ROOT / "src", self.tmp / "src")

    def append(self, rel: str, text: str) -> int:
        """Appends text to a file of the copy; returns the line number of its first line."""
        path = self.tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        before = path.read_text() if path.exists() else ""
        if before and not before.endswith("\n"):
            before += "\n"
        path.write_text(before + textwrap.dedent(text))
        return before.count("\n") + 1

    def violations(self, result: subprocess.CompletedProcess) -> set[str]:
        """The violation lines of a checker's output (its summary line left out)."""
        return {line for line in result.stdout.splitlines()
                if line and not line.startswith("check-")}


class LayeringCatches(CopyOfCheckout):
    def test_a_copy_reads_as_the_checkout(self):
        here, there = run(LAYERS, ROOT), run(LAYERS, self.tmp)
        self.assertEqual(there.returncode, here.returncode, there.stderr)
        self.assertEqual(self.violations(there), self.violations(here))

    def test_upward_include(self):
        clean = self.violations(run(LAYERS, self.tmp))
        line = self.append("src/util/time.cpp", '#include "cli/cli.hpp"\n')
        result = run(LAYERS, self.tmp)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        new = self.violations(result) - clean
        self.assertEqual(len(new), 1, new)
        (found,) = new
        self.assertTrue(found.startswith(f"src/util/time.cpp:{line}: includes cli/cli.hpp, "
                                         "a higher layer (util is layer 1, cli is layer "), found)

    def test_sideways_include(self):
        clean = self.violations(run(LAYERS, self.tmp))
        line = self.append("src/stats/stats.cpp", '#include "store/store.hpp"\n')
        result = run(LAYERS, self.tmp)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(self.violations(result) - clean, {
            f"src/stats/stats.cpp:{line}: includes store/store.hpp, a folder of the same layer "
            "(stats and store are layer 2)"})

    def test_folder_missing_from_the_list(self):
        self.append("src/gadget/gadget.cpp", '#include "util/error.hpp"\n')
        result = run(LAYERS, self.tmp)
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/gadget/: not in ARCHITECTURE.md's '## Layers' list",
                      self.violations(result))

    def test_includes_downward_and_in_comments_pass(self):
        clean = self.violations(run(LAYERS, self.tmp))
        self.append("src/cli/extra.cpp", """\
            #include "cli/cli.hpp"
            #include "util/error.hpp"
            #include <server/not_ours.hpp>
            // #include "main.cpp" and "cli/..." in prose are not includes
        """)
        self.assertEqual(self.violations(run(LAYERS, self.tmp)), clean)

    def test_a_clean_tree_passes(self):
        shutil.rmtree(self.tmp / "src")  # a small tree of listed folders instead
        self.append("src/util/a.hpp", "#pragma once\n")
        self.append("src/plan/b.cpp", '#include "util/a.hpp"\n#include "plan/b.hpp"\n')
        self.append("src/cli/c.cpp", '#include "plan/b.hpp"\n#include "util/a.hpp"\n')
        (self.tmp / "src" / "main.cpp").write_text('#include "cli/c.hpp"\n')
        result = run(LAYERS, self.tmp)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_an_unreadable_list_is_an_error(self):
        path = self.tmp / "ARCHITECTURE.md"
        path.write_text(path.read_text().replace("2. `src/stats/`", "3. `src/stats/`"))
        result = run(LAYERS, self.tmp)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("layer 3 follows layer 1", result.stderr)


class EntryPointsCatch(CopyOfCheckout):
    STRAY = """\
        namespace mudjack::util {
        bool stray(const supervisor::RunSpec& spec, store::Store& store) {
          return supervisor::execute(spec, store, {}, nullptr);
        }
        }  // namespace mudjack::util
    """

    def test_a_copy_reads_as_the_checkout(self):
        here, there = run(ENTRY_POINTS, ROOT), run(ENTRY_POINTS, self.tmp)
        self.assertEqual(there.returncode, here.returncode, there.stderr)
        self.assertEqual(self.violations(there), self.violations(here))

    def test_a_stray_call(self):
        clean = self.violations(run(ENTRY_POINTS, self.tmp))
        first = self.append("src/report/csv.cpp", self.STRAY)
        result = run(ENTRY_POINTS, self.tmp)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        new = self.violations(result) - clean
        self.assertEqual(len(new), 1, new)
        (found,) = new
        self.assertTrue(found.startswith(f"src/report/csv.cpp:{first + 2}: uses "
                                         "supervisor::execute, allowed only from "), found)

    def test_a_second_lifecycle_is_caught(self):
        # The server's run manager may create runs; a second copy elsewhere may not.
        clean = self.violations(run(ENTRY_POINTS, self.tmp))
        first = self.append("src/fleet/extra.cpp", """\
            void again(store::Store& s, const run::RunOptions& o) {
              auto p = run::create(s, o, {}, {}, "running");
              run::finish(s, p.info.id, true, {});
            }
        """)
        found = {line.split(": uses")[0] for line in self.violations(run(ENTRY_POINTS, self.tmp)) - clean}
        self.assertEqual(found, {f"src/fleet/extra.cpp:{first + 1}", f"src/fleet/extra.cpp:{first + 2}"})

    def test_a_side_door_into_python_is_caught(self):
        # Only src/supervisor/ starts Python (and envs/source.cpp runs git):
        # a fuzz file that spawns a probe itself is the side door issue 35 closed.
        clean = self.violations(run(ENTRY_POINTS, self.tmp))
        first = self.append("src/fuzz/bundle.cpp", """\
            void side_door(const os::SpawnOptions& so, std::string* error) {
              auto child = os::Child::spawn(so, error);
            }
        """)
        new = self.violations(run(ENTRY_POINTS, self.tmp)) - clean
        self.assertEqual(new, {f"src/fuzz/bundle.cpp:{first + 1}: uses os::Child::spawn, allowed only from "
                               "src/os/, src/supervisor/, src/envs/source.cpp"})

    def test_fully_qualified_and_using_are_uses(self):
        clean = self.violations(run(ENTRY_POINTS, self.tmp))
        first = self.append("src/fleet/extra.cpp", """\
            using mudjack::supervisor::execute;
            auto* f = &::mudjack::supervisor::execute;
        """)
        found = self.violations(run(ENTRY_POINTS, self.tmp)) - clean
        self.assertEqual({line.split(": uses")[0] for line in found},
                         {f"src/fleet/extra.cpp:{first}", f"src/fleet/extra.cpp:{first + 1}"})

    def test_comments_strings_and_other_functions_pass(self):
        clean = self.violations(run(ENTRY_POINTS, self.tmp))
        self.append("src/report/csv.cpp", """\
            // supervisor::execute(spec) is not called here
            /* nor supervisor::execute(
               here */
            const char* text = "supervisor::execute(";
            const char* raw = R"x(supervisor::execute()x";
            int n = 1'000;
            void f() { RunManager::execute(rec); other::supervisor::execute(1); }
        """)
        self.assertEqual(self.violations(run(ENTRY_POINTS, self.tmp)), clean)

    def test_allowed_places_and_own_folder_pass(self):
        clean = self.violations(run(ENTRY_POINTS, self.tmp))
        self.append("src/supervisor/extra.cpp", self.STRAY)
        self.append("src/run/run.cpp", self.STRAY)
        self.assertEqual(self.violations(run(ENTRY_POINTS, self.tmp)), clean)

    def test_an_unreadable_entry_is_an_error(self):
        path = self.tmp / "ARCHITECTURE.md"
        path.write_text(path.read_text().replace(
            "- `supervisor::execute` — callable from:", "- `supervisor::execute` callable by:"))
        result = run(ENTRY_POINTS, self.tmp)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("can't read entry", result.stderr)


if __name__ == "__main__":
    unittest.main()
