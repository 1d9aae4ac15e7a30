// Unit tests for run::RunOptions' ranges: every numeric run option, whoever
// sets it (flags, mudjack.toml, the API, a stored run), is checked by the
// same bounds, NaN and infinities included.

#include "run/options.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace mudjack::run {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(RunOptionsRange, RefusesNonFiniteAndOutOfRangeNumbersNamingTheField) {
  for (double bad : {kNaN, kInf, -kInf, 1e300, 0.0, -1.0, 86400.5}) {
    auto why = out_of_range("--timeout-s", bad, kTimeoutRangeS);
    ASSERT_TRUE(why.has_value()) << bad;
    EXPECT_EQ(why->rfind("--timeout-s must be more than 0 and at most 86400, got ", 0), 0u) << *why;
  }
  for (double good : {0.001, 1.0, 86400.0}) {
    EXPECT_FALSE(out_of_range("--timeout-s", good, kTimeoutRangeS).has_value()) << good;
  }
  EXPECT_FALSE(out_of_range("warmup_ms", 0.0, kWarmupRangeMs).has_value()) << "[0, ...]";
  EXPECT_EQ(*out_of_range("run.budget_ms", kNaN, kBudgetRangeMs),
            "run.budget_ms must be more than 0 and at most 600000, got nan");
  EXPECT_TRUE(out_of_range("--memory-limit-mb", 1e308, kMemoryLimitRangeMb).has_value());
  EXPECT_FALSE(out_of_range("--memory-limit-mb", 512.0, kMemoryLimitRangeMb).has_value());
}

TEST(RunOptionsRange, IntegersAndSeeds) {
  EXPECT_EQ(*out_of_range("--seed", int64_t{-1}, kSeedRange),
            "--seed must be between 0 and 9223372036854775807, got -1");
  EXPECT_FALSE(out_of_range("--seed", int64_t{0}, kSeedRange).has_value());
  EXPECT_FALSE(out_of_range("--seed", INT64_MAX, kSeedRange).has_value());
  EXPECT_TRUE(out_of_range("'min_samples'", int64_t{0}, kSamplesRange).has_value());
  EXPECT_TRUE(out_of_range("'max_samples'", int64_t{1'000'001}, kSamplesRange).has_value());
}

TEST(RunOptionsRange, TheLargestMemoryLimitFitsInBytes) {
  EXPECT_EQ(mb_to_bytes(1), 1048576);
  EXPECT_GT(mb_to_bytes(kMemoryLimitRangeMb.high), 0);
  EXPECT_LT(kMemoryLimitRangeMb.high * 1048576, static_cast<double>(INT64_MAX));
}

TEST(RunOptionsInvalid, EveryFieldIsChecked) {
  EXPECT_FALSE(invalid(RunOptions{}).has_value()) << "the defaults run";
  const auto with = [](auto change) {
    RunOptions o;
    change(o);
    return invalid(o).value_or("<valid>");
  };
  EXPECT_NE(with([](RunOptions& o) { o.timeout_s = kNaN; }).find("timeout_s"), std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.timeout_s = 1e300; }).find("timeout_s"), std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.budget_ms = kNaN; }).find("budget_ms"), std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.warmup_ms = kInf; }).find("warmup_ms"), std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.seed = -1; }).find("seed"), std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.min_samples = 0; }).find("min_samples"), std::string::npos);
  EXPECT_NE(
      with([](RunOptions& o) { o.min_samples = 9, o.max_samples = 3; }).find("must not exceed"),
      std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.memory_limit_bytes = INT64_MIN; }).find("memory_limit"),
            std::string::npos);
  EXPECT_EQ(with([](RunOptions& o) { o.memory_limit_bytes = 0; }), "<valid>") << "0: the default";
  EXPECT_NE(with([](RunOptions& o) { o.cpu_probes = -1; }).find("cpu_probes"), std::string::npos);
  EXPECT_NE(with([](RunOptions& o) { o.cpu_probes = 1025; }).find("cpu_probes"), std::string::npos);
  EXPECT_EQ(with([](RunOptions& o) { o.cpu_probes = 0; }), "<valid>") << "0: from the host";
}

// --cpu-probes is stored with the run, so --resume lays the cpu lane out
// as asked; a run stored before it has the default, 0 (from the host).
TEST(RunOptionsInvalid, CpuProbesAreStoredAndReadBack) {
  RunOptions o;
  o.cpu_probes = 6;
  EXPECT_EQ(from_json(to_json(o), "cpu").cpu_probes, 6);
  EXPECT_EQ(from_json(nlohmann::json::object(), "cpu").cpu_probes, 0);
}

// A run stored before the checks existed reads back as what it was; reopen()
// refuses it through invalid().
TEST(RunOptionsInvalid, StoredOptionsReadBackAndAreChecked) {
  RunOptions o;
  o.seed = 42;
  o.timeout_s = 30;
  auto back = from_json(to_json(o), "cpu");
  EXPECT_EQ(back.seed, 42);
  EXPECT_FALSE(invalid(back).has_value());
  auto stored = to_json(o);
  stored["seed"] = -1;
  EXPECT_TRUE(invalid(from_json(stored, "cpu")).has_value());
}

TEST(RunOptionsDevices, AskingForDevicesRunsTheBaselineTooUnlessNoBaseline) {
  RunOptions o;
  EXPECT_TRUE(planned_devices(o).empty()) << "no selection: every device";
  o.devices = {"cuda:0"};
  EXPECT_EQ(planned_devices(o), (std::vector<std::string>{"cpu", "cuda:0"}));
  o.devices = {"cpu", "cuda:0"};
  EXPECT_EQ(planned_devices(o), (std::vector<std::string>{"cpu", "cuda:0"}));
  o.devices = {"cuda:0"};
  o.no_baseline = true;
  EXPECT_EQ(planned_devices(o), (std::vector<std::string>{"cuda:0"}));
  // Stored and read back: a resumed run plans the same devices.
  auto back = from_json(to_json(o), o.baseline);
  EXPECT_TRUE(back.no_baseline);
  EXPECT_FALSE(from_json(nlohmann::json::object(), "cpu").no_baseline)
      << "a run stored before the flag ran its baseline";
}

}  // namespace
}  // namespace mudjack::run
