#include "server/request.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

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

// A string or an array of strings, as a list; nullopt (and *error) otherwise.
std::optional<std::vector<std::string>> strings(const json& v, const std::string& field,
                                                std::string* error) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    for (const auto& item : v) {
      if (!item.is_string()) {
        *error = "'" + field + "' must be a string or an array of strings";
        return std::nullopt;
      }
      out.push_back(item.get<std::string>());
    }
  } else {
    *error = "'" + field + "' must be a string or an array of strings";
    return std::nullopt;
  }
  for (const auto& s : out) {
    if (s.empty()) {
      *error = "'" + field + "' has an empty name";
      return std::nullopt;
    }
  }
  return out;
}

std::optional<double> number(const json& v, const std::string& field, double low, double high,
                             bool low_inclusive, std::string* error) {
  if (!v.is_number()) {
    *error = "'" + field + "' must be a number";
    return std::nullopt;
  }
  double x = v.get<double>();
  bool above_low = low_inclusive ? x >= low : x > low;
  if (!std::isfinite(x) || !above_low || x > high) {
    char range[128];
    std::snprintf(range, sizeof(range), "%s%g, %g]", low_inclusive ? "[" : "(", low, high);
    *error = "'" + field + "' must be in " + range;
    return std::nullopt;
  }
  return x;
}

std::optional<int64_t> integer(const json& v, const std::string& field, int64_t low, int64_t high,
                               std::string* error) {
  if (!v.is_number_integer()) {
    *error = "'" + field + "' must be an integer";
    return std::nullopt;
  }
  auto x = v.get<int64_t>();
  if (x < low || x > high) {
    *error =
        "'" + field + "' must be between " + std::to_string(low) + " and " + std::to_string(high);
    return std::nullopt;
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

}  // namespace

ParsedRequest parse_run_request(std::string_view body, const Catalog& catalog) {
  ParsedRequest out;
  auto fail = [&](std::string message) {
    out.error = std::move(message);
    out.request.reset();
    return out;
  };
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("body is not valid JSON");
  if (!doc.is_object()) return fail("body must be a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (!known_fields().count(key)) {
      std::vector<std::string> known(known_fields().begin(), known_fields().end());
      return fail("unknown field '" + key + "'; known: " + joined(known));
    }
  }
  RunRequest r;
  std::string error;

  if (doc.contains("resume")) {
    if (!doc["resume"].is_string() || doc["resume"].get<std::string>().empty()) {
      return fail("'resume' must be a run id");
    }
    if (doc.size() != 1) return fail("'resume' takes no other field: the run keeps its options");
    r.resume = doc["resume"].get<std::string>();
    out.request = r;
    return out;
  }

  for (const auto& [singular, plural, target] :
       {std::tuple{"suite", "suites", &r.suites},
        std::tuple{"framework", "frameworks", &r.frameworks},
        std::tuple{"device", "devices", &r.devices}}) {
    if (doc.contains(singular) && doc.contains(plural)) {
      return fail(std::string("give '") + singular + "' or '" + plural + "', not both");
    }
    const char* field = doc.contains(singular) ? singular : plural;
    if (!doc.contains(field)) continue;
    auto list = strings(doc[field], field, &error);
    if (!list) return fail(error);
    *target = *list;
  }

  if (r.suites.empty()) return fail("'suite' is required (see GET /v1/suites)");
  std::vector<std::string> suite_names;
  for (const auto& [name, dir] : catalog.suites) suite_names.push_back(name);
  for (const auto& s : r.suites) {
    if (!catalog.suites.count(s)) {
      return fail("unknown suite '" + s + "'; this server has: " + joined(suite_names));
    }
  }
  for (const auto& f : r.frameworks) {
    if (!contains(catalog.frameworks, f)) {
      return fail("unknown framework '" + f + "'; this server has: " + joined(catalog.frameworks));
    }
  }
  for (const auto& d : r.devices) {
    if (!contains(catalog.devices, d)) {
      return fail("unknown device '" + d + "'; this server has: " + joined(catalog.devices));
    }
  }

  if (doc.contains("filter")) {
    if (!doc["filter"].is_string())
      return fail("'filter' must be a string (a regex over case ids)");
    r.filter = doc["filter"].get<std::string>();
    if (r.filter.size() > kMaxFilterChars) {
      return fail("'filter' is longer than " + std::to_string(kMaxFilterChars) + " characters");
    }
    try {
      std::regex re(r.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return fail("'filter' is not a valid regex: " + std::string(e.what()));
    }
  }

  if (doc.contains("params")) {
    if (!doc["params"].is_object()) return fail("'params' must be an object");
    static const std::regex name_re("^[A-Za-z_][A-Za-z0-9_]*$");
    for (const auto& [name, value] : doc["params"].items()) {
      if (!std::regex_match(name, name_re)) {
        return fail("parameter name '" + name + "' is not an identifier");
      }
      // Values travel as text (`--param NAME=VALUE`); the suite converts them.
      if (value.is_string()) {
        r.params[name] = value.get<std::string>();
      } else if (value.is_number() || value.is_boolean()) {
        r.params[name] = value.dump();
      } else {
        return fail("parameter '" + name + "' must be a string, number or boolean");
      }
      if (r.params[name].get_ref<const std::string&>().size() > kMaxFilterChars) {
        return fail("parameter '" + name + "' is longer than " + std::to_string(kMaxFilterChars) +
                    " characters");
      }
    }
  }

  if (doc.contains("timeout_s")) {
    r.timeout_s = number(doc["timeout_s"], "timeout_s", 0, kMaxTimeoutS, false, &error);
    if (!r.timeout_s) return fail(error);
  }
  if (doc.contains("budget_ms")) {
    r.budget_ms = number(doc["budget_ms"], "budget_ms", 0, kMaxBudgetMs, false, &error);
    if (!r.budget_ms) return fail(error);
  }
  if (doc.contains("warmup_ms")) {
    r.warmup_ms = number(doc["warmup_ms"], "warmup_ms", 0, kMaxBudgetMs, true, &error);
    if (!r.warmup_ms) return fail(error);
  }
  if (doc.contains("min_samples")) {
    auto v = integer(doc["min_samples"], "min_samples", 1, kMaxSamples, &error);
    if (!v) return fail(error);
    r.min_samples = static_cast<int>(*v);
  }
  if (doc.contains("max_samples")) {
    auto v = integer(doc["max_samples"], "max_samples", 1, kMaxSamples, &error);
    if (!v) return fail(error);
    r.max_samples = static_cast<int>(*v);
  }
  if (r.min_samples && r.max_samples && *r.min_samples > *r.max_samples) {
    return fail("'min_samples' must not exceed 'max_samples'");
  }
  if (doc.contains("seed")) {
    auto v = integer(doc["seed"], "seed", INT64_MIN, INT64_MAX, &error);
    if (!v) return fail(error);
    r.seed = *v;
  }
  if (doc.contains("baseline")) {
    if (!doc["baseline"].is_string()) return fail("'baseline' must be a device id");
    r.baseline = doc["baseline"].get<std::string>();
    if (!contains(catalog.devices, r.baseline)) {
      return fail("unknown baseline device '" + r.baseline +
                  "'; this server has: " + joined(catalog.devices));
    }
  }
  if (doc.contains("serial")) {
    if (!doc["serial"].is_boolean()) return fail("'serial' must be true or false");
    r.serial = doc["serial"].get<bool>();
  }
  out.request = r;
  return out;
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
