// Unit tests for the report views: results.json (round trip, versions, the
// schema file), CSV quoting, JUnit escaping and counts, the Markdown summary,
// and writing every file.

#include <unistd.h>
#include "judged.hpp"

#include <atomic>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <zlib.h>

#include "report/csv.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "report/text.hpp"
#include "report/write.hpp"
#include "util/error.hpp"
#include "util/json.hpp"

namespace mudjack::report {
namespace {

namespace fs = std::filesystem;
using model::CaseResult;
using model::ErrorKind;
using model::Outcome;
using model::Verdict;
using model::VerdictRow;
using nlohmann::json;

std::string fatal_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const util::FatalError& e) {
    return e.what();
  }
  return "<no FatalError>";
}

model::RunInfo make_run() {
  model::RunInfo run;
  run.id = "r42";
  run.suite = "paper";
  run.state = "complete";
  run.created_at = "2024-05-01T12:00:00Z";
  run.finished_at = "2024-05-01T13:00:00Z";
  run.baseline = "cpu";
  run.options = {{"budget_s", 2}, {"frameworks", {"torch", "jax"}}};
  run.environment = {
      {"machines",
       nlohmann::json::array({{
           {"host", "node-7"},
           {"os", "Linux"},
           {"devices",
            {{{"id", "cpu"}, {"model", ""}}, {{"id", "cuda:0"}, {"model", "NVIDIA H100"}}}},
       }})}};
  return run;
}

CaseResult make_case(const std::string& framework, const std::string& function,
                     const std::string& variant, const std::string& device, Outcome outcome) {
  CaseResult r;
  r.run_id = "r42";
  r.info.framework = framework;
  r.info.function = function;
  r.info.variant = variant;
  r.info.id = framework + "/" + function + "/" + variant;
  r.info.dtype = "float32";
  r.info.shape = "vec";
  r.info.mode = "eager";
  r.device = device;
  r.outcome = outcome;
  r.started_at = "2024-05-01T12:00:00Z";
  r.finished_at = "2024-05-01T12:00:01Z";
  r.wall_s = 0.5;
  if (outcome == Outcome::kPass || outcome == Outcome::kMismatch) {
    r.latency.cold_ns = 5000;
    r.latency.samples_ns = {100, 110, 120};
    r.latency.calls_per_sample = 8;
    model::LatencyStats s;
    s.median_ns = 110;
    s.p10_ns = 102;
    s.p90_ns = 118;
    s.iqr_ns = 10;
    s.mean_ns = 110;
    s.stddev_ns = 8.16;
    s.cv = 0.0742;
    s.min_ns = 100;
    s.n = 3;
    r.latency.stats = s;
  }
  return r;
}

// A crafted run: torch on cpu and cuda:0 with every outcome, and one jax case.
struct Fixture {
  model::RunInfo run = make_run();
  std::vector<CaseResult> cases;
  std::vector<VerdictRow> verdicts;

  Fixture() {
    cases.push_back(make_case("torch", "torch.sum", "a", "cpu", Outcome::kPass));
    cases.push_back(make_case("torch", "torch.sum", "a", "cuda:0", Outcome::kPass));
    cases.push_back(make_case("torch", "torch.sum", "b", "cpu", Outcome::kPass));
    auto mismatch = make_case("torch", "torch.sum", "b", "cuda:0", Outcome::kMismatch);
    mismatch.numeric.max_abs_err = 0.5;
    mismatch.numeric.max_rel_err = 0.25;
    mismatch.numeric.compared_with = "cpu";
    mismatch.numeric.message = "values differ beyond rtol 1e-05";
    cases.push_back(mismatch);
    cases.push_back(make_case("torch", "torch.histc", "int64", "cpu", Outcome::kPass));
    auto fail = make_case("torch", "torch.histc", "int64", "cuda:0", Outcome::kFail);
    fail.error.kind = ErrorKind::kNotImplemented;
    fail.error.message = "\"histc_cuda\" not implemented for 'Long'\nsecond line";
    fail.error.traceback = "Traceback (most recent call last):\n  File \"x.py\"";
    cases.push_back(fail);
    cases.push_back(make_case("torch", "torch.histc", "float", "cpu", Outcome::kPass));
    cases.push_back(make_case("torch", "torch.histc", "float", "cuda:0", Outcome::kPass));
    auto crash = make_case("torch", "torch.cat", "x", "cpu", Outcome::kCrash);
    crash.error.signal = 11;
    crash.error.stderr_tail = "boom <tag> & \"q\" 'a'\x01\x1b[31mred\xff\nlast line";
    cases.push_back(crash);
    auto timeout = make_case("torch", "torch.cat", "x", "cuda:0", Outcome::kTimeout);
    timeout.error.message = "no reply within 30 s";
    cases.push_back(timeout);
    auto skip = make_case("torch", "torch.lt", "y", "cpu", Outcome::kSkip);
    skip.error.message = "requires 2 devices";
    cases.push_back(skip);
    auto unavailable = make_case("torch", "torch.lt", "y", "cuda:0", Outcome::kUnavailable);
    unavailable.error.message = "torch.lt is absent";
    cases.push_back(unavailable);
    cases.push_back(make_case("jax", "jax.numpy.sum", "s", "cpu", Outcome::kPass));

    const auto verdict = [&](std::string framework, std::string function, std::string device,
                             Verdict v, std::vector<std::string> failing = {},
                             std::vector<std::string> mismatching = {}) {
      VerdictRow row;
      row.framework = std::move(framework);
      row.function = std::move(function);
      row.device = std::move(device);
      row.verdict = v;
      row.cases = 2;
      row.failing = std::move(failing);
      row.mismatching = std::move(mismatching);
      row.reason = std::string(model::to_string(v)) + " because";
      verdicts.push_back(row);
    };
    verdict("torch", "torch.sum", "cpu", Verdict::kPortable);
    verdict("torch", "torch.sum", "cuda:0", Verdict::kDivergent, {}, {"torch/torch.sum/b"});
    verdict("torch", "torch.histc", "cpu", Verdict::kPortable);
    verdict("torch", "torch.histc", "cuda:0", Verdict::kPartialFailure,
            {"torch/torch.histc/int64"});
    verdicts.back().flags = {Verdict::kIntolerableLatency};
    verdicts.back().latency_ratio = 3.5;
    verdict("torch", "torch.cat", "cpu", Verdict::kCompleteFailure, {"torch/torch.cat/x"});
    verdict("torch", "torch.cat", "cuda:0", Verdict::kCompleteFailure, {"torch/torch.cat/x"});
    verdict("torch", "torch.lt", "cpu", Verdict::kUnavailable);
    verdict("torch", "torch.lt", "cuda:0", Verdict::kUnavailable);
    verdict("jax", "jax.numpy.sum", "cpu", Verdict::kPortable);
  }
};

// Every field set, for the JSON round trip.
CaseResult full_case() {
  CaseResult r = make_case("torch", "torch.histc", "full", "cuda:0", Outcome::kCrash);
  r.info.compiler = "inductor";
  r.info.mode = "compiled";
  r.info.params = {{"bins", 10}};
  r.info.requires_ = {{"devices", 2}};
  r.info.dims = json::array({1, 2});
  r.info.note = "note";
  r.info.successor = "torch.histogram";
  r.info.rtol = 1e-5;
  r.info.atol = 1e-8;
  r.info.tags = {"t1", "t2"};
  r.error.kind = ErrorKind::kDeviceError;
  r.error.message = "illegal memory access";
  r.error.signal = 6;
  r.error.exit_code = 134;
  r.error.stderr_tail = "tail";
  r.error.traceback = "tb";
  r.latency.samples_ns = {0.1 + 0.2, 1e-300, 12345678.9};
  r.memory = {1 << 30, 4096};
  r.numeric.max_abs_err = 1e-3;
  r.numeric.max_rel_err = 2e-3;
  r.numeric.compared_with = "cpu";
  r.numeric.message = "m";
  r.outputs = {{"a/b.npy", "bfloat16", "float32", {2, 0, 3}}};
  r.extra = {{"output_device", "cuda:0"}, {"warmup_calls", 3}};
  // A whole-surface case with a kernel prediction: results.json then has
  // every optional block (claims, kernels) and field (policy, claims).
  r.info.policy = "once";
  r.info.claims = {{"cpu", true}, {"cuda", true}};
  r.extra["kernels"] = {{"cpu", {{"kernels", false}, {"missing", {"Histc(T=int32)"}}}},
                        {"gpu", {{"kernels", true}}}};
  return r;
}

// --- results.json ------------------------------------------------------------

TEST(ReportJson, WritesTheDocumentedShape) {
  Fixture f;
  json doc = to_json(testing::judged(f.run, f.cases, f.verdicts));
  EXPECT_EQ(doc["schema_version"], model::kResultsSchemaVersion);
  EXPECT_EQ(doc["run"]["id"], "r42");
  EXPECT_EQ(doc["run"]["options"]["budget_s"], 2);
  EXPECT_EQ(doc["environment"], f.run.environment);
  ASSERT_EQ(doc["cases"].size(), f.cases.size());

  const json& pass = doc["cases"][0];
  EXPECT_EQ(pass["outcome"], "pass");
  EXPECT_TRUE(pass["error"].is_null());
  EXPECT_EQ(pass["latency"]["median_ns"], 110.0);
  EXPECT_EQ(pass["latency"]["n"], 3);
  EXPECT_EQ(pass["latency"]["samples_ns"], json::array({100.0, 110.0, 120.0}));
  EXPECT_TRUE(pass["memory"]["peak_device_bytes"].is_null());
  EXPECT_TRUE(pass["numeric"]["max_abs_err"].is_null());

  const json& crash = doc["cases"][8];
  EXPECT_EQ(crash["outcome"], "crash");
  EXPECT_TRUE(crash["error"]["kind"].is_null());
  EXPECT_EQ(crash["error"]["signal"], 11);
  EXPECT_TRUE(crash["error"]["exit_code"].is_null());
  EXPECT_TRUE(crash["latency"]["median_ns"].is_null());
  EXPECT_TRUE(crash["latency"]["n"].is_null());
  EXPECT_TRUE(crash["latency"]["cold_ns"].is_null());

  EXPECT_EQ(doc["cases"][5]["error"]["kind"], "not_implemented");

  const json& v = doc["verdicts"][3];
  EXPECT_EQ(v["verdict"], "partial_failure");
  EXPECT_EQ(v["flags"], json::array({"intolerable_latency"}));
  EXPECT_EQ(v["failing"], json::array({"torch/torch.histc/int64"}));
  EXPECT_EQ(v["latency_ratio"], 3.5);
  EXPECT_TRUE(doc["verdicts"][0]["latency_ratio"].is_null());

  const json& counts = doc["counts"];
  EXPECT_EQ(counts["torch"]["cpu"], (json{{"pass", 4},
                                          {"fail", 0},
                                          {"mismatch", 0},
                                          {"crash", 1},
                                          {"timeout", 0},
                                          {"unavailable", 0},
                                          {"skip", 1},
                                          {"error", 0}}));
  EXPECT_EQ(counts["torch"]["cuda:0"]["fail"], 1);
  EXPECT_EQ(counts["torch"]["cuda:0"]["mismatch"], 1);
  EXPECT_EQ(counts["jax"]["cpu"]["pass"], 1);
  EXPECT_FALSE(counts["jax"].contains("cuda:0"));

  // 1.1: per-case ratio to the baseline, null on the baseline and where a side did not run.
  EXPECT_TRUE(doc["cases"][0]["latency_ratio"].is_null());
  const json& ratio = doc["cases"][1]["latency_ratio"];
  EXPECT_EQ(ratio["baseline"], "cpu");
  EXPECT_DOUBLE_EQ(ratio["ratio"].get<double>(), 1.0);
  EXPECT_LE(ratio["low"].get<double>(), 1.0);
  EXPECT_GE(ratio["high"].get<double>(), 1.0);
  EXPECT_TRUE(doc["cases"][5]["latency_ratio"].is_null());  // the failed case

  // 1.1: the paper's failure reasons per framework and device, every reason present.
  const json& reasons = doc["reasons"];
  EXPECT_EQ(reasons["torch"]["cuda:0"], (json{{"not implemented", 1},
                                              {"type", 0},
                                              {"timeout", 1},
                                              {"memory", 0},
                                              {"float precision", 1},
                                              {"crash", 0},
                                              {"unavailable", 1},
                                              {"other", 0}}));
  EXPECT_EQ(reasons["torch"]["cpu"]["crash"], 1);
  EXPECT_EQ(reasons["jax"]["cpu"]["not implemented"], 0);
}

TEST(ReportJson, NonFiniteNumbersBecomeNull) {
  CaseResult r = full_case();
  r.latency.stats = model::LatencyStats{};
  r.latency.stats->cv = std::numeric_limits<double>::quiet_NaN();
  r.latency.stats->n = 1;
  r.latency.samples_ns = {1.0, std::numeric_limits<double>::infinity()};
  json c = case_to_json(r);
  EXPECT_TRUE(c["latency"]["cv"].is_null());
  EXPECT_EQ(c["latency"]["samples_ns"], json::array({1.0, nullptr}));
  Results back = from_json(to_json(testing::judged(make_run(), {r}, {})));
  ASSERT_TRUE(back.cases[0].latency.stats.has_value());
  EXPECT_TRUE(std::isnan(back.cases[0].latency.stats->cv));
  EXPECT_EQ(back.cases[0].latency.samples_ns.size(), 2u);
}

TEST(ReportJson, RoundTripThroughTextKeepsEveryField) {
  Fixture f;
  f.cases.push_back(full_case());
  json doc = to_json(testing::judged(f.run, f.cases, f.verdicts));
  Results back = from_json(json::parse(util::dump_json(doc)));
  EXPECT_EQ(back.schema_version, model::kResultsSchemaVersion);
  EXPECT_EQ(back.run.id, f.run.id);
  EXPECT_EQ(back.run.environment, f.run.environment);
  EXPECT_EQ(back.run.options, f.run.options);
  ASSERT_EQ(back.cases.size(), f.cases.size());
  ASSERT_EQ(back.verdicts.size(), f.verdicts.size());
  // The model read back renders to the identical document (as written:
  // invalid UTF-8 in the crash's stderr was replaced on the way out).
  EXPECT_EQ(util::dump_json(to_json(testing::judged(back.run, back.cases, back.verdicts))),
            util::dump_json(doc));

  const CaseResult& a = f.cases.back();
  const CaseResult& b = back.cases.back();
  EXPECT_EQ(b.run_id, "r42");
  EXPECT_EQ(b.info.id, a.info.id);
  EXPECT_EQ(b.info.requires_, a.info.requires_);
  EXPECT_EQ(b.info.rtol, a.info.rtol);
  EXPECT_EQ(b.info.tags, a.info.tags);
  EXPECT_EQ(b.error.kind, ErrorKind::kDeviceError);
  EXPECT_EQ(b.error.signal, 6);
  EXPECT_EQ(b.error.exit_code, 134);
  EXPECT_EQ(b.error.traceback, "tb");
  EXPECT_EQ(b.latency.samples_ns, a.latency.samples_ns);  // bit-exact
  EXPECT_FALSE(b.latency.stats.has_value());
  EXPECT_FALSE(b.latency.cold_ns.has_value());
  EXPECT_EQ(b.memory.peak_device_bytes, 1 << 30);
  EXPECT_EQ(b.numeric.compared_with, "cpu");
  ASSERT_EQ(b.outputs.size(), 1u);
  EXPECT_EQ(b.outputs[0].shape, (std::vector<int64_t>{2, 0, 3}));
  EXPECT_EQ(b.extra, a.extra);
  EXPECT_EQ(b.wall_s, a.wall_s);
  EXPECT_EQ(back.verdicts[3].flags, (std::vector<Verdict>{Verdict::kIntolerableLatency}));
  EXPECT_EQ(back.verdicts[3].latency_ratio, 3.5);
  EXPECT_EQ(back.verdicts[1].mismatching, f.verdicts[1].mismatching);
}

TEST(ReportJson, InvalidUtf8IsReplacedNotThrown) {
  Fixture f;
  std::string text = util::dump_json(to_json(testing::judged(f.run, f.cases, f.verdicts)));
  EXPECT_NE(text.find("red\xEF\xBF\xBD"), std::string::npos);
}

TEST(ReportJson, RejectsAnotherMajorSchema) {
  Fixture f;
  json doc = to_json(testing::judged(f.run, f.cases, f.verdicts));
  doc["schema_version"] = "2.0";
  EXPECT_EQ(fatal_message([&] { from_json(doc); }),
            "results.json has schema 2.0; this mudjack reads 1.x");
  doc["schema_version"] = "0.9";
  EXPECT_EQ(fatal_message([&] { from_json(doc, "old/results.json"); }),
            "old/results.json has schema 0.9; this mudjack reads 1.x");
  doc["schema_version"] = "one";
  EXPECT_EQ(fatal_message([&] { from_json(doc); }),
            "results.json has an unreadable schema_version 'one'");
  doc.erase("schema_version");
  EXPECT_EQ(fatal_message([&] { from_json(doc); }), "results.json has no schema_version");
  EXPECT_EQ(fatal_message([&] { from_json(json::array()); }),
            "results.json is not a MudJack results document");
}

TEST(ReportJson, AcceptsAnyMinorOfItsMajor) {
  Fixture f;
  json doc = to_json(testing::judged(f.run, f.cases, f.verdicts));
  // A later MINOR adds fields; an earlier one lacks some.
  doc["schema_version"] = "1.7";
  doc["new_top_level"] = {{"x", 1}};
  doc["cases"][0]["energy_j"] = 0.25;
  doc["cases"][0]["latency"]["p99_ns"] = 130;
  doc["cases"][1].erase("requires");
  doc["cases"][1].erase("tags");
  doc["verdicts"][0]["confidence"] = 0.95;
  Results back = from_json(doc);
  EXPECT_EQ(back.schema_version, "1.7");
  EXPECT_EQ(back.cases.size(), f.cases.size());
  EXPECT_TRUE(back.cases[1].info.requires_.is_object());
  EXPECT_TRUE(back.cases[1].info.tags.empty());
}

TEST(ReportJson, RejectsValuesOutsideTheClosedListsAndWrongTypes) {
  Fixture f;
  json doc = to_json(testing::judged(f.run, f.cases, f.verdicts));
  json bad = doc;
  bad["cases"][2]["outcome"] = "exploded";
  EXPECT_EQ(fatal_message([&] { from_json(bad); }),
            "results.json: case torch/torch.sum/b has unknown outcome 'exploded'");
  bad = doc;
  bad["cases"][5]["error"]["kind"] = "gremlins";
  EXPECT_EQ(fatal_message([&] { from_json(bad); }),
            "results.json: case torch/torch.histc/int64 has unknown error kind 'gremlins'");
  bad = doc;
  bad["verdicts"][0]["flags"] = {"fine"};
  EXPECT_NE(fatal_message([&] { from_json(bad); }).find("unknown verdict 'fine'"),
            std::string::npos);
  bad = doc;
  bad["cases"][3]["wall_s"] = "fast";
  std::string msg = fatal_message([&] { from_json(bad); });
  EXPECT_EQ(msg.rfind("results.json: bad cases[3]: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  bad = doc;
  bad["cases"][0].erase("id");
  EXPECT_EQ(fatal_message([&] { from_json(bad); }), "results.json: a case has no id");
}

#ifdef MUDJACK_SOURCE_DIR
json load_schema() {
  std::ifstream in(fs::path(MUDJACK_SOURCE_DIR) / "schemas" / "results-v1.schema.json");
  EXPECT_TRUE(in.good());
  return json::parse(in);
}

std::set<std::string> keys(const json& object) {
  std::set<std::string> out;
  for (const auto& [k, v] : object.items()) {
    out.insert(k);
  }
  return out;
}

std::set<std::string> required(const json& def) {
  return def["required"].get<std::set<std::string>>();
}

TEST(ReportSchema, EnumsMatchTheClosedLists) {
  json schema = load_schema();
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  std::set<std::string> outcomes;
  for (auto o : model::kOutcomes) {
    outcomes.insert(std::string(model::to_string(o)));
  }
  EXPECT_EQ(schema["$defs"]["outcome"]["enum"].get<std::set<std::string>>(), outcomes);
  std::set<std::string> verdicts;
  for (auto v : {Verdict::kUnavailable, Verdict::kCompleteFailure, Verdict::kPartialFailure,
                 Verdict::kDivergent, Verdict::kIntolerableLatency, Verdict::kUnverified,
                 Verdict::kPortable}) {
    verdicts.insert(std::string(model::to_string(v)));
  }
  EXPECT_EQ(schema["$defs"]["verdict"]["enum"].get<std::set<std::string>>(), verdicts);
  std::set<std::string> kinds;
  for (auto k : {ErrorKind::kNotImplemented, ErrorKind::kUnsupportedDtype, ErrorKind::kTypeError,
                 ErrorKind::kOutOfMemory, ErrorKind::kDeviceError, ErrorKind::kNondeterministic,
                 ErrorKind::kOther}) {
    kinds.insert(std::string(model::to_string(k)));
  }
  EXPECT_EQ(schema["$defs"]["error_kind"]["enum"].get<std::set<std::string>>(), kinds);
}

TEST(ReportSchema, RequiredKeysMatchWhatToJsonWrites) {
  json schema = load_schema();
  const json& defs = schema["$defs"];
  Fixture f;
  f.cases.push_back(full_case());
  // torch on XLA: a host fallback, so host_fallback is written
  f.cases.back().extra["xla"] = {{"counters", {{"aten::nonzero", 1}}}, {"warm_compiles", 0}};
  auto whole_model = full_case();  // a models-suite case: its labels are tags
  whole_model.info.id += "-model";
  whole_model.info.tags = {"name::m", "task::T", "family::f", "author::a", "framework::torch"};
  whole_model.info.claims = json::object();
  whole_model.extra.erase("kernels");
  f.cases.insert(f.cases.begin(), whole_model);
  json doc = to_json(testing::judged(f.run, f.cases, f.verdicts));
  // Every key is in the schema; every key but the optional ones (schema
  // 1.7: present when a case carries claims or a kernel prediction; 1.8:
  // models, when a case carries a model's labels) is required.
  const auto without = [](std::set<std::string> all, std::initializer_list<const char*> drop) {
    for (const char* d : drop) all.erase(d);
    return all;
  };
  EXPECT_EQ(without(keys(doc), {"claims", "kernels", "models", "host_fallback"}), required(schema));
  EXPECT_EQ(keys(doc), keys(schema["properties"]));
  EXPECT_EQ(keys(doc["run"]), required(schema["properties"]["run"]));
  ASSERT_EQ(doc["models"].size(), 1u);
  EXPECT_EQ(keys(doc["models"][0]), required(schema["properties"]["models"]["items"]));
  const json& c = doc["cases"].back();
  EXPECT_EQ(without(keys(c), {"policy", "claims"}), required(defs["case"]));
  EXPECT_EQ(keys(c), keys(defs["case"]["properties"]));
  EXPECT_EQ(keys(c["error"]), required(defs["error"]["oneOf"][1]));
  EXPECT_EQ(keys(c["latency"]), required(defs["latency"]));
  EXPECT_EQ(keys(c["memory"]), required(defs["memory"]));
  EXPECT_EQ(keys(c["numeric"]), required(defs["numeric"]));
  EXPECT_EQ(keys(c["outputs"][0]), required(defs["output"]));
  EXPECT_EQ(keys(doc["verdicts"][0]), required(defs["verdict_row"]));
  EXPECT_EQ(keys(doc["counts"]["torch"]["cpu"]), required(defs["outcome_counts"]));
  // The crashed case is claimed on cuda (by its op database), and so is the
  // crashed model (declared by hand): claimed-but-failing rows with their error.
  const json& failing = doc["claims"]["torch"]["cuda:0"]["claimed_failing"];
  ASSERT_EQ(failing.size(), 2u);
  EXPECT_EQ(keys(failing[0]), keys(defs["claim_row"]["properties"]));
  // Kernels predicted on the GPU it crashed on; none predicted on the cpu,
  // where it did not run.
  const json& failed = doc["kernels"]["torch"]["predicted_present_failed"];
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(keys(failed[0]), keys(defs["kernel_row"]["properties"]));
  EXPECT_EQ(doc["kernels"]["torch"]["unobserved_missing"]["cpu"][0]["missing"]["cpu"][0],
            "Histc(T=int32)");
}
#endif

// --- CSV ---------------------------------------------------------------------

// A minimal RFC 4180 reader for checking the writer.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty() && !was_quoted) << "quote inside an unquoted field";
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
      rows.emplace_back();
      ++i;
    } else {
      EXPECT_NE(c, '\n') << "bare LF outside quotes";
      field += c;
    }
  }
  EXPECT_FALSE(quoted);
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "last row must end with CRLF";
  rows.pop_back();
  return rows;
}

TEST(ReportCsv, QuotesCommasQuotesAndNewlines) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");

  Fixture f;
  f.cases[5].error.message = "he said \"no\", then\r\nleft";
  f.cases[0].info.variant = "n=3,m=4";
  std::string text = to_csv(f.cases);
  auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), f.cases.size() + 1);
  std::vector<std::string> header(kCsvColumns.begin(), kCsvColumns.end());
  EXPECT_EQ(rows[0], header);
  EXPECT_EQ(
      text.rfind(
          "run_id,case_id,framework,function,variant,device,dtype,shape,mode,"
          "outcome,error_kind,error_message,cold_ns,median_ns,p10_ns,p90_ns,n,"
          "peak_device_bytes,peak_host_bytes,max_abs_err,max_rel_err,error_eps,bound_eps,"
          "cause,checked,work_amount,"
          "work_unit,throughput_per_s,throughput_unit,metrics,params,unstable,spread,host_fallback,"
          "warm_compiles,refusal,refusal_source,documented\r\n",
          0),
      0u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.size(), kCsvColumns.size());
  }

  const auto& fail = rows[6];
  EXPECT_EQ(fail[0], "r42");
  EXPECT_EQ(fail[1], "torch/torch.histc/int64");
  EXPECT_EQ(fail[5], "cuda:0");
  EXPECT_EQ(fail[9], "fail");
  EXPECT_EQ(fail[10], "not_implemented");
  EXPECT_EQ(fail[11], "he said \"no\", then\r\nleft");
  EXPECT_EQ(fail[12], "");  // no cold latency
  EXPECT_EQ(fail[13], "");

  EXPECT_EQ(rows[1][4], "n=3,m=4");
  EXPECT_EQ(rows[1][12], "5000");
  EXPECT_EQ(rows[1][13], "110");
  EXPECT_EQ(rows[1][14], "102");
  EXPECT_EQ(rows[1][16], "3");
  const auto& mismatch = rows[4];
  EXPECT_EQ(mismatch[19], "0.5");
  EXPECT_EQ(mismatch[20], "0.25");
}

TEST(ReportCsv, RepairsInvalidUtf8) {
  EXPECT_EQ(csv_field("ok \xff, \xE2\x82\xAC"), "\"ok \xEF\xBF\xBD, \xE2\x82\xAC\"");
  EXPECT_EQ(valid_utf8("a\xC0\xAF"
                       "b\xF0\x9F\x98\x80"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\xF0\x9F\x98\x80");
}

TEST(ReportCsv, EmptyRunIsJustTheHeader) {
  auto rows = parse_csv(to_csv({}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].size(), kCsvColumns.size());
}

// --- JUnit -------------------------------------------------------------------

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

TEST(ReportJunit, EscapesTextAndAttributes) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'", false), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape("x\ty\nz\r", false), "x\ty\nz\r");
  EXPECT_EQ(xml_escape("x\ty\nz\r", true), "x&#9;y&#10;z&#13;");
  EXPECT_EQ(xml_escape("bell\x07 esc\x1b nul", false), "bell\\x07 esc\\x1b nul");
  EXPECT_EQ(xml_escape(std::string_view("a\0b", 3), false), "a\\x00b");
  EXPECT_EQ(xml_escape("bad \xff\xfe byte", false), "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
  EXPECT_EQ(xml_escape("truncated \xE2\x82", false), "truncated \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("overlong \xC0\xAF", false), "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("surrogate \xED\xA0\x80", false),
            "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("nonchar \xEF\xBF\xBE", false), "nonchar \\uFFFE");
  EXPECT_EQ(xml_escape("ok \xE2\x82\xAC \xF0\x9F\x98\x80", false),
            "ok \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(ReportJunit, OneSuitePerFrameworkAndDeviceWithCounts) {
  Fixture f;
  std::string xml = to_junit(f.run, f.cases);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0), 0u);
  EXPECT_NE(xml.find("<testsuites name=\"mudjack r42\" tests=\"13\" failures=\"4\" errors=\"0\" "
                     "skipped=\"2\" time=\"6.500\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"torch@cpu\" tests=\"6\" failures=\"1\" errors=\"0\" "
                     "skipped=\"1\" time=\"3.000\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"torch@cuda:0\" tests=\"6\" failures=\"3\" errors=\"0\" "
                     "skipped=\"1\" time=\"3.000\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"jax@cpu\" tests=\"1\" failures=\"0\""), std::string::npos);
  EXPECT_EQ(count_of(xml, "<testsuite "), 3u);
  EXPECT_EQ(count_of(xml, "<testcase "), 13u);
  EXPECT_EQ(count_of(xml, "<failure "), 4u);
  EXPECT_EQ(count_of(xml, "<skipped "), 2u);
  EXPECT_EQ(count_of(xml, "</testsuite>"), 3u);

  // classname keeps a function already prefixed with its framework.
  EXPECT_NE(xml.find("<testcase classname=\"torch.histc\" name=\"int64\" time=\"0.500\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"jax.numpy.sum\" name=\"s\" time=\"0.500\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"fail\" message=\"not_implemented: &quot;histc_cuda&quot; "
                     "not implemented for &apos;Long&apos;\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"crash\" message=\"signal 11\">"), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"timeout\" message=\"no reply within 30 s\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"mismatch\" message=\"values differ beyond rtol 1e-05\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"skip: requires 2 devices\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"unavailable: torch.lt is absent\"/>"), std::string::npos);
  // The crash's stderr tail is in the failure text, escaped.
  EXPECT_NE(xml.find("boom &lt;tag&gt; &amp; &quot;q&quot; &apos;a&apos;\\x01\\x1b[31mred"
                     "\xEF\xBF\xBD\nlast line"),
            std::string::npos);
  // Nothing XML 1.0 forbids survives.
  for (unsigned char c : xml) {
    EXPECT_TRUE(c >= 0x20 || c == '\n' || c == '\t' || c == '\r') << static_cast<int>(c);
  }
  EXPECT_EQ(xml.find('\xff'), std::string::npos);
}

TEST(ReportJunit, PrefixesAFunctionListedWithoutItsFramework) {
  CaseResult r = make_case("tensorflow", "concat", "v1", "cpu", Outcome::kPass);
  std::string xml = to_junit(make_run(), {r});
  EXPECT_NE(xml.find("classname=\"tensorflow.concat\" name=\"v1\""), std::string::npos);
}

// --- Markdown ----------------------------------------------------------------

TEST(ReportMarkdown, SummarisesVerdictsAndOutcomesPerFrameworkAndDevice) {
  Fixture f;
  std::string md = to_markdown(testing::judged(f.run, f.cases, f.verdicts));
  EXPECT_EQ(md.rfind("# MudJack run `r42`\n", 0), 0u) << md;
  EXPECT_NE(md.find("- Suite: `paper`\n"), std::string::npos);
  EXPECT_NE(md.find("- Date: 2024-05-01T12:00:00Z"), std::string::npos);
  EXPECT_NE(md.find("- Host: node-7\n"), std::string::npos);
  EXPECT_NE(md.find("- Baseline device: `cpu`\n"), std::string::npos);

  // Frameworks sorted; baseline device first.
  size_t jax = md.find("\n## jax\n");
  size_t torch = md.find("\n## torch\n");
  ASSERT_NE(jax, std::string::npos);
  ASSERT_NE(torch, std::string::npos);
  EXPECT_LT(jax, torch);
  EXPECT_NE(md.find("| Device | Functions | portable | unverified | partial failure | "
                    "complete failure | divergent | intolerable latency | unavailable | "
                    "Failure rate |"),
            std::string::npos);
  // Functions: portable, unverified, partial, complete, divergent, intolerable, unavailable,
  // rate.
  EXPECT_NE(md.find("| `cpu` | 4 | 2 | 0 | 0 | 1 | 0 | 0 | 1 | 33% |", torch), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `cuda:0` (NVIDIA H100) | 4 | 0 | 0 | 1 | 1 | 1 | 0 | 1 | 67% |", torch),
            std::string::npos);
  EXPECT_NE(md.find("| `cpu` | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0% |", jax), std::string::npos);
  // Cases: pass, fail, mismatch, crash, timeout, unavailable, skip.
  EXPECT_NE(md.find("| Device | Cases | pass | fail | mismatch | crash | timeout | unavailable | "
                    "skip |"),
            std::string::npos);
  EXPECT_NE(md.find("| `cpu` | 6 | 4 | 0 | 0 | 1 | 0 | 0 | 1 |", torch), std::string::npos);
  EXPECT_NE(md.find("| `cuda:0` (NVIDIA H100) | 6 | 2 | 1 | 1 | 0 | 1 | 1 | 0 |", torch),
            std::string::npos);
  EXPECT_NE(md.find("| `cpu` | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |", jax), std::string::npos);

  // Failure reasons as the paper grouped them, per device; none for jax, which passed.
  EXPECT_NE(md.find("| Device | not implemented | type | timeout | memory | float precision | "
                    "crash | unavailable | other |",
                    torch),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `cpu` | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |", torch), std::string::npos) << md;
  EXPECT_NE(md.find("| `cuda:0` (NVIDIA H100) | 1 | 0 | 1 | 0 | 1 | 0 | 1 | 0 |", torch),
            std::string::npos)
      << md;
  EXPECT_EQ(md.substr(jax, torch - jax).find("Failure reasons"), std::string::npos);

  // Every non-portable function, with reason and first failing case, one line each.
  EXPECT_NE(md.find("## Not portable (6)\n"), std::string::npos);
  EXPECT_NE(md.find("- **torch** `torch.histc` on `cuda:0`: partial failure (also intolerable "
                    "latency) — partial\\_failure because\n"
                    "  - first failing case `torch/torch.histc/int64`: fail (not\\_implemented): "
                    "\"histc\\_cuda\" not implemented for 'Long'\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("second line"), std::string::npos);
  EXPECT_NE(md.find("- **torch** `torch.sum` on `cuda:0`: divergent — divergent because\n"
                    "  - first failing case `torch/torch.sum/b`: mismatch: values differ beyond "
                    "rtol 1e-05\n"),
            std::string::npos);
  EXPECT_NE(md.find("first failing case `torch/torch.cat/x`: crash, signal 11: last line\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- **torch** `torch.lt` on `cpu`: unavailable — unavailable because\n"
                    "  - first failing case `torch/torch.lt/y`: skip: requires 2 devices\n"),
            std::string::npos);
  EXPECT_EQ(md.find("`jax.numpy.sum` on"), std::string::npos);
}

TEST(ReportMarkdown, LongMessagesAreCutToOneLine) {
  Fixture f;
  f.cases[5].error.message = std::string(300, 'x') + "\nmore";
  std::string md = to_markdown(testing::judged(f.run, f.cases, f.verdicts));
  EXPECT_NE(md.find(std::string(200, 'x') + "…\n"), std::string::npos);
  EXPECT_EQ(md.find(std::string(201, 'x')), std::string::npos);
}

TEST(ReportMarkdown, ProbeTextIsCleanedOfEscapesAndBadBytes) {
  Fixture f;
  f.cases[8].error.stderr_tail = "first\n\x1b[31mSegmentation fault\x1b[0m\x07 at \xff<0x0>\n";
  std::string md = to_markdown(testing::judged(f.run, f.cases, f.verdicts));
  EXPECT_NE(md.find("crash, signal 11: Segmentation fault at \xEF\xBF\xBD\\<0x0\\>\n"),
            std::string::npos)
      << md;
  for (unsigned char c : md) {
    EXPECT_TRUE(c >= 0x20 || c == '\n') << static_cast<int>(c);
  }
}

TEST(ReportMarkdown, AllPortableSaysSo) {
  Fixture f;
  std::vector<VerdictRow> good = {f.verdicts[0]};
  std::string md = to_markdown(testing::judged(f.run, {f.cases[0]}, good));
  EXPECT_NE(md.find("## Not portable (0)\n\nEvery function is portable on every device.\n"),
            std::string::npos);
}

// --- render and write_all ------------------------------------------------------

class ReportWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("mudjack_report_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(ReportWriteTest, WritesEveryFormatAndNoTemporaryFiles) {
  Fixture f;
  fs::path out = dir_ / "reports" / "r42";
  write_all(out, testing::judged(f.run, f.cases, f.verdicts));
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) {
    names.insert(e.path().filename().string());
  }
  EXPECT_EQ(names, (std::set<std::string>{"results.json", "results.csv", "junit.xml", "summary.md",
                                          "report.html"}));
  for (size_t i = 0; i < kFormats.size(); ++i) {
    EXPECT_EQ(read_file(out / kFileNames[i]),
              render(kFormats[i], testing::judged(f.run, f.cases, f.verdicts)));
  }
  std::string text = read_file(out / "results.json");
  EXPECT_EQ(text.rfind("{\n \"", 0), 0u);  // pretty, 1-space indent
  Results back = load_json(out / "results.json");
  EXPECT_EQ(back.cases.size(), f.cases.size());
  EXPECT_EQ(
      util::dump_json(to_json(testing::judged(back.run, back.cases, back.verdicts)), 1) + "\n",
      text);

  // Writing again replaces the files in place.
  f.run.state = "incomplete";
  write_all(out, testing::judged(f.run, f.cases, f.verdicts));
  EXPECT_EQ(load_json(out / "results.json").run.state, "incomplete");
}

TEST_F(ReportWriteTest, UnwritableFolderIsAFatalError) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  std::string msg =
      fatal_message([&] { write_all(dir_ / "file" / "sub", testing::judged(make_run(), {}, {})); });
  EXPECT_EQ(msg.rfind("cannot create report folder " + (dir_ / "file" / "sub").string() + ": ", 0),
            0u)
      << msg;
  msg = fatal_message([&] { write_file_atomically(dir_ / "missing" / "x.txt", "data"); });
  EXPECT_EQ(msg.rfind("cannot write " + (dir_ / "missing" / "x.txt").string() + ": ", 0), 0u)
      << msg;
}

TEST_F(ReportWriteTest, LoadJsonReportsUnreadableFiles) {
  fs::create_directories(dir_);
  EXPECT_EQ(fatal_message([&] { load_json(dir_ / "none.json"); }),
            "cannot read " + (dir_ / "none.json").string());
  std::ofstream(dir_ / "bad.json") << "{not json";
  std::string msg = fatal_message([&] { load_json(dir_ / "bad.json"); });
  EXPECT_EQ(msg.rfind((dir_ / "bad.json").string() + " is not valid JSON: ", 0), 0u) << msg;
  std::ofstream(dir_ / "v2.json") << R"({"schema_version": "2.0"})";
  EXPECT_EQ(fatal_message([&] { load_json(dir_ / "v2.json"); }),
            (dir_ / "v2.json").string() + " has schema 2.0; this mudjack reads 1.x");
}

TEST_F(ReportWriteTest, LoadJsonReadsAGzippedRunAndNamesABrokenOne) {
  Fixture f;
  write_all(dir_, testing::judged(f.run, f.cases, f.verdicts));
  const std::string text = read_file(dir_ / "results.json");
  const fs::path gz = dir_ / "results.json.gz";
  gzFile out = gzopen(gz.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(out), Z_OK);
  Results back = load_json(gz);
  EXPECT_EQ(back.run.id, f.run.id);
  EXPECT_EQ(back.cases.size(), f.cases.size());

  const std::string packed = read_file(gz);
  std::ofstream(dir_ / "cut.json.gz", std::ios::binary) << packed.substr(0, packed.size() / 2);
  EXPECT_EQ(fatal_message([&] { load_json(dir_ / "cut.json.gz"); }),
            (dir_ / "cut.json.gz").string() + " is not valid gzip: truncated");
  std::ofstream(dir_ / "junk.json.gz", std::ios::binary) << "\x1f\x8bjunk after the magic";
  std::string msg = fatal_message([&] { load_json(dir_ / "junk.json.gz"); });
  EXPECT_EQ(msg.rfind((dir_ / "junk.json.gz").string() + " is not valid gzip: ", 0), 0u) << msg;
}

// A crafted file: a gzip bomb (300 MiB of spaces in 300 KB) is refused as it
// inflates, before the JSON parser sees it; a run listing one case twice is
// refused naming both places.
TEST_F(ReportWriteTest, LoadJsonRefusesABombAndARepeatedCase) {
  fs::create_directories(dir_);
  const fs::path bomb = dir_ / "bomb.json.gz";
  gzFile out = gzopen(bomb.c_str(), "wb9");
  ASSERT_NE(out, nullptr);
  const std::string spaces(1 << 20, ' ');
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(gzwrite(out, spaces.data(), static_cast<unsigned>(spaces.size())),
              static_cast<int>(spaces.size()));
  }
  ASSERT_EQ(gzclose(out), Z_OK);
  ASSERT_LT(fs::file_size(bomb), size_t{2} << 20);
  EXPECT_EQ(fatal_message([&] { load_json(bomb); }),
            bomb.string() +
                " holds more than 256 MiB of JSON; no results.json is that large "
                "(inflated)");

  Fixture f;
  write_all(dir_, testing::judged(f.run, f.cases, f.verdicts));
  auto doc = nlohmann::json::parse(read_file(dir_ / "results.json"));
  ASSERT_FALSE(doc["cases"].empty());
  doc["cases"].push_back(doc["cases"][0]);
  std::ofstream(dir_ / "twice.json") << doc.dump();
  const auto last = std::to_string(doc["cases"].size() - 1);
  const std::string msg = fatal_message([&] { load_json(dir_ / "twice.json"); });
  EXPECT_NE(msg.find("cases[" + last + "] repeats case "), std::string::npos) << msg;
  EXPECT_NE(msg.find("(cases[0])"), std::string::npos) << msg;
}

TEST(ReportRender, UnknownFormatListsTheKnownOnes) {
  EXPECT_EQ(fatal_message([] { render("pdf", testing::judged(make_run(), {}, {})); }),
            "unknown report format 'pdf' (known: json, csv, junit, md, html)");
}

}  // namespace
}  // namespace mudjack::report
