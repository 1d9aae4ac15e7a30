// Integration tests: a probe's whole process tree (os/process_tree.hpp) with
// the real binary and real probes. The memory limit counts the processes a
// case starts, also those that left the probe's process group; they die with
// the probe; the listing probe (suites' import-time code, `mudjack check`'s
// NAME_inputs()) runs under the same limit; `mudjack check` takes the limit
// from --memory-limit-mb and mudjack.toml. Run under both ways of knowing
// the tree: the /proc walk (MUDJACK_PROCESS_TREE=proc) and whatever this
// machine detects (a cgroup where one can be made).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../proc.hpp"
#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

enum class Way { kProcWalk, kDetected };

// MUDJACK_PROCESS_TREE=proc for the engines a test starts, and the pid file
// the fixture cases write to.
class ProcessTree : public Cli, public ::testing::WithParamInterface<Way> {
 protected:
  void SetUp() override {
    Cli::SetUp();
    pids_file_ = dir_ / "pids.txt";
    ::setenv("MUDJACK_TEST_PIDS", pids_file_.c_str(), 1);
    if (GetParam() == Way::kProcWalk) ::setenv("MUDJACK_PROCESS_TREE", "proc", 1);
  }
  void TearDown() override {
    ::unsetenv("MUDJACK_PROCESS_TREE");
    ::unsetenv("MUDJACK_TEST_PIDS");
    Cli::TearDown();
  }

  std::vector<pid_t> noted_pids() {
    std::vector<pid_t> pids;
    std::ifstream in(pids_file_);
    for (pid_t pid; in >> pid;) pids.push_back(pid);
    return pids;
  }

  // True once `pid` is gone or a zombie, waiting up to 3 s for the kill to land.
  static bool ends(pid_t pid) {
    for (int i = 0; i < 150 && mjtest_proc::running(pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return !mjtest_proc::running(pid);
  }

  json cases_of(const fs::path& out) {
    auto list = runs(out);
    if (list.size() != 1) return json::object();
    auto results =
        json::parse(slurp(out / "runs" / list[0]["id"].get<std::string>() / "results.json"));
    json by_function = json::object();
    for (const auto& c : results["cases"]) by_function[c["function"].get<std::string>()] = c;
    return by_function;
  }

  fs::path pids_file_;
};

const fs::path kTreeSuite = kFixtures / "suites" / "tree";

TEST_P(ProcessTree, AChildsAllocationCountsAgainstTheProbesLimit) {
  // The case's child (its own session) makes 400 MiB resident; the probe
  // itself stays small. A limit on the probe's own resident set let it pass.
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kTreeSuite.string(), "--out", out.string(), "--filter",
                    "tree\\.child_allocates", "--memory-limit-mb", "200", "--timeout-s", "20",
                    "--budget-ms", "5"});
  ASSERT_LE(r.code, 1) << r.err;
  auto cases = cases_of(out);
  ASSERT_TRUE(cases.contains("tree.child_allocates")) << r.out << r.err;
  const auto& c = cases["tree.child_allocates"];
  EXPECT_EQ(c["outcome"], "crash") << c.dump();
  EXPECT_EQ(c["error"]["kind"], "out_of_memory") << c.dump();
  EXPECT_NE(c["error"]["message"].get<std::string>().find("exceeded the probe limit of 200 MiB"),
            std::string::npos)
      << c.dump();
  auto pids = noted_pids();
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(ends(pids[0])) << "the child that allocated dies with the probe";
}

TEST_P(ProcessTree, SharedMemoryHeldByADescriptorCountsAgainstTheLimit) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kTreeSuite.string(), "--out", out.string(), "--filter",
                    "tree\\.memfd_hoard", "--memory-limit-mb", "200", "--timeout-s", "25",
                    "--budget-ms", "5"});
  ASSERT_LE(r.code, 1) << r.err;
  auto cases = cases_of(out);
  ASSERT_TRUE(cases.contains("tree.memfd_hoard")) << r.out << r.err;
  const auto& c = cases["tree.memfd_hoard"];
  EXPECT_EQ(c["outcome"], "crash") << c.dump();
  EXPECT_EQ(c["error"]["kind"], "out_of_memory") << c.dump();
}

// Both ways: under the /proc walk a setsid'd child used to outlive its probe
// (a walk of the just-exited probe forgot what earlier walks had seen).
class SetsidTree : public ProcessTree {};

TEST_P(SetsidTree, ASetsidGrandchildDiesWithTheProbe) {
  // One case leaves a child in its own session and passes (it dies when the
  // engine ends the probe); the next does the same and hangs (it dies when
  // the timeout kills the probe).
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kTreeSuite.string(), "--out", out.string(), "--filter",
                    "tree\\.setsid_", "--timeout-s", "2", "--budget-ms", "5"});
  ASSERT_LE(r.code, 1) << r.err;
  auto cases = cases_of(out);
  EXPECT_EQ(cases["tree.setsid_child_left_behind"]["outcome"], "pass") << cases.dump();
  EXPECT_EQ(cases["tree.setsid_child_then_hang"]["outcome"], "timeout") << cases.dump();
  auto pids = noted_pids();
  ASSERT_GE(pids.size(), 2u) << "a passing case runs again for its timing rounds";
  for (pid_t pid : pids) EXPECT_TRUE(ends(pid)) << "pid " << pid << " outlived its probe";
}

TEST_F(Cli, AProbeHasNoControllingTerminal) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kTreeSuite.string(), "--out", out.string(), "--filter",
                    "tree\\.no_terminal", "--budget-ms", "2"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  auto doc = json::parse(slurp(out / "runs" / list[0]["id"].get<std::string>() / "results.json"));
  ASSERT_EQ(doc["cases"].size(), 1u);
  EXPECT_EQ(doc["cases"][0]["outcome"], "pass") << doc["cases"][0].dump();
}

// The cgroup way only: without a cgroup there is no record of a killed
// engine's trees to sweep (docs/deploy.md, limits).
class KilledEngineTree : public ProcessTree {};

TEST_P(KilledEngineTree, WhatAKilledEngineLeftDiesAtTheNextStart) {
  // SIGKILL runs nothing of the engine: its probe dies (PR_SET_PDEATHSIG),
  // but a child the probe put in a session of its own lives on, until the
  // next engine starts, whatever its command (here one that starts no probe).
  auto out = dir_ / "results";
  pid_t engine = spawn({"run", "--suite-dir", kTreeSuite.string(), "--out", out.string(),
                        "--filter", "tree\\.setsid_child_then_hang", "--timeout-s", "120"});
  for (int i = 0; i < 3000 && noted_pids().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(engine, SIGKILL);
  ::waitpid(engine, nullptr, 0);
  // Looked at at once: any engine that starts from now on (another test's,
  // in parallel) sweeps the dead engine's cgroup, as the next one here does.
  auto pids = noted_pids();
  ASSERT_EQ(pids.size(), 1u) << slurp(dir_ / "background.txt");
  ASSERT_TRUE(mjtest_proc::running(pids[0])) << "the child is expected to outlive a killed engine";
  auto r = mudjack({"runs", "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(ends(pids[0])) << "pid " << pids[0] << " outlived the next engine's start";
}

INSTANTIATE_TEST_SUITE_P(Ways, ProcessTree, ::testing::Values(Way::kProcWalk, Way::kDetected),
                         [](const auto& p) {
                           return p.param == Way::kProcWalk ? "ProcWalk" : "Detected";
                         });

TEST_F(Cli, AListingOverTheMemoryLimitIsRefusedNamingTheLimit) {
  const auto suite = (kFixtures / "suites" / "import-memory").string();
  auto r = mudjack({"run", "--suite-dir", suite, "--out", (dir_ / "results").string(),
                    "--memory-limit-mb", "200"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("mudjack: error: cannot list cases: the listing probe's resident memory"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 200 MiB"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;

  // `mudjack list` takes the limit from mudjack.toml.
  std::ofstream(dir_ / "mudjack.toml") << "[run]\nmemory_limit_mb = 150\n";
  r = mudjack({"list", "--suite-dir", suite, "--config", (dir_ / "mudjack.toml").string()});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 150 MiB"), std::string::npos) << r.err;

  // `repro` and `fuzz` list under the same limit (flag, else the file);
  // before, their listing probes had none.
  r = mudjack({"repro", "numpy/hungry.import/default-default-eager", "--suite-dir", suite, "--out",
               (dir_ / "results").string(), "--memory-limit-mb", "200"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 200 MiB"), std::string::npos) << r.err;
  r = mudjack({"repro", "numpy/hungry.import/default-default-eager", "--suite-dir", suite, "--out",
               (dir_ / "results").string(), "--config", (dir_ / "mudjack.toml").string()});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 150 MiB"), std::string::npos) << r.err;
  r = mudjack({"fuzz", "--suite", suite, "--graphs", "1", "--out", (dir_ / "results").string(),
               "--memory-limit-mb", "200"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 200 MiB"), std::string::npos) << r.err;
}

TEST_F(Cli, CheckHonoursTheTimeoutFlagAndTheTomlKey) {
  const auto target = (kFixtures / "check" / "sleepy.py").string() + ":slow_double";
  for (bool from_file : {false, true}) {
    std::ofstream(dir_ / "mudjack.toml") << "[run]\ntimeout_s = 2\n";
    std::vector<std::string> args = {"check",   target,  "--out", (dir_ / "results").string(),
                                     "--quick", "--json"};
    if (from_file) {
      args.insert(args.end(), {"--config", (dir_ / "mudjack.toml").string()});
    } else {
      args.insert(args.end(), {"--timeout-s", "2"});
    }
    const auto start = std::chrono::steady_clock::now();
    auto r = mudjack(args);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("\"timeout\""), std::string::npos) << r.out << r.err;
    EXPECT_LT(took, std::chrono::seconds(60)) << "the case's 120 s sleep was waited out";
  }
}

TEST_F(Cli, CheckHonoursTheMemoryLimitFlagAndTheTomlKey) {
  // NAME_inputs() runs in the listing probe and makes 400 MiB resident.
  const auto target = (kFixtures / "check" / "hungry_inputs.py").string() + ":doubled";
  auto r = mudjack({"check", target, "--out", (dir_ / "results").string(), "--memory-limit-mb",
                    "200", "--quick"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 200 MiB"), std::string::npos) << r.err;

  std::ofstream(dir_ / "mudjack.toml") << "[run]\nmemory_limit_mb = 150\n";
  r = mudjack({"check", target, "--out", (dir_ / "results").string(), "--config",
               (dir_ / "mudjack.toml").string(), "--quick"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeded the probe limit of 150 MiB"), std::string::npos) << r.err;

  // The flag wins over the file, in the range `mudjack run` takes.
  r = mudjack(
      {"check", target, "--config", (dir_ / "mudjack.toml").string(), "--memory-limit-mb", "0"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--memory-limit-mb must be more than 0"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Ways, KilledEngineTree, ::testing::Values(Way::kDetected),
                         [](const auto&) { return "Detected"; });
INSTANTIATE_TEST_SUITE_P(Ways, SetsidTree, ::testing::Values(Way::kProcWalk, Way::kDetected),
                         [](const auto& p) {
                           return p.param == Way::kProcWalk ? "ProcWalk" : "Detected";
                         });

}  // namespace
