#include "compare/compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "stats/stats.hpp"

namespace mudjack::compare {
namespace {

using model::Outcome;

std::map<std::string, const model::CaseResult*> index(const Side& side) {
  std::map<std::string, const model::CaseResult*> out;
  for (const auto& r : side.results) {
    if (!side.device.empty() && r.device != side.device) continue;
    out[side.device.empty() ? r.info.id + "@" + r.device : r.info.id] = &r;
  }
  return out;
}

// A table cell: no pipes or line breaks from an error message.
std::string cell(std::string s) {
  std::replace(s.begin(), s.end(), '|', '/');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string fixed(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

}  // namespace

std::string_view to_string(Change c) {
  switch (c) {
    case Change::kRegression:
      return "regression";
    case Change::kImprovement:
      return "improvement";
    case Change::kNewFailure:
      return "new_failure";
    case Change::kFixed:
      return "fixed";
    case Change::kUnchanged:
      return "unchanged";
    case Change::kOnlyA:
      return "only_a";
    case Change::kOnlyB:
      return "only_b";
  }
  return "?";
}

std::string_view to_string(Accuracy a) {
  switch (a) {
    case Accuracy::kSame:
      return "same";
    case Accuracy::kBetter:
      return "better";
    case Accuracy::kWorse:
      return "worse";
  }
  return "?";
}

int Report::count(Accuracy a) const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [a](const Row& r) { return r.accuracy == a; }));
}

int Report::count(Change c) const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [c](const Row& r) { return r.change == c; }));
}

namespace {

// A result's measured noise: the spread of its round medians (stats/timing.hpp).
double noise_of(const model::CaseResult& r) {
  return r.latency.timing && std::isfinite(r.latency.timing->spread) ? r.latency.timing->spread : 0;
}

using nlohmann::json;

// What a side's environment says, flattened: "device cpu" -> model,
// "torch" -> version, "python torch" -> Python version (first machine that
// names each).
std::map<std::string, std::string> facts(const json& env) {
  std::map<std::string, std::string> out;
  if (!env.is_object() || !env.contains("machines") || !env["machines"].is_array()) return out;
  const auto text = [](const json& j, const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
  };
  for (const auto& m : env["machines"]) {
    const std::string label = text(m, "label");
    const std::string prefix = label.empty() ? "" : label + "/";
    for (const auto& d : m.value("devices", json::array())) {
      out.try_emplace("device " + prefix + text(d, "id"), text(d, "model"));
    }
    if (!m.contains("frameworks") || !m["frameworks"].is_object()) continue;
    for (const auto& [name, fw] : m["frameworks"].items()) {
      out.try_emplace(name, text(fw, "version"));
      out.try_emplace("python " + name, text(fw, "python"));
    }
  }
  return out;
}

// The timing settings two runs must share for their medians to compare.
constexpr std::array<const char*, 8> kSettings = {"budget_ms",   "warmup_ms",   "rounds",
                                                  "min_samples", "max_samples", "profile",
                                                  "params",      "policy"};

void add_warnings(const Side& a, const Side& b, Report& report) {
  auto fa = facts(a.environment);
  auto fb = facts(b.environment);
  // Devices compared: the named ones, else every device both name.
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!a.device.empty() || !b.device.empty()) {
    pairs.emplace_back("device " + a.device, "device " + b.device);
  } else {
    for (const auto& [key, model] : fa) {
      if (key.rfind("device ", 0) == 0 && fb.contains(key)) pairs.emplace_back(key, key);
    }
  }
  for (const auto& [ka, kb] : pairs) {
    if (fa.contains(ka) && fb.contains(kb) && fa[ka] != fb[kb]) {
      report.warnings.push_back("different chips: " + ka.substr(7) + " is " + fa[ka] + " in A, " +
                                kb.substr(7) + " is " + fb[kb] +
                                " in B; latency changes compare chips, not releases");
    }
  }
  for (const auto& [key, value] : fa) {
    if (key.rfind("device ", 0) == 0 || !fb.contains(key) || fb[key] == value) continue;
    report.warnings.push_back("different versions: " + key + " " + value + " in A, " + fb[key] +
                              " in B");
  }
  for (const char* key : kSettings) {
    const json va = a.options.is_object() ? a.options.value(key, json()) : json();
    const json vb = b.options.is_object() ? b.options.value(key, json()) : json();
    if (va.is_null() || vb.is_null() || va == vb) continue;
    report.warnings.push_back(std::string("different settings: ") + key + " " + va.dump() +
                              " in A, " + vb.dump() + " in B");
  }
  for (const Side* side : {&a, &b}) {
    const auto& results = side->results;
    const bool timed = std::any_of(results.begin(), results.end(),
                                   [](const auto& r) { return r.latency.stats.has_value(); });
    const bool measured = std::any_of(results.begin(), results.end(), [](const auto& r) {
      return r.latency.timing && r.latency.timing->rounds_ns.size() > 1;
    });
    if (timed && !measured) {
      report.warnings.push_back(side->label +
                                " has no timing rounds: its noise is unmeasured, so small "
                                "changes may be noise (run with --rounds 3)");
    }
  }
}

// "torch/torch.sort/float32-small-eager" -> "torch/torch.sort".
std::string function_of(const std::string& case_id) {
  const auto first = case_id.find('/');
  const auto last = case_id.rfind('/');
  return first == last ? case_id : case_id.substr(0, last);
}

std::optional<double> error_eps(const model::CaseResult& r) {
  const auto& e = r.numeric.error_eps;
  return e && std::isfinite(*e) && *e >= 0 ? e : std::nullopt;
}

// The two sides' errors against float64 and whether they moved beyond the
// rule (Options::accuracy_factor and ::accuracy_min_eps).
void judge_accuracy(Row& row, const model::CaseResult& a, const model::CaseResult& b,
                    const Options& options) {
  row.error_a_eps = error_eps(a);
  row.error_b_eps = error_eps(b);
  if (b.numeric.bound_eps) row.bound_b_eps = b.numeric.bound_eps;
  if (!row.error_a_eps || !row.error_b_eps) return;
  const double lo = std::min(*row.error_a_eps, *row.error_b_eps);
  const double hi = std::max(*row.error_a_eps, *row.error_b_eps);
  if (hi - lo < options.accuracy_min_eps || hi < options.accuracy_factor * lo) return;
  row.accuracy = *row.error_b_eps < *row.error_a_eps ? Accuracy::kBetter : Accuracy::kWorse;
}

}  // namespace

int Report::inside_noise() const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.inside_noise; }));
}

std::vector<FunctionRow> Report::functions() const {
  std::map<std::string, FunctionRow> by;
  std::map<std::string, std::vector<double>> ratios;
  for (const auto& r : rows) {
    const auto name = function_of(r.case_id);
    if (r.ratio && *r.ratio > 0) ratios[name].push_back(*r.ratio);
    if (r.change == Change::kUnchanged && !r.inside_noise && r.accuracy == Accuracy::kSame) {
      continue;
    }
    auto& f = by[name];
    f.function = name;
    if (r.change != Change::kUnchanged) ++f.changes[r.change];
    if (r.inside_noise) ++f.inside_noise;
    f.accuracy_better += r.accuracy == Accuracy::kBetter ? 1 : 0;
    f.accuracy_worse += r.accuracy == Accuracy::kWorse ? 1 : 0;
  }
  std::vector<FunctionRow> out;
  for (auto& [name, f] : by) {
    f.ratio = stats::geometric_mean(ratios[name]);
    out.push_back(std::move(f));
  }
  return out;
}

Report compare(const Side& a, const Side& b, const Options& options) {
  Report report{a.label, b.label, options, {}, {}};
  auto ia = index(a);
  auto ib = index(b);
  std::map<std::string, Row> rows;
  for (const auto& [key, r] : ia) {
    auto& row = rows[key];
    row.case_id = r->info.id;
    row.device_a = r->device;
    row.a = r->outcome;
    row.change = Change::kOnlyA;
  }
  for (const auto& [key, r] : ib) {
    auto& row = rows[key];
    row.case_id = r->info.id;
    row.device_b = r->device;
    row.b = r->outcome;
    if (!row.a) {
      row.change = Change::kOnlyB;
      continue;
    }
    const auto* ra = ia.at(key);
    row.dtype = r->info.dtype;
    judge_accuracy(row, *ra, *r, options);
    if (ra->outcome == Outcome::kPass && model::props(r->outcome).failure) {
      row.change = Change::kNewFailure;
      row.detail = r->error.message.substr(0, 200);
      continue;
    }
    if (model::props(ra->outcome).failure && r->outcome == Outcome::kPass) {
      row.change = Change::kFixed;
      continue;
    }
    row.change = Change::kUnchanged;
    if (!model::props(ra->outcome).ran || !model::props(r->outcome).ran || !ra->latency.stats ||
        !r->latency.stats) {
      continue;
    }
    row.median_a_ns = ra->latency.stats->median_ns;
    row.median_b_ns = r->latency.stats->median_ns;
    if (!(*row.median_a_ns > 0)) continue;
    row.ratio = *row.median_b_ns / *row.median_a_ns;
    if (auto u = stats::mann_whitney_u(ra->latency.samples_ns, r->latency.samples_ns)) row.p = u->p;
    // Each run's own noise: its rounds' spread. A change inside the band both
    // runs' noise spans is no change, whatever the threshold.
    row.noise = (1 + noise_of(*ra)) * (1 + noise_of(*r));
    const bool significant = row.p && *row.p < options.alpha;
    const double beyond = std::max(options.threshold, row.noise);
    if (significant && *row.ratio > beyond) row.change = Change::kRegression;
    if (significant && *row.ratio < 1 / beyond) row.change = Change::kImprovement;
    row.inside_noise = row.change == Change::kUnchanged && significant &&
                       (*row.ratio > options.threshold || *row.ratio < 1 / options.threshold);
  }
  for (auto& [key, row] : rows) report.rows.push_back(std::move(row));
  add_warnings(a, b, report);
  return report;
}

nlohmann::json to_json(const Report& report) {
  nlohmann::json j{{"a", report.label_a},
                   {"b", report.label_b},
                   {"threshold", report.options.threshold},
                   {"alpha", report.options.alpha},
                   {"counts", nlohmann::json::object()},
                   {"rows", nlohmann::json::array()}};
  for (auto c : {Change::kRegression, Change::kImprovement, Change::kNewFailure, Change::kFixed,
                 Change::kUnchanged, Change::kOnlyA, Change::kOnlyB}) {
    j["counts"][std::string(to_string(c))] = report.count(c);
  }
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  j["counts"]["inside_noise"] = report.inside_noise();
  j["counts"]["accuracy_better"] = report.count(Accuracy::kBetter);
  j["counts"]["accuracy_worse"] = report.count(Accuracy::kWorse);
  j["accuracy_rule"] = {{"factor", report.options.accuracy_factor},
                        {"min_eps", report.options.accuracy_min_eps}};
  j["warnings"] = report.warnings;
  j["functions"] = nlohmann::json::array();
  for (const auto& f : report.functions()) {
    nlohmann::json changes = nlohmann::json::object();
    for (const auto& [c, n] : f.changes) changes[std::string(to_string(c))] = n;
    j["functions"].push_back({{"function", f.function},
                              {"changes", changes},
                              {"inside_noise", f.inside_noise},
                              {"accuracy_better", f.accuracy_better},
                              {"accuracy_worse", f.accuracy_worse},
                              {"ratio", opt(f.ratio)}});
  }
  for (const auto& r : report.rows) {
    j["rows"].push_back(
        {{"case", r.case_id},
         {"device_a", r.device_a},
         {"device_b", r.device_b},
         {"outcome_a", r.a ? nlohmann::json(model::to_string(*r.a)) : nlohmann::json()},
         {"outcome_b", r.b ? nlohmann::json(model::to_string(*r.b)) : nlohmann::json()},
         {"median_a_ns", opt(r.median_a_ns)},
         {"median_b_ns", opt(r.median_b_ns)},
         {"ratio", opt(r.ratio)},
         {"p", opt(r.p)},
         {"noise", r.noise},
         {"inside_noise", r.inside_noise},
         {"change", to_string(r.change)},
         {"detail", r.detail},
         {"dtype", r.dtype},
         {"error_a_eps", opt(r.error_a_eps)},
         {"error_b_eps", opt(r.error_b_eps)},
         {"bound_b_eps", opt(r.bound_b_eps)},
         {"accuracy", to_string(r.accuracy)}});
  }
  return j;
}

namespace {

std::string function_table(const Report& report) {
  const auto functions = report.functions();
  if (functions.empty()) return "\nNo function changed.\n";
  constexpr std::array<Change, 6> kShown = {Change::kNewFailure,  Change::kRegression,
                                            Change::kImprovement, Change::kFixed,
                                            Change::kOnlyA,       Change::kOnlyB};
  std::string out =
      "\n## Functions that changed\n\n| function | new failures | regressions | improvements | "
      "fixed | only in A | only in B | inside noise | ratio B/A (geo. mean) | accuracy better | "
      "accuracy worse |\n";
  out += "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const auto& f : functions) {
    out += "| `" + cell(f.function) + "`";
    for (auto c : kShown) {
      auto it = f.changes.find(c);
      out += " | " + (it == f.changes.end() ? std::string() : std::to_string(it->second));
    }
    out += " | " + (f.inside_noise > 0 ? std::to_string(f.inside_noise) : std::string()) + " | " +
           (f.ratio ? fixed(*f.ratio, "%.2fx") : "") + " | " +
           (f.accuracy_better > 0 ? std::to_string(f.accuracy_better) : "") + " | " +
           (f.accuracy_worse > 0 ? std::to_string(f.accuracy_worse) : "") + " |\n";
  }
  return out;
}

// Without --cases, the accuracy table stops after this many rows.
constexpr int kAccuracyRows = 50;

std::string eps_text(const std::optional<double>& v) {
  return v ? fixed(*v, "%.3g") : "";
}

// Cases whose error against float64 moved beyond the rule, worse first.
std::string accuracy_table(const Report& report, bool all) {
  const int changed = report.count(Accuracy::kBetter) + report.count(Accuracy::kWorse);
  if (changed == 0) return "";
  std::string out =
      "\n## Accuracy changes\n\nError against the float64 reference, in eps of the case's "
      "dtype: shown when one side's is at least " +
      fixed(report.options.accuracy_factor, "%g") + "x the other's and they differ by at least " +
      fixed(report.options.accuracy_min_eps, "%g") +
      " eps.\n\n| case | device | dtype | A (eps) | B (eps) | bound B (eps) | change |\n"
      "|---|---|---|--:|--:|--:|---|\n";
  int shown = 0;
  for (auto want : {Accuracy::kWorse, Accuracy::kBetter}) {
    for (const auto& r : report.rows) {
      if (r.accuracy != want || (!all && shown >= kAccuracyRows)) continue;
      ++shown;
      const double lo = std::min(*r.error_a_eps, *r.error_b_eps);
      const double hi = std::max(*r.error_a_eps, *r.error_b_eps);
      out += "| `" + cell(r.case_id) + "` | " + cell(r.device_b) + " | " + cell(r.dtype) + " | " +
             eps_text(r.error_a_eps) + " | " + eps_text(r.error_b_eps) + " | " +
             eps_text(r.bound_b_eps) + " | " + std::string(to_string(want)) +
             (lo > 0 ? " " + fixed(hi / lo, "%.1fx") : "") + " |\n";
    }
  }
  if (shown < changed) {
    out += "\n... and " + std::to_string(changed - shown) + " more (`--cases` lists every one).\n";
  }
  return out;
}

std::string case_tables(const Report& report) {
  std::string out;
  for (auto c : {Change::kNewFailure, Change::kRegression, Change::kImprovement, Change::kFixed}) {
    if (report.count(c) == 0) continue;
    out += "\n## " + std::string(to_string(c)) +
           "\n\n| case | device A | device B | A | B | ratio | p | detail |\n";
    out += "|---|---|---|---|---|--:|--:|---|\n";
    for (const auto& r : report.rows) {
      if (r.change != c) continue;
      out += "| `" + r.case_id + "` | " + r.device_a + " | " + r.device_b + " | " +
             std::string(r.a ? model::to_string(*r.a) : "") + " | " +
             std::string(r.b ? model::to_string(*r.b) : "") + " | " +
             (r.ratio ? fixed(*r.ratio, "%.2fx") : "") + " | " + (r.p ? fixed(*r.p, "%.2g") : "") +
             " | " + cell(r.detail) + " |\n";
    }
  }
  return out;
}

}  // namespace

std::string to_markdown(const Report& report, bool cases) {
  std::string out = "# Compare: " + report.label_a + " → " + report.label_b + "\n\n";
  for (const auto& w : report.warnings) out += "> **Warning:** " + cell(w) + "\n";
  if (!report.warnings.empty()) out += "\n";
  out += "Significant: U test p < " + fixed(report.options.alpha, "%g") +
         " and median ratio beyond " + fixed(report.options.threshold, "%g") +
         "x either way, and beyond both runs' own noise (the spread of their timing rounds). "
         "\"Inside noise\": significant and beyond the threshold, but within that noise: not "
         "counted as a change.\n\n";
  out +=
      "| regressions | improvements | new failures | fixed | unchanged | inside noise | only in A "
      "| only in B | accuracy better | accuracy worse |\n";
  out += "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  out += "| " + std::to_string(report.count(Change::kRegression)) + " | " +
         std::to_string(report.count(Change::kImprovement)) + " | " +
         std::to_string(report.count(Change::kNewFailure)) + " | " +
         std::to_string(report.count(Change::kFixed)) + " | " +
         std::to_string(report.count(Change::kUnchanged) - report.inside_noise()) + " | " +
         std::to_string(report.inside_noise()) + " | " +
         std::to_string(report.count(Change::kOnlyA)) + " | " +
         std::to_string(report.count(Change::kOnlyB)) + " | " +
         std::to_string(report.count(Accuracy::kBetter)) + " | " +
         std::to_string(report.count(Accuracy::kWorse)) + " |\n";
  out += function_table(report);
  out += accuracy_table(report, cases);
  if (cases) return out + case_tables(report);
  if (report.count(Change::kNewFailure) + report.count(Change::kRegression) +
          report.count(Change::kImprovement) + report.count(Change::kFixed) >
      0) {
    out += "\nThe cases behind each function: `mudjack compare A B --cases`.\n";
  }
  return out;
}

}  // namespace mudjack::compare
