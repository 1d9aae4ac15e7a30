// Unit tests for results with units and run parameters: throughput from
// declared work (exact values), SI formatting, the protocol's optional work,
// metrics and params fields, run-parameter parsing and checking, and the
// results.json / CSV / summary.md views of work, throughput and metrics.

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include "judged.hpp"

#include <gtest/gtest.h>

#include "model/workload.hpp"
#include "plan/params.hpp"
#include "protocol/protocol.hpp"
#include "report/capability.hpp"
#include "report/csv.hpp"
#include "report/json.hpp"
#include "report/markdown.hpp"
#include "util/error.hpp"
#include "util/json.hpp"

namespace mudjack {
namespace {

using nlohmann::json;

std::string fatal_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const util::FatalError& e) {
    return e.what();
  }
  return "<no FatalError>";
}

// --- throughput ------------------------------------------------------------

TEST(Throughput, IsWorkOverMedianSeconds) {
  // A 1024^3 matmul (2^31 FLOP) in 2 ms: 2^31 / 0.002 FLOP/s.
  auto t = model::throughput(model::Work{2.0 * 1024 * 1024 * 1024, "FLOP"}, 2e6);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->per_s, 1073741824000.0);
  EXPECT_EQ(t->unit, "FLOP/s");
  auto e = model::throughput(model::Work{1e6, "element"}, 250.0);  // 1e6 elements in 250 ns
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->per_s, 4e12);
  EXPECT_EQ(e->unit, "element/s");
}

TEST(Throughput, AbsentWithoutWorkOrUsableMedian) {
  model::Work w{100, "sample"};
  EXPECT_FALSE(model::throughput(std::nullopt, 10.0).has_value());
  EXPECT_FALSE(model::throughput(w, std::nullopt).has_value());
  EXPECT_FALSE(model::throughput(w, 0.0).has_value());
  EXPECT_FALSE(model::throughput(w, -5.0).has_value());
  EXPECT_FALSE(model::throughput(w, std::numeric_limits<double>::quiet_NaN()).has_value());
  EXPECT_FALSE(model::throughput(model::Work{0, "sample"}, 10.0).has_value());
}

TEST(Throughput, FormatsWithSiPrefixes) {
  EXPECT_EQ(model::format_si(1.2345e12, "FLOP/s"), "1.23 TFLOP/s");
  EXPECT_EQ(model::format_si(4.56e6, "element/s"), "4.56 Melement/s");
  EXPECT_EQ(model::format_si(812, "sample/s"), "812 sample/s");
  EXPECT_EQ(model::format_si(999.6, "x"), "1 kx");
  EXPECT_EQ(model::format_si(0.5, "s"), "0.5 s");
  EXPECT_EQ(model::format_si(3e18, "FLOP/s"), "3e+03 PFLOP/s");
  EXPECT_EQ(model::format_si(std::numeric_limits<double>::infinity(), "x"), "-");
}

TEST(Workload, JsonFormsRoundTripAndSkipMalformedEntries) {
  model::Work w{33554432, "FLOP"};
  auto back = model::work_from_json(model::work_to_json(w));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->amount, 33554432);
  EXPECT_EQ(back->unit, "FLOP");
  EXPECT_TRUE(model::work_to_json(std::nullopt).is_null());
  EXPECT_FALSE(model::work_from_json(json(nullptr)).has_value());
  EXPECT_FALSE(model::work_from_json(json{{"amount", "many"}, {"unit", "x"}}).has_value());
  EXPECT_FALSE(model::work_from_json(json{{"amount", -1}, {"unit", "x"}}).has_value());

  model::Metrics m = {{"accuracy", {0.97, "1"}},
                      {"loss", {std::numeric_limits<double>::quiet_NaN(), ""}}};
  json j = model::metrics_to_json(m);
  EXPECT_EQ(j["accuracy"], (json{{"value", 0.97}, {"unit", "1"}}));
  EXPECT_TRUE(j["loss"]["value"].is_null());  // NaN has no JSON spelling
  auto mb = model::metrics_from_json(
      json{{"accuracy", {{"value", 0.97}, {"unit", "1"}}}, {"bad", 3}, {"iters", {{"value", 12}}}});
  ASSERT_EQ(mb.size(), 2u);
  EXPECT_EQ(mb["accuracy"].value, 0.97);
  EXPECT_EQ(mb["iters"].value, 12);
  EXPECT_EQ(mb["iters"].unit, "");
  EXPECT_TRUE(model::metrics_from_json(json::array()).empty());
}

// --- protocol ----------------------------------------------------------------

TEST(ProtocolWorkload, ParsesWorkAndMetricsOfAResult) {
  auto r = protocol::parse_result(
      R"({"type":"result","case":"jax/xla/float32-n256-compiled","device":"cpu","status":"pass",)"
      R"("samples_ns":[100.0],"work":{"amount":33554432,"unit":"FLOP"},)"
      R"("metrics":{"accuracy":{"value":0.86,"unit":"1"},"final_loss":{"value":null,"unit":""}}})",
      "jax/xla/float32-n256-compiled");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r.value->work.has_value());
  EXPECT_EQ(r.value->work->amount, 33554432);
  EXPECT_EQ(r.value->work->unit, "FLOP");
  ASSERT_EQ(r.value->metrics.size(), 2u);
  EXPECT_EQ(r.value->metrics["accuracy"].value, 0.86);
  EXPECT_EQ(r.value->metrics["accuracy"].unit, "1");
  EXPECT_FALSE(r.value->metrics["final_loss"].value.has_value());
  // Neither lands in extra: they have their own fields.
  EXPECT_FALSE(r.value->extra.contains("work"));
  EXPECT_FALSE(r.value->extra.contains("metrics"));
}

TEST(ProtocolWorkload, ResultsWithoutTheOptionalFieldsStillParse) {
  auto r = protocol::parse_result(R"({"type":"result","case":"c","status":"pass"})", "c");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.value->work.has_value());
  EXPECT_TRUE(r.value->metrics.empty());
  // A malformed figure costs the figure, never the outcome.
  r = protocol::parse_result(
      R"({"type":"result","case":"c","status":"pass","work":"lots","metrics":[1]})", "c");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.value->work.has_value());
  EXPECT_TRUE(r.value->metrics.empty());
}

TEST(ProtocolWorkload, CasesReplyCarriesTheParametersRead) {
  json read;
  auto c = protocol::parse_cases(
      R"({"type":"cases","cases":[],"params":{"matrix_size":{"type":"list[int]",)"
      R"("default":[256],"value":[4096]}}})",
      &read);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(read["matrix_size"]["value"], json::array({4096}));
  c = protocol::parse_cases(R"({"type":"cases","cases":[]})", &read);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(read, json::object());
}

// --- run parameters ----------------------------------------------------------

TEST(Params, ParsesNameValueItemsLaterWins) {
  auto p = plan::parse_params({"matrix_size=4096", " data_dir = /data/mnist ", "a_1=x=y",
                               "matrix_size=1024,8192", "empty="});
  EXPECT_EQ(p, (plan::Params{{"matrix_size", "1024,8192"},
                             {"data_dir", "/data/mnist"},
                             {"a_1", "x=y"},
                             {"empty", ""}}));
  EXPECT_TRUE(plan::parse_params({}).empty());
}

TEST(Params, RejectsItemsThatAreNotNameEqualsValue) {
  for (const char* bad : {"matrix_size", "=4", "1x=2", "a-b=3", "a b=1"}) {
    EXPECT_NE(fatal_message([&] { plan::parse_params({bad}); }).find("expected NAME=VALUE"),
              std::string::npos)
        << bad;
  }
}

TEST(Params, UnknownNamesAreRefusedListingWhatTheSuitesRead) {
  json read = {{"matrix_size", {{"type", "list[int]"}, {"default", {256}}, {"value", {256}}}},
               {"data_dir", {{"type", "str"}, {"default", ""}, {"value", ""}}}};
  plan::check_params({{"matrix_size", "8"}}, read);  // known: no error
  plan::check_params({}, json::object());
  EXPECT_EQ(fatal_message([&] {
              plan::check_params({{"matrx_size", "8"}, {"zz", "1"}}, read);
            }),
            "no selected suite reads --param 'matrx_size', 'zz'; they read: data_dir (str), "
            "matrix_size (list[int])");
  EXPECT_EQ(fatal_message([&] {
              plan::check_params({{"n", "1"}}, json::object());
            }),
            "no selected suite reads --param 'n'; they read none");
}

TEST(Params, JsonFormRoundTrips) {
  plan::Params p = {{"matrix_size", "4096"}, {"data_dir", "/d"}};
  EXPECT_EQ(plan::params_from_json(plan::params_to_json(p)), p);
  EXPECT_TRUE(plan::params_from_json(json(nullptr)).empty());
  EXPECT_NE(fatal_message([&] {
              plan::params_from_json(json{{"n", 4}});
            }).find("params.n"),
            std::string::npos);
}

// --- views -------------------------------------------------------------------

model::CaseResult workload_case(const std::string& fw, const std::string& function,
                                const std::string& mode, double median_ns) {
  model::CaseResult r;
  r.run_id = "r1";
  r.info.framework = fw;
  r.info.function = function;
  r.info.dtype = "float32";
  r.info.shape = "n1024";
  r.info.mode = mode;
  r.info.variant = "float32-n1024-" + mode;
  r.info.id = fw + "/" + function + "/" + r.info.variant;
  r.device = "cpu";
  r.outcome = model::Outcome::kPass;
  r.latency.samples_ns = {median_ns};
  r.latency.cold_ns = 5'000'000'000;
  r.latency.stats = model::LatencyStats{};
  r.latency.stats->median_ns = median_ns;
  r.latency.stats->n = 1;
  r.work = model::Work{2.0 * 1024 * 1024 * 1024, "FLOP"};
  return r;
}

model::RunInfo workload_run() {
  model::RunInfo run;
  run.id = "r1";
  run.suite = "capability";
  run.state = "complete";
  run.options = {{"params", {{"matrix_size", "1024"}}}};
  return run;
}

TEST(ReportWorkload, ResultsJsonCarriesWorkThroughputAndMetricsAndReadsThemBack) {
  auto r = workload_case("jax", "xla", "compiled", 2e6);
  r.metrics = {{"iterations", {12, ""}}, {"accuracy", {0.86, "1"}}};
  auto plain = workload_case("jax", "xla", "eager", 4e6);
  plain.work.reset();
  json doc = report::to_json(testing::judged(workload_run(), {r, plain}, {}));
  EXPECT_EQ(doc["schema_version"], model::kResultsSchemaVersion);
  EXPECT_EQ(doc["run"]["options"]["params"]["matrix_size"], "1024");
  const json& c = doc["cases"][0];
  EXPECT_EQ(c["work"], (json{{"amount", 2147483648.0}, {"unit", "FLOP"}}));
  EXPECT_EQ(c["throughput"]["per_s"], 1073741824000.0);
  EXPECT_EQ(c["throughput"]["unit"], "FLOP/s");
  EXPECT_EQ(c["throughput"]["basis"], "median");
  EXPECT_EQ(c["metrics"]["iterations"], (json{{"value", 12.0}, {"unit", ""}}));
  EXPECT_TRUE(doc["cases"][1]["work"].is_null());
  EXPECT_TRUE(doc["cases"][1]["throughput"].is_null());
  EXPECT_EQ(doc["cases"][1]["metrics"], json::object());

  auto back = report::from_json(json::parse(util::dump_json(doc)));
  ASSERT_EQ(back.cases.size(), 2u);
  ASSERT_TRUE(back.cases[0].work.has_value());
  EXPECT_EQ(back.cases[0].work->amount, 2147483648.0);
  EXPECT_EQ(back.cases[0].metrics.at("accuracy").value, 0.86);
  EXPECT_EQ(back.cases[0].metrics.at("accuracy").unit, "1");
  EXPECT_FALSE(back.cases[1].work.has_value());

  // A 1.0 document has none of the three: no work, no metrics.
  doc["schema_version"] = "1.0";
  for (auto& k : doc["cases"]) {
    k.erase("work");
    k.erase("throughput");
    k.erase("metrics");
  }
  auto old = report::from_json(doc);
  EXPECT_FALSE(old.cases[0].work.has_value());
  EXPECT_TRUE(old.cases[0].metrics.empty());
}

TEST(ReportWorkload, CsvHasThroughputMetricsAndParamsColumns) {
  auto r = workload_case("torch", "mnist", "eager", 1e9);
  r.work = model::Work{4224, "sample"};
  r.metrics = {{"accuracy", {0.8635, "1"}}, {"final_loss", {0.5653, ""}}, {"compile", {2, "s"}}};
  r.info.params = {{"epochs", 3}};
  std::string csv = report::to_csv({r});
  std::string header = csv.substr(0, csv.find("\r\n"));
  EXPECT_NE(header.find(",work_amount,work_unit,throughput_per_s,throughput_unit,metrics,params"),
            std::string::npos)
      << header;
  EXPECT_NE(csv.find(",4224,sample,4224,sample/s,accuracy=0.8635; compile=2 s; final_loss=0.5653,"
                     "\"{\"\"epochs\"\":3}\""),
            std::string::npos)
      << csv;
}

TEST(ReportWorkload, SummaryHasAWorkloadsSectionWithSpeedUps) {
  auto eager = workload_case("torch", "jit", "eager", 8e6);
  auto compiled = workload_case("torch", "jit", "compiled", 2e6);
  auto mnist = workload_case("jax", "mnist", "compiled", 3e9);
  mnist.work = model::Work{4224, "sample"};
  mnist.metrics = {{"epochs", {3, ""}}, {"accuracy", {0.86, "1"}}};
  auto paper = workload_case("torch", "torch.sum", "eager", 1e3);  // declares nothing
  paper.work.reset();
  std::string md =
      report::to_markdown(testing::judged(workload_run(), {eager, compiled, mnist, paper}, {}));
  auto at = md.find("## Workloads");
  ASSERT_NE(at, std::string::npos) << md;
  std::string section = md.substr(at);
  EXPECT_NE(section.find("### jit"), std::string::npos);
  // The headline: one row per experiment, framework and device.
  EXPECT_NE(section.find("| jit | torch | cpu | 2/2 | 1.07 TFLOP/s (float32-n1024-compiled) | "
                         "4×–4× |"),
            std::string::npos)
      << section;
  EXPECT_NE(
      section.find("| mnist | jax | cpu | 1/1 | 1.41 ksample/s (float32-n1024-compiled) | - |"),
      std::string::npos)
      << section;
  EXPECT_NE(
      section.find("| torch | cpu | float32-n1024-eager | pass | 8.0 ms | 5.00 s | 268 GFLOP/s |"),
      std::string::npos)
      << section;
  // Eager median / compiled median = 4, the compiled cold call shown beside it.
  EXPECT_NE(section.find("| torch | cpu | float32-n1024 | 8.0 ms | 2.0 ms | 4× | 5.00 s |"),
            std::string::npos)
      << section;
  // Time per epoch = median / epochs.
  EXPECT_NE(section.find("accuracy=0.86; epochs=3; epoch=1.00 s"), std::string::npos) << section;
  EXPECT_EQ(section.find("torch.sum"), std::string::npos);
  // A run whose cases declare nothing has no such section.
  EXPECT_EQ(report::capability_markdown({paper}), "");
}

}  // namespace
}  // namespace mudjack
