#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "stats/stats.hpp"

namespace mudjack::compare {
namespace {

using model::Outcome;

bool ran(Outcome o) {
  return o == Outcome::kPass || o == Outcome::kMismatch;
}
bool broke(Outcome o) {
  return o == Outcome::kFail || o == Outcome::kCrash || o == Outcome::kTimeout ||
         o == Outcome::kMismatch;
}

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

int Report::count(Change c) const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [c](const Row& r) { return r.change == c; }));
}

namespace {

// A result's measured noise: the spread of its round medians (stats/timing.hpp).
double noise_of(const model::CaseResult& r) {
  return r.latency.timing && std::isfinite(r.latency.timing->spread) ? r.latency.timing->spread : 0;
}

}  // namespace

Report compare(const Side& a, const Side& b, const Options& options) {
  Report report{a.label, b.label, options, {}};
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
    if (ra->outcome == Outcome::kPass && broke(r->outcome)) {
      row.change = Change::kNewFailure;
      row.detail = r->error.message.substr(0, 200);
      continue;
    }
    if (broke(ra->outcome) && r->outcome == Outcome::kPass) {
      row.change = Change::kFixed;
      continue;
    }
    row.change = Change::kUnchanged;
    if (!ran(ra->outcome) || !ran(r->outcome) || !ra->latency.stats || !r->latency.stats) continue;
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
  }
  for (auto& [key, row] : rows) report.rows.push_back(std::move(row));
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
         {"change", to_string(r.change)},
         {"detail", r.detail}});
  }
  return j;
}

std::string to_markdown(const Report& report) {
  std::string out = "# Compare: " + report.label_a + " → " + report.label_b + "\n\n";
  out += "Significant: U test p < " + fixed(report.options.alpha, "%g") +
         " and median ratio beyond " + fixed(report.options.threshold, "%g") +
         "x either way, and beyond both runs' own noise (the spread of their timing rounds).\n\n";
  out +=
      "| regressions | improvements | new failures | fixed | unchanged | only in A | only in B |\n";
  out += "|--:|--:|--:|--:|--:|--:|--:|\n";
  out += "| " + std::to_string(report.count(Change::kRegression)) + " | " +
         std::to_string(report.count(Change::kImprovement)) + " | " +
         std::to_string(report.count(Change::kNewFailure)) + " | " +
         std::to_string(report.count(Change::kFixed)) + " | " +
         std::to_string(report.count(Change::kUnchanged)) + " | " +
         std::to_string(report.count(Change::kOnlyA)) + " | " +
         std::to_string(report.count(Change::kOnlyB)) + " |\n";
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

}  // namespace mudjack::compare
