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
#include "stats/timing.hpp"
#include "util/time.hpp"

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

// "25.6 M / 4.1 GFLOP" (parameters, FLOPs of one forward pass).
std::string size_text(const ModelRow& m) {
  if (!m.params && !m.flops) return m.size;
  return (m.params ? model::format_si(*m.params, "") : "?") + " / " +
         (m.flops ? model::format_si(*m.flops, "FLOP") : "?");
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
  if (m.median_ns) latency = util::format_ns(*m.median_ns);
  if (m.cold_ns)
    latency += (latency.empty() ? "cold " : " (") + util::format_ns(*m.cold_ns) +
               (latency.starts_with("cold") ? "" : ")");
  std::string divergence;
  if (m.error_eps && m.bound_eps) {
    divergence = number(*m.error_eps, "%.3g") + " / " + number(*m.bound_eps, "%.3g");
  }
  std::string build;
  if (m.build_s)
    build = number(*m.build_s, "%.1f s") + (m.build_reused.value_or(false) ? " (cached)" : "");
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

std::string models_markdown(const std::vector<ModelRow>& rows) {
  if (rows.empty()) return "";
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

std::string models_html(const std::vector<ModelRow>& rows) {
  if (rows.empty()) return "";
  std::string h = "<h2 id=\"models\">Models</h2>\n<p class=\"meta\">";
  for (const auto& t : tallies(rows)) h += html_escape(t) + "<br>";
  h += "</p>\n<table class=\"models\"><thead><tr><th>task</th>";
  for (const char* c : kColumns) h += std::string("<th>") + c + "</th>";
  h += "</tr></thead><tbody>\n";
  for (const auto& m : rows) {
    const bool ok = m.outcome == model::Outcome::kPass;
    h += std::string("<tr class=\"") + (ok ? "ok" : "bad") + "\"><td>" + html_escape(m.task) +
         "</td>";
    for (const auto& c : cells(m)) h += "<td>" + html_escape(c) + "</td>";
    h += "</tr>\n";
  }
  return h + "</tbody></table>\n";
}

}  // namespace mudjack::report
