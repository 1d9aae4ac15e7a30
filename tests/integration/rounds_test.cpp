// Integration tests: timing rounds through the real binary and real numpy
// probes. Every host-bound case is timed in rounds interleaved across cases;
// its median is the median of its round medians, and a crash in a later
// round is the case's outcome, stored once.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kRounds = (kFixtures / "suites" / "rounds").string();
const std::string kJitter = (kFixtures / "suites" / "jitter").string();

json newest_results(const fs::path& out) {
  for (const auto& e : fs::directory_iterator(out / "runs")) {
    return json::parse(slurp(e.path() / "results.json"));
  }
  return json();
}

TEST_F(Cli, HostBoundCasesGetThreeRoundsAndTheMedianOfTheirMedians) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kRounds, "--out", out.string(), "--budget-ms", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = newest_results(out);
  EXPECT_EQ(results["run"]["options"]["rounds"], 3);
  std::map<std::string, json> by_case;
  for (const auto& c : results["cases"]) by_case[c["function"]] = c;
  const auto& latency = by_case["rounds.add"]["latency"];
  const auto& timing = latency["timing"];
  ASSERT_TRUE(timing.is_object()) << latency.dump();
  EXPECT_EQ(timing["bound"], "host_bound");
  EXPECT_EQ(timing["rule"], "host");
  ASSERT_EQ(timing["rounds"].size(), 3u);
  std::vector<double> rounds = timing["rounds"].get<std::vector<double>>();
  std::sort(rounds.begin(), rounds.end());
  EXPECT_EQ(latency["median_ns"].get<double>(), rounds[1]);
  EXPECT_EQ(timing["drift_ns"].size(), 3u);
  EXPECT_EQ(timing["unstable"], timing["spread"].get<double>() > 0.10);
}

// A case whose rounds disagree is marked unstable wherever its median is
// shown; a steady one is not. No timed assertion beyond that class: each
// round of the noisy case spins twice as long per call as the round before
// (tests/fixtures/suites/jitter), the steady one spins 200 us every round.
TEST_F(Cli, ANoisyCaseIsUnstableEverywhereItsMedianIsShownAndASteadyOneIsNot) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kJitter, "--out", out.string(), "--budget-ms", "20"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = newest_results(out);
  std::map<std::string, json> by_case;
  for (const auto& c : results["cases"]) by_case[c["function"]] = c;
  const auto& noisy = by_case["jitter.noisy"]["latency"]["timing"];
  const auto& steady = by_case["jitter.steady"]["latency"]["timing"];
  ASSERT_EQ(noisy["rounds"].size(), 3u) << noisy.dump();
  EXPECT_TRUE(noisy["unstable"].get<bool>()) << noisy.dump();
  EXPECT_GT(noisy["spread"].get<double>(), 0.10);
  EXPECT_FALSE(steady["unstable"].get<bool>()) << steady.dump();
  EXPECT_NE(r.err.find("jitter.noisy"), std::string::npos);
  EXPECT_NE(r.err.find("(unstable, spread "), std::string::npos) << r.err;  // the progress line
  EXPECT_NE(r.out.find("timing: 1 of 2 timed cases unstable"), std::string::npos) << r.out;
  const fs::path run_dir = out / "runs" / results["run"]["id"].get<std::string>();
  const auto summary = slurp(run_dir / "summary.md");
  EXPECT_NE(summary.find("## Timing"), std::string::npos) << summary;
  EXPECT_NE(summary.find("`numpy/jitter.noisy/int32"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("`numpy/jitter.steady/int32"), std::string::npos) << summary;
  const auto csv = slurp(run_dir / "results.csv");
  EXPECT_NE(csv.find(",unstable,spread,"), std::string::npos) << csv.substr(0, csv.find('\n'));
  EXPECT_NE(csv.find(",true,"), std::string::npos);
  EXPECT_NE(csv.find(",false,"), std::string::npos);
}

TEST_F(Cli, ACrashInALaterRoundIsTheCasesOutcome) {
  auto out = dir_ / "results";
  auto marker = dir_ / "built";
  ::setenv("MUDJACK_ROUNDS_MARKER", marker.c_str(), 1);
  auto r = mudjack({"run", "--suite-dir", kRounds, "--out", out.string(), "--budget-ms", "2"});
  ::unsetenv("MUDJACK_ROUNDS_MARKER");
  ASSERT_TRUE(fs::exists(marker)) << r.err;
  auto results = newest_results(out);
  std::map<std::string, json> by_case;
  for (const auto& c : results["cases"]) by_case[c["function"]] = c;
  const auto& crashed = by_case["rounds.crash_later"];
  EXPECT_EQ(crashed["outcome"], "crash") << crashed.dump();
  EXPECT_EQ(crashed["error"]["message"].get<std::string>().rfind("timing round 2: ", 0), 0u)
      << crashed["error"].dump();
  EXPECT_TRUE(crashed["outputs"].empty());
  EXPECT_EQ(crashed["extra"]["round_failed"], 2);
  EXPECT_EQ(by_case["rounds.add"]["outcome"], "pass");  // the next case runs in a new probe
  EXPECT_EQ(by_case["rounds.add"]["latency"]["timing"]["rounds"].size(), 3u);
}

TEST_F(Cli, OneRoundLeavesEveryCaseWithOne) {
  auto out = dir_ / "results";
  auto r = mudjack(
      {"run", "--suite-dir", kRounds, "--out", out.string(), "--budget-ms", "2", "--rounds", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto results = newest_results(out);  // alive while the loop reads into it
  for (const auto& c : results["cases"]) {
    EXPECT_EQ(c["latency"]["timing"]["rounds"].size(), 1u) << c["id"];
  }
  r = mudjack({"run", "--suite-dir", kRounds, "--out", out.string(), "--rounds", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--rounds must be"), std::string::npos) << r.err;
}

}  // namespace
