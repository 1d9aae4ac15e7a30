#include "server/request.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <tuple>

#include "plan/case_filter.hpp"
#include "run/options.hpp"

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

// [A-Za-z_][A-Za-z0-9_]*, by hand: std::regex recurses per character, and a
// name may be as long as the body.
bool identifier(const std::string& s) {
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) == 0 &&
         std::all_of(s.begin(), s.end(), word);
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

// A number option in its range (run/options.hpp: the CLI's bounds).
Result<double> number(const json& v, const std::string& field, const run::Range& range) {
  if (!v.is_number()) return bad_request("'" + field + "' must be a number");
  if (auto why = run::out_of_range("'" + field + "'", v.get<double>(), range)) {
    return bad_request(*why);
  }
  return v.get<double>();
}

// An integer option in its range; one above INT64_MAX (which JSON allows) is
// out of range, never wrapped round to a negative.
Result<int64_t> integer(const json& v, const std::string& field, const run::IntRange& range) {
  if (!v.is_number_integer()) return bad_request("'" + field + "' must be an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) {
    return bad_request("'" + field + "' must be between " + std::to_string(range.low) + " and " +
                       std::to_string(range.high) + ", got " + v.dump());
  }
  auto x = v.get<int64_t>();
  if (auto why = run::out_of_range("'" + field + "'", x, range)) return bad_request(*why);
  return x;
}

const std::set<std::string>& known_fields() {
  static const std::set<std::string> fields = {
      "suite",       "suites", "framework", "frameworks", "device",    "devices",
      "filter",      "params", "timeout_s", "budget_ms",  "warmup_ms", "min_samples",
      "max_samples", "seed",   "baseline",  "serial",     "resume",    "no_baseline",
      "rounds",      "policy", "cpu_probes"};
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
  // As `mudjack run --suite x --suite x`: a suite listed twice would plan
  // every case twice and collide in the probes.
  for (size_t i = 0; i < r.suites.size(); ++i) {
    if (std::find(r.suites.begin(), r.suites.begin() + static_cast<std::ptrdiff_t>(i),
                  r.suites[i]) != r.suites.begin() + static_cast<std::ptrdiff_t>(i)) {
      return bad_request("suite '" + r.suites[i] + "' is selected twice");
    }
  }
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

// A regex over case ids (plan/case_filter.hpp: RE2, linear time), bounded in length.
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
  if (auto why = plan::filter_error(r.filter)) {
    return bad_request("'filter' is not a valid regex (RE2 syntax): " + *why);
  }
  return std::nullopt;
}

// {name: value}: identifiers to strings, numbers or booleans, kept as text
// (`--param NAME=VALUE`); the suite converts them. A parameter that names a
// path is refused before any probe sees it: listing with it would import
// or read whatever the request names.
Check parse_params(const json& doc, const Catalog& catalog, RunRequest& r) {
  if (!doc.contains("params")) return std::nullopt;
  if (!doc.at("params").is_object()) return bad_request("'params' must be an object");
  for (const auto& [name, value] : doc.at("params").items()) {
    if (!identifier(name)) {
      return bad_request("parameter name '" + name + "' is not an identifier");
    }
    if (names_path(catalog, name)) {
      return bad_request("parameter '" + name +
                         "' names a file or folder on the server; a request never names what "
                         "the server reads or runs (its operator sets it at start-up)");
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

Check optional_number(const json& doc, const char* field, const run::Range& range,
                      std::optional<double>& out) {
  if (!doc.contains(field)) return std::nullopt;
  auto v = number(doc.at(field), field, range);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

Check optional_samples(const json& doc, const char* field, std::optional<int>& out) {
  if (!doc.contains(field)) return std::nullopt;
  auto v = integer(doc.at(field), field, run::kSamplesRange);
  if (!v) return v.error();
  out = static_cast<int>(*v);
  return std::nullopt;
}

// timeout_s, budget_ms, warmup_ms, min_samples, max_samples, rounds,
// cpu_probes, policy.
Check parse_timing(const json& doc, RunRequest& r) {
  if (auto e = optional_number(doc, "timeout_s", run::kTimeoutRangeS, r.timeout_s)) return e;
  if (auto e = optional_number(doc, "budget_ms", run::kBudgetRangeMs, r.budget_ms)) return e;
  if (auto e = optional_number(doc, "warmup_ms", run::kWarmupRangeMs, r.warmup_ms)) return e;
  if (auto e = optional_samples(doc, "min_samples", r.min_samples)) return e;
  if (auto e = optional_samples(doc, "max_samples", r.max_samples)) return e;
  if (doc.contains("rounds")) {
    auto v = integer(doc.at("rounds"), "rounds", run::kRoundsRange);
    if (!v) return v.error();
    r.rounds = static_cast<int>(*v);
  }
  if (doc.contains("cpu_probes")) {
    auto v = integer(doc.at("cpu_probes"), "cpu_probes", run::kCpuProbesRange);
    if (!v) return v.error();
    r.cpu_probes = static_cast<int>(*v);
  }
  if (doc.contains("policy")) {
    const auto& v = doc.at("policy");
    if (!v.is_string() || !model::is_policy(v.get<std::string>())) {
      return bad_request("'policy' must be \"timed\" or \"once\"");
    }
    r.policy = v.get<std::string>();
  }
  if (r.min_samples && r.max_samples && *r.min_samples > *r.max_samples) {
    return bad_request("'min_samples' must not exceed 'max_samples'");
  }
  return std::nullopt;
}

// seed, baseline, serial, no_baseline.
Check parse_rest(const json& doc, const Catalog& catalog, RunRequest& r) {
  if (doc.contains("seed")) {
    auto v = integer(doc.at("seed"), "seed", run::kSeedRange);
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
  if (doc.contains("no_baseline")) {
    if (!doc.at("no_baseline").is_boolean()) {
      return bad_request("'no_baseline' must be true or false");
    }
    r.no_baseline = doc.at("no_baseline").get<bool>();
  }
  return std::nullopt;
}

}  // namespace

bool names_path(const Catalog& catalog, const std::string& name) {
  for (const auto& [suite, read] : catalog.params) {
    if (!read.is_object() || !read.contains(name)) continue;
    const auto& info = read.at(name);
    if (info.is_object() && info.value("path", false)) return true;
  }
  return false;
}

Result<RunRequest> parse_run_request(std::string_view body, const Catalog& catalog) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return bad_request("body is not valid JSON");
  if (!doc.is_object()) return bad_request("body must be a JSON object");
  if (auto e = check_fields(doc)) return *e;
  if (doc.contains("resume")) return parse_resume(doc);
  RunRequest r;
  if (auto e = parse_selection(doc, catalog, r)) return *e;
  if (auto e = parse_filter(doc, r)) return *e;
  if (auto e = parse_params(doc, catalog, r)) return *e;
  if (auto e = parse_timing(doc, r)) return *e;
  if (auto e = parse_rest(doc, catalog, r)) return *e;
  return r;
}

std::vector<model::CaseInfo> select_cases(const RunRequest& request, const Catalog& catalog) {
  const plan::CaseFilter wanted(request.filter);  // checked by parse_filter
  std::vector<model::CaseInfo> out;
  std::set<std::string> seen;
  for (const auto& suite : request.suites) {
    auto it = catalog.cases.find(suite);
    if (it == catalog.cases.end()) continue;
    for (const auto& c : it->second) {
      if (!request.frameworks.empty() && !contains(request.frameworks, c.framework)) continue;
      if (!contains(catalog.frameworks, c.framework)) continue;
      if (!wanted.matches(c.id)) continue;
      if (seen.insert(c.id).second) out.push_back(c);
    }
  }
  return out;
}

}  // namespace mudjack::server
