#include "fuzz/suspect.hpp"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "envs/envs.hpp"
#include "fuzz/findings.hpp"
#include "model/extra.hpp"
#include "oracle/accuracy.hpp"
#include "oracle/compare.hpp"
#include "run/options.hpp"
#include "supervisor/probe_session.hpp"

namespace mudjack::fuzz {
namespace {

double at(const std::vector<double>& v, size_t i) {
  return i < v.size() ? v[i] : 0.0;
}

// The smallest normal number of a floating dtype (0 for another).
double smallest_normal(const std::string& dtype) {
  if (dtype == "float16") return 0x1p-14;
  if (dtype == "float32") return FLT_MIN;
  if (dtype == "float64") return DBL_MIN;
  return 0;
}

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

// Whether output i failed against reference `ref`; nullopt: not measurable.
std::optional<bool> output_failed(const model::OutputRef& out, const std::string& ref, int64_t k) {
  std::error_code ec;
  if (ref.empty() || !std::filesystem::exists(out.path, ec) || !std::filesystem::exists(ref, ec)) {
    return std::nullopt;
  }
  if (auto eps = oracle::dtype_epsilon(out.dtype)) {
    // A fuzz graph is ill-conditioned to the oracle (oracle::ill_conditioned).
    const double bound = oracle::alone_bound(out.dtype, oracle::OpClass{k, true});
    const auto e = oracle::measure_files(out.path, ref, *eps, bound);
    if (!e.problem.empty()) return std::nullopt;
    return e.eps > bound;
  }
  const auto c = oracle::compare_files(out.path, ref, oracle::Tolerance{0, 0});
  return !c.equal;
}

}  // namespace

std::optional<std::vector<bool>> failing_outputs(const model::CaseResult& r,
                                                 const std::vector<model::CaseResult>& peers) {
  auto refs = model::extra_output_paths(r, "reference");
  for (const auto& p : peers) {
    if (!refs.empty()) break;
    if (p.info.id == r.info.id && p.device != r.device)
      refs = model::extra_output_paths(p, "reference");
  }
  if (refs.empty() || r.outputs.empty()) return std::nullopt;
  const int64_t k = r.info.reduction.value_or(1);
  std::vector<bool> failed(r.outputs.size(), true);
  bool measured_any = false;
  bool failed_any = false;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const auto f = output_failed(r.outputs[i], i < refs.size() ? refs[i] : "", k);
    measured_any = measured_any || f.has_value();
    failed[i] = f.value_or(true);
    failed_any = failed_any || failed[i];
  }
  if (!measured_any || !failed_any) return std::nullopt;
  return failed;
}

double cancellation_scale(const std::string& op, const std::vector<double>& rms) {
  if (op == "add" || op == "sub") return std::max(at(rms, 0), at(rms, 1));
  if (op == "reduce_sum" || op == "reduce_mean" || op == "avg_pool2d" || op == "log_softmax" ||
      op == "gelu" || op == "sin" || op == "cos") {
    return at(rms, 0);
  }
  if (op == "matmul") return at(rms, 0) * at(rms, 1);
  if (op == "linear" || op == "conv1d" || op == "conv2d") {
    return std::max(at(rms, 0) * at(rms, 1), at(rms, 2));
  }
  // (x - mean) / sqrt(var + eps) * w + b with var >= 0.5 (docs/fuzz.md)
  if (op == "batch_norm")
    return std::max(std::max(at(rms, 0), at(rms, 1)) * at(rms, 3) * M_SQRT2, at(rms, 4));
  if (op == "elu" || op == "softplus" || op == "log")
    return 1.0;  // e^x - 1, log(1 + e^x), ln x near 1
  return 0;
}

std::optional<std::string> suspect_output(const OutputFacts& o, int64_t reduction) {
  if (!oracle::dtype_epsilon(o.dtype)) return std::nullopt;
  const std::string head = o.name + " (" + o.dtype + "): its float64 reference ";
  if (o.rms == 0) return head + "is exactly 0";
  const double tiny = smallest_normal(o.dtype);
  if (o.rms < tiny) {
    return head + "(RMS " + g3(o.rms) + ") underflows " + o.dtype + " (smallest normal " +
           g3(tiny) + ")";
  }
  const double scale = cancellation_scale(o.op, o.operand_rms);
  const double bound = oracle::alone_bound(o.dtype, oracle::OpClass{reduction, true});
  if (scale > 0 && scale >= bound * o.rms) {
    return head + "(RMS " + g3(o.rms) + ") cancels: " + o.op + " of values of RMS " + g3(scale) +
           ", one rounding of which is " + g3(scale / o.rms) + " eps of it (bound " + g3(bound) +
           ")";
  }
  return std::nullopt;
}

std::optional<std::string> suspect_mismatch(const GraphFacts& g,
                                            const std::optional<std::vector<bool>>& failing) {
  if (!g.error.empty()) return std::nullopt;
  std::string reasons;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    if (failing && (i >= failing->size() || !(*failing)[i])) continue;
    auto why = suspect_output(g.outputs[i], g.reduction);
    if (!why) return std::nullopt;
    reasons += (reasons.empty() ? "" : "; ") + *why;
  }
  if (reasons.empty()) return std::nullopt;
  return reasons;
}

GraphFacts facts_from_json(const nlohmann::json& j) {
  GraphFacts g;
  if (!j.is_object()) {
    g.error = "not a JSON object";
    return g;
  }
  if (j.contains("error")) {
    g.error = j["error"].is_string() ? j["error"].get<std::string>() : "error";
    return g;
  }
  try {
    g.reduction = j.value("reduction", int64_t{1});
    for (const auto& o : j.at("outputs")) {
      OutputFacts f;
      f.name = o.at("name").get<std::string>();
      f.dtype = o.at("dtype").get<std::string>();
      f.op = o.value("op", "");
      f.rms = o.at("rms").get<double>();
      for (const auto& r : o.value("operand_rms", nlohmann::json::array())) {
        f.operand_rms.push_back(r.is_number() ? r.get<double>() : 0.0);
      }
      g.outputs.push_back(std::move(f));
    }
  } catch (const nlohmann::json::exception& e) {
    g = GraphFacts{};
    g.error = std::string("malformed facts: ") + e.what();
  }
  return g;
}

std::map<std::string, GraphFacts> reference_facts(
    const std::vector<std::filesystem::path>& graphs, int64_t seed, const std::string& profile,
    const std::map<std::string, std::string>& python) {
  std::map<std::string, GraphFacts> out;
  const auto fail = [&](const std::string& why) {
    for (const auto& p : graphs) out[p.string()].error = why;
    return out;
  };
  if (graphs.empty()) return out;
  const auto numpy = envs::resolve("numpy", profile, python);
  if (numpy.python.empty()) return fail("no numpy interpreter: " + numpy.missing_reason);
  static const std::atomic<bool> kNever{false};  // a batch's suspects are read whole
  std::string error;
  supervisor::ProbeSession::Limits limits;
  limits.memory_limit_bytes = run::default_memory_limit_bytes();
  auto session = supervisor::ProbeSession::start(supervisor::tool_command(numpy.python), limits,
                                                 kNever, &error);
  if (!session) {
    return fail("the reference probe did not start: " + error.substr(0, error.find('\n')));
  }
  for (const auto& p : graphs) {
    auto reply = session->reference(p.string(), seed, &error);
    if (!reply) {  // this graph and every one after it keep the reason
      for (const auto& q : graphs) {
        if (out.count(q.string()) == 0) out[q.string()].error = error;
      }
      return out;
    }
    out[p.string()] = facts_from_json(*reply);
  }
  session->stop();
  return out;
}

std::map<std::string, std::string> suspect_cases(const std::vector<model::CaseResult>& cases,
                                                 const std::filesystem::path& graphs, int64_t seed,
                                                 const std::string& profile,
                                                 const std::map<std::string, std::string>& python,
                                                 std::string* error) {
  std::map<std::string, std::vector<const model::CaseResult*>> by_graph;
  for (const auto& r : cases) {
    const auto id = parse_case_id(r.info.id);
    if (id && r.outcome == model::Outcome::kMismatch) by_graph[id->first].push_back(&r);
  }
  std::vector<std::filesystem::path> files;
  for (const auto& [hash, rs] : by_graph) files.push_back(graphs / (hash + ".json"));
  const auto facts = reference_facts(files, seed, profile, python);
  std::map<std::string, std::string> out;
  for (const auto& [hash, rs] : by_graph) {
    const auto& g = facts.at((graphs / (hash + ".json")).string());
    if (!g.error.empty()) {
      if (error != nullptr && error->empty()) *error = g.error;
      continue;
    }
    for (const auto* r : rs) {
      if (auto why = suspect_mismatch(g, failing_outputs(*r, cases))) {
        out[hash + "|" + parse_case_id(r->info.id)->second + "|" + r->device] = *why;
      }
    }
  }
  return out;
}

}  // namespace mudjack::fuzz
