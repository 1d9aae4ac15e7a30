// How a pass is checked, and what a broken device does to the cases after
// it: the real binary, real numpy probes, tests/fixtures/suites/checks.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"

using namespace mjtest;
using nlohmann::json;

namespace {

struct Outcomes {
  json results;
  std::map<std::string, json> cases;     // by function
  std::map<std::string, json> verdicts;  // by function
};

class Checks : public Cli {
 protected:
  // `code`: the run's exit code (1 when the selection holds check.raises,
  // a suite error).
  Outcomes run_checks(const std::vector<std::string>& extra = {}, int code = 0) {
    auto out = dir_ / "results";
    std::vector<std::string> args = {
        "run",   "--suite-dir", (kFixtures / "suites" / "checks").string(),
        "--out", out.string(),  "--budget-ms",
        "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = mudjack(args);
    EXPECT_EQ(r.code, code) << r.err;
    Outcomes run;
    auto list = runs(out);
    if (list.empty()) return run;
    run.results =
        json::parse(slurp(out / "runs" / list[0]["id"].get<std::string>() / "results.json"));
    for (const auto& c : run.results["cases"]) run.cases[c["function"]] = c;
    for (const auto& v : run.results["verdicts"]) run.verdicts[v["function"]] = v;
    return run;
  }
};

TEST_F(Checks, EachPassSaysHowItWasCheckedAndAnUncheckedPassIsUnverified) {
  auto run = run_checks({"--filter", "check\\."}, 1);
  ASSERT_EQ(run.results["schema_version"], "1.13");
  EXPECT_EQ(run.cases["check.reference"]["checked"], "reference");
  EXPECT_EQ(run.cases["check.reference"]["extra"]["checks"][0]["kind"], "reference");
  EXPECT_EQ(run.cases["check.property"]["checked"], "property");
  EXPECT_EQ(run.cases["check.unchecked"]["outcome"], "pass");
  EXPECT_EQ(run.cases["check.unchecked"]["checked"], "none");

  EXPECT_EQ(run.verdicts["check.reference"]["verdict"], "portable");
  EXPECT_EQ(run.verdicts["check.property"]["verdict"], "portable");
  EXPECT_EQ(run.verdicts["check.unchecked"]["verdict"], "unverified");
  EXPECT_EQ(run.verdicts["check.unchecked"]["unchecked"], 1);
  EXPECT_NE(run.verdicts["check.unchecked"]["reason"].get<std::string>().find("checked by nothing"),
            std::string::npos);
}

TEST_F(Checks, AFailingCheckMakesAMismatchARaisingOneASuiteError) {
  auto run = run_checks({"--filter", "check\\.(fails|raises)"}, 1);
  const auto& fails = run.cases["check.fails"];
  EXPECT_EQ(fails["outcome"], "mismatch");
  EXPECT_EQ(fails["checked"], "none");
  EXPECT_EQ(run.verdicts["check.fails"]["verdict"], "divergent");
  EXPECT_EQ(fails["extra"]["checks"][0]["ok"], false);
  // A check that raises is the suite's mistake: no verdict counts it.
  const auto& raises = run.cases["check.raises"];
  EXPECT_EQ(raises["outcome"], "error");
  EXPECT_FALSE(run.verdicts.contains("check.raises"));
  EXPECT_NE(raises["error"]["message"].get<std::string>().find(
                "check 'cannot be evaluated' raised ZeroDivisionError"),
            std::string::npos)
      << raises["error"].dump();
}

TEST_F(Checks, AnOutputOnAnotherDeviceFails) {
  auto run = run_checks({"--filter", "device\\.wrong_output"});
  const auto& c = run.cases["device.wrong_output"];
  EXPECT_EQ(c["outcome"], "fail");
  EXPECT_EQ(c["error"]["kind"], "device_error");
  EXPECT_NE(c["error"]["message"].get<std::string>().find("cuda:9"), std::string::npos);
}

TEST_F(Checks, AStickyDeviceErrorFailsOnlyItsOwnCaseTheProbeIsReplaced) {
  auto run = run_checks({"--filter", "device\\.(sticky|message_only)|ordinary"});
  const auto& sticky = run.cases["device.sticky"];
  EXPECT_EQ(sticky["outcome"], "fail");
  EXPECT_EQ(sticky["error"]["kind"], "device_error");
  ASSERT_TRUE(sticky["extra"].contains("device_unusable")) << sticky.dump();
  EXPECT_NE(sticky["extra"]["device_unusable"].get<std::string>().find("device-side assert"),
            std::string::npos);
  // The message alone decides nothing: this device still computes.
  const auto& message_only = run.cases["device.message_only"];
  EXPECT_EQ(message_only["outcome"], "fail");
  EXPECT_FALSE(message_only["extra"].contains("device_unusable")) << message_only.dump();
  int ordinary = 0;
  for (const auto& [function, c] : run.cases) {
    if (function.rfind("ordinary.", 0) != 0) continue;
    ++ordinary;
    EXPECT_EQ(c["outcome"], "pass") << function << ": " << c["error"].dump();
    EXPECT_EQ(c["checked"], "reference") << function;
  }
  EXPECT_EQ(ordinary, 10);
}

}  // namespace

namespace {

// `report --publish` of runs made from a clean and from a dirty tree: the
// probe and the suite are read from a git repository of their own
// (MUDJACK_DATA_DIR), so the test does not depend on this checkout's state.
TEST_F(Checks, PublishKeepsCompactSamplesThatRejudgeToThePageAndRefusesADirtyTree) {
  namespace fs = std::filesystem;
  const auto tree = dir_ / "tree";
  fs::create_directories(tree / "suites");
  for (const char* part :
       {"probe", "envs", "schemas"}) {  // envs/: the pins; schemas/: the vocabulary the probe reads
    fs::copy(fs::path(MUDJACK_SOURCE_DIR) / part, tree / part, fs::copy_options::recursive);
  }
  fs::copy(kFixtures / "suites" / "checks", tree / "suites" / "checks");
  std::ofstream(tree / ".gitignore") << "__pycache__/\n";  // as the checkout's own
  const std::string git = "cd " + quote(tree.string()) +
                          " && git init -q && git add -A && git -c user.name=t -c "
                          "user.email=t@t commit -qm fixture >/dev/null 2>&1";
  ASSERT_EQ(std::system(git.c_str()), 0);
  ::setenv("MUDJACK_DATA_DIR", tree.c_str(), 1);
  const auto out = dir_ / "results";
  const std::vector<std::string> run_args = {"run",
                                             "--suite-dir",
                                             (tree / "suites" / "checks").string(),
                                             "--out",
                                             out.string(),
                                             "--filter",
                                             "check\\.reference",
                                             "--budget-ms",
                                             "2"};
  auto clean = mudjack(run_args);
  ASSERT_EQ(clean.code, 0) << clean.err;
  auto published =
      mudjack({"report", "latest", "--out", out.string(), "--publish", (dir_ / "pub").string()});
  EXPECT_EQ(published.code, 0) << published.err;
  auto doc = json::parse(slurp(dir_ / "pub" / "results.json"));
  ASSERT_EQ(doc["cases"].size(), 1u);
  ASSERT_EQ(doc["cases"][0]["outcome"], "pass") << doc["cases"][0]["error"].dump();
  // At most 32 samples travel (what the judge's interval needs), and a
  // re-judge of the page reads its verdicts back.
  EXPECT_LE(doc["cases"][0]["latency"]["samples_ns"].size(), 32u);
  EXPECT_FALSE(doc["cases"][0]["latency"]["samples_ns"].empty());
  EXPECT_GT(doc["cases"][0]["latency"]["median_ns"].get<double>(), 0);
  auto again = mudjack({"report", (dir_ / "pub" / "results.json").string(), "--format", "json"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["verdicts"], doc["verdicts"]);
  EXPECT_EQ(doc["environment"]["machines"][0]["source"]["dirty"], false);
  for (const char* f : {"summary.md", "report.html", "results.csv", "junit.xml"}) {
    EXPECT_TRUE(fs::exists(dir_ / "pub" / f)) << f;
  }

  std::ofstream(tree / "suites" / "checks" / "checks.py", std::ios::app) << "\n# edited\n";
  auto dirty = mudjack(run_args);
  ASSERT_EQ(dirty.code, 0) << dirty.err;
  auto refused =
      mudjack({"report", "latest", "--out", out.string(), "--publish", (dir_ / "pub2").string()});
  ::unsetenv("MUDJACK_DATA_DIR");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("will not publish run"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("dirty tree (suites/checks/checks.py differs from"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "pub2"));
}

}  // namespace
