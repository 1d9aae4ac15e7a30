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
const std::string kChecks = (kFixtures / "suites" / "checks").string();

// Repro scripts written through the binary and run on their own, with the
// interpreter mudjack uses for the case's framework.
class Repro : public Cli {
 protected:
  // The framework's interpreter ("" when its environment is not here).
  std::string python_of(const std::string& framework) {
    auto r = mudjack({"devices", "--framework", framework, "--json"});
    if (r.code != 0) return "";
    return nlohmann::json::parse(r.out)["machines"][0]["frameworks"][framework].value(
        "python_executable", "");
  }

  // Runs the script from a folder of its own; its exit code, output in `out`.
  int run_script(const std::string& python, const fs::path& script, std::string& out) {
    const auto log = dir_ / (script.stem().string() + ".out");
    const std::string cmd = "cd / && " + quote(python) + " " + quote(script.string()) + " >" +
                            quote(log.string()) + " 2>&1";
    const int status = std::system(cmd.c_str());
    out = slurp(log);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }

  // The outcome the newest run in `results` stored for the case ("" if none).
  std::string outcome_of(const fs::path& results, const std::string& case_id) {
    auto list = runs(results);
    if (list.empty()) return "";
    const auto doc = nlohmann::json::parse(
        slurp(results / "runs" / list[0]["id"].get<std::string>() / "results.json"));
    for (const auto& c : doc["cases"]) {
      if (c["id"] == case_id) return c["outcome"];
    }
    return "";
  }
};

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
  EXPECT_NE(r.err.find("unknown case 'numpy/no.such/case' (see: mudjack list"), std::string::npos)
      << "nothing near enough to suggest\n"
      << r.err;
  // A typo: the nearest listed id is suggested.
  r = mudjack({"repro", "numpy/ok.ad/float32-default-eager", "--suite-dir", kHostile});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown case 'numpy/ok.ad/float32-default-eager'; did you mean "
                       "'numpy/ok.add/float32-default-eager'? (see: mudjack list"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  r = mudjack({"repro", "numpy/ok.add/float32-default-eager", "--suite-dir", kHostile, "--out",
               (dir_ / "none").string(), "--run", "nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(Repro, AFailedCheckFailsTheScriptByName) {
  // The run saw a mismatch (its check failed); the script must too: exit 1, the check named.
  const std::string id = "numpy/check.fails/float32-default-eager";
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kChecks, "--out", out.string(), "--filter",
                    "check\\.fails", "--budget-ms", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(outcome_of(out, id), "mismatch");
  auto script = dir_ / "fails.py";
  r = mudjack({"repro", id, "--suite-dir", kChecks, "--out", out.string(), "-o", script.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(script).find("property check failed: math: sum of the values"),
            std::string::npos);
  std::string ran;
  EXPECT_EQ(run_script(python_of("numpy"), script, ran), 1) << ran;
  EXPECT_NE(ran.find("check 'math: sum of the values' (reference): FAILED"), std::string::npos)
      << ran;
  EXPECT_NE(ran.find("reproduced: property check failed: math: sum of the values"),
            std::string::npos)
      << ran;

  // A case whose check holds: the script says so and exits 0.
  script = dir_ / "holds.py";
  r = mudjack({"repro", "numpy/check.property/float32-default-eager", "--suite-dir", kChecks,
               "--out", out.string(), "-o", script.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(run_script(python_of("numpy"), script, ran), 0) << ran;
  EXPECT_NE(ran.find("check 'ascending' (property): held"), std::string::npos) << ran;
}

TEST_F(Repro, ATorchLayerScriptComputesTheParameterGradients) {
  // Conv2d forward and backward: outputs, the input's gradient, then the weight's and the
  // bias's, which a script with copies of the parameters (not the module's own) got as None.
  const auto python = python_of("torch");
  if (python.empty()) GTEST_SKIP() << "no torch environment here";
  const std::string id = "torch/torch.nn.Conv2d/float32-small-config=k3-eager";
  auto script = dir_ / "conv.py";
  auto r = mudjack({"repro", id, "--out", (dir_ / "none").string(), "-o", script.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string ran;
  EXPECT_EQ(run_script(python, script, ran), 0) << ran;
  EXPECT_NE(ran.find("output 2: shape (8, 4, 3, 3) dtype float32"), std::string::npos) << ran;
  EXPECT_NE(ran.find("output 3: shape (8,) dtype float32"), std::string::npos) << ran;
  EXPECT_EQ(ran.find("dtype object"), std::string::npos) << ran;
  // The case's reference check compares every gradient with the float64 formula.
  EXPECT_NE(ran.find("check 'forward and gradients equal the float64 host computation' "
                     "(reference): held"),
            std::string::npos)
      << ran;
}

TEST_F(Repro, TheScriptOfTheJaxMaxNanCaseEndsAsItsRunDid) {
  // XLA:CPU drops the NaN when max reduces 32+ rows: a mismatch by the case's own check. The
  // script's exit status must say what the run said, whichever it was.
  const auto python = python_of("jax");
  if (python.empty()) GTEST_SKIP() << "no jax environment here";
  const std::string id = "jax/jax.numpy.max/float32-matrix-form=nan-eager";
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--framework", "jax", "--out", out.string(), "--filter",
                    "^jax/jax\\.numpy\\.max/float32-matrix-form=nan-eager$", "--budget-ms", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto outcome = outcome_of(out, id);
  ASSERT_TRUE(outcome == "mismatch" || outcome == "pass") << outcome;
  auto script = dir_ / "max.py";
  r = mudjack({"repro", id, "--out", out.string(), "-o", script.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string ran;
  const std::string check =
      "check 'NaN in every row (the analytic answer; a NaN planted there "
      "changes nothing)' (reference): ";
  EXPECT_EQ(run_script(python, script, ran), outcome == "mismatch" ? 1 : 0) << ran;
  EXPECT_NE(ran.find(check + (outcome == "mismatch" ? "FAILED" : "held")), std::string::npos)
      << ran;
}

}  // namespace
