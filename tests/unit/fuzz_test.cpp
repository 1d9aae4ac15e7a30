// Findings of a fuzz batch (src/fuzz/findings.hpp) from hand-made judged
// cases, and the campaign's small parsers and report views.
#include <gtest/gtest.h>

#include "fuzz/campaign.hpp"
#include "fuzz/findings.hpp"
#include "fuzz/report.hpp"
#include "fuzz/suspect.hpp"

namespace mudjack::fuzz {
namespace {

using model::Outcome;

model::CaseResult result(const std::string& graph, const std::string& backend,
                         const std::string& framework, const std::string& mode, Outcome o,
                         const std::string& device = "cpu", double median_ns = 1000) {
  model::CaseResult r;
  r.info.id = "fuzz/" + graph + "/" + backend;
  r.info.framework = framework;
  r.info.mode = mode;
  r.device = device;
  r.outcome = o;
  model::LatencyStats st;
  st.median_ns = median_ns;
  r.latency.stats = st;
  return r;
}

const std::string kG1 = "0123456789abcdef";
const std::string kG2 = "fedcba9876543210";

TEST(FuzzFindings, ReadsEachOutcomeAgainstTheOtherBackends) {
  std::vector<model::CaseResult> cases = {
      result(kG1, "torch", "torch", "eager", Outcome::kPass),
      result(kG1, "torch-compile", "torch", "compiled", Outcome::kPass, "cpu", 25000),
      result(kG1, "jax", "jax", "eager", Outcome::kFail),
      result(kG1, "onnxruntime", "onnxruntime", "eager", Outcome::kMismatch),
      result(kG1, "tensorflow", "tensorflow", "eager", Outcome::kUnavailable),
      // every attempted backend refuses kG2: rejected, no finding
      result(kG2, "torch", "torch", "eager", Outcome::kFail),
      result(kG2, "jax", "jax", "eager", Outcome::kFail),
  };
  cases[2].error.message = "TypeError: op 'v3' got shape (2, 3) at 0x7f00";
  const auto facts = analyze(cases, 10, {{kG1, {{"add", "relu"}, 4}}});
  EXPECT_EQ(facts.graphs, 2);
  EXPECT_EQ(facts.rejected_by_all, 1);
  EXPECT_EQ(facts.unavailable.at("tensorflow"), 1);
  EXPECT_EQ(facts.acceptance.at("torch").first, 2);
  EXPECT_EQ(facts.acceptance.at("torch").second, 1);
  ASSERT_EQ(facts.findings.size(), 3U);
  std::map<Symptom, Finding> by;
  for (const auto& f : facts.findings) by[f.symptom] = f;
  EXPECT_EQ(by[Symptom::kRaise].backend, "jax");
  EXPECT_EQ(by[Symptom::kRaise].error_class, "TypeError: op '_' got shape (#, #) at #");
  EXPECT_EQ(by[Symptom::kRaise].ops, (std::vector<std::string>{"add", "relu"}));
  EXPECT_EQ(by[Symptom::kMismatch].backend, "onnxruntime");
  EXPECT_EQ(by[Symptom::kMismatch].agreeing, 2) << "torch and torch-compile passed on the cpu";
  EXPECT_EQ(by[Symptom::kSlow].backend, "torch-compile");
  EXPECT_DOUBLE_EQ(*by[Symptom::kSlow].ratio, 25);
  EXPECT_EQ(by[Symptom::kRaise].signature(),
            "raise|jax|cpu|TypeError: op '_' got shape (#, #) at #|add,relu");
}

TEST(FuzzFindings, ShowsKeepsTheErrorClass) {
  Finding f;
  f.symptom = Symptom::kRaise;
  f.error_class = error_class("RuntimeError: no kernel for 'Sin' float16 (node v3)");
  auto r = result(kG1, "onnxruntime", "onnxruntime", "eager", Outcome::kFail);
  r.error.message = "RuntimeError: no kernel for 'Sin' float16 (node v17)";
  EXPECT_TRUE(shows(f, r, nullptr, 10));
  r.error.message = "RuntimeError: out of memory";
  EXPECT_FALSE(shows(f, r, nullptr, 10));
}

// The JSON words (schemas/fuzz-findings-v1.schema.json, vocabulary.json's
// fuzz_symptom) parse back; an unknown or empty word is no symptom.
TEST(FuzzFindings, SymptomWordsRoundTrip) {
  for (const auto s : kSymptoms) {
    EXPECT_EQ(parse_symptom(to_string(s)).value_or(Symptom::kNone), s) << to_string(s);
  }
  EXPECT_EQ(to_string(Symptom::kRaise), "raise");
  EXPECT_EQ(to_string(Symptom::kNone), "");
  EXPECT_FALSE(parse_symptom("").has_value());
  EXPECT_FALSE(parse_symptom("hang").has_value());
  Finding f;
  f.symptom = Symptom::kSuspect;
  EXPECT_EQ(to_json(f)["symptom"], "suspect");
  EXPECT_EQ(finding_from_json(to_json(f)).symptom, Symptom::kSuspect);
  EXPECT_EQ(finding_from_json(nlohmann::json{{"symptom", "hang"}}).symptom, Symptom::kNone);
}

TEST(FuzzCampaign, CaseIds) {
  auto id = parse_case_id("fuzz/0123456789abcdef/torch-compile");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->first, "0123456789abcdef");
  EXPECT_EQ(id->second, "torch-compile");
  EXPECT_FALSE(parse_case_id("torch/torch.add/float32-small-eager").has_value());
}

TEST(FuzzReport, CsvQuotesAndJunitFails) {
  Finding f;
  f.symptom = Symptom::kRaise;
  f.backend = "jax";
  f.device = "cpu";
  f.detail = "ValueError: shapes (2,3), \"x\"";
  f.ops = {"matmul"};
  const auto csv = render_csv({f}, {});
  EXPECT_NE(csv.find("\"ValueError: shapes (2,3), \"\"x\"\"\""), std::string::npos) << csv;
  const auto junit = render_junit({{"id", "fz-1"}}, {f}, {});
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(junit.find("&quot;x&quot;"), std::string::npos) << junit;
}

OutputFacts output(const std::string& dtype, const std::string& op, double rms,
                   std::vector<double> operands) {
  return {"v1", dtype, op, rms, std::move(operands)};
}

// The suspect rule (src/fuzz/suspect.hpp): exact zeros, underflow to
// subnormals and cancellation are suspect; an ordinary answer, a small one
// computed without cancellation, integers and a failed evaluation are not.
TEST(FuzzSuspect, ZeroReferenceIsSuspect) {
  // layer_norm over a broadcast axis: x - mean is exactly 0
  const auto why = suspect_output(output("float32", "layer_norm", 0.0, {3.0}), 1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("exactly 0"), std::string::npos) << *why;
}

TEST(FuzzSuspect, SubnormalUnderflowIsSuspect) {
  // exp of inputs near -100: 3.7e-44 is below float32's smallest normal
  const auto why = suspect_output(output("float32", "exp", 3.7e-44, {100.0}), 1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("underflows float32"), std::string::npos) << *why;
  // the same magnitude is normal in float64
  EXPECT_FALSE(suspect_output(output("float64", "exp", 3.7e-44, {100.0}), 1));
  // float16's smallest normal is 2^-14
  EXPECT_TRUE(suspect_output(output("float16", "exp", 6.0e-5, {9.7}), 1));
  EXPECT_FALSE(suspect_output(output("float16", "exp", 6.2e-5, {9.7}), 1));
}

TEST(FuzzSuspect, CancellationAtTheBoundIsSuspect) {
  // float32, K = 1: the bound is 2^13 eps; a sum of terms of RMS 1 whose
  // answer is 1e-4 loses 1e4 eps of it to one rounding of the terms
  const auto why = suspect_output(output("float32", "reduce_sum", 1e-4, {1.0}), 1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("cancels: reduce_sum of values of RMS 1"), std::string::npos) << *why;
  EXPECT_FALSE(suspect_output(output("float32", "reduce_sum", 1e-3, {1.0}), 1));
  // gelu's 1 + tanh at x = -5.1 (float16, K = 21: the bound is 16 sqrt(21))
  EXPECT_TRUE(suspect_output(output("float16", "gelu", 6.7e-5, {4.0}), 21));
  // matmul's terms are products of its operands
  EXPECT_TRUE(suspect_output(output("float16", "matmul", 0.01, {2.0, 2.0}), 1));
  EXPECT_FALSE(suspect_output(output("float16", "matmul", 0.5, {2.0, 2.0}), 1));
  // a small answer of an op whose error follows its own result: exp(-20)
  EXPECT_FALSE(suspect_output(output("float32", "exp", 2e-9, {20.0}), 1));
}

TEST(FuzzSuspect, IntegersAreNeverSuspect) {
  EXPECT_FALSE(suspect_output(output("int32", "reduce_sum", 0.0, {5.0}), 1));
  EXPECT_FALSE(suspect_output(output("bool", "greater", 0.0, {1.0, 1.0}), 1));
}

TEST(FuzzSuspect, AMismatchIsSuspectWhenEveryFailingOutputIs) {
  GraphFacts g;
  g.outputs = {output("float32", "add", 0.0, {1.0, 1.0}), output("float32", "relu", 1.0, {1.0})};
  g.outputs[1].name = "v2";
  // not known which failed: every output must be suspect
  EXPECT_FALSE(suspect_mismatch(g, std::nullopt));
  // only the zero output failed
  EXPECT_TRUE(suspect_mismatch(g, std::vector<bool>{true, false}));
  // the ordinary output failed too
  EXPECT_FALSE(suspect_mismatch(g, std::vector<bool>{true, true}));
  g.outputs.pop_back();
  EXPECT_TRUE(suspect_mismatch(g, std::nullopt));
  g.error = "the reference probe ended with exit code 1";
  EXPECT_FALSE(suspect_mismatch(g, std::nullopt)) << "no facts: the mismatch stays a finding";
}

TEST(FuzzSuspect, FactsFromTheProbesLine) {
  const auto g = facts_from_json(nlohmann::json::parse(
      R"({"graph": "a.json", "reduction": 21, "outputs": [{"name": "v35", "dtype": "float16",
          "op": "gelu", "rms": 9.8e-08, "operand_rms": [5.1, null]}]})"));
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.reduction, 21);
  EXPECT_EQ(g.outputs[0].operand_rms, (std::vector<double>{5.1, 0.0}));
  EXPECT_FALSE(
      facts_from_json(nlohmann::json::parse(R"({"outputs": [{"name": 3}]})")).error.empty());
  EXPECT_EQ(facts_from_json(nlohmann::json::parse(R"({"error": "x.json: not JSON"})")).error,
            "x.json: not JSON");
}

// Suspects have their own count and section in every report; JUnit skips them.
TEST(FuzzReport, SuspectsAreApartFromFindings) {
  Finding s;
  s.symptom = Symptom::kSuspect;
  s.backend = "jax";
  s.device = "cpu";
  s.graph = "0123456789abcdef";
  s.ops = {"gelu"};
  s.suspect = "v35 (float16): its float64 reference is exactly 0";
  const nlohmann::json summary = {{"id", "fz-1"}, {"options", nlohmann::json::object()}};
  const auto md = render_markdown(summary, {}, {s});
  EXPECT_NE(md.find("0 unique"), std::string::npos) << md;
  EXPECT_NE(md.find("## Suspects\n\n1 suspect"), std::string::npos) << md;
  EXPECT_NE(md.find("exactly 0"), std::string::npos) << md;
  const auto junit = render_junit(summary, {}, {s});
  EXPECT_NE(junit.find("failures=\"0\" skipped=\"1\""), std::string::npos) << junit;
  EXPECT_NE(render_csv({}, {s}).find("suspect,jax,cpu,gelu"), std::string::npos);
  const auto html = render_html("/nonexistent", summary, {}, {s});
  EXPECT_NE(html.find("0 unique findings; 1 suspects"), std::string::npos) << html;
  EXPECT_NE(html.find("id=\"suspects\""), std::string::npos);
}

}  // namespace
}  // namespace mudjack::fuzz
