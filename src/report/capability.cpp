#include "report/capability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "report/units.hpp"

namespace mudjack::report {
namespace {

using nlohmann::json;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.3g", v);
  return buf;
}

std::optional<double> median_of(const model::CaseResult& r) {
  if (!r.latency.stats) return std::nullopt;
  return r.latency.stats->median_ns;
}

std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// One row per (experiment, framework, device): cases passed, the best
// throughput and the range of compiled-over-eager speed-ups.
std::string headline(const std::set<std::string>& functions,
                     const std::vector<model::CaseResult>& results) {
  struct Row {
    int cases = 0, passed = 0;
    std::optional<model::Throughput> best;
    std::string best_case;
    std::map<std::string, std::map<std::string, double>> medians;  // variant sans mode -> mode
  };
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, Row> rows;
  for (const auto& r : results) {
    if (!functions.count(r.info.function)) continue;
    auto& row = rows[{r.info.function, r.info.framework, r.device}];
    ++row.cases;
    if (r.outcome == model::Outcome::kPass) ++row.passed;
    auto tp = model::throughput(
        r.work, r.latency.stats ? std::optional<double>(r.latency.stats->median_ns) : std::nullopt);
    if (tp && (!row.best || tp->per_s > row.best->per_s)) {
      row.best = tp;
      row.best_case = r.info.variant;
    }
    if (r.latency.stats) {
      row.medians[r.info.dtype + "-" + r.info.shape + r.info.params.dump()][r.info.mode] =
          r.latency.stats->median_ns;
    }
  }
  std::string out =
      "\n| experiment | framework | device | passed | best throughput (case) | compiled speed-up "
      "|\n|---|---|---|---|---|---|\n";
  for (const auto& [key, row] : rows) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& [variant, by_mode] : row.medians) {
      auto e = by_mode.find("eager");
      auto c = by_mode.find("compiled");
      if (e == by_mode.end() || c == by_mode.end() || !(c->second > 0)) continue;
      double x = e->second / c->second;
      lo = any ? std::min(lo, x) : x;
      hi = any ? std::max(hi, x) : x;
      any = true;
    }
    out += "| " + cell(std::get<0>(key)) + " | " + cell(std::get<1>(key)) + " | " +
           cell(std::get<2>(key)) + " | " + std::to_string(row.passed) + "/" +
           std::to_string(row.cases) + " | " +
           (row.best ? model::format_si(row.best->per_s, row.best->unit) + " (" +
                           cell(row.best_case) + ")"
                     : "-") +
           " | " + (any ? ratio(lo) + "×–" + ratio(hi) + "×" : "-") + " |\n";
  }
  return out;
}

}  // namespace

std::optional<model::Throughput> throughput_of(const model::CaseResult& r) {
  return model::throughput(r.work, median_of(r));
}

void workload_to_json(const model::CaseResult& r, json& c) {
  c["work"] = model::work_to_json(r.work);
  if (auto t = throughput_of(r)) {
    c["throughput"] = {{"per_s", t->per_s}, {"unit", t->unit}, {"basis", "median"}};
  } else {
    c["throughput"] = nullptr;
  }
  c["metrics"] = model::metrics_to_json(r.metrics);
}

void workload_from_json(const json& c, model::CaseResult& r) {
  if (auto it = c.find("work"); it != c.end()) r.work = model::work_from_json(*it);
  if (auto it = c.find("metrics"); it != c.end()) r.metrics = model::metrics_from_json(*it);
}

std::string metrics_text(const model::Metrics& metrics) {
  std::string out;
  for (const auto& [name, m] : metrics) {
    if (!out.empty()) out += "; ";
    out += name + "=" + (m.value ? number(*m.value) : "null");
    if (!m.unit.empty() && m.unit != "1") out += " " + m.unit;
  }
  return out;
}

std::string capability_markdown(const std::vector<model::CaseResult>& results) {
  std::set<std::string> functions;  // experiments with a declared work or metric somewhere
  for (const auto& r : results) {
    if (r.work || !r.metrics.empty()) functions.insert(r.info.function);
  }
  if (functions.empty()) return {};
  std::string out = "\n## Workloads\n\n";
  out +=
      "Throughput is the work one call does divided by its median latency; cold is the first "
      "call alone (compilation included); speed-up is eager median / compiled median.\n";
  out += headline(functions, results);
  for (const auto& fn : functions) {
    out += "\n### " + cell(fn) + "\n\n";
    out += "| framework | device | case | outcome | median | cold | throughput | metrics |\n";
    out += "|---|---|---|---|---|---|---|---|\n";
    // Eager/compiled pairs: (framework, device, dtype, shape, params) -> mode -> result,
    // the keys in the order the results came.
    using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
    std::map<Key, std::map<std::string, const model::CaseResult*>> modes;
    std::vector<Key> order;
    for (const auto& r : results) {
      if (r.info.function != fn) continue;
      auto med = median_of(r);
      auto tp = throughput_of(r);
      std::string metrics = metrics_text(r.metrics);
      auto epochs = r.metrics.find("epochs");
      if (med && epochs != r.metrics.end() && epochs->second.value && *epochs->second.value > 0) {
        metrics += (metrics.empty() ? "" : "; ") + std::string("epoch=") +
                   duration_text(*med / *epochs->second.value);
      }
      out += "| " + cell(r.info.framework) + " | " + cell(r.device) + " | " + cell(r.info.variant) +
             " | " + std::string(model::to_string(r.outcome)) + " | " +
             (med ? duration_text(*med) : "-") + " | " +
             (r.latency.cold_ns ? duration_text(static_cast<double>(*r.latency.cold_ns)) : "-") +
             " | " + (tp ? model::format_si(tp->per_s, tp->unit) : "-") + " | " + cell(metrics) +
             " |\n";
      Key key{r.info.framework, r.device, r.info.dtype, r.info.shape, r.info.params.dump()};
      if (!modes.count(key)) order.push_back(key);
      modes[key][r.info.mode] = &r;
    }
    std::string speedups;
    for (const auto& key : order) {
      const auto& by_mode = modes[key];
      auto e = by_mode.find("eager");
      auto c = by_mode.find("compiled");
      if (e == by_mode.end() || c == by_mode.end()) continue;
      auto em = median_of(*e->second);
      auto cm = median_of(*c->second);
      if (!em || !cm || !(*cm > 0)) continue;
      const auto& compiled = *c->second;
      speedups +=
          "| " + cell(std::get<0>(key)) + " | " + cell(std::get<1>(key)) + " | " +
          cell(std::get<2>(key) + "-" + std::get<3>(key)) + " | " + duration_text(*em) + " | " +
          duration_text(*cm) + " | " + ratio(*em / *cm) + "× | " +
          (compiled.latency.cold_ns ? duration_text(static_cast<double>(*compiled.latency.cold_ns))
                                    : "-") +
          " |\n";
    }
    if (!speedups.empty()) {
      out += "\nCompiled against eager (steady state; the compiled cold call is the compile):\n\n";
      out +=
          "| framework | device | case | eager median | compiled median | speed-up | "
          "compiled cold |\n|---|---|---|---|---|---|---|\n";
      out += speedups;
    }
  }
  return out;
}

}  // namespace mudjack::report
