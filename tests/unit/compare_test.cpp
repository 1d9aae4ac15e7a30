#include "compare/compare.hpp"

#include <gtest/gtest.h>

#include "stats/stats.hpp"

namespace mudjack::compare {
namespace {

model::CaseResult result(const std::string& id, const std::string& device, model::Outcome o,
                         double centre = 0) {
  model::CaseResult r;
  r.info.id = id;
  r.device = device;
  r.outcome = o;
  if (centre > 0) {
    for (int i = 0; i < 30; ++i) r.latency.samples_ns.push_back(centre * (1 + 0.01 * (i % 5)));
    r.latency.stats = stats::summarize(r.latency.samples_ns);
  }
  if (o == model::Outcome::kFail) r.error.message = "no kernel | here";
  return r;
}

TEST(Compare, ClassifiesEveryKindOfChange) {
  using model::Outcome;
  Side a{
      "A",
      {result("slower", "cpu", Outcome::kPass, 100), result("faster", "cpu", Outcome::kPass, 100),
       result("same", "cpu", Outcome::kPass, 100), result("breaks", "cpu", Outcome::kPass, 100),
       result("heals", "cpu", Outcome::kFail), result("gone", "cpu", Outcome::kPass, 100)},
      ""};
  Side b{"B",
         {result("slower", "cpu", Outcome::kPass, 150), result("faster", "cpu", Outcome::kPass, 50),
          result("same", "cpu", Outcome::kPass, 101), result("breaks", "cpu", Outcome::kFail),
          result("heals", "cpu", Outcome::kPass, 100), result("new", "cpu", Outcome::kPass, 100)},
         ""};
  auto r = compare(a, b, Options{});
  std::map<std::string, Change> by_case;
  for (const auto& row : r.rows) by_case[row.case_id] = row.change;
  EXPECT_EQ(by_case["slower"], Change::kRegression);
  EXPECT_EQ(by_case["faster"], Change::kImprovement);
  EXPECT_EQ(by_case["same"], Change::kUnchanged);
  EXPECT_EQ(by_case["breaks"], Change::kNewFailure);
  EXPECT_EQ(by_case["heals"], Change::kFixed);
  EXPECT_EQ(by_case["gone"], Change::kOnlyA);
  EXPECT_EQ(by_case["new"], Change::kOnlyB);
  EXPECT_TRUE(r.regressed());
  auto md = to_markdown(r, true);
  EXPECT_NE(md.find("| 1 | 1 | 1 | 1 | 1 | 0 | 1 | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("no kernel / here"), std::string::npos) << "pipes cannot break the table";
  EXPECT_EQ(to_markdown(r).find("no kernel / here"), std::string::npos)
      << "the cases only on request";
  auto j = to_json(r);
  EXPECT_EQ(j["counts"]["regression"], 1);
  EXPECT_EQ(j["rows"].size(), 7u);
}

TEST(Compare, AChangeInsideBothRunsMeasuredNoiseIsNoChange) {
  using model::Outcome;
  auto noisy = [](model::CaseResult r, double spread) {
    r.latency.timing = model::Timing{};
    r.latency.timing->spread = spread;
    return r;
  };
  Side a{"A", {noisy(result("c", "cpu", Outcome::kPass, 100), 0.3)}, ""};
  Side b{"B", {noisy(result("c", "cpu", Outcome::kPass, 150), 0.3)}, ""};
  auto r = compare(a, b, Options{});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].change, Change::kUnchanged);  // 1.5x inside 1.3 x 1.3
  EXPECT_DOUBLE_EQ(r.rows[0].noise, 1.69);
  b.results[0].latency.timing->spread = 0;
  a.results[0].latency.timing->spread = 0.1;
  EXPECT_EQ(compare(a, b, Options{}).rows[0].change, Change::kRegression);  // 1.5x beyond 1.1
  EXPECT_EQ(to_json(compare(a, b, Options{}))["rows"][0]["noise"], 1.1);
}

TEST(Compare, DevicesOfOneRunAndInsignificantNoise) {
  using model::Outcome;
  std::vector<model::CaseResult> run = {result("c", "cpu", Outcome::kPass, 100),
                                        result("c", "cuda:0", Outcome::kPass, 100.5)};
  auto r = compare(Side{"cpu", run, "cpu"}, Side{"gpu", run, "cuda:0"}, Options{});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].device_a, "cpu");
  EXPECT_EQ(r.rows[0].device_b, "cuda:0");
  EXPECT_EQ(r.rows[0].change, Change::kUnchanged);
  EXPECT_FALSE(r.regressed());
  // Big ratio but a threshold above it: unchanged.
  Options lenient;
  lenient.threshold = 3;
  std::vector<model::CaseResult> slow = {result("c", "cpu", Outcome::kPass, 100),
                                         result("c", "cuda:0", Outcome::kPass, 200)};
  EXPECT_EQ(compare(Side{"a", slow, "cpu"}, Side{"b", slow, "cuda:0"}, lenient).rows[0].change,
            Change::kUnchanged);
}

TEST(Compare, ASummaryPerFunctionFirstAndChangesInsideTheNoiseSaidSo) {
  using model::Outcome;
  auto noisy = [](model::CaseResult r, double spread) {
    r.latency.timing = model::Timing{};
    r.latency.timing->spread = spread;
    r.latency.timing->rounds_ns = {1, 1, 1};
    return r;
  };
  Side a{"A",
         {noisy(result("torch/torch.add/float32-small-eager", "cpu", Outcome::kPass, 100), 0.3),
          noisy(result("torch/torch.add/float16-small-eager", "cpu", Outcome::kPass, 100), 0),
          noisy(result("torch/torch.mul/float32-small-eager", "cpu", Outcome::kPass, 100), 0)},
         ""};
  Side b{"B",
         {noisy(result("torch/torch.add/float32-small-eager", "cpu", Outcome::kPass, 150), 0.3),
          noisy(result("torch/torch.add/float16-small-eager", "cpu", Outcome::kPass, 200), 0),
          noisy(result("torch/torch.mul/float32-small-eager", "cpu", Outcome::kPass, 101), 0)},
         ""};
  auto r = compare(a, b, Options{});
  EXPECT_EQ(r.inside_noise(), 1);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  auto functions = r.functions();
  ASSERT_EQ(functions.size(), 1u) << "torch.mul did not change";
  EXPECT_EQ(functions[0].function, "torch/torch.add");
  EXPECT_EQ(functions[0].changes[Change::kRegression], 1);
  EXPECT_EQ(functions[0].inside_noise, 1);
  const auto md = to_markdown(r);
  EXPECT_NE(md.find("| `torch/torch.add` |  | 1 |  |  |  |  | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | 0 | 0 | 0 | 1 | 1 | 0 | 0 |"), std::string::npos) << md;
  EXPECT_EQ(to_json(r)["counts"]["inside_noise"], 1);
}

TEST(Compare, WarnsWhenChipsVersionsOrSettingsDiffer) {
  using model::Outcome;
  auto env = [](const std::string& cpu, const std::string& torch) {
    return nlohmann::json{
        {"machines",
         {{{"host", "h"},
           {"devices", {{{"id", "cpu"}, {"model", cpu}}}},
           {"frameworks", {{"torch", {{"version", torch}, {"python", "3.11.7"}}}}}}}}};
  };
  Side a{"A",
         {result("c", "cpu", Outcome::kPass, 100)},
         "",
         env("AMD EPYC", "2.11.0"),
         {{"budget_ms", 7}, {"rounds", 3}}};
  Side b{"B",
         {result("c", "cpu", Outcome::kPass, 100)},
         "",
         env("Intel Xeon", "2.10.0"),
         {{"budget_ms", 20}, {"rounds", 3}}};
  auto r = compare(a, b, Options{});
  std::string all;
  for (const auto& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("different chips: cpu is AMD EPYC in A, cpu is Intel Xeon in B"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("different versions: torch 2.11.0 in A, 2.10.0 in B"), std::string::npos)
      << all;
  EXPECT_NE(all.find("different settings: budget_ms 7 in A, 20 in B"), std::string::npos) << all;
  EXPECT_EQ(all.find("settings: rounds"), std::string::npos)
      << "equal settings are not warned about";
  EXPECT_NE(all.find("A has no timing rounds"), std::string::npos) << all;
  EXPECT_NE(to_markdown(r).find("> **Warning:** different chips"), std::string::npos);
  EXPECT_EQ(to_json(r)["warnings"].size(), r.warnings.size());
}

// The oracle's error in eps, side by side: shown when the larger is at
// least 2x the smaller and half an eps away (Options' rule).
TEST(Compare, AccuracyChangesAreShownBesideLatency) {
  using model::Outcome;
  auto with_error = [](const std::string& id, double error_eps) {
    auto r = result(id, "cpu", Outcome::kPass, 100);
    r.info.dtype = "float16";
    r.numeric.error_eps = error_eps;
    r.numeric.bound_eps = 16;
    return r;
  };
  Side a{"A",
         {with_error("f/better/a", 0.91), with_error("f/worse/a", 0.5),
          with_error("f/small/a", 0.1), with_error("f/close/a", 3), with_error("f/exact/a", 0),
          result("f/none/a", "cpu", Outcome::kPass, 100)},
         ""};
  Side b{"B",
         {with_error("f/better/a", 0.33), with_error("f/worse/a", 2), with_error("f/small/a", 0.3),
          with_error("f/close/a", 5), with_error("f/exact/a", 0.6), with_error("f/none/a", 9)},
         ""};
  auto r = compare(a, b, Options{});
  std::map<std::string, Accuracy> by_case;
  for (const auto& row : r.rows) by_case[row.case_id] = row.accuracy;
  EXPECT_EQ(by_case["f/better/a"], Accuracy::kBetter) << "0.91 -> 0.33: 2.8x and 0.58 eps";
  EXPECT_EQ(by_case["f/worse/a"], Accuracy::kWorse);
  EXPECT_EQ(by_case["f/small/a"], Accuracy::kSame) << "3x, but 0.2 eps: rounding";
  EXPECT_EQ(by_case["f/close/a"], Accuracy::kSame) << "2 eps apart, but 1.7x";
  EXPECT_EQ(by_case["f/exact/a"], Accuracy::kWorse) << "exact to 0.6 eps";
  EXPECT_EQ(by_case["f/none/a"], Accuracy::kSame) << "A has no error to compare";
  EXPECT_EQ(r.count(Accuracy::kBetter), 1);
  EXPECT_EQ(r.count(Accuracy::kWorse), 2);
  EXPECT_FALSE(r.regressed()) << "accuracy is shown, it never fails the comparison";

  const auto md = to_markdown(r);
  EXPECT_NE(md.find("## Accuracy changes"), std::string::npos) << md;
  EXPECT_NE(md.find("| `f/better/a` | cpu | float16 | 0.91 | 0.33 | 16 | better 2.8x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `f/exact/a` | cpu | float16 | 0 | 0.6 | 16 | worse |"), std::string::npos);
  EXPECT_EQ(md.find("`f/small/a`"), std::string::npos);
  EXPECT_LT(md.find("`f/worse/a`"), md.find("`f/better/a`")) << "worse first";
  const auto functions = r.functions();  // f/better, f/exact, f/worse: nothing else changed
  ASSERT_EQ(functions.size(), 3u);
  EXPECT_EQ(functions[0].function, "f/better");
  EXPECT_EQ(functions[0].accuracy_better, 1);
  EXPECT_EQ(functions[2].accuracy_worse, 1);

  const auto j = to_json(r);
  EXPECT_EQ(j["counts"]["accuracy_better"], 1);
  EXPECT_EQ(j["counts"]["accuracy_worse"], 2);
  EXPECT_EQ(j["accuracy_rule"]["factor"], 2.0);
  EXPECT_EQ(j["accuracy_rule"]["min_eps"], 0.5);
  for (const auto& row : j["rows"]) {
    if (row["case"] != "f/better/a") continue;
    EXPECT_EQ(row["accuracy"], "better");
    EXPECT_EQ(row["error_a_eps"], 0.91);
    EXPECT_EQ(row["error_b_eps"], 0.33);
    EXPECT_EQ(row["bound_b_eps"], 16.0);
    EXPECT_EQ(row["dtype"], "float16");
  }
}

TEST(Compare, NoAccuracyChangeNoAccuracySection) {
  using model::Outcome;
  Side a{"A", {result("f/x/a", "cpu", Outcome::kPass, 100)}, ""};
  Side b{"B", {result("f/x/a", "cpu", Outcome::kPass, 100)}, ""};
  const auto md = to_markdown(compare(a, b, Options{}));
  EXPECT_EQ(md.find("## Accuracy changes"), std::string::npos);
  EXPECT_NE(md.find("| accuracy better | accuracy worse |"), std::string::npos);
}

}  // namespace
}  // namespace mudjack::compare
