// Claimed versus actual support (verdict/claims.hpp) and its views.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/model.hpp"
#include "report/json.hpp"
#include "report/markdown.hpp"
#include "report/text.hpp"
#include "verdict/claims.hpp"
#include "verdict/judged.hpp"

namespace mudjack {
namespace {

model::CaseResult result(const std::string& function, const std::string& dtype, int sample,
                         const std::string& device, model::Outcome outcome, nlohmann::json claims) {
  model::CaseResult r;
  r.run_id = "r";
  r.info.framework = "torch";
  r.info.function = function;
  r.info.dtype = dtype;
  r.info.variant = dtype + "-default-sample=" + std::to_string(sample) + "-eager";
  r.info.id = "torch/" + function + "/" + r.info.variant;
  r.info.policy = "once";
  r.info.claims = std::move(claims);
  r.device = device;
  r.outcome = outcome;
  if (outcome == model::Outcome::kFail) r.error.message = "no kernel for " + dtype + "\nmore";
  return r;
}

const nlohmann::json kCpuOnly = {{"cpu", true}, {"cuda", false}};

TEST(Claims, DeviceKindDropsIndexAndMergeLabel) {
  EXPECT_EQ(verdict::device_kind("cpu"), "cpu");
  EXPECT_EQ(verdict::device_kind("cuda:1"), "cuda");
  EXPECT_EQ(verdict::device_kind("h100/cuda:0"), "cuda");
}

TEST(Claims, EachDirectionWithItsEvidence) {
  using model::Outcome;
  std::vector<model::CaseResult> cases = {
      // claimed on cpu, one of two samples fails: claimed but failing
      result("svd", "float16", 0, "cpu", Outcome::kPass, kCpuOnly),
      result("svd", "float16", 1, "cpu", Outcome::kFail, kCpuOnly),
      // not claimed on cuda, both run (a mismatch ran too): working but unclaimed
      result("svd", "float16", 0, "cuda:0", Outcome::kPass, kCpuOnly),
      result("svd", "float16", 1, "cuda:0", Outcome::kMismatch, kCpuOnly),
      // claimed and passing, unclaimed and failing: both agree
      result("abs", "int8", 0, "cpu", Outcome::kPass, kCpuOnly),
      result("abs", "int8", 0, "cuda:0", Outcome::kCrash, kCpuOnly),
      // skipped, unavailable and suite errors say nothing
      result("neg", "bool", 0, "cpu", Outcome::kSkip, kCpuOnly),
      result("neg", "bool", 0, "cuda:0", Outcome::kUnavailable, kCpuOnly),
      result("neg", "int8", 0, "cpu", Outcome::kError, kCpuOnly),
      // no claim for this kind, or none at all: a grid dtype refused by a
      // type rule is not claimed (it agrees), a declared one failing is
      // claimed but failing
      result("sin", "float32", 0, "tpu:0", Outcome::kFail, kCpuOnly),
      result("cos", "float32", 0, "cpu", Outcome::kFail, nlohmann::json::object()),
      result("tan", "float64", 0, "cpu", Outcome::kFail, nlohmann::json::object()),
  };
  for (auto* r : {&cases[9], &cases[10]}) {
    r->info.grid = true;
    r->error.kind = model::ErrorKind::kUnsupportedDtype;
    r->error.message = "TypeError: sin does not accept dtype float32";  // a type rule: the domain
  }
  auto rows = verdict::claims(cases);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(verdict::claim_of(cases[9]).source, verdict::ClaimSource::kGrid);
  EXPECT_FALSE(verdict::claim_of(cases[10]).claimed);
  EXPECT_EQ(verdict::claim_of(cases[11]).source, verdict::ClaimSource::kDeclared);
  auto tallies = verdict::tally(rows);
  const auto& cpu = tallies.at("torch").at("cpu");
  EXPECT_EQ(cpu.agrees, 2);
  ASSERT_EQ(cpu.claimed_failing.size(), 2u);
  EXPECT_EQ(cpu.claimed_failing[0]->function, "svd");
  EXPECT_EQ(cpu.claimed_failing[0]->source, verdict::ClaimSource::kOpDatabase);
  EXPECT_EQ(cpu.claimed_failing[0]->ran, 1);
  EXPECT_EQ(cpu.claimed_failing[0]->failed, 1);
  EXPECT_EQ(cpu.claimed_failing[0]->case_id, "torch/svd/float16-default-sample=1-eager");
  EXPECT_EQ(cpu.claimed_failing[0]->error, "no kernel for float16");
  EXPECT_EQ(cpu.claimed_failing[1]->function, "tan");
  EXPECT_EQ(cpu.claimed_failing[1]->source, verdict::ClaimSource::kDeclared);
  EXPECT_TRUE(cpu.unclaimed_working.empty());
  const auto& cuda = tallies.at("torch").at("cuda:0");
  EXPECT_EQ(cuda.agrees, 1);
  EXPECT_TRUE(cuda.claimed_failing.empty());
  ASSERT_EQ(cuda.unclaimed_working.size(), 1u);
  EXPECT_EQ(cuda.unclaimed_working[0]->ran, 2);
  EXPECT_EQ(cuda.unclaimed_working[0]->case_id, "torch/svd/float16-default-sample=0-eager");

  model::RunInfo run;
  run.id = "r";
  run.baseline = "cpu";
  run.state = "complete";
  verdict::Options options;
  auto judged = verdict::assemble(run, cases, {}, options);
  auto doc = report::to_json(judged);
  ASSERT_TRUE(doc.contains("claims"));
  EXPECT_EQ(doc["claims"]["torch"]["cpu"]["agrees"], 2);
  EXPECT_EQ(doc["claims"]["torch"]["cpu"]["claimed_failing"][0]["error"], "no kernel for float16");
  EXPECT_EQ(doc["claims"]["torch"]["cuda:0"]["unclaimed_working"][0]["dtype"], "float16");
  // Each case keeps its policy and claims, and reads back with them.
  EXPECT_EQ(doc["cases"][0]["policy"], "once");
  EXPECT_EQ(doc["cases"][0]["claims"]["cuda"], false);
  auto back = report::from_json(doc, "test");
  EXPECT_EQ(back.cases.at(0).info.policy, "once");
  EXPECT_EQ(back.cases.at(0).info.claims, kCpuOnly);

  auto md = report::to_markdown(judged);
  EXPECT_NE(md.find("## Claimed vs actual support"), std::string::npos);
  EXPECT_NE(md.find("| torch | `cuda:0` | 1 | 0 | 1 |"), std::string::npos) << md;
  auto lines = report::claims_lines(judged);
  EXPECT_NE(lines.find("torch on cpu: 2 agree, 2 claimed but failing (e.g. svd float16"),
            std::string::npos)
      << lines;
}

TEST(Claims, NoClaimsNoSection) {
  std::vector<model::CaseResult> cases = {
      result("cos", "float32", 0, "cpu", model::Outcome::kPass, nlohmann::json::object())};
  cases[0].info.policy = "timed";
  model::RunInfo run;
  run.baseline = "cpu";
  auto judged = verdict::assemble(run, cases, {}, verdict::Options{});
  auto doc = report::to_json(judged);
  EXPECT_FALSE(doc.contains("claims"));
  EXPECT_FALSE(doc["cases"][0].contains("policy"));  // timed: the paper suite's records unchanged
  EXPECT_EQ(report::to_markdown(judged).find("Claimed vs actual"), std::string::npos);
  EXPECT_EQ(report::claims_lines(judged), "");
}

model::CaseResult tf_case(const std::string& function, model::Outcome outcome,
                          nlohmann::json kernels) {
  auto r = result(function, "complex64", 0, "cpu", outcome, nlohmann::json::object());
  r.info.framework = "tensorflow";
  r.extra["kernels"] = std::move(kernels);
  return r;
}

TEST(Kernels, PredictionAgainstTheObservedDeviceAndTheUnobservedOne) {
  using model::Outcome;
  const nlohmann::json both = {
      {"ops", 3}, {"cpu", {{"kernels", true}}}, {"gpu", {{"kernels", true}}}};
  const nlohmann::json no_gpu = {{"ops", 2},
                                 {"cpu", {{"kernels", true}, {"missing", nlohmann::json::array()}}},
                                 {"gpu", {{"kernels", false}, {"missing", {"Svd(T=complex64)"}}}}};
  const nlohmann::json no_cpu = {
      {"cpu", {{"kernels", false}, {"missing", {"Bincount(T=complex64)"}}}},
      {"gpu", {{"kernels", false}, {"missing", {"Bincount(T=complex64)"}}}}};
  std::vector<model::CaseResult> cases = {
      tf_case("tf.abs", Outcome::kPass, both),  // as predicted
      tf_case("tf.linalg.svd", Outcome::kPass,
              no_gpu),  // as predicted on cpu; gpu predicted missing
      tf_case("tf.math.bincount", Outcome::kFail, no_cpu),  // as predicted (no cpu kernel, failed)
      tf_case("tf.split", Outcome::kFail, both),            // failed with kernels present
      tf_case("tf.where", Outcome::kPass, no_cpu),          // ran with a kernel predicted missing
      tf_case("tf.skip", Outcome::kSkip, both),             // no evidence
      tf_case("tf.err", Outcome::kPass, {{"error", "trace failed"}}),  // no prediction
  };
  auto rows = verdict::kernel_rows(cases);
  ASSERT_EQ(rows.size(), 6u);
  auto tallies = verdict::kernel_tally(rows);
  const auto& t = tallies.at("tensorflow");
  EXPECT_EQ(t.cases, 5);
  EXPECT_EQ(t.agree, 3);
  ASSERT_EQ(t.predicted_present_failed.size(), 1u);
  EXPECT_EQ(t.predicted_present_failed[0]->function, "tf.split");
  ASSERT_EQ(t.predicted_missing_ran.size(), 1u);
  EXPECT_EQ(t.predicted_missing_ran[0]->function, "tf.where");
  ASSERT_EQ(t.unobserved_missing.at("gpu").size(), 3u);  // svd, bincount, where
  EXPECT_EQ(t.unobserved_missing.at("gpu")[0]->missing.at("gpu"),
            std::vector<std::string>{"Svd(T=complex64)"});

  model::RunInfo run;
  run.baseline = "cpu";
  auto judged = verdict::assemble(run, cases, {}, verdict::Options{});
  auto doc = report::to_json(judged);
  ASSERT_TRUE(doc.contains("kernels"));
  EXPECT_EQ(doc["kernels"]["tensorflow"]["agree"], 3);
  EXPECT_EQ(doc["kernels"]["tensorflow"]["unobserved_missing"]["gpu"][0]["missing"]["gpu"][0],
            "Svd(T=complex64)");
  auto md = report::to_markdown(judged);
  EXPECT_NE(md.find("## Kernel registry: predicted vs observed"), std::string::npos);
  EXPECT_NE(md.find("cannot reach the GPU machines"), std::string::npos);
  EXPECT_NE(md.find("no gpu kernel for `Svd(T=complex64)`"), std::string::npos) << md;
}

}  // namespace
}  // namespace mudjack
