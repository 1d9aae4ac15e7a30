#include "portability/render.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "report/svg.hpp"
#include "report/text.hpp"
#include "util/version.hpp"

namespace mudjack::portability {
namespace {

using nlohmann::json;

// Each status's colour in the chart and the page (the verdict colours of
// report.html: green, amber, red, grey; unmapped a paler grey).
constexpr std::array<const char*, kStatuses.size()> kFills = {"#2e7d32", "#f9a825", "#c62828",
                                                              "#9e9e9e", "#d7d7d7"};

size_t at(Status s) {
  return static_cast<size_t>(s);
}

// "94.0%", "0.04%" (a share under 0.1% keeps two decimals), "0%".
std::string percent(double share) {
  if (share <= 0) return "0%";
  std::array<char, 32> buf{};
  const double p = 100 * share;
  const int n = std::snprintf(buf.data(), buf.size(), p < 0.1 ? "%.2f%%" : "%.1f%%", p);
  return std::string(buf.data(), static_cast<size_t>(std::max(n, 0)));
}

// 1331181 -> "1,331,181".
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

// A table of text cells, rendered as Markdown or HTML.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::string markdown(const Table& t) {
  std::string out = "|";
  for (const auto& h : t.header) out += " " + h + " |";
  out += "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row) out += " " + report::markdown_escape(c) + " |";
    out += "\n";
  }
  return out;
}

std::string html(const Table& t) {
  std::string out = "<table><thead><tr>";
  for (const auto& h : t.header) out += "<th>" + report::html_escape(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& c : row) out += "<td>" + report::html_escape(c) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

Table shares_table(const Portability& p) {
  Table t{{"device", "dtype", "models", "calls"}, {}};
  for (const Status s : kStatuses) t.header.emplace_back(to_string(s));
  for (const auto& v : p.views) {
    std::vector<std::string> row = {v.device, v.dtype, grouped(v.models), grouped(v.calls)};
    for (const Status s : kStatuses) row.push_back(percent(v.share(s)));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table top_table(const std::vector<OpRow>& ops) {
  Table t{{"op", "status", "calls", "models", "failing calls", "why"}, {}};
  for (const auto& o : ops) {
    t.rows.push_back({o.op, std::string(to_string(o.status.status)), grouped(o.calls),
                      grouped(o.models),
                      grouped(static_cast<int64_t>(std::llround(o.failing_calls))), o.status.why});
  }
  return t;
}

Table unknown_table(const std::vector<OpRow>& ops) {
  Table t{{"op", "status", "calls", "models", "why"}, {}};
  for (const auto& o : ops) {
    t.rows.push_back({o.op, std::string(to_string(o.status.status)), grouped(o.calls),
                      grouped(o.models), o.status.why});
  }
  return t;
}

Table confusion_table(const DeviceView& v) {
  Table t{{"predicted / outcome"}, {}};
  for (const Actual a : kActuals) t.header.emplace_back(to_string(a));
  for (const Prediction pr : kPredictions) {
    std::vector<std::string> row = {std::string(to_string(pr))};
    for (const Actual a : kActuals) {
      row.push_back(std::to_string(v.confusion[static_cast<size_t>(pr)][static_cast<size_t>(a)]));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The models predicted to fail or at risk that ran on the view's device.
Table flagged_models(const DeviceView& v, size_t limit, size_t* more) {
  Table t{{"model", "predicted", "outcome", "failing or partial ops"}, {}};
  *more = 0;
  for (const auto& m : v.verdicts) {
    if (m.prediction != Prediction::kFail && m.prediction != Prediction::kRisk) continue;
    if (!m.outcome) continue;
    if (t.rows.size() >= limit) {
      ++*more;
      continue;
    }
    std::string ops;
    for (const auto& op : m.failing_ops) ops += (ops.empty() ? "" : ", ") + op;
    t.rows.push_back({m.model, std::string(to_string(m.prediction)),
                      std::string(model::to_string(*m.outcome)), ops});
  }
  return t;
}

std::vector<OpMapping> unmapped_of(const Portability& p) {
  std::vector<OpMapping> out;
  for (const auto& o : p.ops) {
    if (o.mapping.functions.empty()) out.push_back(o);
  }
  return out;
}

// The inputs and the corpus in a paragraph (Markdown; the page escapes it).
std::string preamble(const Portability& p) {
  std::string corpus;
  for (const auto& c : p.corpus) corpus += (corpus.empty() ? "" : ", ") + c;
  std::string blind;
  int blind_rows = 0;
  for (const auto& [outcome, n] : p.blind) {
    blind += (blind.empty() ? "" : ", ") + std::to_string(n) + " " +
             std::string(model::to_string(outcome));
    blind_rows += n;
  }
  std::map<std::string, int> how;
  for (const auto& o : p.ops) ++how[o.mapping.how.empty() ? "unmapped" : o.mapping.how];
  std::string hows;
  for (const auto& [name, n] : how) hows += (hows.empty() ? "" : ", ") + name + " " + grouped(n);
  return "Corpus: " + corpus + ": " + grouped(p.models) + " models with an eager aten histogram, " +
         grouped(p.calls) + " calls of " + grouped(static_cast<int64_t>(p.ops.size())) + " ops" +
         (blind_rows > 0 ? "; " + grouped(blind_rows) + " model rows without one (" + blind +
                               "), neither weighed nor predicted"
                         : "") +
         ". Surface: " + p.surface + " (run " + p.surface_run + "), OpInfo manifest of torch " +
         p.torch + ". How the ops map: " + hows + ". Method and limits: docs/portability.md.\n";
}

std::string unmapped_line(const Portability& p) {
  const auto unmapped = unmapped_of(p);
  const double share =
      p.calls > 0 ? static_cast<double>(p.unmapped_calls()) / static_cast<double>(p.calls) : 0.0;
  std::string out = "Unmapped (no OpInfo entry): " + std::to_string(unmapped.size()) + " ops, " +
                    percent(share) + " of calls";
  for (size_t i = 0; i < unmapped.size(); ++i) {
    const double s =
        p.calls > 0 ? static_cast<double>(unmapped[i].calls) / static_cast<double>(p.calls) : 0.0;
    out += (i == 0 ? ": " : ", ") + unmapped[i].op + " " + grouped(unmapped[i].calls) + " (" +
           percent(s) + ")";
  }
  return out + ".\n";
}

json op_row_json(const OpRow& o) {
  return {{"op", o.op},
          {"status", to_string(o.status.status)},
          {"why", o.status.why},
          {"calls", o.calls},
          {"models", o.models},
          {"failed_cases", o.status.failed},
          {"attempted_cases", o.status.attempted},
          {"failing_calls", o.failing_calls}};
}

json op_rows_json(const std::vector<OpRow>& rows) {
  json out = json::array();
  for (const auto& o : rows) out.push_back(op_row_json(o));
  return out;
}

json view_json(const DeviceView& v) {
  json by_status = json::object();
  json shares = json::object();
  for (const Status s : kStatuses) {
    by_status[std::string(to_string(s))] = v.calls_by_status[at(s)];
    shares[std::string(to_string(s))] = v.share(s);
  }
  json confusion = json::object();
  for (const Prediction pr : kPredictions) {
    json row = json::object();
    for (const Actual a : kActuals) {
      row[std::string(to_string(a))] = v.confusion[static_cast<size_t>(pr)][static_cast<size_t>(a)];
    }
    confusion[std::string(to_string(pr))] = std::move(row);
  }
  json models = json::array();
  for (const auto& m : v.verdicts) {
    models.push_back({{"framework", m.framework},
                      {"model", m.model},
                      {"prediction", to_string(m.prediction)},
                      {"actual", to_string(m.actual)},
                      {"outcome", m.outcome ? json(model::to_string(*m.outcome)) : json(nullptr)},
                      {"failing_ops", m.failing_ops}});
  }
  return {{"device", v.device},           {"dtype", v.dtype},
          {"models", v.models},           {"calls", v.calls},
          {"calls_by_status", by_status}, {"shares", shares},
          {"top", op_rows_json(v.top)},   {"unknown", op_rows_json(v.unknown)},
          {"ops", op_rows_json(v.ops)},   {"confusion", confusion},
          {"models_list", models}};
}

// A view's sections: its top ops, unknowns, confusion table and flagged
// models, each a (heading, table, note) for either renderer.
struct Section {
  std::string heading;
  Table table;
  std::string note;
};
std::vector<Section> sections_of(const DeviceView& v) {
  std::vector<Section> out;
  out.push_back(
      {"Ops that matter most (failing and partial, by calls x the share of their "
       "cases that failed)",
       top_table(v.top), v.top.empty() ? "None: no op fails here." : ""});
  out.push_back(
      {"Largest unknowns (unverified or unmapped, by calls)", unknown_table(v.unknown), ""});
  out.push_back({"Predicted against each model's own outcome on " + v.device, confusion_table(v),
                 "fail: an op failing; risk: an op partial; fine: every op portable; unknown: "
                 "otherwise. not_run: the corpus has no outcome of the model here."});
  size_t more = 0;
  Table flagged = flagged_models(v, kListedModels, &more);
  out.push_back(
      {"Models predicted to fail or at risk that ran here", std::move(flagged),
       more > 0 ? "... and " + std::to_string(more) + " more (the JSON lists them)" : ""});
  return out;
}

}  // namespace

json to_json(const Portability& p) {
  json ops = json::array();
  json unmapped = json::array();
  for (const auto& o : p.ops) {
    ops.push_back({{"op", o.op},
                   {"calls", o.calls},
                   {"models", o.models},
                   {"how", o.mapping.how},
                   {"functions", o.mapping.functions}});
    if (o.mapping.functions.empty()) {
      unmapped.push_back(
          {{"op", o.op},
           {"calls", o.calls},
           {"share",
            p.calls > 0 ? static_cast<double>(o.calls) / static_cast<double>(p.calls) : 0.0},
           {"models", o.models}});
    }
  }
  json blind = json::object();
  for (const auto& [outcome, n] : p.blind) blind[std::string(model::to_string(outcome))] = n;
  json views = json::array();
  for (const auto& v : p.views) views.push_back(view_json(v));
  return {{"schema_version", kSchemaVersion},
          {"mudjack_version", util::version()},
          {"mudjack_revision", util::revision()},
          {"corpus", p.corpus},
          {"surface", {{"origin", p.surface}, {"run_id", p.surface_run}}},
          {"manifest", {{"torch", p.torch}}},
          {"models", p.models},
          {"calls", p.calls},
          {"blind", blind},
          {"ops", ops},
          {"unmapped", unmapped},
          {"views", views}};
}

std::string to_markdown(const Portability& p) {
  std::string out = "\n## Portability weighted by use\n\n" + preamble(p) + "\n" +
                    markdown(shares_table(p)) + "\n" + unmapped_line(p);
  for (const auto& v : p.views) {
    out += "\n### " + v.device + " " + v.dtype + "\n";
    for (const auto& s : sections_of(v)) {
      out += "\n" + s.heading + ":\n\n";
      if (!s.table.rows.empty()) out += markdown(s.table);
      if (!s.note.empty()) out += (s.table.rows.empty() ? "" : "\n") + s.note + "\n";
    }
  }
  return out;
}

std::string to_terminal(const Portability& p) {
  const double unmapped =
      p.calls > 0 ? static_cast<double>(p.unmapped_calls()) / static_cast<double>(p.calls) : 0.0;
  std::string out = "portability weighted by use: " + grouped(p.models) + " models, " +
                    grouped(p.calls) + " aten calls of " +
                    grouped(static_cast<int64_t>(p.ops.size())) + " ops (" + percent(unmapped) +
                    " of calls unmapped); surface " + p.surface + "\n\n";
  const Table shares = shares_table(p);
  std::vector<size_t> widths(shares.header.size(), 0);
  std::vector<std::vector<std::string>> lines = {shares.header};
  lines.insert(lines.end(), shares.rows.begin(), shares.rows.end());
  for (const auto& row : lines) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : lines) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += (c == 0 ? "" : "  ") + (c >= 2 ? pad + row[c] : row[c] + pad);
    }
    out += line + "\n";
  }
  for (const auto& v : p.views) {
    out += "\n" + v.device + " " + v.dtype + ": ops that matter most\n";
    if (v.top.empty()) out += "  none fails\n";
    for (size_t i = 0; i < v.top.size() && i < 10; ++i) {
      const auto& o = v.top[i];
      out += "  " + o.op + "  " + std::string(to_string(o.status.status)) + "  " +
             grouped(o.calls) + " calls in " + grouped(o.models) + " models; " + o.status.why +
             "\n";
    }
    out += "  predicted (fail / risk / fine / unknown) x outcome (fine, not fine, not run):";
    for (const Prediction pr : kPredictions) {
      const auto& c = v.confusion[static_cast<size_t>(pr)];
      out += " " + std::string(to_string(pr)) + " " + std::to_string(c[0]) + "/" +
             std::to_string(c[1]) + "/" + std::to_string(c[2]);
    }
    out += "\n";
  }
  return out;
}

std::string to_html(const Portability& p) {
  std::vector<report::svg::StackedBar> bars;
  for (const auto& v : p.views) {
    report::svg::StackedBar bar{v.device + " " + v.dtype, {}};
    for (const Status s : kStatuses) {
      bar.segments.push_back({v.share(s), kFills[at(s)],
                              std::string(to_string(s)) + " " + percent(v.share(s)) + " (" +
                                  grouped(v.calls_by_status[at(s)]) + " calls)"});
    }
    bars.push_back(std::move(bar));
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (const Status s : kStatuses) legend.emplace_back(to_string(s), kFills[at(s)]);
  std::string h =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>MudJack: portability weighted by use</title>\n<style>"
      "body{font:14px system-ui,sans-serif;margin:24px;max-width:1400px}"
      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;"
      "text-align:left}th{background:#f4f4f4}.chart text{font-size:12px}"
      ".chart .grid{stroke:#ddd}.meta{color:#555}</style></head><body>\n"
      "<h1>Portability weighted by use</h1>\n<p class=\"meta\">" +
      report::html_escape(preamble(p)) + "</p>\n" +
      report::svg::stacked_chart("shares", bars, legend) + html(shares_table(p)) + "<p>" +
      report::html_escape(unmapped_line(p)) + "</p>\n";
  for (const auto& v : p.views) {
    h += "<h2>" + report::html_escape(v.device + " " + v.dtype) + "</h2>\n";
    for (const auto& s : sections_of(v)) {
      h += "<h3>" + report::html_escape(s.heading) + "</h3>\n";
      if (!s.table.rows.empty()) h += html(s.table);
      if (!s.note.empty()) h += "<p class=\"meta\">" + report::html_escape(s.note) + "</p>\n";
    }
  }
  return h + "</body></html>\n";
}

}  // namespace mudjack::portability
