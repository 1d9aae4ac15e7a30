// One rule for refusals (verdict/refusal.hpp): each message pattern of the
// table on a message it was written from, each combination of claims, and
// the verdict a kernel missing on one chip earns there — never on the other.

#include "verdict/refusal.hpp"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "verdict/claims.hpp"
#include "verdict/judged.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::verdict {
namespace {

using model::Outcome;
using model::Refusal;
using model::RefusalSource;

model::CaseResult failing(const std::string& device, const std::string& dtype,
                          const std::string& message, bool grid = true) {
  model::CaseResult r;
  r.info.framework = "torch";
  r.info.function = "f";
  r.info.dtype = dtype;
  r.info.variant = dtype;
  r.info.id = "torch/f/" + dtype;
  r.info.grid = grid;
  r.device = device;
  r.outcome = Outcome::kFail;
  r.error.kind = model::ErrorKind::kUnsupportedDtype;
  r.error.message = message;
  return r;
}

struct Message {
  std::string pattern;  // the table entry's name it must match
  std::string text;
  Refusal refusal;
  RefusalSource source;
};

// Every entry of the table, from the messages the published runs hold.
const std::vector<Message>& messages() {
  static const std::vector<Message> m = {
      {"device kernel", R"(NotImplementedError: "triangular_solve_cpu" not implemented for 'Half')",
       Refusal::kKernelMissing, RefusalSource::kMessage},
      {"device kernel",
       R"(NotImplementedError: "_thnn_fused_lstm_cell_cuda" not implemented for 'ComplexFloat')",
       Refusal::kKernelMissing, RefusalSource::kMessage},
      {"placement", "RuntimeError:  Sort does not support complex dtypes on CPU",
       Refusal::kKernelMissing, RefusalSource::kMessage},
      {"no device for node",
       "NotFoundError: Could not find device for node: {{node Svd}} = Svd[T=DT_HALF]",
       Refusal::kKernelMissing, RefusalSource::kMessage},
      {"no kernel registered",
       "InvalidArgumentError: No OpKernel was registered to support Op 'MatMul' used by {{node "
       "MatMul}} with these attrs: [T=DT_UINT8]",
       Refusal::kKernelMissing, RefusalSource::kMessage},
      {"xla unimplemented", "XlaRuntimeError: UNIMPLEMENTED: no lowering for cholesky of u8",
       Refusal::kKernelMissing, RefusalSource::kMessage},
      {"jax dtype rule",
       "TypeError: erf does not accept dtype int32. Accepted dtypes are subtypes of floating.",
       Refusal::kUnsupported, RefusalSource::kTypeRule},
      {"op-def attr list",
       "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: "
       "half, float",
       Refusal::kUnsupported, RefusalSource::kTypeRule},
      {"op-def attr list",
       "TypeError: Value passed to parameter 'a' has DataType int8 not in list of allowed values: "
       "bfloat16",
       Refusal::kUnsupported, RefusalSource::kTypeRule},
      {"supported dtypes",
       "TypeError: 'a' has invalid dtype `<dtype: 'bool'>` not in supported dtypes: `frozenset({",
       Refusal::kUnsupported, RefusalSource::kTypeRule},
      {"type promotion",
       "RuntimeError: result type Float can't be cast to the desired output type Long",
       Refusal::kUnsupported, RefusalSource::kTypeRule},
      {"grad on integers",
       "RuntimeError: only Tensors of floating point dtype can require gradients",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"grad on integers",
       "RuntimeError: Only Tensors of floating point and complex dtype can require gradients",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"integral or complex inputs", "RuntimeError: kl_div: Integral inputs not supported.",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"floating inputs only",
       "RuntimeError: multinomial only supports floating-point dtypes for input, got: Int",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"floating inputs only", "ValueError: Expected floating point type, got <dtype: 'int32'>.",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"low precision",
       "RuntimeError: linalg.slogdet: Low precision dtypes not supported. Got Half",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"no complex", "NotImplementedError: clamp is not supported for complex types",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"bool arithmetic",
       "RuntimeError: Subtraction, the `-` operator, with two bool tensors is not supported.",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"documented dtypes",
       "TypeError: x.dtype=int32 is not supported, see docstring for supported types.",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"float variables", "TypeError: The variables must be half, float, or double: Variable:0",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"numpy linalg", "TypeError: array type float16 is unsupported in linalg",
       Refusal::kUnsupported, RefusalSource::kMessage},
      {"no such dtype", "UnsupportedDtype: numpy has no dtype bfloat16", Refusal::kUnsupported,
       RefusalSource::kMessage},
  };
  return m;
}

TEST(Refusal, EveryPatternOfTheTableMatchesTheMessageItWasWrittenFrom) {
  std::set<std::string> covered;
  for (const auto& m : messages()) {
    const auto* p = match_refusal(m.text);
    ASSERT_NE(p, nullptr) << m.text;
    EXPECT_EQ(p->name, m.pattern) << m.text;
    EXPECT_EQ(p->refusal, m.refusal) << m.text;
    EXPECT_EQ(p->source, m.source) << m.text;
    covered.insert(m.pattern);
  }
  for (const auto& p : refusal_patterns()) {
    EXPECT_TRUE(covered.contains(std::string(p.name))) << "no test message for " << p.name;
  }
}

TEST(Refusal, MessagesThatNameNoDomainAndNoChipAreOrdinaryFailures) {
  for (const std::string text :
       {"TorchRuntimeError: RuntimeError when making fake tensor call",
        "NotImplementedError: (KeyError(<class 'numpy.float16'>), 'Unsupported dtype float16.')",
        "RuntimeError: Expected all tensors to be on the same device, but found cuda:0 and cpu!",
        "UnimplementedError: Reader RestoreState (Node: 'ReaderRestoreStateV2')", ""}) {
    EXPECT_EQ(match_refusal(text), nullptr) << text;
    EXPECT_EQ(refusal_of(failing("cpu", "int8", text)).refusal, Refusal::kNone) << text;
  }
}

TEST(Refusal, ADevicePatternWinsOverAContractInOneMessage) {
  const auto* p = match_refusal("Sort does not accept dtype complex64 on CPU");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->refusal, Refusal::kKernelMissing);
}

TEST(Refusal, AHostileMessageIsReadOnlyInItsFirst64KiB) {
  std::string text(size_t{1} << 20, 'x');
  text += " does not accept dtype int8";
  EXPECT_EQ(match_refusal(text), nullptr);
  text.insert(0, "erf does not accept dtype int8 ");
  EXPECT_NE(match_refusal(text), nullptr);
  std::string binary("\xff\xfe\0\x01 on CUDA", 12);
  ASSERT_NE(match_refusal(binary), nullptr);
  EXPECT_EQ(match_refusal(binary)->name, "placement");
}

TEST(Refusal, WithoutClaimsTheMessageDecidesAndAHandDeclaredDtypeHearsOnlyTheChip) {
  const auto domain = refusal_of(failing("cpu", "int8", "kl_div: Integral inputs not supported."));
  EXPECT_EQ(domain.refusal, Refusal::kUnsupported);
  EXPECT_EQ(domain.source, RefusalSource::kMessage);
  EXPECT_FALSE(domain.documented);
  EXPECT_EQ(domain.reason.rfind("outside the domain (integral or complex inputs): ", 0), 0U)
      << domain.reason;
  const auto chip = refusal_of(
      failing("cuda:0", "complex64", R"("_thnn_fused_lstm_cell_cuda" not implemented for 'X')"));
  EXPECT_EQ(chip.refusal, Refusal::kKernelMissing);
  EXPECT_FALSE(chip.documented);
  EXPECT_EQ(chip.reason.rfind("kernel missing on cuda (device kernel): ", 0), 0U) << chip.reason;
  // Declared by hand: the author claims the dtype, so a contract is a failure.
  EXPECT_EQ(
      refusal_of(failing("cpu", "int8", "kl_div: Integral inputs not supported.", false)).refusal,
      Refusal::kNone);
  EXPECT_EQ(
      refusal_of(failing("cpu", "half", R"("x_cpu" not implemented for 'Half')", false)).refusal,
      Refusal::kKernelMissing);
}

TEST(Refusal, OnlyAFailIsRefusedACrashOrATimeoutNever) {
  for (auto o : {Outcome::kCrash, Outcome::kTimeout, Outcome::kPass, Outcome::kMismatch}) {
    auto r = failing("cpu", "int8", "kl_div: Integral inputs not supported.");
    r.outcome = o;
    EXPECT_EQ(refusal_of(r).refusal, Refusal::kNone);
  }
}

// The op database's claims, every combination over cpu and cuda.
struct ClaimCase {
  nlohmann::json claims;
  std::string device;
  std::string message;
  Refusal refusal;
  bool documented;
};

TEST(Refusal, TheOpDatabaseDecidesPerDeviceKindItDescribes) {
  const std::string plain = "RuntimeError: something else";
  const std::string chip = R"("lt_cuda" not implemented for 'ComplexFloat')";
  const std::string contract = "kl_div: Complex inputs not supported.";
  const std::vector<ClaimCase> table = {
      // excluded on every kind: the domain, whatever the message says
      {{{"cpu", false}, {"cuda", false}}, "cuda:0", chip, Refusal::kUnsupported, false},
      {{{"cpu", false}, {"cuda", false}}, "cpu", plain, Refusal::kUnsupported, false},
      {{{"cpu", false}}, "cpu", plain, Refusal::kUnsupported, false},
      // excluded here, included elsewhere: a documented gap of this chip
      {{{"cpu", true}, {"cuda", false}}, "cuda:0", plain, Refusal::kKernelMissing, true},
      {{{"cpu", false}, {"cuda", true}}, "cpu", contract, Refusal::kKernelMissing, true},
      // included here: a failure; kernel_missing only when the message names the chip
      {{{"cpu", true}, {"cuda", true}}, "cuda:0", plain, Refusal::kNone, false},
      {{{"cpu", true}, {"cuda", true}}, "cuda:0", contract, Refusal::kNone, false},
      {{{"cpu", true}, {"cuda", true}}, "cuda:0", chip, Refusal::kKernelMissing, false},
      // this kind undescribed, another includes it: the message decides
      {{{"cpu", true}}, "xla:0", plain, Refusal::kNone, false},
      {{{"cpu", true}}, "xla:0", contract, Refusal::kUnsupported, false},
  };
  for (const auto& c : table) {
    auto r = failing(c.device, "complex64", c.message);
    r.info.claims = c.claims;
    const auto why = refusal_of(r);
    EXPECT_EQ(why.refusal, c.refusal) << c.claims.dump() << " on " << c.device << ": " << c.message;
    EXPECT_EQ(why.documented, c.documented) << c.claims.dump() << " on " << c.device;
    if (why.refusal != Refusal::kNone && c.claims.size() == 2 && c.message == plain) {
      EXPECT_EQ(why.source, RefusalSource::kOpDatabase);
    }
  }
}

TEST(Refusal, TheKernelRegistryReadsGpuAsCudaAndNamesTheMissingOps) {
  auto r = failing("cpu", "bfloat16", "InvalidArgumentError: anything");
  r.info.framework = "tensorflow";
  r.extra["kernels"] = {{"cpu", {{"kernels", false}, {"missing", {"TopKV2"}}}},
                        {"gpu", {{"kernels", true}, {"missing", nlohmann::json::array()}}}};
  auto why = refusal_of(r);
  EXPECT_EQ(why.refusal, Refusal::kKernelMissing);
  EXPECT_TRUE(why.documented);
  EXPECT_EQ(why.source, RefusalSource::kKernelRegistry);
  EXPECT_NE(why.reason.find("but on cuda by tensorflow's kernel registry (TopKV2)"),
            std::string::npos)
      << why.reason;
  r.extra["kernels"]["gpu"]["kernels"] = false;
  why = refusal_of(r);
  EXPECT_EQ(why.refusal, Refusal::kUnsupported);
  EXPECT_EQ(why.source, RefusalSource::kKernelRegistry);
  // A prediction that failed says nothing: the message decides.
  r.extra["kernels"] = {{"error", "registry unreadable"}};
  r.error.message = "Value for attr 'T' of bool is not in the list of allowed values";
  why = refusal_of(r);
  EXPECT_EQ(why.refusal, Refusal::kUnsupported);
  EXPECT_EQ(why.source, RefusalSource::kTypeRule);
}

// A kernel refused on the second device only: a failure there, none on the
// first, the gap listed — the first device's row the same judged alone.
std::vector<model::CaseResult> lstm_on(const std::vector<std::string>& devices) {
  std::vector<model::CaseResult> out;
  for (const auto& d : devices) {
    for (const std::string dtype : {"float32", "complex64"}) {
      auto r = failing(d, dtype, R"("_thnn_fused_lstm_cell_cuda" not implemented for 'X')");
      r.info.function = "torch.nn.LSTMCell";
      r.info.id = "torch/torch.nn.LSTMCell/" + dtype;
      if (d == "cpu" || dtype == "float32") {
        r.outcome = Outcome::kPass;
        r.error = {};
        r.extra["checks"] =
            nlohmann::json::array({{{"name", "ref"}, {"kind", "reference"}, {"ok", true}}});
      }
      out.push_back(r);
    }
  }
  return out;
}

TEST(Refusal, AKernelMissingOnOneChipFailsThereOnlyAndIsAGap) {
  const auto j = judge(model::RunInfo{}, lstm_on({"cpu", "cuda:0"}), Options{});
  ASSERT_EQ(j.verdicts.size(), 2U);
  const auto& cpu = j.verdicts[0].device == "cpu" ? j.verdicts[0] : j.verdicts[1];
  const auto& cuda = j.verdicts[0].device == "cpu" ? j.verdicts[1] : j.verdicts[0];
  EXPECT_EQ(cpu.verdict, model::Verdict::kPortable) << cpu.reason;
  EXPECT_TRUE(cpu.kernel_missing.empty());
  EXPECT_EQ(cuda.verdict, model::Verdict::kPartialFailure) << cuda.reason;
  ASSERT_EQ(cuda.kernel_missing.size(), 1U);
  EXPECT_EQ(cuda.kernel_missing[0].dtype, "complex64");
  EXPECT_FALSE(cuda.kernel_missing[0].documented);
  EXPECT_EQ(cuda.failing, std::vector<std::string>{"torch/torch.nn.LSTMCell/complex64"});
  EXPECT_NE(cuda.reason.find("failed: kernel_missing x1"), std::string::npos) << cuda.reason;
  ASSERT_EQ(j.gaps.size(), 1U);
  EXPECT_EQ(j.gaps[0].what, "kernel_missing");
  EXPECT_EQ(j.gaps[0].works_on, "cpu");
  EXPECT_TRUE(j.unreached.empty());
  const auto& tally = j.tallies.at("torch").at("cuda:0");
  EXPECT_EQ(tally.kernel_missing_functions, 1);
  EXPECT_EQ(tally.kernel_missing_cases, 1);
  EXPECT_EQ(tally.failing_functions(), 1);
  // cuda:0 judged alone reads the same.
  auto alone = lstm_on({"cpu", "cuda:0"});
  std::erase_if(alone, [](const auto& r) { return r.device == "cpu"; });
  const auto solo = judge(model::RunInfo{}, alone, Options{});
  ASSERT_EQ(solo.verdicts.size(), 1U);
  EXPECT_EQ(solo.verdicts[0].verdict, cuda.verdict);
  EXPECT_EQ(solo.verdicts[0].reason, cuda.reason);
  EXPECT_EQ(solo.verdicts[0].kernel_missing, cuda.kernel_missing);
}

TEST(Refusal, AFailureTheOtherLaneNeverReachedIsNoGapButSaysSo) {
  auto results = lstm_on({"cpu", "cuda:0"});
  std::erase_if(results,
                [](const auto& r) { return r.device == "cpu" && r.info.dtype != "float32"; });
  const auto j = judge(model::RunInfo{}, results, Options{});
  EXPECT_TRUE(j.gaps.empty());
  ASSERT_EQ(j.unreached.size(), 1U);
  EXPECT_EQ(j.unreached[0].device, "cuda:0");
  EXPECT_EQ(j.unreached[0].other, "cpu");
  EXPECT_EQ(j.unreached[0].cases, 1);
  EXPECT_EQ(j.unreached[0].example, "torch/torch.nn.LSTMCell/complex64");
}

// A dtype switch whose kernel names no device says nothing of the chip:
// without claims it is a failure; with OpInfo's (suites/paper/opinfo-claims.json,
// apply_claims_map) the function's domain decides. Claims of another torch
// are not this one's, and a case's own claims stay.
TEST(Refusal, OpInfoClaimsMappedByFunctionDecideAKernelSwitchThatNamesNoDevice) {
  const std::string gelu = R"(NotImplementedError: "GeluKernelImpl" not implemented for 'Long')";
  auto r = failing("cpu", "int64", gelu);
  r.info.function = "torch.nn.GELU";
  EXPECT_EQ(refusal_of(r).refusal, Refusal::kNone);
  const auto map = nlohmann::json::parse(R"({"torch": "2.11.0+cu130", "functions": {
      "torch.nn.GELU": {"opinfo": "nn.functional.gelu", "cpu": ["float32"], "cuda": ["float32"]},
      "torch.round": {"opinfo": "round", "cpu": ["bfloat16"], "cuda": ["float16", "bfloat16"]}}})");
  std::vector<model::CaseResult> cases{r};
  cases.push_back(failing("cpu", "float16", "RuntimeError: x"));
  cases.back().info.function = "torch.round";
  cases.push_back(r);
  cases.back().info.claims = {{"cpu", true}};  // its own claims stay
  auto other = cases;
  EXPECT_EQ(apply_claims_map(map, "torch", "2.9.1", other), 0u);  // another torch's claims
  EXPECT_EQ(apply_claims_map(map, "jax", "2.11.0", other), 0u);
  EXPECT_EQ(apply_claims_map(map, "torch", "2.11.0+cpu", cases), 2u);
  const auto domain = refusal_of(cases[0]);
  EXPECT_EQ(domain.refusal, Refusal::kUnsupported) << domain.reason;
  EXPECT_EQ(domain.source, RefusalSource::kOpDatabase);
  const auto gap = refusal_of(cases[1]);  // float16 claimed on cuda, not on cpu
  EXPECT_EQ(gap.refusal, Refusal::kKernelMissing) << gap.reason;
  EXPECT_TRUE(gap.documented);
  EXPECT_EQ(cases[2].info.claims, nlohmann::json({{"cpu", true}}));
  EXPECT_EQ(apply_claims_map(nlohmann::json::array(), "torch", "2.11.0", cases), 0u);
}

}  // namespace
}  // namespace mudjack::verdict
