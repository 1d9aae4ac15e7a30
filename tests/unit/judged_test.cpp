// The judged value: how each pass was checked, and the tallies views render.
#include "verdict/judged.hpp"

#include <gtest/gtest.h>

namespace mudjack::verdict {
namespace {

using model::Check;
using model::Outcome;

model::CaseResult result(const std::string& id, const std::string& device, Outcome o,
                         bool own_check = false, const std::string& compared_with = "") {
  model::CaseResult r;
  r.info.id = "torch/f/" + id;
  r.info.framework = "torch";
  r.info.function = "f";
  r.device = device;
  r.outcome = o;
  r.numeric.compared_with = compared_with;
  if (own_check) r.extra["checks"] = {{{"name", "value"}, {"ok", true}}};
  return r;
}

TEST(Judged, APassIsCheckedByItsOwnChecksOrByAgreeingWithACheckedBaseline) {
  std::vector<model::CaseResult> rs = {
      result("a", "cpu", Outcome::kPass, true),             // property
      result("a", "cuda:0", Outcome::kPass, false, "cpu"),  // agrees with a checked pass
      result("b", "cpu", Outcome::kPass),                   // nothing looked at it
      result("b", "cuda:0", Outcome::kPass, false, "cpu"),  // agrees with an unchecked pass
      result("c", "cuda:0", Outcome::kPass),                // no baseline compared
      result("d", "cuda:0", Outcome::kMismatch, false, "cpu"),
  };
  EXPECT_EQ(checks_of(rs), (std::vector<Check>{Check::kProperty, Check::kBaseline, Check::kNone,
                                               Check::kNone, Check::kNone, Check::kNone}));
}

TEST(Judged, AFailedOwnCheckIsNoCheck) {
  auto r = result("a", "cpu", Outcome::kPass, true);
  r.extra["checks"].push_back({{"name", "other"}, {"ok", false}});
  EXPECT_EQ(checks_of({r}), std::vector<Check>{Check::kNone});
}

TEST(Judged, TalliesCountEveryOutcomeVerdictAndReasonPerFrameworkAndDevice) {
  model::RunInfo run;
  auto crash = result("b", "cuda:0", Outcome::kCrash);
  auto j = judge(
      run, {result("a", "cpu", Outcome::kPass, true), result("a", "cuda:0", Outcome::kPass), crash},
      Options{});
  const auto& gpu = j.tallies.at("torch").at("cuda:0");
  EXPECT_EQ(gpu.cases, 2);
  EXPECT_EQ(gpu.functions, 1);
  EXPECT_EQ(gpu.count(Outcome::kCrash), 1);
  EXPECT_EQ(gpu.count(Outcome::kSkip), 0);
  EXPECT_EQ(gpu.count(model::Verdict::kPartialFailure), 1);
  EXPECT_EQ(gpu.reasons.at("crash"), 1);
  EXPECT_EQ(gpu.failing_functions(), 1);
  EXPECT_TRUE(gpu.any_reason());
  EXPECT_FALSE(j.tallies.at("torch").at("cpu").any_reason());
  EXPECT_EQ(j.checked.size(), j.cases.size());
}

}  // namespace
}  // namespace mudjack::verdict
