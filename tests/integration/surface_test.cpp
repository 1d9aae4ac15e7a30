// Integration tests of the run policy `once` and claimed-versus-actual
// support (the real binary, real numpy probes, tests/fixtures/suites/surface).

#include <gtest/gtest.h>

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

const std::string kSurface = (kFixtures / "suites" / "surface").string();

TEST_F(Cli, OncePolicyCallsEachCaseOnceAndJudgesClaims) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kSurface, "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  const fs::path run_dir = out / "runs" / list[0]["id"].get<std::string>();
  auto results = json::parse(slurp(run_dir / "results.json"));
  EXPECT_EQ(results["schema_version"], "1.13");
  std::map<std::string, json> cases;
  for (const auto& c : results["cases"]) cases[c["id"].get<std::string>()] = c;
  const auto& sqrt32 = cases["numpy/surface.sqrt/float32-default-eager"];
  EXPECT_EQ(sqrt32["outcome"], "pass");
  EXPECT_EQ(sqrt32["policy"], "once");
  // One call: its time, no samples, no median, no rounds.
  EXPECT_GT(sqrt32["latency"]["cold_ns"].get<double>(), 0);
  EXPECT_TRUE(sqrt32["latency"]["samples_ns"].empty()) << sqrt32["latency"].dump();
  EXPECT_TRUE(sqrt32["latency"]["median_ns"].is_null());
  EXPECT_FALSE(sqrt32["outputs"].empty()) << "a once case's outputs are judged";
  // Claims: both directions, with their evidence.
  const auto& claims = results["claims"]["numpy"]["cpu"];
  EXPECT_EQ(claims["agrees"], 4);
  ASSERT_EQ(claims["claimed_failing"].size(), 1u);
  EXPECT_EQ(claims["claimed_failing"][0]["case"], "numpy/surface.gather/int32-default-eager");
  EXPECT_TRUE(has(claims["claimed_failing"][0]["error"], "no kernel for int32"));
  ASSERT_EQ(claims["unclaimed_working"].size(), 1u);
  EXPECT_EQ(claims["unclaimed_working"][0]["function"], "surface.sqrt");
  EXPECT_EQ(claims["unclaimed_working"][0]["dtype"], "float16");
  EXPECT_TRUE(has(r.out, "claimed vs actual, numpy on cpu: 4 agree, 1 claimed but failing"))
      << r.out;
  auto summary = slurp(run_dir / "summary.md");
  EXPECT_TRUE(has(summary, "## Claimed vs actual support")) << summary;
  EXPECT_TRUE(has(summary, "`surface.sqrt` `float16`")) << summary;
}

TEST_F(Cli, PolicyFlagOverridesTheDeclaredPolicy) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kSurface, "--out", out.string(), "--policy", "timed",
                    "--function", "surface.sqrt", "--budget-ms", "1", "--rounds", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  auto results =
      json::parse(slurp(out / "runs" / list[0]["id"].get<std::string>() / "results.json"));
  EXPECT_EQ(results["run"]["options"]["policy"], "timed");
  for (const auto& c : results["cases"]) {
    EXPECT_FALSE(c["latency"]["samples_ns"].empty()) << c["id"] << " was timed";
    EXPECT_TRUE(c["latency"]["median_ns"].is_number()) << c["id"];
  }
}

TEST_F(Cli, UnknownPolicyIsRefused) {
  auto r = mudjack(
      {"run", "--suite-dir", kSurface, "--out", (dir_ / "results").string(), "--policy", "fast"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--policy")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "results" / "runs"));
}

}  // namespace
