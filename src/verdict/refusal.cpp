#include "verdict/refusal.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <vector>

#include "verdict/claims.hpp"

namespace mudjack::verdict {
namespace {

using model::Refusal;
using model::RefusalSource;

// The one table of message patterns (refusal.hpp). Device patterns first.
// Each pattern's comment names a message it was written from.
constexpr std::array<RefusalPattern, 19> kRefusalPatterns{{
    // "triangular_solve_cpu" not implemented for 'Half'; "addmm_impl_cpu_";
    // "_thnn_fused_lstm_cell_cuda" not implemented for 'ComplexFloat';
    // "GeluCUDAKernelImpl": PyTorch's AT_DISPATCH switch of a kernel whose
    // name names the device. A switch whose name names none
    // ("GeluKernelImpl" not implemented for 'Long') says nothing of the
    // chip: the op's claims decide it, else it is a failure.
    {"device kernel",
     R"re("[A-Za-z0-9_:.]*(?i:cpu|cuda|mps|xpu)[A-Za-z0-9_:.]*" not implemented for '[A-Za-z0-9]+')re",
     Refusal::kKernelMissing, RefusalSource::kMessage},
    // Sort does not support complex dtypes on CPU
    {"placement", R"re(\bon (CPU|CUDA|GPU|TPU|MPS|XPU)\b)re", Refusal::kKernelMissing,
     RefusalSource::kMessage},
    // TensorFlow: Could not find device for node: {{node Svd}} = Svd[T=DT_HALF]
    {"no device for node", R"re(Could not find device for node)re", Refusal::kKernelMissing,
     RefusalSource::kMessage},
    // TensorFlow: No OpKernel was registered to support Op 'MatMul' ... T=DT_UINT8
    {"no kernel registered", R"re(No OpKernel was registered to support Op)re",
     Refusal::kKernelMissing, RefusalSource::kMessage},
    // XLA's status code (JAX, torch_xla, TPU): UNIMPLEMENTED: ...
    {"xla unimplemented", R"re(\bUNIMPLEMENTED\b)re", Refusal::kKernelMissing,
     RefusalSource::kMessage},
    // JAX's dtype rules: erf does not accept dtype int32. Accepted dtypes are ...
    {"jax dtype rule", R"re(does not accept dtype)re", Refusal::kUnsupported,
     RefusalSource::kTypeRule},
    // TensorFlow's op-def attr lists: Value for attr 'T' of bool is not in the
    // list of allowed values; Value passed to parameter 'a' has DataType int8
    // not in list of allowed values
    {"op-def attr list", R"re(not in (the )?list of allowed values)re", Refusal::kUnsupported,
     RefusalSource::kTypeRule},
    // TensorFlow's dispatch: 'a' has invalid dtype ... not in supported dtypes
    {"supported dtypes", R"re(not in supported dtypes)re", Refusal::kUnsupported,
     RefusalSource::kTypeRule},
    // PyTorch's type promotion: result type Float can't be cast to the desired
    // output type Int
    {"type promotion", R"re(can't be cast to the desired output type)re", Refusal::kUnsupported,
     RefusalSource::kTypeRule},
    // Only Tensors of floating point and complex dtype can require gradients
    {"grad on integers", R"re((?i)only Tensors of floating point.{0,40} can require gradients)re",
     Refusal::kUnsupported, RefusalSource::kMessage},
    // kl_div: Integral inputs not supported; kl_div: Complex inputs not supported
    {"integral or complex inputs", R"re((Integral|Complex) inputs not supported)re",
     Refusal::kUnsupported, RefusalSource::kMessage},
    // linalg.slogdet: Expected a floating point or complex tensor as input;
    // mean(): ... Input dtype must be either a floating point or complex
    // dtype; multinomial only supports floating-point dtypes; TensorFlow:
    // Expected floating point type, got <dtype: 'int32'>
    {"floating inputs only",
     R"re((?i)(expected a floating point|must be either a floating point|only supports floating|expected floating point type))re",
     Refusal::kUnsupported, RefusalSource::kMessage},
    // linalg.slogdet: Low precision dtypes not supported. Got Half
    {"low precision", R"re(Low precision dtypes not supported)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
    // clamp is not supported for complex types; top_k is not compatible with
    // complex inputs
    {"no complex", R"re(not (supported for|compatible with) complex)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
    // Subtraction, the `-` operator, with two bool tensors is not supported
    {"bool arithmetic", R"re(with two bool tensors is not supported)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
    // JAX and TensorFlow: x.dtype=int32 is not supported, see docstring for
    // supported types
    {"documented dtypes", R"re(see docstring for supported types)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
    // TensorFlow's optimizers: The variables must be half, float, or double
    {"float variables", R"re(variables must be half, float, or double)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
    // NumPy: array type float16 is unsupported in linalg
    {"numpy linalg", R"re(array type \w+ is unsupported in linalg)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
    // The adapter: numpy has no dtype bfloat16 (the framework lacks the dtype)
    {"no such dtype", R"re(\w+ has no dtype \w+)re", Refusal::kUnsupported,
     RefusalSource::kMessage},
}};

constexpr size_t kMaxMessageBytes = size_t{64} << 10;

// Compiled once, on first use (thread-safe: a function-local static).
const std::vector<std::unique_ptr<const re2::RE2>>& compiled() {
  static const std::vector<std::unique_ptr<const re2::RE2>> patterns = [] {
    std::vector<std::unique_ptr<const re2::RE2>> out;
    re2::RE2::Options options;
    options.set_log_errors(false);
    for (const auto& p : kRefusalPatterns) {
      out.push_back(std::make_unique<const re2::RE2>(std::string(p.regex), options));
    }
    return out;
  }();
  return patterns;
}

std::string first_line(const std::string& s, size_t max_chars = 160) {
  return s.substr(0, std::min(s.find('\n'), max_chars));
}

// What the claims of the first source that has any say, per device kind
// (the kernel registry's "gpu" read as "cuda"), and which source.
struct Described {
  std::map<std::string, bool> kinds;
  RefusalSource source = RefusalSource::kNone;
};

Described described(const model::CaseResult& r) {
  Described d;
  if (r.info.claims.is_object()) {
    for (const auto& [kind, claimed] : r.info.claims.items()) {
      if (claimed.is_boolean()) d.kinds[kind] = claimed.get<bool>();
    }
  }
  if (!d.kinds.empty()) {
    d.source = RefusalSource::kOpDatabase;
    return d;
  }
  const auto k = r.extra.find("kernels");
  if (k == r.extra.end() || !k->is_object() || k->contains("error")) return d;
  for (const auto& [type, p] : k->items()) {
    if (!p.is_object() || !p.contains("kernels") || !p["kernels"].is_boolean()) continue;
    d.kinds[type == "gpu" ? "cuda" : type] = p["kernels"].get<bool>();
  }
  if (!d.kinds.empty()) d.source = RefusalSource::kKernelRegistry;
  return d;
}

std::string kinds_text(const std::map<std::string, bool>& kinds, bool value) {
  std::string out;
  for (const auto& [kind, v] : kinds) {
    if (v == value) out += (out.empty() ? "" : ", ") + kind;
  }
  return out;
}

// "by torch's op database" / "by tensorflow's kernel registry (Svd)".
std::string claim_source_text(const model::CaseResult& r, RefusalSource source,
                              const std::string& kind) {
  if (source == RefusalSource::kOpDatabase) return "by " + r.info.framework + "'s op database";
  std::string missing;
  if (const auto* p = kernel_prediction(r, kind)) {
    for (const auto& op : p->value("missing", nlohmann::json::array())) {
      if (op.is_string()) missing += (missing.empty() ? "" : ", ") + op.get<std::string>();
    }
  }
  return "by " + r.info.framework + "'s kernel registry" +
         (missing.empty() ? "" : " (" + first_line(missing, 80) + ")");
}

// The message rule: the table's first pattern; `device_only` reads only the
// device patterns (the claims include the dtype here).
RefusalOf by_message(const model::CaseResult& r, const std::string& kind, bool device_only) {
  const auto* p = match_refusal(r.error.message);
  if (p == nullptr || (device_only && p->refusal != Refusal::kKernelMissing)) return {};
  const std::string line = first_line(r.error.message);
  if (p->refusal == Refusal::kKernelMissing) {
    return {Refusal::kKernelMissing, p->source, false,
            "kernel missing on " + kind + " (" + std::string(p->name) + "): " + line};
  }
  return {Refusal::kUnsupported, p->source, false,
          "outside the domain (" + std::string(p->name) + "): " + line};
}

}  // namespace

std::span<const RefusalPattern> refusal_patterns() {
  return kRefusalPatterns;
}

const RefusalPattern* match_refusal(std::string_view message) {
  const re2::StringPiece text(message.data(), std::min(message.size(), kMaxMessageBytes));
  const auto& res = compiled();
  for (size_t i = 0; i < kRefusalPatterns.size(); ++i) {
    if (res[i]->ok() && re2::RE2::PartialMatch(text, *res[i])) return &kRefusalPatterns[i];
  }
  return nullptr;
}

RefusalOf refusal_of(const model::CaseResult& r) {
  if (r.outcome != model::Outcome::kFail) return {};
  const std::string kind = device_kind(r.device);
  const Described d = described(r);
  // No framework claim: the message; a dtype the suite declared by hand is
  // its author's claim, so only a device pattern changes its failure's word.
  if (d.kinds.empty()) return by_message(r, kind, !r.info.grid);
  const auto here = d.kinds.find(kind);
  const std::string included = kinds_text(d.kinds, true);
  if (included.empty()) {
    return {Refusal::kUnsupported, d.source, false,
            "outside the domain: " + r.info.dtype + " claimed on no device (" +
                kinds_text(d.kinds, false) + ") " + claim_source_text(r, d.source, kind)};
  }
  if (here != d.kinds.end() && !here->second) {
    return {Refusal::kKernelMissing, d.source, true,
            "kernel missing on " + kind + ", documented: " + r.info.dtype + " not claimed on " +
                kind + " but on " + included + " " + claim_source_text(r, d.source, kind)};
  }
  // Claimed here (a failure), or this kind undescribed: the message speaks.
  return by_message(r, kind, here != d.kinds.end());
}

}  // namespace mudjack::verdict
