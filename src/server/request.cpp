#include "server/request.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <set>
#include <tuple>

namespace mudjack::server {
namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "(none)" : out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A check that passed (nullopt) or why not.
using Check = std::optional<HttpError>;

// A string or an array of strings, as a list of non-empty names.
Result<std::vector<std::string>> strings(const json& v, const std::string& field) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    for (const auto& item : v) {
      if (!item.is_string()) {
        return bad_request("'" + field + "' must be a string or an array of strings");
      }
      out.push_back(item.get<std::string>());
    }
  } else {
    return bad_request("'" + field + "' must be a string or an array of strings");
  }
  for (const auto& s : out) {
    if (s.empty()) return bad_request("'" + field + "' has an empty name");
  }
  return out;
}

// Bounds of a number option: (low, high] or [low, high].
struct Range {
  double low;
  double high;
  bool low_inclusive;
};

Result<double> number(const json& v, const std::string& field, Range range) {
  if (!v.is_number()) return bad_request("'" + field + "' must be a number");
  double x = v.get<double>();
  bool above_low = range.low_inclusive ? x >= range.low : x > range.low;
  if (!std::isfinite(x) || !above_low || x > range.high) {
    char text[128];
    std::snprintf(text, sizeof(text), "%s%g, %g]", range.low_inclusive ? "[" : "(", range.low,
                  range.high);
    return bad_request("'" + field + "' must be in " + text);
  }
  return x;
}

Result<int64_t> integer(const json& v, const std::string& field, int64_t low, int64_t high) {
  if (!v.is_number_integer()) return bad_request("'" + field + "' must be an integer");
  auto x = v.get<int64_t>();
  if (x < low || x > high) {
    return bad_request("'" + field + "' must be between " + std::to_string(low) + " and " +
                       std::to_string(high));
  }
  return x;
}

const std::set<std::string>& known_fields() {
  static const std::set<std::string> fields = {
      "suite",       "suites", "framework", "frameworks", "device",    "devices",
      "filter",      "params", "timeout_s", "budget_ms",  "warmup_ms", "min_samples",
      "max_samples", "seed",   "baseline",  "serial",     "resume"};
  return fields;
}

Check check_fields(const json& doc) {
  for (const auto& [key, value] : doc.items()) {
    if (!known_fields().count(key)) {
      std::vector<std::string> known(known_fields().begin(), known_fields().end());
      return bad_request("unknown field '" + key + "'; known: " + joined(known));
    }
  }
  return std::nullopt;
}

// {"resume": "<run id>"} and nothing else.
Result<RunRequest> parse_resume(const json& doc) {
  const auto& id = doc.at("resume");
  if (!id.is_string() || id.get<std::string>().empty()) {
    return bad_request("'resume' must be a run id");
  }
  if (doc.size() != 1) {
    return bad_request("'resume' takes no other field: the run keeps its options");
  }
  RunRequest r;
  r.resume = id.get<std::string>();
  return r;
}

// suite(s), framework(s), device(s): each a name or a list, all offered here.
Check parse_selection(const json& doc, const Catalog& catalog, RunRequest& r) {
  for (const auto& [singular, plural, target] :
       {std::tuple{"suite", "suites", &r.suites},
        std::tuple{"framework", "frameworks", &r.frameworks},
        std::tuple{"device", "devices", &r.devices}}) {
    if (doc.contains(singular) && doc.contains(plural)) {
      return bad_request(std::string("give '") + singular + "' or '" + plural + "', not both");
    }
    const char* field = doc.contains(singular) ? singular : plural;
    if (!doc.contains(field)) continue;
    auto list = strings(doc.at(field), field);
    if (!list) return list.error();
    *target = std::move(*list);
  }
  if (r.suites.empty()) return bad_request("'suite' is required (see GET /v1/suites)");
  std::vector<std::string> suite_names;
  for (const auto& [name, dir] : catalog.suites) suite_names.push_back(name);
  for (const auto& s : r.suites) {
    if (!catalog.suites.count(s)) {
      return bad_request("unknown suite '" + s + "'; this server has: " + joined(suite_names));
    }
  }
  for (const auto& f : r.frameworks) {
    if (!contains(catalog.frameworks, f)) {
      return bad_request("unknown framework '" + f +
                         "'; this server has: " + joined(catalog.frameworks));
    }
  }
  for (const auto& d : r.devices) {
    if (!contains(catalog.devices, d)) {
      return bad_request("unknown device '" + d + "'; this server has: " + joined(catalog.devices));
    }
  }
  return std::nullopt;
}

// An ECMAScript regex over case ids, bounded in length.
Check parse_filter(const json& doc, RunRequest& r) {
  if (!doc.contains("filter")) return std::nullopt;
  if (!doc.at("filter").is_string()) {
    return bad_request("'filter' must be a string (a regex over case ids)");
  }
  r.filter = doc.at("filter").get<std::string>();
  if (r.filter.size() > kMaxFilterChars) {
    return bad_request("'filter' is longer than " + std::to_string(kMaxFilterChars) +
                       " characters");
  }
  try {
    std::regex re(r.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return bad_request("'filter' is not a valid regex: " + std::string(e.what()));
  }
  return std::nullopt;
}

// {name: value}: identifiers to strings, numbers or booleans, kept as text
// (`--param NAME=VALUE`); the suite converts them.
Check parse_params(const json& doc, RunRequest& r) {
  if (!doc.contains("params")) return std::nullopt;
  if (!doc.at("params").is_object()) return bad_request("'params' must be an object");
  static const std::regex name_re("^[A-Za-z_][A-Za-z0-9_]*$");
  for (const auto& [name, value] : doc.at("params").items()) {
    if (!std::regex_match(name, name_re)) {
      return bad_request("parameter name '" + name + "' is not an identifier");
    }
    if (value.is_string()) {
      r.params[name] = value.get<std::string>();
    } else if (value.is_number() || value.is_boolean()) {
      r.params[name] = value.dump();
    } else {
      return bad_request("parameter '" + name + "' must be a string, number or boolean");
    }
    if (r.params[name].get_ref<const std::string&>().size() > kMaxFilterChars) {
      return bad_request("parameter '" + name + "' is longer than " +
                         std::to_string(kMaxFilterChars) + " characters");
    }
  }
  return std::nullopt;
}

Check optional_number(const json& doc, const char* field, Range range, std::optional<double>& out) {
  if (!doc.contains(field)) return std::nullopt;
  auto v = number(doc.at(field), field, range);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

Check optional_samples(const json& doc, const char* field, std::optional<int>& out) {
  if (!doc.contains(field)) return std::nullopt;
  auto v = integer(doc.at(field), field, 1, kMaxSamples);
  if (!v) return v.error();
  out = static_cast<int>(*v);
  return std::nullopt;
}

// timeout_s, budget_ms, warmup_ms, min_samples, max_samples.
Check parse_timing(const json& doc, RunRequest& r) {
  if (auto e = optional_number(doc, "timeout_s", {0, kMaxTimeoutS, false}, r.timeout_s)) return e;
  if (auto e = optional_number(doc, "budget_ms", {0, kMaxBudgetMs, false}, r.budget_ms)) return e;
  if (auto e = optional_number(doc, "warmup_ms", {0, kMaxBudgetMs, true}, r.warmup_ms)) return e;
  if (auto e = optional_samples(doc, "min_samples", r.min_samples)) return e;
  if (auto e = optional_samples(doc, "max_samples", r.max_samples)) return e;
  if (r.min_samples && r.max_samples && *r.min_samples > *r.max_samples) {
    return bad_request("'min_samples' must not exceed 'max_samples'");
  }
  return std::nullopt;
}

// seed, baseline, serial.
Check parse_rest(const json& doc, const Catalog& catalog, RunRequest& r) {
  if (doc.contains("seed")) {
    auto v = integer(doc.at("seed"), "seed", INT64_MIN, INT64_MAX);
    if (!v) return v.error();
    r.seed = *v;
  }
  if (doc.contains("baseline")) {
    if (!doc.at("baseline").is_string()) return bad_request("'baseline' must be a device id");
    r.baseline = doc.at("baseline").get<std::string>();
    if (!contains(catalog.devices, r.baseline)) {
      return bad_request("unknown baseline device '" + r.baseline +
                         "'; this server has: " + joined(catalog.devices));
    }
  }
  if (doc.contains("serial")) {
    if (!doc.at("serial").is_boolean()) return bad_request("'serial' must be true or false");
    r.serial = doc.at("serial").get<bool>();
  }
  return std::nullopt;
}

}  // namespace

Result<RunRequest> parse_run_request(std::string_view body, const Catalog& catalog) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return bad_request("body is not valid JSON");
  if (!doc.is_object()) return bad_request("body must be a JSON object");
  if (auto e = check_fields(doc)) return *e;
  if (doc.contains("resume")) return parse_resume(doc);
  RunRequest r;
  if (auto e = parse_selection(doc, catalog, r)) return *e;
  if (auto e = parse_filter(doc, r)) return *e;
  if (auto e = parse_params(doc, r)) return *e;
  if (auto e = parse_timing(doc, r)) return *e;
  if (auto e = parse_rest(doc, catalog, r)) return *e;
  return r;
}

std::vector<model::CaseInfo> select_cases(const RunRequest& request, const Catalog& catalog) {
  std::regex re(request.filter.empty() ? std::string(".*") : request.filter,
                std::regex::ECMAScript);
  std::vector<model::CaseInfo> out;
  std::set<std::string> seen;
  for (const auto& suite : request.suites) {
    auto it = catalog.cases.find(suite);
    if (it == catalog.cases.end()) continue;
    for (const auto& c : it->second) {
      if (!request.frameworks.empty() && !contains(request.frameworks, c.framework)) continue;
      if (!contains(catalog.frameworks, c.framework)) continue;
      if (!request.filter.empty() && !std::regex_search(c.id, re)) continue;
      if (seen.insert(c.id).second) out.push_back(c);
    }
  }
  return out;
}

}  // namespace mudjack::server
