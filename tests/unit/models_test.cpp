// Unit tests for whole models (suites/models) in the engine: selection by
// label (--labels) and by a model stage (--mode), and the per model x device
// x stage rows every report view shows.

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judged.hpp"
#include "plan/select.hpp"
#include "report/json.hpp"
#include "report/markdown.hpp"
#include "report/models.hpp"
#include "report/terminal.hpp"
#include "supervisor/supervisor.hpp"
#include "util/error.hpp"

namespace mudjack {
namespace {

model::CaseInfo model_case(const std::string& name, const std::string& task,
                           const std::string& mode) {
  model::CaseInfo c;
  c.framework = "torch";
  c.function = name;
  c.dtype = mode == "amp" ? "bfloat16" : "float32";
  c.shape = "b1-s128";
  c.mode = mode;
  c.variant = c.dtype + "-" + c.shape + "-" + mode;
  c.id = "torch/" + name + "/" + c.variant;
  c.tags = {"name::" + name, "task::" + task, "family::fam", "author::hf", "framework::torch"};
  return c;
}

size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::string fatal_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const util::FatalError& e) {
    return e.what();
  }
  return "<no FatalError>";
}

std::vector<model::CaseInfo> corpus() {
  return {model_case("bert", "Natural_Language_Processing", "eager"),
          model_case("bert", "Natural_Language_Processing", "onnxruntime"),
          model_case("resnet18", "Computer_Vision", "eager"),
          model_case("resnet18", "Computer_Vision", "amp")};
}

// `mudjack cache build` compiles a model's CPU graph for the threads the
// run's cpu lane will have (Inductor keys its cache on them): one rule for
// both, the lanes' cores.
TEST(LaneCores, AcceleratorLanesTakeUpToFourCoresAndTheCpuLaneTheRest) {
  using supervisor::lane_cores;
  EXPECT_EQ(lane_cores(16, 1).accelerator, 4u);
  EXPECT_EQ(lane_cores(16, 1).cpu, 12u);
  EXPECT_EQ(lane_cores(16, 2).cpu, 8u);
  EXPECT_EQ(lane_cores(8, 2).accelerator, 2u);
  EXPECT_EQ(lane_cores(8, 2).cpu, 4u);
  EXPECT_EQ(lane_cores(16, 0).accelerator, 0u);  // a cpu-only run: every core
  EXPECT_EQ(lane_cores(16, 0).cpu, 16u);
  EXPECT_EQ(lane_cores(3, 1).cpu, 2u);             // the cpu lane keeps at least 2
  EXPECT_EQ(lane_cores(2, 1).cpu, 2u);             // too few: lanes in turn, each with every core
  EXPECT_EQ(supervisor::cpu_lane_threads(0), 0u);  // no OMP_NUM_THREADS without lanes beside
}

TEST(ModelSelection, LabelsSelectEveryCaseCarryingThemAllWithGlobs) {
  plan::Fields f;
  f.labels = {"task::Computer_Vision"};
  auto got = plan::select(corpus(), f);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].function, "resnet18");
  f.labels = {"task::*Vision*", "name::resnet18"};
  EXPECT_EQ(plan::select(corpus(), f).size(), 2u);
  f.labels = {"task::Computer_Vision", "name::bert"};  // every label must match
  EXPECT_TRUE(plan::select(corpus(), f).empty());
}

TEST(ModelSelection, AStageIsAModeAndAModeTypoIsRefused) {
  plan::Fields f;
  f.modes = {"onnxruntime"};
  auto got = plan::select(corpus(), f);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, "torch/bert/float32-b1-s128-onnxruntime");
  f.modes = {"onnx"};
  EXPECT_NE(fatal_message([&] { plan::select(corpus(), f); }).find("a mode is eager, compiled"),
            std::string::npos);
}

TEST(ModelSelection, AnUnknownOrMalformedLabelIsOneLineNamingTheNearest) {
  plan::Fields f;
  f.labels = {"task::Computer_Visoin"};
  EXPECT_EQ(fatal_message([&] { plan::select(corpus(), f); }),
            "--labels task::Computer_Visoin: no listed case has this label; did you mean "
            "task::Computer_Vision?");
  f.labels = {"Computer_Vision"};
  EXPECT_NE(fatal_message([&] { plan::select(corpus(), f); }).find("a label is key::value"),
            std::string::npos);
  std::vector<model::CaseInfo> plain = {corpus()[0]};
  plain[0].tags.clear();
  f.labels = {"task::Audio"};
  EXPECT_NE(fatal_message([&] { plan::select(plain, f); }).find("have no labels"),
            std::string::npos);
}

model::CaseResult result(const model::CaseInfo& info, const std::string& device,
                         model::Outcome outcome) {
  model::CaseResult r;
  r.info = info;
  r.device = device;
  r.outcome = outcome;
  return r;
}

TEST(ModelReport, OneRowPerModelDeviceStageWithTheFactsOfEachView) {
  const auto cs = corpus();
  auto ok = result(cs[1], "cpu", model::Outcome::kPass);
  ok.latency.stats = model::LatencyStats{};
  ok.latency.stats->median_ns = 2e6;
  ok.latency.cold_ns = 9'000'000;
  ok.work = model::Work{1, "sample"};
  ok.memory.peak_host_bytes = 64 << 20;
  ok.metrics["build_s"] = model::Metric{12.5, "s"};
  ok.metrics["build_reused"] = model::Metric{0, ""};
  ok.numeric.error_eps = 3;
  ok.numeric.bound_eps = 8192;
  auto bad = result(cs[3], "cuda:0", model::Outcome::kMismatch);
  bad.numeric.cause = model::Cause::kPrecisionDefault;
  bad.error.message = "beyond its bound";
  model::CaseResult plain = result(cs[0], "cpu", model::Outcome::kPass);
  plain.info.tags.clear();  // not a model: no row
  const auto rows = report::model_rows({ok, bad, plain});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].model, "resnet18");  // by task: Computer_Vision first
  EXPECT_EQ(rows[0].stage, "amp");
  EXPECT_FALSE(rows[0].build_s);
  ASSERT_EQ(rows[1].model, "bert");
  EXPECT_EQ(rows[1].stage, "onnxruntime");
  ASSERT_TRUE(rows[1].build_s && rows[1].build_reused && rows[1].throughput);
  EXPECT_EQ(*rows[1].build_s, 12.5);
  EXPECT_FALSE(*rows[1].build_reused);
  EXPECT_DOUBLE_EQ(rows[1].throughput->per_s, 500);

  model::RunInfo run;
  run.baseline = "cpu";
  const auto j = testing::judged(run, {ok, bad}, {});
  const auto doc = report::to_json(j);
  ASSERT_TRUE(doc.contains("models"));
  ASSERT_EQ(doc["models"].size(), 2u);
  EXPECT_EQ(doc["models"][0]["cause"], "precision_default");
  EXPECT_EQ(doc["models"][1]["peak_memory_bytes"], 64 << 20);
  const auto md = report::to_markdown(j);
  EXPECT_NE(md.find("## Models"), std::string::npos);
  EXPECT_NE(md.find("onnxruntime on cpu: 1 of 1 ran"), std::string::npos);
  EXPECT_NE(md.find("mismatch (precision\\_default)"), std::string::npos);
  EXPECT_NE(report::models_html(rows).find("<h2 id=\"models\">"), std::string::npos);
  EXPECT_EQ(report::models_markdown({}), "");
  EXPECT_FALSE(report::to_json(testing::judged(run, {plain}, {})).contains("models"));
}

// `mudjack run --suite models` prints a line per model, device and stage
// after the verdict counts: outcome, latency, error against its bound.
TEST(ModelReport, TheTerminalListsEveryModelDeviceAndStage) {
  const auto cs = corpus();
  auto ok = result(cs[1], "cpu", model::Outcome::kPass);
  ok.latency.stats = model::LatencyStats{};
  ok.latency.stats->median_ns = 2e6;
  ok.numeric.error_eps = 3;
  ok.numeric.bound_eps = 8192;
  auto bad = result(cs[3], "cuda:0", model::Outcome::kMismatch);
  bad.numeric.cause = model::Cause::kPrecisionDefault;
  bad.numeric.error_eps = 9000.5;
  bad.numeric.bound_eps = 8192;
  auto cold = result(cs[0], "cpu", model::Outcome::kPass);
  cold.latency.cold_ns = 3'000'000'000;
  const auto rows = report::model_rows({ok, bad, cold});
  const auto text = report::models_terminal(rows);
  EXPECT_NE(text.find("models (3 rows: model x device x stage)"), std::string::npos) << text;
  EXPECT_NE(text.find("MODEL     DEVICE  STAGE        OUTCOME"), std::string::npos) << text;
  EXPECT_NE(text.find("resnet18  cuda:0  amp          mismatch (precision_default)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("9e+03 / 8.19e+03"), std::string::npos) << text;
  EXPECT_NE(text.find("bert      cpu     onnxruntime  pass"), std::string::npos) << text;
  EXPECT_NE(text.find("2.0 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("cold 3.00 s"), std::string::npos) << text;
  const auto cut = report::models_terminal(rows, 1);
  EXPECT_NE(cut.find("... and 2 more (summary.md)"), std::string::npos) << cut;
  EXPECT_EQ(report::models_terminal({}), "");
  model::RunInfo run;
  run.id = "m1";
  run.baseline = "cpu";
  const auto shown = report::to_terminal(testing::judged(run, {ok, bad, cold}, {}), "/r");
  EXPECT_NE(shown.find("bert      cpu     onnxruntime  pass"), std::string::npos) << shown;
}

// The model facts the probe reports as metrics (params, flops, the operator
// histogram of the exported graph or the eager pass, the structure hash) and
// the size and license labels reach every view.
TEST(ModelReport, ParamsFlopsOperatorsHashAndLicenseInEveryView) {
  const auto cs = corpus();
  auto eager = result(cs[2], "cpu", model::Outcome::kPass);
  eager.info.tags.push_back("size::small");
  eager.info.tags.push_back("license::BSD-3-Clause");
  eager.metrics["params"] = model::Metric{11689512, ""};
  eager.metrics["flops"] = model::Metric{3.6e9, "FLOP"};
  eager.metrics["structure_hash"] = model::Metric{4503599627370495.0, "hash"};  // 2^52 - 1
  eager.metrics["op:aten.convolution"] = model::Metric{20, "op"};
  eager.metrics["op:aten.relu_"] = model::Metric{17, "op"};
  eager.metrics["op:aten.add_"] = model::Metric{8, "op"};
  eager.metrics["op:aten.addmm"] = model::Metric{1, "op"};
  auto ort = result(cs[1], "cpu", model::Outcome::kPass);
  ort.metrics["onnx:Conv"] = model::Metric{3, "op"};
  ort.metrics["structure_hash"] = model::Metric{255, "hash"};
  const auto rows = report::model_rows({eager, ort});
  ASSERT_EQ(rows.size(), 2u);
  const auto& r = rows[0];  // resnet18, Computer_Vision first
  ASSERT_TRUE(r.params && r.flops);
  EXPECT_EQ(*r.params, 11689512);
  EXPECT_EQ(r.ops_source, "aten");
  EXPECT_EQ(r.ops.at("aten.convolution"), 20);
  EXPECT_EQ(r.structure_hash, "fffffffffffff");
  EXPECT_EQ(r.size, "small");
  EXPECT_EQ(r.license, "BSD-3-Clause");
  EXPECT_EQ(rows[1].ops_source, "onnx");
  EXPECT_EQ(rows[1].structure_hash, "00000000000ff");
  EXPECT_FALSE(rows[1].params);
  const auto j = report::models_to_json(rows);
  EXPECT_EQ(j[0]["ops"]["aten.relu_"], 17);
  EXPECT_EQ(j[0]["license"], "BSD-3-Clause");
  EXPECT_TRUE(j[1]["params"].is_null());
  const auto md = report::models_markdown(rows);
  EXPECT_NE(md.find("aten.convolution 20, aten.relu\\_ 17, aten.add\\_ 8 of 4 (aten)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| fffffffffffff | BSD-3-Clause |"), std::string::npos) << md;
  EXPECT_NE(md.find("11.7 M / 3.6 GFLOP"), std::string::npos) << md;
  // report.html: each cell's whole text in its title; the hash on one
  // line, cut with an ellipsis where narrow.
  const auto html = report::models_html(rows);
  EXPECT_NE(html.find("<colgroup>"), std::string::npos) << html;
  EXPECT_EQ(count_of(html, "<col style="), 15u) << html;
  EXPECT_NE(html.find("<td class=\"cut hash\" title=\"fffffffffffff\">fffffffffffff</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td title=\"BSD-3-Clause\">BSD-3-Clause</td>"), std::string::npos) << html;
}

// A model's parameters and FLOPs (measured on its eager stage) are on every
// stage's row as numbers, never its size class.
TEST(ModelReport, EveryStageOfAModelShowsItsParamsAndFlops) {
  const auto cs = corpus();
  auto eager = result(cs[2], "cpu", model::Outcome::kPass);
  auto amp = result(cs[3], "cpu", model::Outcome::kPass);
  for (auto* r : {&eager, &amp}) r->info.tags.push_back("size::tiny");
  eager.metrics["params"] = model::Metric{11689512, ""};
  eager.metrics["flops"] = model::Metric{3.6e9, "FLOP"};
  const auto rows = report::model_rows({eager, amp});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].params && rows[1].params) << "results.json keeps what each stage measured";
  const auto md = report::models_markdown(rows);
  EXPECT_EQ(count_of(md, "| 11.7 M / 3.6 GFLOP |"), 2u) << md;
  const auto html = report::models_html(rows);
  EXPECT_EQ(count_of(html, ">11.7 M / 3.6 GFLOP<"), 2u) << html;
  for (const auto& text : {md, html}) EXPECT_EQ(text.find("tiny"), std::string::npos) << text;
}

}  // namespace
}  // namespace mudjack
