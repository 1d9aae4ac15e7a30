// Integration tests of a person's workflow at the terminal (the real binary,
// real numpy probes): suite mistakes apart from framework failures, the
// short summary, selection, doctor, exit codes.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(Cli, SuiteMistakesAreErrorsApartFromFrameworkFailures) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "mistakes").string(), "--out",
                    out.string(), "--budget-ms", "2", "--rounds", "1"});
  EXPECT_EQ(r.code, 1) << "a broken suite never exits 0\n" << r.err;
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  const fs::path run_dir = out / "runs" / list[0]["id"].get<std::string>();
  auto results = json::parse(slurp(run_dir / "results.json"));
  std::map<std::string, json> cases;
  for (const auto& c : results["cases"]) cases[c["function"].get<std::string>()] = c;
  for (const char* f :
       {"mine.returns_tensor", "mine.typo", "mine.check_raises", "mine.metric_raises"}) {
    EXPECT_EQ(cases[f]["outcome"], "error") << f;
  }
  EXPECT_EQ(cases["mine.fails"]["outcome"], "fail");
  EXPECT_EQ(cases["mine.ok"]["outcome"], "pass");
  // No verdict counts a suite error.
  std::map<std::string, std::string> verdicts;
  for (const auto& v : results["verdicts"]) verdicts[v["function"]] = v["verdict"];
  EXPECT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts["mine.fails"], "complete_failure");
  EXPECT_EQ(verdicts["mine.ok"], "portable");
  // junit.xml: errors, not failures.
  auto junit = slurp(run_dir / "junit.xml");
  EXPECT_TRUE(has(junit, "errors=\"4\"")) << junit;
  EXPECT_TRUE(has(junit, "<error type=\"suite\""));
  // The terminal says which cases are the suite's mistakes, with the
  // traceback of the suite's code, and what failed with its first error.
  EXPECT_TRUE(has(r.out, "suite errors: 4")) << r.out;
  EXPECT_TRUE(has(r.out, "did you mean 'float16'")) << r.out;
  EXPECT_TRUE(has(r.out, "check 'shape' raised IndexError")) << r.out;
  EXPECT_TRUE(has(r.out, "mistakes.py")) << "the traceback names the suite's file\n" << r.out;
  EXPECT_TRUE(has(r.out, "returned ndarray, not t.call")) << r.out;
  EXPECT_TRUE(has(r.out, "metric 'ratio' raised ZeroDivisionError")) << r.out;
  EXPECT_TRUE(has(r.out, "complete failure")) << r.out;
  EXPECT_TRUE(has(r.out, "RuntimeError: kernel exploded  [numpy/mine.fails/float32-small-eager]"))
      << r.out;
}

TEST_F(Cli, DoctorSaysWhatIsReadyAndHowToInstallWhatIsMissing) {
  auto r = mudjack({"doctor", "--framework", "numpy"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "numpy       ready")) << r.out;
  EXPECT_TRUE(has(r.out, "1 of 1 frameworks ready")) << r.out;
  r = mudjack({"doctor", "--framework", "numpy", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["frameworks"][0]["ready"], true);
  EXPECT_FALSE(doc["frameworks"][0]["version"].get<std::string>().empty());
  // No environment at all: missing, with the command that installs it; exit 3.
  ::setenv("MUDJACK_CACHE_DIR", (dir_ / "empty-cache").c_str(), 1);
  r = mudjack({"doctor", "--framework", "numpy"});
  ::unsetenv("MUDJACK_CACHE_DIR");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "numpy       missing")) << r.out;
  EXPECT_TRUE(has(r.out, "install: MUDJACK_FRAMEWORKS=numpy ")) << r.out;
  EXPECT_TRUE(has(r.out, "scripts/install.sh")) << r.out;
}

TEST_F(Cli, ARunThatCouldAttemptNothingExitsThreeAndSaysWhy) {
  ::setenv("MUDJACK_CACHE_DIR", (dir_ / "empty-cache").c_str(), 1);
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "mistakes").string(), "--out",
                    (dir_ / "results").string()});
  ::unsetenv("MUDJACK_CACHE_DIR");
  EXPECT_EQ(r.code, 3) << "every case unavailable is never a green run\n" << r.err;
  EXPECT_TRUE(has(r.err, "nothing could be attempted")) << r.err;
  EXPECT_TRUE(has(r.err, "no numpy environment")) << "the whole reason, not cut\n" << r.err;
  EXPECT_TRUE(has(r.err, "mudjack doctor")) << r.err;
}

TEST_F(Cli, MistakesOnTheCommandLineGetOneLineAndExitTwo) {
  auto r = mudjack({"rn"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'rn'; did you mean 'run'?")) << r.err;
  r = mudjack({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "(commands: doctor, devices, list, run")) << r.err;
  r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "mistakes").string(), "--out",
               (dir_ / "results").string(), "--baseline", "gpu0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--baseline gpu0 is not a device here (devices: cpu")) << r.err;
  r = mudjack({"run", "--budget-ms", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--budget-ms must be more than 0 and at most 600000, got 0")) << r.err;
}

}  // namespace
