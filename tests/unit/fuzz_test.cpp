// Findings of a fuzz batch (src/fuzz/findings.hpp) from hand-made judged
// cases, and the campaign's small parsers and report views.
#include <gtest/gtest.h>

#include "fuzz/campaign.hpp"
#include "fuzz/findings.hpp"
#include "fuzz/report.hpp"

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
  std::map<std::string, Finding> by;
  for (const auto& f : facts.findings) by[f.symptom] = f;
  EXPECT_EQ(by["raise"].backend, "jax");
  EXPECT_EQ(by["raise"].error_class, "TypeError: op '_' got shape (#, #) at #");
  EXPECT_EQ(by["raise"].ops, (std::vector<std::string>{"add", "relu"}));
  EXPECT_EQ(by["mismatch"].backend, "onnxruntime");
  EXPECT_EQ(by["mismatch"].agreeing, 2) << "torch and torch-compile passed on the cpu";
  EXPECT_EQ(by["slow"].backend, "torch-compile");
  EXPECT_DOUBLE_EQ(*by["slow"].ratio, 25);
  EXPECT_EQ(by["raise"].signature(),
            "raise|jax|cpu|TypeError: op '_' got shape (#, #) at #|add,relu");
}

TEST(FuzzFindings, ShowsKeepsTheErrorClass) {
  Finding f;
  f.symptom = "raise";
  f.error_class = error_class("RuntimeError: no kernel for 'Sin' float16 (node v3)");
  auto r = result(kG1, "onnxruntime", "onnxruntime", "eager", Outcome::kFail);
  r.error.message = "RuntimeError: no kernel for 'Sin' float16 (node v17)";
  EXPECT_TRUE(shows(f, r, nullptr, 10));
  r.error.message = "RuntimeError: out of memory";
  EXPECT_FALSE(shows(f, r, nullptr, 10));
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
  f.symptom = "raise";
  f.backend = "jax";
  f.device = "cpu";
  f.detail = "ValueError: shapes (2,3), \"x\"";
  f.ops = {"matmul"};
  const auto csv = render_csv({f});
  EXPECT_NE(csv.find("\"ValueError: shapes (2,3), \"\"x\"\"\""), std::string::npos) << csv;
  const auto junit = render_junit({{"id", "fz-1"}}, {f});
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(junit.find("&quot;x&quot;"), std::string::npos) << junit;
}

}  // namespace
}  // namespace mudjack::fuzz
