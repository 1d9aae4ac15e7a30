#include "report/models.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "report/capability.hpp"
#include "report/text.hpp"
#include "report/units.hpp"
#include "stats/timing.hpp"

namespace mudjack::report {
namespace {

using nlohmann::json;

// The labels of a case ("key::value" tags) as a map; empty for a plain case.
std::map<std::string, std::string> labels_of(const model::CaseInfo& c) {
  std::map<std::string, std::string> out;
  for (const auto& t : c.tags) {
    const auto sep = t.find("::");
    if (sep != std::string::npos && sep > 0) out.emplace(t.substr(0, sep), t.substr(sep + 2));
  }
  return out;
}

std::string label(const std::map<std::string, std::string>& labels, const std::string& key) {
  const auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}

std::optional<double> metric(const model::CaseResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() ? std::nullopt : it->second.value;
}

// The model facts the probe reported as metrics (models.py: params, flops,
// structure_hash, op:<aten op> or onnx:<op type>) and the size and license labels.
void add_facts(const model::CaseResult& r, const std::map<std::string, std::string>& labels,
               ModelRow& m) {
  m.params = metric(r, "params");
  m.flops = metric(r, "flops");
  if (auto h = metric(r, "structure_hash"); h && *h >= 0) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%013llx", static_cast<unsigned long long>(*h));
    m.structure_hash = buf;
  }
  constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kSources = {
      {{"op:", "aten"}, {"onnx:", "onnx"}}};
  for (const auto& [name, value] : r.metrics) {
    for (const auto& [prefix, source] : kSources) {
      if (name.starts_with(prefix) && value.value) {
        m.ops_source = source;
        m.ops[name.substr(prefix.size())] = static_cast<int64_t>(*value.value);
      }
    }
  }
  m.size = label(labels, "size");
  m.license = label(labels, "license");
}

ModelRow row_of(const model::CaseResult& r, const std::map<std::string, std::string>& labels) {
  ModelRow m;
  m.model = r.info.function;
  m.framework = r.info.framework;
  m.device = r.device;
  m.stage = r.info.mode;
  m.dtype = r.info.dtype;
  m.shape = r.info.shape;
  m.task = label(labels, "task");
  m.family = label(labels, "family");
  m.author = label(labels, "author");
  m.case_id = r.info.id;
  m.outcome = r.outcome;
  if (r.outcome != model::Outcome::kPass) m.error = failure_text(r);
  m.peak_bytes = r.memory.peak_device_bytes ? r.memory.peak_device_bytes : r.memory.peak_host_bytes;
  if (r.latency.stats) m.median_ns = r.latency.stats->median_ns;
  if (r.latency.cold_ns) m.cold_ns = static_cast<double>(*r.latency.cold_ns);
  m.throughput = throughput_of(r);
  m.error_eps = r.numeric.error_eps;
  m.bound_eps = r.numeric.bound_eps;
  m.cause = r.numeric.cause;
  m.build_s = metric(r, "build_s");
  if (auto reused = metric(r, "build_reused")) m.build_reused = *reused != 0;
  add_facts(r, labels, m);
  return m;
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string bytes_text(std::optional<int64_t> b) {
  if (!b) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(*b) / (1024.0 * 1024.0));
  return buf;
}

std::string number(double v, const char* format) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The row's cells, in the order of kColumns.
constexpr std::array<const char*, 14> kColumns = {
    "model",          "framework",     "stage",
    "device",         "outcome",       "median (cold)",
    "throughput",     "peak memory",   "error / bound (eps)",
    "build",          "params / FLOP", "top operators",
    "structure hash", "license"};

// report.html's share of the width per column (percent, task first, then
// kColumns; a 1400 px page fits them), and the column cut to one line there.
constexpr std::array<int, kColumns.size() + 1> kHtmlWidths = {6, 10, 6, 7, 6, 10, 7, 6,
                                                              5, 6,  5, 7, 7, 7,  5};
constexpr size_t kHashColumn = 12;  // kColumns' "structure hash"

// "25.6 M / 4.1 GFLOP" (parameters, FLOPs of one forward pass); "" where
// neither is known (never the size class: a number on every row).
std::string size_text(const ModelRow& m) {
  if (!m.params && !m.flops) return "";
  return (m.params ? model::format_si(*m.params, "") : "?") + " / " +
         (m.flops ? model::format_si(*m.flops, "FLOP") : "?");
}

// The rows with each model's parameter count and FLOPs on every stage's row:
// the probe measures them on the eager stage, and they are the model's, not
// a stage's (an onnxruntime row read "tiny", its size class, before).
std::vector<ModelRow> with_model_facts(std::vector<ModelRow> rows) {
  std::map<std::pair<std::string, std::string>,
           std::pair<std::optional<double>, std::optional<double>>>
      facts;
  for (const auto& m : rows) {
    auto& f = facts[{m.model, m.framework}];
    if (!f.first) f.first = m.params;
    if (!f.second) f.second = m.flops;
  }
  for (auto& m : rows) {
    const auto& f = facts[{m.model, m.framework}];
    if (!m.params) m.params = f.first;
    if (!m.flops) m.flops = f.second;
  }
  return rows;
}

// The three most frequent operators, with their source: "Conv 20, Relu 17, Add 8 (onnx)".
std::string ops_text(const ModelRow& m) {
  if (m.ops.empty()) return "";
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [name, n] : m.ops) order.emplace_back(-n, name);
  std::sort(order.begin(), order.end());
  std::string out;
  for (size_t i = 0; i < order.size() && i < 3; ++i) {
    out += (i ? ", " : "") + order[i].second + " " + std::to_string(-order[i].first);
  }
  return out + " of " + std::to_string(m.ops.size()) + " (" + m.ops_source + ")";
}

std::vector<std::string> cells(const ModelRow& m) {
  std::string outcome(model::to_string(m.outcome));
  if (m.cause != model::Cause::kNone)
    outcome += " (" + std::string(model::to_string(m.cause)) + ")";
  if (!m.error.empty()) outcome += ": " + one_line(m.error, 120);
  std::string latency;
  if (m.median_ns) latency = duration_text(*m.median_ns);
  if (m.cold_ns) {  // "2.0 ms (9.0 ms)"; "cold 9.0 ms" alone
    const std::string cold = duration_text(*m.cold_ns);
    latency = latency.empty() ? "cold " + cold : latency + " (" + cold + ")";
  }
  std::string divergence;
  if (m.error_eps && m.bound_eps) divergence = eps_over_bound(m.error_eps, m.bound_eps);
  std::string build;
  if (m.build_s)
    build = duration_text(*m.build_s * 1e9) + (m.build_reused.value_or(false) ? " (cached)" : "");
  return {m.model + " " + m.dtype + " " + m.shape,
          m.framework,
          m.stage,
          m.device,
          outcome,
          latency,
          m.throughput ? number(m.throughput->per_s, "%.3g ") + m.throughput->unit : "",
          bytes_text(m.peak_bytes),
          divergence,
          build,
          size_text(m),
          ops_text(m),
          m.structure_hash,
          m.license};
}

// "stage on device: ran/total" for every (stage, device), ran = pass or mismatch.
std::vector<std::string> tallies(const std::vector<ModelRow>& rows) {
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> counts;
  for (const auto& m : rows) {
    auto& c = counts[{m.stage, m.device}];
    ++c.second;
    if (model::props(m.outcome).ran) ++c.first;
  }
  std::vector<std::string> out;
  for (const auto& [key, c] : counts) {
    out.push_back(key.first + " on " + key.second + ": " + std::to_string(c.first) + " of " +
                  std::to_string(c.second) + " ran");
  }
  return out;
}

}  // namespace

std::vector<ModelRow> model_rows(const std::vector<model::CaseResult>& results) {
  std::vector<ModelRow> rows;
  for (const auto& r : results) {
    if (stats::whole_model(r.info)) rows.push_back(row_of(r, labels_of(r.info)));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ModelRow& a, const ModelRow& b) {
    return std::tie(a.task, a.model, a.framework, a.stage, a.device) <
           std::tie(b.task, b.model, b.framework, b.stage, b.device);
  });
  return rows;
}

json models_to_json(const std::vector<ModelRow>& rows) {
  json out = json::array();
  for (const auto& m : rows) {
    json t = m.throughput ? json{{"per_s", m.throughput->per_s}, {"unit", m.throughput->unit}}
                          : json(nullptr);
    out.push_back(
        {{"model", m.model},
         {"framework", m.framework},
         {"device", m.device},
         {"stage", m.stage},
         {"dtype", m.dtype},
         {"shape", m.shape},
         {"task", m.task},
         {"family", m.family},
         {"author", m.author},
         {"case", m.case_id},
         {"outcome", model::to_string(m.outcome)},
         {"error", m.error},
         {"peak_memory_bytes", opt(m.peak_bytes)},
         {"median_ns", opt(m.median_ns)},
         {"cold_ns", opt(m.cold_ns)},
         {"throughput", std::move(t)},
         {"error_eps", opt(m.error_eps)},
         {"bound_eps", opt(m.bound_eps)},
         {"cause", model::to_string(m.cause)},
         {"build_s", opt(m.build_s)},
         {"build_reused", opt(m.build_reused)},
         {"params", opt(m.params)},
         {"flops", opt(m.flops)},
         {"ops_source", m.ops_source.empty() ? json(nullptr) : json(m.ops_source)},
         {"ops", m.ops.empty() ? json(nullptr) : json(m.ops)},
         {"structure_hash", m.structure_hash.empty() ? json(nullptr) : json(m.structure_hash)},
         {"size", m.size},
         {"license", m.license}});
  }
  return out;
}

std::string models_markdown(const std::vector<ModelRow>& given) {
  if (given.empty()) return "";
  const auto rows = with_model_facts(given);
  std::set<std::string> models;
  for (const auto& m : rows) models.insert(m.model);
  std::string out =
      "\n## Models\n\n" + std::to_string(models.size()) + " models; per stage and device: ";
  const auto t = tallies(rows);
  for (size_t i = 0; i < t.size(); ++i) out += (i ? "; " : "") + t[i];
  out += ".\n";
  std::string task = "\x01";
  for (const auto& m : rows) {
    if (m.task != task) {
      task = m.task;
      out += "\n### " + markdown_escape(task.empty() ? "(no task)" : task) + "\n\n|";
      for (const char* c : kColumns) out += std::string(" ") + c + " |";
      out += "\n|";
      for (size_t i = 0; i < kColumns.size(); ++i) out += "---|";
      out += "\n";
    }
    out += "|";
    for (const auto& c : cells(m)) out += " " + markdown_escape(c) + " |";
    out += "\n";
  }
  return out;
}

std::string models_html(const std::vector<ModelRow>& given) {
  if (given.empty()) return "";
  const auto rows = with_model_facts(given);
  std::string h = "<h2 id=\"models\">Models</h2>\n<p class=\"meta\">";
  for (const auto& t : tallies(rows)) h += html_escape(t) + "<br>";
  // A fixed layout as wide as the page (it fits 1400 px): each column its
  // share, long text wrapped; the hash on one line, cut with an ellipsis
  // where narrow; every cell's whole text in its title.
  h += "</p>\n<table class=\"models\"><colgroup>";
  for (const int w : kHtmlWidths) h += "<col style=\"width:" + std::to_string(w) + "%\">";
  h += "</colgroup><thead><tr><th>task</th>";
  for (const char* c : kColumns) h += std::string("<th>") + c + "</th>";
  h += "</tr></thead><tbody>\n";
  const auto td = [](const std::string& text, const char* cls) {
    return std::string("<td") + (*cls != 0 ? std::string(" class=\"") + cls + "\"" : "") +
           (text.empty() ? "" : " title=\"" + html_escape(text) + "\"") + ">" + html_escape(text) +
           "</td>";
  };
  for (const auto& m : rows) {
    const bool ok = m.outcome == model::Outcome::kPass;
    h += std::string("<tr class=\"") + (ok ? "ok" : "bad") + "\">" + td(m.task, "");
    const auto row = cells(m);
    for (size_t c = 0; c < row.size(); ++c) {
      h += td(row[c], c == kHashColumn ? "cut hash" : "");
    }
    h += "</tr>\n";
  }
  return h + "</tbody></table>\n";
}

std::string models_terminal(const std::vector<ModelRow>& rows, size_t limit) {
  if (rows.empty()) return "";
  constexpr size_t kCells = 6;
  std::vector<std::array<std::string, kCells>> table;
  table.push_back({"MODEL", "DEVICE", "STAGE", "OUTCOME", "LATENCY", "ERROR/BOUND eps"});
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const auto& m = rows[i];
    std::string outcome(model::to_string(m.outcome));
    if (m.cause != model::Cause::kNone) {
      outcome += " (" + std::string(model::to_string(m.cause)) + ")";
    }
    std::string latency = "-";
    if (m.median_ns) {
      latency = duration_text(*m.median_ns);
    } else if (m.cold_ns) {
      latency = "cold " + duration_text(*m.cold_ns);
    }
    table.push_back({plain(m.model), plain(m.device), plain(m.stage), outcome, latency,
                     eps_over_bound(m.error_eps, m.bound_eps)});
  }
  std::array<size_t, kCells> widths{};
  for (const auto& row : table) {
    for (size_t c = 0; c < kCells; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out = "\nmodels (" + std::to_string(rows.size()) + " rows: model x device x stage)\n";
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < kCells; ++c) {
      // Latency and error right-aligned, as numbers read.
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += (c == 0 ? "" : "  ") + (c >= 4 ? pad + row[c] : row[c] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (rows.size() > limit) {
    out += "... and " + std::to_string(rows.size() - limit) + " more (summary.md)\n";
  }
  return out;
}

}  // namespace mudjack::report
