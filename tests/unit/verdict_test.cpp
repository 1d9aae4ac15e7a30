// Verdict rules on crafted results: every verdict, their precedence, flags,
// the latency ratio against the baseline device, and what counts as attempted.

#include "verdict/verdict.hpp"

#include "verdict/judged.hpp"

#include "stats/stats.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace mudjack::verdict {
namespace {

using model::CaseResult;
using model::ErrorKind;
using model::Outcome;
using model::Verdict;
using model::VerdictRow;

// One crafted result; a constructor rather than an aggregate so that rows
// can leave trailing fields out.
struct Case {
  Case(std::string function_, std::string variant_, std::string device_,
       Outcome outcome_ = Outcome::kPass, std::optional<double> median_ns_ = std::nullopt,
       ErrorKind kind_ = ErrorKind::kNone, std::string framework_ = "torch")
      : function(std::move(function_)),
        variant(std::move(variant_)),
        device(std::move(device_)),
        outcome(outcome_),
        median_ns(median_ns_),
        kind(kind_),
        framework(std::move(framework_)) {}

  std::string function;
  std::string variant;
  std::string device;
  Outcome outcome;
  std::optional<double> median_ns;
  ErrorKind kind;
  std::string framework;
};

CaseResult make(const Case& c) {
  CaseResult r;
  r.info.framework = c.framework;
  r.info.function = c.function;
  r.info.variant = c.variant;
  r.info.id = c.framework + "/" + c.function + "/" + c.variant;
  r.device = c.device;
  r.outcome = c.outcome;
  r.error.kind = c.kind;
  // Crafted passes are checked by a host reference unless a test says otherwise.
  if (c.outcome == Outcome::kPass) {
    r.extra["checks"] =
        nlohmann::json::array({{{"name", "matches numpy"}, {"kind", "reference"}, {"ok", true}}});
  }
  if (c.median_ns) {
    model::LatencyStats s;
    s.median_ns = *c.median_ns;
    s.n = 1;
    r.latency.samples_ns = {*c.median_ns};
    r.latency.stats = s;
  }
  return r;
}

std::vector<CaseResult> make_all(const std::vector<Case>& cases) {
  std::vector<CaseResult> out;
  out.reserve(cases.size());
  for (const Case& c : cases) {
    out.push_back(make(c));
  }
  return out;
}

// The single row for (function, device); fails the test if absent.
VerdictRow row_for(const std::vector<VerdictRow>& rows, const std::string& function,
                   const std::string& device) {
  for (const VerdictRow& r : rows) {
    if (r.function == function && r.device == device) {
      return r;
    }
  }
  ADD_FAILURE() << "no row for " << function << " on " << device;
  return {};
}

VerdictRow judge_one(const std::vector<Case>& cases, const std::string& function,
                     const std::string& device, const Options& options = {}) {
  return row_for(compute(make_all(cases), options), function, device);
}

TEST(Verdict, PortableWhenEverythingPassesAtModestRatio) {
  const auto rows = compute(make_all({
                                {"add", "a", "cpu", Outcome::kPass, 100.0},
                                {"add", "b", "cpu", Outcome::kPass, 200.0},
                                {"add", "a", "cuda:0", Outcome::kPass, 200.0},
                                {"add", "b", "cuda:0", Outcome::kPass, 400.0},
                            }),
                            {});
  ASSERT_EQ(rows.size(), 2u);
  const VerdictRow cuda = row_for(rows, "add", "cuda:0");
  EXPECT_EQ(cuda.verdict, Verdict::kPortable);
  EXPECT_TRUE(cuda.flags.empty());
  EXPECT_EQ(cuda.cases, 2);
  ASSERT_TRUE(cuda.latency_ratio.has_value());
  EXPECT_EQ(*cuda.latency_ratio, 2.0);
  EXPECT_EQ(cuda.reason, "all 2 cases passed; latency ratio 2x <= 10x");
  const VerdictRow cpu = row_for(rows, "add", "cpu");
  EXPECT_EQ(cpu.verdict, Verdict::kPortable);
  EXPECT_FALSE(cpu.latency_ratio.has_value());  // the baseline has no ratio to itself
  EXPECT_EQ(cpu.reason, "all 2 cases passed");
}

TEST(Verdict, UnavailableWhenNothingWasAttempted) {
  const VerdictRow r = judge_one({{"fft", "a", "cuda:0", Outcome::kUnavailable},
                                  {"fft", "b", "cuda:0", Outcome::kUnavailable},
                                  {"fft", "c", "cuda:0", Outcome::kSkip}},
                                 "fft", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kUnavailable);
  EXPECT_TRUE(r.flags.empty());
  EXPECT_EQ(r.cases, 3);
  EXPECT_EQ(r.reason, "no case could be attempted: 2 unavailable, 1 skipped");
}

TEST(Verdict, CompleteFailureWhenEveryAttemptedCaseFailed) {
  const VerdictRow r =
      judge_one({{"svd", "c", "cuda:0", Outcome::kFail, {}, ErrorKind::kNotImplemented},
                 {"svd", "a", "cuda:0", Outcome::kFail, {}, ErrorKind::kNotImplemented},
                 {"svd", "b", "cuda:0", Outcome::kCrash},
                 {"svd", "d", "cuda:0", Outcome::kUnavailable}},
                "svd", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kCompleteFailure);
  EXPECT_EQ(r.flags, (std::vector<Verdict>{Verdict::kUnavailable}));
  EXPECT_EQ(r.cases, 4);
  EXPECT_EQ(r.failing, (std::vector<std::string>{"torch/svd/a", "torch/svd/b", "torch/svd/c"}));
  EXPECT_EQ(r.reason, "all 3 attempted cases failed: not_implemented x2, crash x1; 1 unavailable");
}

TEST(Verdict, CompleteFailureOfASingleCaseReadsNaturally) {
  const VerdictRow r = judge_one({{"svd", "a", "cuda:0", Outcome::kTimeout}}, "svd", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kCompleteFailure);
  EXPECT_EQ(r.reason, "the only case failed: timeout x1");
}

TEST(Verdict, PartialFailureWithFailureBreakdown) {
  const VerdictRow r =
      judge_one({{"mm", "a", "cuda:0", Outcome::kFail, {}, ErrorKind::kUnsupportedDtype},
                 {"mm", "b", "cuda:0", Outcome::kFail, {}, ErrorKind::kOutOfMemory},
                 {"mm", "c", "cuda:0", Outcome::kFail, {}, ErrorKind::kOutOfMemory},
                 {"mm", "d", "cuda:0", Outcome::kTimeout},
                 {"mm", "e", "cuda:0", Outcome::kFail},
                 {"mm", "f", "cuda:0", Outcome::kPass}},
                "mm", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kPartialFailure);
  EXPECT_TRUE(r.flags.empty());
  EXPECT_EQ(r.reason,
            "5 of 6 cases failed: out_of_memory x2, fail x1, timeout x1, unsupported_dtype x1");
  EXPECT_TRUE(r.mismatching.empty());
}

TEST(Verdict, PartialFailureOutranksDivergenceAndLatencyWhichBecomeFlags) {
  const VerdictRow r = judge_one({{"conv", "a", "cpu", Outcome::kPass, 10.0},
                                  {"conv", "b", "cpu", Outcome::kPass, 10.0},
                                  {"conv", "c", "cpu", Outcome::kPass, 10.0},
                                  {"conv", "a", "cuda:0", Outcome::kPass, 200.0},
                                  {"conv", "b", "cuda:0", Outcome::kMismatch, 200.0},
                                  {"conv", "c", "cuda:0", Outcome::kTimeout}},
                                 "conv", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kPartialFailure);
  EXPECT_EQ(r.flags, (std::vector<Verdict>{Verdict::kDivergent, Verdict::kIntolerableLatency}));
  EXPECT_EQ(r.failing, (std::vector<std::string>{"torch/conv/c"}));
  EXPECT_EQ(r.mismatching, (std::vector<std::string>{"torch/conv/b"}));
  EXPECT_EQ(r.latency_ratio, 20.0);  // mismatching cases still count for latency
  EXPECT_EQ(r.reason,
            "1 of 3 cases failed: timeout x1; 1 diverged (1 full_precision); "
            "latency ratio 20x > 10x");
}

TEST(Verdict, DivergentOutranksLatency) {
  const VerdictRow r = judge_one({{"sum", "a", "cpu", Outcome::kPass, 10.0},
                                  {"sum", "b", "cpu", Outcome::kPass, 10.0},
                                  {"sum", "a", "cuda:0", Outcome::kMismatch, 500.0},
                                  {"sum", "b", "cuda:0", Outcome::kPass, 500.0}},
                                 "sum", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kDivergent);
  EXPECT_EQ(r.flags, (std::vector<Verdict>{Verdict::kIntolerableLatency}));
  EXPECT_EQ(r.mismatching, (std::vector<std::string>{"torch/sum/a"}));
  EXPECT_TRUE(r.failing.empty());
  EXPECT_EQ(r.reason, "1 of 2 cases diverged (1 full_precision); latency ratio 50x > 10x");
}

TEST(Verdict, IntolerableLatency) {
  const VerdictRow r = judge_one(
      {{"sort", "a", "cpu", Outcome::kPass, 10.0}, {"sort", "a", "cuda:0", Outcome::kPass, 142.0}},
      "sort", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kIntolerableLatency);
  EXPECT_TRUE(r.flags.empty());
  ASSERT_TRUE(r.latency_ratio.has_value());
  EXPECT_DOUBLE_EQ(*r.latency_ratio, 14.2);
  EXPECT_EQ(r.reason, "latency ratio 14.2x > 10x");
}

TEST(Verdict, RatioExactlyAtThresholdIsTolerable) {
  const VerdictRow at = judge_one(
      {{"sort", "a", "cpu", Outcome::kPass, 10.0}, {"sort", "a", "cuda:0", Outcome::kPass, 100.0}},
      "sort", "cuda:0");
  EXPECT_EQ(at.latency_ratio, 10.0);
  EXPECT_EQ(at.verdict, Verdict::kPortable);
  EXPECT_EQ(at.reason, "the only case passed; latency ratio 10x <= 10x");

  // A geometric mean that is 10 only up to rounding (ratios 5 and 20).
  const VerdictRow rounded = judge_one({{"sort", "a", "cpu", Outcome::kPass, 10.0},
                                        {"sort", "b", "cpu", Outcome::kPass, 10.0},
                                        {"sort", "a", "cuda:0", Outcome::kPass, 50.0},
                                        {"sort", "b", "cuda:0", Outcome::kPass, 200.0}},
                                       "sort", "cuda:0");
  ASSERT_TRUE(rounded.latency_ratio.has_value());
  EXPECT_DOUBLE_EQ(*rounded.latency_ratio, 10.0);
  EXPECT_EQ(rounded.verdict, Verdict::kPortable);

  const VerdictRow above = judge_one(
      {{"sort", "a", "cpu", Outcome::kPass, 10.0}, {"sort", "a", "cuda:0", Outcome::kPass, 100.1}},
      "sort", "cuda:0");
  EXPECT_EQ(above.verdict, Verdict::kIntolerableLatency);
  EXPECT_EQ(above.reason, "latency ratio 10.01x > 10x");  // more digits than 3 near the line
}

TEST(Verdict, PerFunctionThresholdOverridesTheDefault) {
  Options options;
  options.function_ratios["sort"] = 30;
  const std::vector<Case> cases{{"sort", "a", "cpu", Outcome::kPass, 10.0},
                                {"sort", "a", "cuda:0", Outcome::kPass, 200.0},
                                {"topk", "a", "cpu", Outcome::kPass, 10.0},
                                {"topk", "a", "cuda:0", Outcome::kPass, 200.0}};
  const auto rows = compute(make_all(cases), options);
  EXPECT_EQ(row_for(rows, "sort", "cuda:0").verdict, Verdict::kPortable);
  EXPECT_EQ(row_for(rows, "sort", "cuda:0").reason,
            "the only case passed; latency ratio 20x <= 30x");
  EXPECT_EQ(row_for(rows, "topk", "cuda:0").verdict, Verdict::kIntolerableLatency);
}

TEST(Verdict, ChosenBaselineDeviceHasNoRatioAndOthersCompareToIt) {
  Options options;
  options.baseline = "cuda:0";
  options.intolerable_ratio = 5;
  const auto rows = compute(make_all({{"exp", "a", "cpu", Outcome::kPass, 100.0},
                                      {"exp", "a", "cuda:0", Outcome::kPass, 10.0}}),
                            options);
  EXPECT_FALSE(row_for(rows, "exp", "cuda:0").latency_ratio.has_value());
  const VerdictRow cpu = row_for(rows, "exp", "cpu");
  EXPECT_EQ(cpu.latency_ratio, 10.0);
  EXPECT_EQ(cpu.verdict, Verdict::kIntolerableLatency);
  EXPECT_EQ(cpu.reason, "latency ratio 10x > 5x");
}

TEST(Verdict, RatioOnlyFromPairsWhereBothSidesRanAndWereTimed) {
  const VerdictRow r = judge_one(
      {
          {"log", "a", "cpu", Outcome::kPass, 10.0},  // pairs with cuda a: ratio 3
          {"log", "b", "cpu", Outcome::kPass, {}},    // baseline not timed
          {"log", "c", "cpu", Outcome::kPass, 0.0},   // baseline median 0
          {"log", "d", "cpu", Outcome::kFail, 10.0},  // baseline did not run
          {"log", "a", "cuda:0", Outcome::kPass, 30.0},
          {"log", "b", "cuda:0", Outcome::kPass, 1000.0},
          {"log", "c", "cuda:0", Outcome::kPass, 1000.0},
          {"log", "d", "cuda:0", Outcome::kPass, 1000.0},
          {"log", "e", "cuda:0", Outcome::kPass, 1000.0},  // no baseline case at all
          {"log", "f", "cuda:0", Outcome::kPass, {}},      // device not timed
      },
      "log", "cuda:0");
  EXPECT_EQ(r.latency_ratio, 3.0);
  EXPECT_EQ(r.verdict, Verdict::kPortable);

  const VerdictRow none = judge_one(
      {{"log", "a", "cpu", Outcome::kPass, {}}, {"log", "a", "cuda:0", Outcome::kPass, 50.0}},
      "log", "cuda:0");
  EXPECT_FALSE(none.latency_ratio.has_value());
  EXPECT_EQ(none.verdict, Verdict::kPortable);
  EXPECT_EQ(none.reason, "the only case passed");
}

TEST(Verdict, RatioPairsByCaseIdNotByPosition) {
  const VerdictRow r = judge_one({{"abs", "b", "cpu", Outcome::kPass, 20.0},
                                  {"abs", "a", "cpu", Outcome::kPass, 10.0},
                                  {"abs", "a", "cuda:0", Outcome::kPass, 40.0},
                                  {"abs", "b", "cuda:0", Outcome::kPass, 80.0}},
                                 "abs", "cuda:0");
  EXPECT_EQ(r.latency_ratio, 4.0);
}

TEST(Verdict, UnavailableAndSkipAreNotAttempted) {
  // One pass among skips and unavailable cases: portable, with only the
  // unavailable ones flagged.
  const VerdictRow r = judge_one({{"qr", "a", "cuda:0", Outcome::kPass},
                                  {"qr", "b", "cuda:0", Outcome::kSkip},
                                  {"qr", "c", "cuda:0", Outcome::kSkip},
                                  {"qr", "d", "cuda:0", Outcome::kUnavailable}},
                                 "qr", "cuda:0");
  EXPECT_EQ(r.verdict, Verdict::kPortable);
  EXPECT_EQ(r.flags, (std::vector<Verdict>{Verdict::kUnavailable}));
  EXPECT_EQ(r.cases, 4);
  EXPECT_EQ(r.reason, "the only attempted case passed; 1 unavailable");

  const VerdictRow skips_only_flag_nothing =
      judge_one({{"qr", "a", "cuda:0", Outcome::kPass}, {"qr", "b", "cuda:0", Outcome::kSkip}},
                "qr", "cuda:0");
  EXPECT_TRUE(skips_only_flag_nothing.flags.empty());

  // A failure among skipped cases is a complete failure, not a partial one.
  const VerdictRow failed =
      judge_one({{"qr", "a", "cuda:0", Outcome::kCrash}, {"qr", "b", "cuda:0", Outcome::kSkip}},
                "qr", "cuda:0");
  EXPECT_EQ(failed.verdict, Verdict::kCompleteFailure);
  EXPECT_EQ(failed.reason, "the only attempted case failed: crash x1");
}

TEST(Verdict, RowsAreGroupedAndSorted) {
  const auto rows = compute(make_all({
                                {"b_fn", "x", "cuda:0", Outcome::kPass, {}, {}, "torch"},
                                {"a_fn", "x", "cuda:0", Outcome::kPass, {}, {}, "torch"},
                                {"a_fn", "y", "cuda:0", Outcome::kFail, {}, {}, "torch"},
                                {"a_fn", "x", "cpu", Outcome::kPass, {}, {}, "torch"},
                                {"z_fn", "x", "cpu", Outcome::kPass, {}, {}, "jax"},
                            }),
                            {});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].framework, "jax");
  EXPECT_EQ(rows[1].function, "a_fn");
  EXPECT_EQ(rows[1].device, "cpu");
  EXPECT_EQ(rows[2].function, "a_fn");
  EXPECT_EQ(rows[2].device, "cuda:0");
  EXPECT_EQ(rows[2].cases, 2);
  EXPECT_EQ(rows[2].verdict, Verdict::kPartialFailure);
  EXPECT_EQ(rows[3].function, "b_fn");
  EXPECT_TRUE(compute({}, {}).empty());
}

TEST(Verdict, SameFunctionNameInTwoFrameworksStaysApart) {
  const auto rows = compute(make_all({
                                {"sum", "a", "cpu", Outcome::kPass, 10.0, {}, "jax"},
                                {"sum", "a", "cuda:0", Outcome::kPass, 500.0, {}, "jax"},
                                {"sum", "a", "cpu", Outcome::kPass, 100.0, {}, "torch"},
                                {"sum", "a", "cuda:0", Outcome::kPass, 100.0, {}, "torch"},
                            }),
                            {});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].framework, "jax");
  EXPECT_EQ(rows[1].latency_ratio, 50.0);
  EXPECT_EQ(rows[3].framework, "torch");
  EXPECT_EQ(rows[3].latency_ratio, 1.0);
}

}  // namespace
}  // namespace mudjack::verdict

namespace mudjack::verdict {
namespace {

model::CaseResult timed(const std::string& device, const std::string& variant,
                        std::vector<double> samples) {
  model::CaseResult r;
  r.info.id = "torch/torch.sum/" + variant;
  r.info.framework = "torch";
  r.info.function = "torch.sum";
  r.info.variant = variant;
  r.device = device;
  r.outcome = model::Outcome::kPass;
  r.extra["checks"] =
      nlohmann::json::array({{{"name", "ref"}, {"kind", "reference"}, {"ok", true}}});
  r.latency.samples_ns = samples;
  r.latency.stats = stats::summarize(r.latency.samples_ns);
  return r;
}

TEST(VerdictInterval, NoisyRatioAboveThresholdIsNotIntolerableUnlessTheWholeIntervalIs) {
  // Device medians 11x the baseline, but the device samples spread from 1x to 21x:
  // the point ratio clears 10x, the interval's lower bound does not.
  std::vector<double> wide;
  for (int i = 0; i <= 20; ++i) wide.push_back(10.0 * (1 + i));
  std::vector<model::CaseResult> results = {timed("cpu", "v", std::vector<double>(21, 10.0)),
                                            timed("cuda:0", "v", wide)};
  auto rows = compute(results, Options{});
  ASSERT_EQ(rows.size(), 2u);
  const auto& gpu = rows[1];
  ASSERT_TRUE(gpu.latency_ratio && gpu.latency_ratio_low && gpu.latency_ratio_high);
  EXPECT_DOUBLE_EQ(*gpu.latency_ratio, 11.0);
  EXPECT_LT(*gpu.latency_ratio_low, 10.0);
  EXPECT_EQ(gpu.verdict, model::Verdict::kPortable);
  EXPECT_NE(gpu.reason.find("95% CI"), std::string::npos) << gpu.reason;

  // Tight samples at 20x: the whole interval is above 10x.
  results = {timed("cpu", "v", std::vector<double>(21, 10.0)),
             timed("cuda:0", "v", std::vector<double>(21, 200.0))};
  rows = compute(results, Options{});
  EXPECT_EQ(rows[1].verdict, model::Verdict::kIntolerableLatency);
  EXPECT_DOUBLE_EQ(*rows[1].latency_ratio_low, 20.0);
}

TEST(VerdictInterval, AnIntervalThatMissesItsPointIsDroppedAndThePointJudges) {
  // The estimator's median (rounds, device time) 9.5x the baseline while the
  // raw samples alone would say 20x: "9.5x (95% CI 20-20x) > 10x" would
  // contradict itself, so the interval goes and the point judges.
  std::vector<model::CaseResult> results = {timed("cpu", "v", std::vector<double>(21, 10.0)),
                                            timed("cuda:0", "v", std::vector<double>(21, 200.0))};
  results[1].latency.stats->median_ns = 95.0;
  auto rows = compute(results, Options{});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(*rows[1].latency_ratio, 9.5);
  EXPECT_FALSE(rows[1].latency_ratio_low.has_value());
  EXPECT_EQ(rows[1].verdict, model::Verdict::kPortable);
  EXPECT_EQ(rows[1].reason.find("95% CI"), std::string::npos) << rows[1].reason;
}

}  // namespace
}  // namespace mudjack::verdict

namespace mudjack::verdict {
namespace {

TEST(PaperReason, MapsOutcomesAndErrorKindsAsDesignSays) {
  using model::ErrorKind;
  using model::Outcome;
  auto reason = [](Outcome o, ErrorKind k) {
    model::CaseResult r;
    r.outcome = o;
    r.error.kind = k;
    return std::string(paper_reason(r));
  };
  EXPECT_EQ(reason(Outcome::kPass, ErrorKind::kNone), "");
  EXPECT_EQ(reason(Outcome::kSkip, ErrorKind::kNone), "");
  EXPECT_EQ(reason(Outcome::kFail, ErrorKind::kNotImplemented), "not implemented");
  EXPECT_EQ(reason(Outcome::kFail, ErrorKind::kUnsupportedDtype), "not implemented");
  EXPECT_EQ(reason(Outcome::kFail, ErrorKind::kTypeError), "type");
  EXPECT_EQ(reason(Outcome::kFail, ErrorKind::kOutOfMemory), "memory");
  EXPECT_EQ(reason(Outcome::kCrash, ErrorKind::kOutOfMemory), "memory");
  EXPECT_EQ(reason(Outcome::kCrash, ErrorKind::kOther), "crash");
  EXPECT_EQ(reason(Outcome::kTimeout, ErrorKind::kOther), "timeout");
  EXPECT_EQ(reason(Outcome::kMismatch, ErrorKind::kOther), "float precision");
  EXPECT_EQ(reason(Outcome::kUnavailable, ErrorKind::kNone), "unavailable");
  EXPECT_EQ(reason(Outcome::kFail, ErrorKind::kDeviceError), "other");
}

TEST(VerdictChecked, APassCheckedByNothingMakesTheFunctionUnverifiedNeverPortable) {
  auto results = make_all({{"sum", "a", "cpu"}, {"sum", "b", "cpu"}});
  results[1].extra.erase("checks");
  auto rows = compute(results, Options{});
  const auto row = row_for(rows, "sum", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kUnverified);
  EXPECT_EQ(row.unchecked, 1);
  EXPECT_EQ(row.reason,
            "1 of 2 passes checked by nothing (no reference, property or checked baseline)");
}

TEST(VerdictChecked, AFailedOrRaisingCheckOnAPassIsNoCheck) {
  auto results = make_all({{"sum", "a", "cpu"}});
  results[0].extra["checks"][0]["ok"] = false;
  EXPECT_EQ(own_check(results[0]), model::Check::kNone);
  EXPECT_EQ(row_for(compute(results, Options{}), "sum", "cpu").verdict, Verdict::kUnverified);
}

TEST(VerdictChecked, ReferenceOutranksPropertyAndEveryCheckMustHold) {
  auto results = make_all({{"sum", "a", "cpu"}});
  auto& checks = results[0].extra["checks"];
  EXPECT_EQ(own_check(results[0]), model::Check::kReference);
  checks.push_back({{"name", "sorted"}, {"ok", true}});  // no kind: a property (protocol 1.1)
  EXPECT_EQ(own_check(results[0]), model::Check::kReference);
  checks.erase(checks.begin());
  EXPECT_EQ(own_check(results[0]), model::Check::kProperty);
}

TEST(VerdictChecked, AgreementWithACheckedBaselinePassChecksAnUncheckedDevicePass) {
  auto results = make_all({{"sum", "a", "cpu"}, {"sum", "a", "cuda:0"}});
  results[1].extra.erase("checks");
  results[1].numeric.compared_with = "cpu";
  auto checks = checks_of(results);
  EXPECT_EQ(checks[1], model::Check::kBaseline);
  EXPECT_EQ(row_for(compute(results, Options{}), "sum", "cuda:0").verdict, Verdict::kPortable);
  // An unchecked baseline pass checks nothing.
  results[0].extra.erase("checks");
  EXPECT_EQ(checks_of(results)[1], model::Check::kNone);
  EXPECT_EQ(row_for(compute(results, Options{}), "sum", "cuda:0").verdict, Verdict::kUnverified);
}

TEST(VerdictChecked, UnverifiedIsAFlagUnderAWorseVerdict) {
  auto results = make_all({{"sum", "a", "cpu"}, {"sum", "b", "cpu", Outcome::kFail}});
  results[0].extra.erase("checks");
  const auto row = row_for(compute(results, Options{}), "sum", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kPartialFailure);
  EXPECT_EQ(row.flags, (std::vector<Verdict>{Verdict::kUnverified}));
}

TEST(VerdictChecked, AMissingListedNameIsUnavailableWithItsSuccessorsVerdict) {
  auto results = make_all({{"torch.optim.LBGFS", "as-listed", "cpu", Outcome::kUnavailable},
                           {"torch.optim.LBGFS", "small", "cpu"}});
  for (auto& r : results) r.info.successor = "torch.optim.LBFGS";
  results[0].extra["missing_name"] = "torch.optim.LBGFS";
  const auto row = row_for(compute(results, Options{}), "torch.optim.LBGFS", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kUnavailable);
  EXPECT_EQ(row.successor, "torch.optim.LBFGS");
  ASSERT_TRUE(row.successor_verdict.has_value());
  EXPECT_EQ(*row.successor_verdict, Verdict::kPortable);
  EXPECT_TRUE(row.flags.empty());
  EXPECT_EQ(row.reason.rfind("listed name missing; successor torch.optim.LBFGS portable", 0), 0u)
      << row.reason;
  // Where the listed name exists, its cases run: nothing is missing.
  results[0].outcome = Outcome::kPass;
  results[0].extra["checks"] = results[1].extra["checks"];
  const auto present = row_for(compute(results, Options{}), "torch.optim.LBGFS", "cpu");
  EXPECT_EQ(present.verdict, Verdict::kPortable);
  EXPECT_TRUE(present.successor.empty());
}

TEST(VerdictChecked, OnlyAMissingListedNameMakesTheRowListedNameMissing) {
  // torch.triangular_solve under torch 1.12: its compiled cases are
  // unavailable because torch.compile does not exist; the name does.
  auto results = make_all({{"torch.triangular_solve", "compiled", "cpu", Outcome::kUnavailable},
                           {"torch.triangular_solve", "eager", "cpu"}});
  for (auto& r : results) r.info.successor = "torch.linalg.solve_triangular";
  results[0].error.message = "torch.compile does not exist in torch 1.12.1";
  auto row = row_for(compute(results, Options{}), "torch.triangular_solve", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kPortable) << row.reason;
  EXPECT_TRUE(row.successor.empty());
  // jax._src.core.get_aval under jax 0.4.13: the listed name passes, the
  // successor is what is missing, on its own row's reason.
  results[0].extra["missing_name"] = "torch.linalg.solve_triangular";
  row = row_for(compute(results, Options{}), "torch.triangular_solve", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kPortable) << row.reason;
  EXPECT_NE(row.reason.find("successor torch.linalg.solve_triangular missing here"),
            std::string::npos)
      << row.reason;
  // An older probe's result: only a message naming the function itself counts.
  results[0].extra.erase("missing_name");
  results[0].error.message = "torch.triangular_solve does not exist in torch 9.0";
  row = row_for(compute(results, Options{}), "torch.triangular_solve", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kUnavailable) << row.reason;
  EXPECT_EQ(row.successor, "torch.linalg.solve_triangular");
}

}  // namespace
}  // namespace mudjack::verdict

namespace mudjack::verdict {
namespace {

// A device's verdict depends only on its own outcomes and claims: the same
// cpu cases judged alone and beside a second device give the same cpu row.
std::vector<CaseResult> sort_on(const std::vector<std::string>& devices) {
  std::vector<Case> specs;
  for (const auto& d : devices) {
    specs.push_back({"sort", "float32", d});
    specs.push_back(
        {"sort", "complex64", d, Outcome::kFail, std::nullopt, ErrorKind::kUnsupportedDtype});
    specs.push_back({"sort", "int8", d, d == "cpu" ? Outcome::kPass : Outcome::kFail, std::nullopt,
                     ErrorKind::kNotImplemented});
  }
  auto results = make_all(specs);
  for (auto& r : results) {
    r.info.dtype = r.info.variant;
    r.info.grid = r.info.dtype != "float32";  // float32 declared by hand, the rest by the grid
    if (r.info.dtype == "complex64") {
      r.error.message = "TypeError: sort does not accept dtype complex64";  // JAX's dtype rule
    }
  }
  return results;
}

TEST(VerdictClaims, AGridDtypeOutsideTheDomainIsUnsupportedOnOneDeviceAsOnTwo) {
  const auto alone = compute(sort_on({"cpu"}), Options{});
  const auto beside = compute(sort_on({"cpu", "cuda:0"}), Options{});
  ASSERT_EQ(alone.size(), 1U);
  ASSERT_EQ(beside.size(), 2U);
  const auto& cpu = alone[0];
  EXPECT_EQ(cpu.verdict, Verdict::kPortable) << cpu.reason;
  ASSERT_EQ(cpu.unsupported.size(), 1U);
  EXPECT_EQ(cpu.unsupported[0].dtype, "complex64");
  EXPECT_EQ(cpu.unsupported[0].cases, 1);
  EXPECT_EQ(cpu.unsupported[0].reason.rfind("outside the domain (jax dtype rule): ", 0), 0U)
      << cpu.reason;
  EXPECT_EQ(cpu.unsupported[0].source, model::RefusalSource::kTypeRule);
  const auto& cpu_beside = row_for(beside, "sort", "cpu");
  EXPECT_EQ(cpu_beside.verdict, cpu.verdict);
  EXPECT_EQ(cpu_beside.reason, cpu.reason);
  EXPECT_EQ(cpu_beside.unsupported, cpu.unsupported);
  // int8 fails on cuda:0 with no word of the domain or the chip: a failure there.
  const auto& cuda = row_for(beside, "sort", "cuda:0");
  EXPECT_EQ(cuda.verdict, Verdict::kPartialFailure) << cuda.reason;
  EXPECT_EQ(cuda.failing, (std::vector<std::string>{"torch/sort/int8"}));
  EXPECT_NE(cuda.reason.find("1 unsupported (complex64: outside the domain"), std::string::npos)
      << cuda.reason;
}

TEST(VerdictClaims, AGridRefusalThatNamesNoDomainIsAFailure) {
  auto results = sort_on({"cpu"});
  for (auto& r : results) r.error.message = "NotImplementedError: nothing said";
  const auto rows = compute(results, Options{});
  EXPECT_EQ(rows[0].verdict, Verdict::kPartialFailure) << rows[0].reason;
  EXPECT_TRUE(rows[0].unsupported.empty());
}

TEST(VerdictClaims, HandDeclaredDtypesAreClaimedEvenWhenRejectedByType) {
  auto results = sort_on({"cpu"});
  for (auto& r : results) r.info.grid = false;
  const auto rows = compute(results, Options{});
  EXPECT_EQ(rows[0].verdict, Verdict::kPartialFailure) << rows[0].reason;
  EXPECT_TRUE(rows[0].unsupported.empty());
}

TEST(VerdictClaims, TheFrameworksOwnClaimsDecidePerDeviceKind) {
  auto results =
      make_all({{"erf", "float32", "cpu"},
                {"erf", "float16", "cpu", Outcome::kFail, std::nullopt, ErrorKind::kOther},
                {"erf", "float16", "cuda:0", Outcome::kFail, std::nullopt, ErrorKind::kOther}});
  for (auto& r : results) {
    r.info.dtype = r.info.variant;
    r.info.claims = {{"cpu", r.info.dtype == "float32"}, {"cuda", true}};
  }
  const auto rows = compute(results, Options{});
  // Not claimed on cpu but on cuda: a documented gap of the cpu, a failure there.
  const auto& cpu = row_for(rows, "erf", "cpu");
  EXPECT_EQ(cpu.verdict, Verdict::kPartialFailure) << cpu.reason;
  EXPECT_TRUE(cpu.unsupported.empty());
  ASSERT_EQ(cpu.kernel_missing.size(), 1U);
  EXPECT_TRUE(cpu.kernel_missing[0].documented);
  EXPECT_EQ(cpu.kernel_missing[0].source, model::RefusalSource::kOpDatabase);
  EXPECT_EQ(cpu.kernel_missing[0].reason,
            "kernel missing on cpu, documented: float16 not claimed on cpu but on cuda by torch's "
            "op database");
  // Claimed on cuda, failing there: a failure, whatever the error kind.
  EXPECT_EQ(row_for(rows, "erf", "cuda:0").verdict, Verdict::kCompleteFailure);
  // Claimed on neither: outside the domain on both.
  for (auto& r : results) r.info.claims = {{"cpu", r.info.dtype == "float32"}, {"cuda", false}};
  const auto both = compute(results, Options{});
  EXPECT_EQ(row_for(both, "erf", "cpu").verdict, Verdict::kPortable);
  ASSERT_EQ(row_for(both, "erf", "cpu").unsupported.size(), 1U);
  EXPECT_EQ(row_for(both, "erf", "cpu").unsupported[0].reason,
            "outside the domain: float16 claimed on no device (cpu, cuda) by torch's op database");
}

TEST(VerdictClaims, ARegistryWithoutTheKernelMakesItUnsupportedAndACrashIsAlwaysAFailure) {
  auto results =
      make_all({{"tf.sort", "float32", "cpu"},
                {"tf.sort", "bfloat16", "cpu", Outcome::kFail, std::nullopt, ErrorKind::kOther},
                {"tf.sort", "int8", "cpu", Outcome::kCrash}});
  for (auto& r : results) r.info.dtype = r.info.variant;
  results[1].extra["kernels"] = {{"cpu", {{"kernels", false}, {"missing", {"TopKV2"}}}}};
  results[2].extra["kernels"] = {{"cpu", {{"kernels", false}, {"missing", {"TopKV2"}}}}};
  const auto row = row_for(compute(results, Options{}), "tf.sort", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kPartialFailure) << row.reason;
  ASSERT_EQ(row.unsupported.size(), 1U);
  EXPECT_EQ(row.unsupported[0].reason,
            "outside the domain: bfloat16 claimed on no device (cpu) by torch's kernel registry "
            "(TopKV2)");
}

TEST(VerdictClaims, EveryAttemptedDtypeUnsupportedIsUnavailableWithTheReasons) {
  auto results = make_all({{"bitwise_and", "bfloat16", "cpu", Outcome::kFail, std::nullopt,
                            ErrorKind::kUnsupportedDtype},
                           {"bitwise_and", "float16", "cpu", Outcome::kFail, std::nullopt,
                            ErrorKind::kUnsupportedDtype}});
  for (auto& r : results) {
    r.info.dtype = r.info.variant;
    r.info.grid = true;
    r.error.message = "TypeError: and does not accept dtype " + r.info.dtype;
  }
  const auto row = row_for(compute(results, Options{}), "bitwise_and", "cpu");
  EXPECT_EQ(row.verdict, Verdict::kUnavailable);
  EXPECT_EQ(row.reason.rfind("no dtype it tried is supported here: 2 unsupported (bfloat16: ", 0),
            0U)
      << row.reason;
}

TEST(VerdictClaims, PortabilityGapsAreCasesThatPassOnOneDeviceAndNotAnother) {
  const auto gaps = portability_gaps(sort_on({"cpu", "cuda:0"}), Options{});
  ASSERT_EQ(gaps.size(), 1U);
  EXPECT_EQ(gaps[0].case_id, "torch/sort/int8");
  EXPECT_EQ(gaps[0].device, "cuda:0");
  EXPECT_EQ(gaps[0].works_on, "cpu");
  EXPECT_EQ(gaps[0].what, "fail");
  // complex64 fails on both: no gap, on either device.
  EXPECT_TRUE(portability_gaps(sort_on({"cpu"}), Options{}).empty());
}

TEST(VerdictCauses, DivergencesAreCountedByCause) {
  auto results = make_all({{"conv", "a", "cpu"},
                           {"conv", "b", "cpu"},
                           {"conv", "a", "cuda:0", Outcome::kMismatch},
                           {"conv", "b", "cuda:0", Outcome::kMismatch}});
  results[2].numeric.cause = model::Cause::kPrecisionDefault;
  results[3].numeric.cause = model::Cause::kBaselineWrong;
  auto rows = compute(results, Options{});
  const auto& cuda = rows[0].device == "cuda:0" ? rows[0] : rows[1];
  EXPECT_EQ(cuda.verdict, Verdict::kDivergent);
  EXPECT_EQ(cuda.causes.at(model::Cause::kPrecisionDefault), 1);
  EXPECT_EQ(cuda.causes.at(model::Cause::kBaselineWrong), 1);
  EXPECT_EQ(cuda.cause(), model::Cause::kPrecisionDefault);
  EXPECT_NE(cuda.reason.find("1 precision_default, 1 baseline_wrong"), std::string::npos)
      << cuda.reason;
}

// How a pass was checked and why a case diverged, in the words every view
// uses (verdict::judge: the one value they render).
TEST(VerdictWords, AFailedOwnCheckIsCausedOwnCheckAndAnOracleJudgedPassIsFloat64) {
  auto results = make_all(
      {{"max", "nan", "cpu", Outcome::kMismatch}, {"max", "plain", "cpu"}, {"max", "sane", "cpu"}});
  results[0].extra["checks"] =
      nlohmann::json::array({{{"name", "NaN propagates"}, {"kind", "reference"}, {"ok", false}}});
  results[1].extra.erase("checks");  // judged by the oracle alone
  results[1].numeric.error_eps = 0.9;
  results[1].numeric.bound_eps = 16;
  results[1].numeric.reference = "float64 on cpu";
  results[2].extra["checks"] = nlohmann::json::array(
      {{{"name", "every output is finite"}, {"kind", "sanity"}, {"ok", true}}});
  const auto j = judge(model::RunInfo{}, results, Options{});
  EXPECT_EQ(j.cases[0].numeric.cause, model::Cause::kOwnCheck);
  EXPECT_EQ(j.checked[1], model::Check::kFloat64);
  EXPECT_EQ(j.checked[2], model::Check::kNone) << "a sanity property checks nothing";
  ASSERT_EQ(j.verdicts.size(), 1U);
  EXPECT_EQ(j.verdicts[0].verdict, Verdict::kDivergent);
  EXPECT_EQ(j.verdicts[0].cause(), model::Cause::kOwnCheck);
  EXPECT_NE(j.verdicts[0].reason.find("1 own_check"), std::string::npos) << j.verdicts[0].reason;
  EXPECT_EQ(j.verdicts[0].unchecked, 1);
}

// Results of older probes stored the models' sanity properties as kind
// "property": on a whole model (a "name::" label) they read as sanity, on a
// function's case a property of the same name still checks.
TEST(VerdictWords, AnOlderModelsSanityPropertyChecksNothing) {
  auto results = make_all({{"vit", "b1", "cuda:0"}, {"relu", "small", "cpu"}});
  const auto legacy = nlohmann::json::array(
      {{{"name", "every output is finite"}, {"kind", "property"}, {"ok", true}},
       {{"name", "the first output is not constant"}, {"kind", "property"}, {"ok", true}}});
  results[0].extra["checks"] = legacy;
  results[0].info.tags = {"name::vit", "set::core"};
  results[1].extra["checks"] = legacy;
  const auto j = judge(model::RunInfo{}, results, Options{});
  EXPECT_EQ(j.checked[0], model::Check::kNone) << "a model's legacy sanity property";
  EXPECT_EQ(j.checked[1], model::Check::kProperty) << "a function's property of that name";
}

// The groupings every reader asks for (model::props): a divergent function
// ran, a mismatch ran and is a failure, the suite's own error enters no
// verdict, and the failure rate counts partial and complete failures only.
TEST(VerdictProps, GroupingsAreTheFlags) {
  EXPECT_TRUE(model::props(Outcome::kMismatch).ran);
  EXPECT_TRUE(model::props(Outcome::kMismatch).failure);
  EXPECT_FALSE(model::props(Outcome::kMismatch).failed);
  EXPECT_TRUE(model::props(Outcome::kTimeout).failed);
  EXPECT_FALSE(model::props(Outcome::kError).judged);
  EXPECT_FALSE(model::props(Outcome::kSkip).attempted);
  EXPECT_TRUE(model::props(Outcome::kSkip).fine);
  EXPECT_FALSE(model::props(Outcome::kUnavailable).fine);
  EXPECT_TRUE(model::props(Verdict::kDivergent).ran);
  EXPECT_TRUE(model::props(Verdict::kDivergent).failure);
  EXPECT_FALSE(model::props(Verdict::kDivergent).failed);
  EXPECT_TRUE(model::props(Verdict::kPartialFailure).failed);
  EXPECT_FALSE(model::props(Verdict::kUnavailable).attempted);
  Tally t;
  for (auto v : model::kVerdicts) t.verdicts[v] = 1;
  EXPECT_EQ(t.attempted_functions(), 6);
  EXPECT_EQ(t.failing_functions(), 2);
}

}  // namespace
}  // namespace mudjack::verdict
