// Writes schemas/vocabulary.json to stdout: every closed list of the engine
// (outcomes, verdicts, causes, check kinds, error kinds, refusals and their
// sources, modes, policies, dtypes, excuse reasons, frameworks, fuzz symptoms,
// the fuzz ops with their arity and dtypes, the accuracy oracle's constants)
// and each outcome's and verdict's flags (model::props) from its C++
// definitions. The probe, the Python package, the scripts and the studies
// read that file; CTest `vocabulary` fails when the committed file differs
// from what this prints.
//
//   build/vocabulary > schemas/vocabulary.json

#include <array>
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "envs/envs.hpp"
#include "fuzz/findings.hpp"
#include "gen/graph.hpp"
#include "gen/ops.hpp"
#include "model/lists.hpp"
#include "model/model.hpp"
#include "oracle/accuracy.hpp"

namespace {

using nlohmann::json;
using nlohmann::ordered_json;
namespace envs = mudjack::envs;
namespace fuzz = mudjack::fuzz;
namespace model = mudjack::model;
namespace gen = mudjack::gen;
namespace oracle = mudjack::oracle;

// Every value of enum E in enum order, by its name: those whose name parses
// back to the value (a value's name "" is left out: the model's "none").
template <typename E, typename Name, typename Parse>
std::vector<std::string> enum_names(Name name, Parse parse) {
  std::vector<std::string> out;
  for (int i = 0;; ++i) {
    const auto e = static_cast<E>(i);
    const std::string_view n = name(e);
    const auto back = parse(n);
    if (n.empty()) continue;
    if (!back || *back != e) break;
    out.emplace_back(n);
  }
  return out;
}

template <typename Array>
std::vector<std::string> words(const Array& a) {
  std::vector<std::string> out;
  for (const auto& w : a) out.emplace_back(w);
  return out;
}

ordered_json enum_of(const std::vector<std::string>& names, std::string_view description) {
  return ordered_json{{"description", description}, {"enum", names}};
}

// Each word's flags (model::props), in the list's order:
// {"pass": {"ran": true, ...}, ...}.
template <typename E, size_t N, typename Flags>
ordered_json properties(const std::array<E, N>& values, const Flags& flags) {
  ordered_json out;
  for (const E v : values) {
    ordered_json p;
    for (const auto& [name, member] : flags) p[std::string(name)] = model::props(v).*member;
    out[std::string(model::to_string(v))] = p;
  }
  return out;
}

std::string_view dtypes_word(gen::Dtypes d) {
  switch (d) {
    case gen::Dtypes::kFloat:
      return "float";
    case gen::Dtypes::kFloatInt:
      return "float_int";
    case gen::Dtypes::kAny:
      return "any";
  }
  return "?";
}

ordered_json model_lists() {
  ordered_json d;
  std::vector<std::string> outcomes;
  for (auto o : model::kOutcomes) outcomes.emplace_back(model::to_string(o));
  std::vector<std::string> verdicts;
  for (auto v : model::kVerdicts) verdicts.emplace_back(model::to_string(v));
  std::vector<std::string> causes;
  for (auto c : model::kCauses) causes.emplace_back(model::to_string(c));
  auto checks = enum_names<model::Check>([](model::Check c) { return model::to_string(c); },
                                         [](std::string_view s) { return model::parse_check(s); });
  auto errors =
      enum_names<model::ErrorKind>([](model::ErrorKind k) { return model::to_string(k); },
                                   [](std::string_view s) { return model::parse_error_kind(s); });
  auto refusals =
      enum_names<model::Refusal>([](model::Refusal r) { return model::to_string(r); },
                                 [](std::string_view s) { return model::parse_refusal(s); });
  auto sources = enum_names<model::RefusalSource>(
      [](model::RefusalSource r) { return model::to_string(r); },
      [](std::string_view s) { return model::parse_refusal_source(s); });
  d["outcome"] = enum_of(outcomes, "every case x device ends with exactly one");
  d["verdict"] = enum_of(verdicts, "per (framework, function, device), in precedence order");
  d["cause"] = enum_of(causes, "why a result is what it is; none is the empty string");
  d["check"] = enum_of(checks, "how a pass's answer was checked");
  d["error_kind"] = enum_of(errors, "a failure's kind; none is the empty string");
  d["refusal"] = enum_of(refusals,
                         "a failing case's refusal: outside the function's domain (never a "
                         "failure) or a kernel missing on this chip (a failure); none is the "
                         "empty string");
  d["refusal_source"] = enum_of(sources, "who said a case was refused; none is the empty string");
  d["mode"] = enum_of(words(model::kModes), "how a case calls its function");
  d["policy"] = enum_of(words(model::kPolicies), "a case's run policy");
  d["grid_dtype"] = enum_of(words(model::kGridDtypes), "the dtype grid");
  auto known = words(model::kGridDtypes);
  for (auto w : model::kExtraDtypes) known.emplace_back(w);
  d["dtype"] = enum_of(known, "every dtype name a case may declare");
  d["excuse"] = enum_of(words(model::kExcuseReasons), "why a function has no grid case");
  return d;
}

std::vector<std::string> fuzz_dtypes() {
  return enum_names<gen::DType>([](gen::DType t) { return gen::to_string(t); },
                                [](std::string_view s) { return gen::dtype_from(s); });
}

ordered_json fuzz_ops() {
  ordered_json ops = ordered_json::array();
  for (const auto& s : gen::op_specs()) {
    ops.push_back({{"name", s.name},
                   {"min_inputs", s.min_inputs},
                   {"max_inputs", s.max_inputs},
                   {"dtypes", dtypes_word(s.dtypes)},
                   {"leaf_operands", s.leaf_operands}});
  }
  return ops;
}

ordered_json accuracy() {
  ordered_json eps;
  ordered_json floor;
  for (const auto& t : fuzz_dtypes()) {
    if (auto e = oracle::dtype_epsilon(t)) {
      eps[t] = *e;
      floor[t] = oracle::floor_eps(t);
    }
  }
  // Machine epsilon of every real floating dtype of the grid (bfloat16
  // included, which no fuzz graph has): what a standalone script measures
  // an error in (probe/mudjack_probe/minimal.py).
  ordered_json dtype_eps;
  for (const auto t : model::kGridDtypes) {
    const std::string name(t);
    if (auto e = oracle::dtype_epsilon(name); e && !name.starts_with("complex"))
      dtype_eps[name] = *e;
  }
  return {{"per_sqrt_k", oracle::kPerSqrtK},
          {"eps", eps},
          {"floor_eps", floor},
          {"dtype_eps", dtype_eps}};
}

}  // namespace

int main() {
  ordered_json doc;
  doc["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  doc["$id"] = "mudjack/vocabulary.json";
  doc["description"] =
      "Every closed list of MudJack, written by the engine (build/vocabulary > "
      "schemas/vocabulary.json) from its C++ definitions; never edit by hand. CTest "
      "`vocabulary` holds it; the probe and the scripts read it.";
  auto defs = model_lists();
  const auto value_dtypes = fuzz_dtypes();
  std::vector<std::string> graph_dtypes;  // a graph's own dtype: any value dtype but bool
  for (const auto& t : value_dtypes) {
    if (t != "bool") graph_dtypes.push_back(t);
  }
  std::vector<std::string> op_names;
  for (const auto& s : gen::op_specs()) op_names.emplace_back(s.name);
  std::vector<std::string> symptoms;
  for (const auto s : fuzz::kSymptoms) symptoms.emplace_back(fuzz::to_string(s));
  defs["framework"] = enum_of(envs::kFrameworks, "every framework a probe runs");
  defs["fuzz_op"] = enum_of(op_names, "every op of a generated graph (docs/fuzz.md)");
  defs["fuzz_value_dtype"] = enum_of(value_dtypes, "the dtypes a graph's values may have");
  defs["fuzz_graph_dtype"] = enum_of(graph_dtypes, "a graph's own dtype");
  defs["fuzz_symptom"] =
      enum_of(symptoms,
              "what a fuzz finding saw (docs/fuzz.md); suspect: a mismatch whose float64 "
              "reference is at its dtype's noise floor, never a finding");
  doc["$defs"] = defs;
  doc["outcome_properties"] = properties(model::kOutcomes, model::kOutcomeFlags);
  doc["verdict_properties"] = properties(model::kVerdicts, model::kVerdictFlags);
  doc["fuzz_ops"] = fuzz_ops();
  doc["accuracy"] = accuracy();
  std::cout << doc.dump(1) << '\n';
  return std::fflush(stdout) == 0 ? 0 : 1;
}
