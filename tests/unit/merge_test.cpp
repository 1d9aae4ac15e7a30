// fleet::merge: several runs, one matrix; each machine judged against its own baseline.
#include "fleet/merge.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"
#include "verdict/verdict.hpp"

namespace mudjack {
namespace {

using model::CaseResult;
using model::Outcome;
using nlohmann::json;

CaseResult timed(const std::string& id, const std::string& device, double median_ns) {
  CaseResult r;
  r.info.id = "torch/torch.sum/" + id;
  r.info.framework = "torch";
  r.info.function = "torch.sum";
  r.info.variant = id;
  r.device = device;
  r.outcome = Outcome::kPass;
  r.extra["checks"] =
      nlohmann::json::array({{{"name", "ref"}, {"kind", "reference"}, {"ok", true}}});
  r.latency.samples_ns = {median_ns, median_ns, median_ns};
  model::LatencyStats s;
  s.median_ns = median_ns;
  s.n = 3;
  r.latency.stats = s;
  return r;
}

fleet::Source source(const std::string& label, const std::string& run_id, const std::string& gpu,
                     std::vector<CaseResult> cases) {
  fleet::Source s;
  s.label = label;
  s.origin = run_id + ".json";
  s.results.run.id = run_id;
  s.results.run.suite = "paper";
  s.results.run.state = "complete";
  json devices = json::array({{{"id", "cpu"}, {"kind", "cpu"}, {"model", "AMD EPYC 7B13"}}});
  if (!gpu.empty()) devices.push_back({{"id", "cuda:0"}, {"kind", "cuda"}, {"model", gpu}});
  s.results.run.environment = {
      {"machines",
       json::array({{{"host", "vm"}, {"cpu_model", "AMD EPYC 7B13"}, {"devices", devices}}})}};
  s.results.cases = std::move(cases);
  return s;
}

TEST(Merge, RelabelsDevicesAndKeepsProvenance) {
  auto a = source("h100", "r1", "NVIDIA H100 80GB HBM3",
                  {timed("a", "cpu", 100), timed("a", "cuda:0", 2000)});
  a.results.cases[1].numeric.compared_with = "cpu";
  auto b = source("h200", "r2", "NVIDIA H200", {timed("a", "cpu", 400), timed("a", "cuda:0", 800)});
  b.results.run.state = "incomplete";
  auto m = fleet::merge({a, b}, "2026-11-26T04:10:00Z");
  ASSERT_EQ(m.cases.size(), 4u);
  EXPECT_EQ(m.cases[0].device, "h100/cpu");
  EXPECT_EQ(m.cases[1].device, "h100/cuda:0");
  EXPECT_EQ(m.cases[1].numeric.compared_with, "h100/cpu");
  EXPECT_EQ(m.cases[3].device, "h200/cuda:0");
  EXPECT_EQ(m.run.state, "incomplete");
  EXPECT_EQ(m.run.suite, "paper");
  EXPECT_EQ(m.run.id.rfind("merged-20261126041000-", 0), 0u) << m.run.id;
  EXPECT_EQ(m.cases[2].run_id, m.run.id);
  ASSERT_EQ(m.run.options["merged_from"].size(), 2u);
  EXPECT_EQ(m.run.options["merged_from"][1]["run_id"], "r2");
  ASSERT_EQ(m.run.environment["machines"].size(), 2u);
  EXPECT_EQ(m.run.environment["machines"][0]["label"], "h100");

  // Each GPU against its own machine's CPU: 20x on the H100 box, 2x on the H200 box.
  verdict::Options o;
  o.intolerable_ratio = 10;
  auto rows = verdict::compute(m.cases, o);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].device, "h100/cuda:0");
  EXPECT_DOUBLE_EQ(*rows[1].latency_ratio, 20.0);
  EXPECT_EQ(rows[1].verdict, model::Verdict::kIntolerableLatency);
  EXPECT_DOUBLE_EQ(*rows[3].latency_ratio, 2.0);
  EXPECT_EQ(rows[3].verdict, model::Verdict::kPortable);
  EXPECT_FALSE(rows[0].latency_ratio.has_value());  // a baseline has no ratio
  auto ratios = verdict::case_ratios(m.cases, o);
  EXPECT_EQ(ratios.at({"torch/torch.sum/a", "h200/cuda:0"}).baseline, "h200/cpu");
}

TEST(Merge, OneMachineTwoRunsShareColumns) {
  auto torch = source("box", "r1", "", {timed("a", "cpu", 1)});
  auto jax = source("box", "r2", "", {timed("b", "cpu", 1)});
  auto m = fleet::merge({torch, jax}, "2026-11-26T04:10:00Z");
  EXPECT_EQ(m.cases[0].device, "box/cpu");
  EXPECT_EQ(m.cases[1].device, "box/cpu");
}

TEST(Merge, RejectsCollisionsBadLabelsAndMixedBaselines) {
  auto a = source("box", "r1", "", {timed("a", "cpu", 1)});
  auto b = source("box", "r2", "", {timed("a", "cpu", 1)});
  try {
    fleet::merge({a, b}, "t");
    FAIL() << "expected a collision error";
  } catch (const util::FatalError& e) {
    EXPECT_NE(std::string(e.what()).find("is in both r1.json and r2.json"), std::string::npos)
        << e.what();
  }
  b.label = "bad label";
  EXPECT_THROW(fleet::merge({a, b}, "t"), util::FatalError);
  b.label = "other";
  b.results.run.baseline = "cuda:0";
  EXPECT_THROW(fleet::merge({a, b}, "t"), util::FatalError);
  EXPECT_THROW(fleet::merge({}, "t"), util::FatalError);
  auto merged = fleet::merge({a}, "t");
  EXPECT_THROW(fleet::merge({fleet::Source{"again", "m.json", merged}}, "t"), util::FatalError);
}

TEST(Merge, DefaultLabelNamesTheChip) {
  EXPECT_EQ(fleet::default_label(source("x", "r", "NVIDIA H100 80GB HBM3", {}).results),
            "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(fleet::default_label(source("x", "r", "", {}).results), "amd-epyc-7b13");
  EXPECT_EQ(fleet::default_label(report::Results{}), "machine");
}

TEST(Merge, PairThresholdsMatchLabelledDevices) {
  verdict::Options o;
  o.pair_ratios[{"", "cpu", "cuda:0"}] = 3;
  EXPECT_EQ(o.threshold("torch.sum", "h100/cuda:0"), 3);
  EXPECT_EQ(o.baseline_for("h100/cuda:0"), "h100/cpu");
  EXPECT_EQ(o.baseline_for("cuda:0"), "cpu");
  EXPECT_EQ(fleet::split_device("h100/cuda:0"),
            (std::pair<std::string, std::string>{"h100", "cuda:0"}));
  EXPECT_EQ(fleet::split_device("cpu"), (std::pair<std::string, std::string>{"", "cpu"}));
}

}  // namespace
}  // namespace mudjack
