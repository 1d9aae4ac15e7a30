// Integration tests: the cpu lane as several probes (--cpu-probes,
// supervisor::lay_out) through the real binary and real numpy probes. Each
// probe is pinned to the core set results.json records, with its
// frameworks' threads set to that set's size; every pair gets exactly one
// outcome, and the verdicts are those of a run with one probe. No timing is
// asserted.

#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kProbes = (kFixtures / "suites" / "cpu-probes").string();

json newest_results(const fs::path& out) {
  for (const auto& e : fs::directory_iterator(out / "runs")) {
    return json::parse(slurp(e.path() / "results.json"));
  }
  return json();
}

size_t engine_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return static_cast<size_t>(CPU_COUNT(&set));
}

// The cpu lane's probes as recorded: (core bitmask, threads) each.
std::vector<std::pair<int64_t, int64_t>> cpu_probes(const json& results) {
  std::vector<std::pair<int64_t, int64_t>> probes;
  const auto& layout = results["environment"]["machines"][0]["layout"];
  for (const auto& lane : layout["lanes"]) {
    if (lane["device"] != "cpu") continue;
    for (const auto& p : lane["probes"]) {
      int64_t mask = 0;
      for (const auto& c : p["cpus"]) mask |= int64_t{1} << c.get<int>();
      probes.emplace_back(mask, p["threads"].get<int64_t>());
    }
  }
  return probes;
}

double metric(const json& c, const std::string& name) {
  return c["metrics"][name]["value"].get<double>();
}

// (function, device) -> verdict
std::map<std::string, std::string> verdicts(const json& results) {
  std::map<std::string, std::string> out;
  for (const auto& v : results["verdicts"]) {
    out[v["function"].get<std::string>() + " " + v["device"].get<std::string>()] = v["verdict"];
  }
  return out;
}

TEST_F(Cli, CpuProbesRunOnTheirRecordedCoresAndJudgeAsOneProbe) {
  if (engine_cores() < 2) GTEST_SKIP() << "needs 2 cores";
  auto two = dir_ / "two";
  auto r = mudjack({"run", "--suite-dir", kProbes, "--out", two.string(), "--cpu-probes", "2",
                    "--budget-ms", "1", "--rounds", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = newest_results(two);
  EXPECT_EQ(results["run"]["options"]["cpu_probes"], 2);
  const auto probes = cpu_probes(results);
  ASSERT_EQ(probes.size(), 2u) << results["environment"].dump();
  EXPECT_EQ(probes[0].first & probes[1].first, 0) << "core sets overlap";
  const size_t per = engine_cores() / 2;
  for (const auto& [mask, threads] : probes) {
    EXPECT_EQ(static_cast<size_t>(__builtin_popcountll(static_cast<uint64_t>(mask))), per);
    EXPECT_EQ(static_cast<size_t>(threads), per);
  }
  // Exactly one outcome per pair, each case run where a recorded probe sits.
  std::set<std::string> ids;
  for (const auto& c : results["cases"]) {
    EXPECT_TRUE(
        ids.insert(c["id"].get<std::string>() + " " + c["device"].get<std::string>()).second)
        << "two outcomes for " << c["id"];
    ASSERT_EQ(c["outcome"], "pass") << c.dump();
    const auto mask = static_cast<int64_t>(metric(c, "cores_mask"));
    const auto threads = static_cast<int64_t>(metric(c, "omp_threads"));
    bool recorded = false;
    for (const auto& p : probes) recorded = recorded || (p.first == mask && p.second == threads);
    EXPECT_TRUE(recorded) << c["id"] << " ran on cores " << mask << " with " << threads
                          << " threads";
  }
  EXPECT_EQ(ids.size(), 8u);

  auto one = dir_ / "one";
  r = mudjack({"run", "--suite-dir", kProbes, "--out", one.string(), "--cpu-probes", "1",
               "--budget-ms", "1", "--rounds", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto single = newest_results(one);
  const auto lone = cpu_probes(single);
  ASSERT_EQ(lone.size(), 1u);
  EXPECT_EQ(lone[0].second, 0) << "one probe on every core keeps the framework's threads";
  for (const auto& c : single["cases"]) {
    EXPECT_EQ(metric(c, "omp_threads"), 0) << c["id"];
  }
  EXPECT_EQ(verdicts(single), verdicts(results));
  EXPECT_EQ(single["cases"].size(), results["cases"].size());
  // The report shows where the probes ran.
  for (const auto& e : fs::directory_iterator(two / "runs")) {
    auto md = slurp(e.path() / "summary.md");
    EXPECT_NE(md.find("probes of cpu"), std::string::npos) << md.substr(0, 2000);
  }
}

TEST_F(Cli, DeviceProbesOutOfRangeAreRefusedAndTheChoiceIsRecorded) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kProbes, "--out", out.string(), "--device-probes", "17"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--device-probes"), std::string::npos) << r.err;
  r = mudjack({"run", "--suite-dir", kProbes, "--out", out.string(), "--device-probes", "1",
               "--budget-ms", "1", "--rounds", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = newest_results(out);
  EXPECT_EQ(results["run"]["options"]["device_probes"], 1);
  // Only cpu here: its lane is never shared.
  for (const auto& lane : results["environment"]["machines"][0]["layout"]["lanes"]) {
    EXPECT_EQ(lane["shared"], false) << lane.dump();
  }
}

TEST_F(Cli, CpuProbesOutOfRangeAreRefused) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kProbes, "--out", out.string(), "--cpu-probes", "-1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--cpu-probes"), std::string::npos) << r.err;
  // mudjack.toml's run.cpu_probes: an integer in the same range, under the flag.
  std::ofstream(dir_ / "half.toml") << "[run]\ncpu_probes = 2.5\n";
  r = mudjack({"run", "--config", (dir_ / "half.toml").string(), "--suite-dir", kProbes, "--out",
               out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("run.cpu_probes must be an integer"), std::string::npos) << r.err;
  std::ofstream(dir_ / "one.toml") << "[run]\ncpu_probes = 1\n";
  r = mudjack({"run", "--config", (dir_ / "one.toml").string(), "--suite-dir", kProbes, "--out",
               out.string(), "--budget-ms", "1", "--rounds", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(newest_results(out)["run"]["options"]["cpu_probes"], 1);
}

}  // namespace
