#include "fuzz/findings.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <utility>

namespace mudjack::fuzz {
namespace {

using model::Outcome;

std::optional<double> median(const model::CaseResult& r) {
  if (!r.latency.stats) return std::nullopt;
  return r.latency.stats->median_ns;
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

constexpr std::array<std::pair<Symptom, std::string_view>, 7> kSymptomNames{{
    {Symptom::kNone, ""},
    {Symptom::kCrash, "crash"},
    {Symptom::kRaise, "raise"},
    {Symptom::kTimeout, "timeout"},
    {Symptom::kMismatch, "mismatch"},
    {Symptom::kSlow, "slow"},
    {Symptom::kSuspect, "suspect"},
}};

// A compiled case's median over its eager twin's, when both ran and were timed.
std::optional<double> compiled_ratio(const model::CaseResult& r, const model::CaseResult* eager) {
  if (eager == nullptr || !model::props(r.outcome).ran || !model::props(eager->outcome).ran) {
    return std::nullopt;
  }
  const auto a = median(r);
  const auto b = median(*eager);
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b;
}

}  // namespace

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::string_view to_string(Symptom s) {
  for (const auto& [symptom, name] : kSymptomNames) {
    if (symptom == s) return name;
  }
  return "";
}

std::optional<Symptom> parse_symptom(std::string_view s) {
  for (const auto& [symptom, name] : kSymptomNames) {
    if (!s.empty() && name == s) return symptom;
  }
  return std::nullopt;
}

std::string Finding::key() const {
  return std::string(to_string(symptom)) + "|" + backend + "|" + device + "|" + error_class;
}

std::string Finding::signature() const {
  return key() + "|" + join(reduced.empty() ? ops : reduced_ops, ",");
}

nlohmann::json to_json(const Finding& f) {
  nlohmann::json j = {{"symptom", std::string(to_string(f.symptom))},
                      {"backend", f.backend},
                      {"device", f.device},
                      {"error_class", f.error_class},
                      {"graph", f.graph},
                      {"detail", f.detail},
                      {"ops", f.ops},
                      {"nodes", f.nodes},
                      {"agreeing", f.agreeing},
                      {"reduced", f.reduced},
                      {"reduced_nodes", f.reduced_nodes},
                      {"reduced_ops", f.reduced_ops},
                      {"bundle", f.bundle},
                      {"duplicates", f.duplicates},
                      {"signature", f.signature()}};
  j["bound_eps"] = f.bound_eps ? nlohmann::json(*f.bound_eps) : nlohmann::json();
  j["ratio"] = f.ratio ? nlohmann::json(*f.ratio) : nlohmann::json();
  j["standalone"] = f.standalone ? nlohmann::json(*f.standalone) : nlohmann::json();
  j["standalone_output"] = f.standalone_output;
  if (!f.suspect.empty()) j["suspect"] = f.suspect;
  return j;
}

Finding finding_from_json(const nlohmann::json& j) {
  Finding f;
  f.symptom = parse_symptom(j.value("symptom", "")).value_or(Symptom::kNone);
  f.backend = j.value("backend", "");
  f.device = j.value("device", "");
  f.error_class = j.value("error_class", "");
  f.graph = j.value("graph", "");
  f.detail = j.value("detail", "");
  f.ops = j.value("ops", std::vector<std::string>{});
  f.nodes = j.value("nodes", size_t{0});
  f.agreeing = j.value("agreeing", 0);
  if (j.contains("bound_eps") && j["bound_eps"].is_number())
    f.bound_eps = j["bound_eps"].get<double>();
  if (j.contains("ratio") && j["ratio"].is_number()) f.ratio = j["ratio"].get<double>();
  f.reduced = j.value("reduced", "");
  f.reduced_nodes = j.value("reduced_nodes", size_t{0});
  f.reduced_ops = j.value("reduced_ops", std::vector<std::string>{});
  f.bundle = j.value("bundle", "");
  if (j.contains("standalone") && j["standalone"].is_boolean()) {
    f.standalone = j["standalone"].get<bool>();
  }
  f.standalone_output = j.value("standalone_output", "");
  f.suspect = j.value("suspect", "");
  f.duplicates = j.value("duplicates", 0);
  return f;
}

std::optional<std::pair<std::string, std::string>> parse_case_id(const std::string& id) {
  static const std::regex kId("fuzz/([0-9a-f]{16})/([a-z0-9-]+)");
  std::smatch m;
  if (!std::regex_match(id, m, kId)) return std::nullopt;
  return std::make_pair(m[1].str(), m[2].str());
}

std::string error_class(const std::string& message) {
  static const std::regex kQuoted("'[^']*'|\"[^\"]*\"");
  static const std::regex kHex("0x[0-9a-fA-F]+");
  static const std::regex kNumber("[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?");
  // Bounded before std::regex sees it: it recurses per character, and a
  // crash's message (a probe's stderr) has no length limit of its own.
  std::string s = first_line(message).substr(0, 1000);
  s = std::regex_replace(s, kQuoted, "'_'");
  s = std::regex_replace(s, kHex, "#");
  s = std::regex_replace(s, kNumber, "#");
  return s.substr(0, 120);
}

bool shows(const Finding& f, const model::CaseResult& r, const model::CaseResult* eager,
           double slow_ratio) {
  switch (f.symptom) {
    case Symptom::kCrash:
      return r.outcome == Outcome::kCrash && error_class(r.error.message) == f.error_class;
    case Symptom::kRaise:
      return r.outcome == Outcome::kFail && error_class(r.error.message) == f.error_class;
    case Symptom::kTimeout:
      return r.outcome == Outcome::kTimeout;
    case Symptom::kMismatch:
      return r.outcome == Outcome::kMismatch;
    case Symptom::kSlow: {
      const auto ratio = compiled_ratio(r, eager);
      return ratio && *ratio > slow_ratio;
    }
    case Symptom::kNone:
    case Symptom::kSuspect:
      return false;
  }
  return false;
}

namespace {

// The finding case `r` shows among the cases of its graph (`rs`), or one
// with no symptom (Symptom::kNone).
Finding finding_of(const model::CaseResult& r, const std::vector<const model::CaseResult*>& rs,
                   bool any_ran, double slow_ratio) {
  Finding f;
  f.backend = parse_case_id(r.info.id)->second;
  f.device = r.device;
  const std::string message = first_line(r.error.message).substr(0, 300);
  if (any_ran && (r.outcome == Outcome::kFail || r.outcome == Outcome::kCrash)) {
    f.symptom = r.outcome == Outcome::kFail ? Symptom::kRaise : Symptom::kCrash;
    f.error_class = error_class(r.error.message);
    f.detail = message;
  } else if (any_ran && r.outcome == Outcome::kTimeout) {
    f.symptom = Symptom::kTimeout;
    f.detail = message;
  } else if (r.outcome == Outcome::kMismatch) {
    f.symptom = Symptom::kMismatch;
    f.detail = !r.numeric.message.empty() ? first_line(r.numeric.message) : message;
    f.bound_eps = r.numeric.bound_eps;
    for (const auto* peer : rs) {
      if (peer != &r && peer->device == r.device && peer->outcome == Outcome::kPass) ++f.agreeing;
    }
  } else if (r.info.mode == "compiled" && model::props(r.outcome).ran) {
    const model::CaseResult* eager = nullptr;
    for (const auto* peer : rs) {
      if (peer->device == r.device && peer->info.framework == r.info.framework &&
          peer->info.mode == "eager") {
        eager = peer;
      }
    }
    const auto ratio = compiled_ratio(r, eager);
    if (ratio && *ratio > slow_ratio) {
      f.symptom = Symptom::kSlow;
      f.ratio = ratio;
      char buf[160];
      std::snprintf(buf, sizeof(buf), "median %.1f us compiled vs %.1f us eager (%.1fx)",
                    *median(r) / 1e3, *median(*eager) / 1e3, *f.ratio);
      f.detail = buf;
    }
  }
  return f;
}

}  // namespace

BatchFacts analyze(
    const std::vector<model::CaseResult>& cases, double slow_ratio,
    const std::map<std::string, std::pair<std::vector<std::string>, size_t>>& ops_of) {
  BatchFacts facts;
  std::map<std::string, std::vector<const model::CaseResult*>> by_graph;
  for (const auto& r : cases) {
    auto id = parse_case_id(r.info.id);
    if (!id) continue;
    by_graph[id->first].push_back(&r);
    ++facts.cases;
  }
  facts.graphs = static_cast<int>(by_graph.size());
  for (const auto& [graph, rs] : by_graph) {
    bool any_ran = false;
    bool any_attempted = false;
    std::map<std::string, bool> backend_ran;  // per backend: ran on some device
    for (const auto* r : rs) {
      const std::string backend = parse_case_id(r->info.id)->second;
      if (r->outcome == Outcome::kError) {
        ++facts.suite_errors;
        continue;
      }
      if (!model::props(r->outcome).attempted) {  // unavailable or skipped
        ++facts.unavailable[backend];
        continue;
      }
      any_attempted = true;
      any_ran = any_ran || model::props(r->outcome).ran;
      backend_ran.try_emplace(backend, false);
      backend_ran[backend] = backend_ran[backend] || model::props(r->outcome).ran;
    }
    for (const auto& [backend, ok] : backend_ran) {
      auto& a = facts.acceptance[backend];
      ++a.first;
      if (ok) ++a.second;
    }
    if (any_attempted && !any_ran) ++facts.rejected_by_all;
    const auto known = ops_of.find(graph);
    for (const auto* r : rs) {
      Finding f = finding_of(*r, rs, any_ran, slow_ratio);
      if (f.symptom == Symptom::kNone) continue;
      f.graph = graph;
      if (known != ops_of.end()) {
        f.ops = known->second.first;
        f.nodes = known->second.second;
      }
      facts.findings.push_back(std::move(f));
    }
  }
  return facts;
}

}  // namespace mudjack::fuzz
