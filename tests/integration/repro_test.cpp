// mudjack repro: one case as a standalone script that runs without MudJack.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;

namespace {

const std::string kHostile = (kFixtures / "suites" / "hostile").string();

TEST_F(Cli, ReproWritesAScriptThatRunsOnItsOwn) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kHostile, "--out", out.string(), "--filter",
                    "ok\\.add|hostile\\.raise", "--budget-ms", "5"});
  ASSERT_EQ(r.code, 0) << r.err;

  auto script = dir_ / "repro.py";
  r = mudjack({"repro", "numpy/ok.add/float32-default-eager", "--suite-dir", kHostile, "--out",
               out.string(), "-o", script.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(script);
  EXPECT_NE(text.find("What MudJack saw: pass on cpu in run "), std::string::npos) << text;
  EXPECT_EQ(text.find("import mudjack"), std::string::npos);

  // Run it with the interpreter mudjack used for numpy, from a folder of its own.
  r = mudjack({"devices", "--framework", "numpy", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto python = nlohmann::json::parse(r.out)["machines"][0]["frameworks"]["numpy"].value(
      "python_executable", "");
  ASSERT_FALSE(python.empty());
  const std::string cmd = "cd / && " + quote(python) + " " + quote(script.string()) + " >" +
                          quote((dir_ / "script.out").string()) + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(dir_ / "script.out");
  EXPECT_NE(slurp(dir_ / "script.out").find("output 0: shape (64,) dtype float32"),
            std::string::npos)
      << slurp(dir_ / "script.out");

  // Without -o the script goes to stdout.
  r = mudjack({"repro", "numpy/ok.add/float32-default-eager", "--suite-dir", kHostile, "--out",
               out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("#!/usr/bin/env python3", 0), 0u);
}

TEST_F(Cli, ReproSaysWhyItCannot) {
  // A case whose body raises before the call exists: nothing to write, exit 1, one line.
  auto r = mudjack({"repro", "numpy/hostile.raise/float32-default-eager", "--suite-dir", kHostile,
                    "--out", (dir_ / "none").string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("NotImplementedError"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  r = mudjack({"repro", "numpy/no.such/case", "--suite-dir", kHostile});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown case 'numpy/no.such/case'"), std::string::npos) << r.err;

  r = mudjack({"repro", "numpy/ok.add/float32-default-eager", "--suite-dir", kHostile, "--out",
               (dir_ / "none").string(), "--run", "nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
