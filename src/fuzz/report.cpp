#include "fuzz/report.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "gen/graph.hpp"
#include "report/csv.hpp"
#include "report/junit.hpp"
#include "report/write.hpp"
#include "util/error.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string num(const std::optional<double>& v, const char* format) {
  if (!v) return "";
  char buf[48];
  std::snprintf(buf, sizeof(buf), format, *v);
  return buf;
}

std::string standalone_text(const Finding& f) {
  if (!f.standalone) return "not run";
  return *f.standalone ? "reproduces" : "does not reproduce";
}

// What the engine saw, then what the standalone script measured.
std::string detail_text(const Finding& f) {
  if (f.standalone_output.empty() || f.standalone_output == f.detail) return f.detail;
  return f.detail + " | script: " + f.standalone_output;
}

std::string verdict_hint(const Finding& f) {
  if (f.symptom == Symptom::kMismatch && f.agreeing == 0) {
    return "no other backend on this device agrees with the reference: suspect the tolerance";
  }
  return "";
}

std::string esc(std::string_view s) {
  return report::xml_escape(s, true);
}

// A graph as lines: "v3 = conv2d(x0, x1, x2) {stride: [1, 1]} -> [1, 4, 6, 6] float32".
std::string graph_text(const fs::path& file) {
  try {
    const auto g = gen::read_file(file.string());
    std::string out;
    for (const auto& in : g.inputs) {
      char range[64];
      std::snprintf(range, sizeof(range), " in [%g, %g]", in.low, in.high);
      out += in.name + ": " + gen::shape_text(in.shape) + " " +
             std::string(gen::to_string(in.dtype)) + range + "\n";
    }
    for (const auto& n : g.nodes) {
      out += n.name + " = " + n.op + "(" + join(n.inputs, ", ") + ")" +
             (n.attrs.empty() ? "" : " " + n.attrs.dump()) + " -> " + gen::shape_text(n.shape) +
             " " + std::string(gen::to_string(n.dtype)) + "\n";
    }
    return out + "outputs: " + join(g.outputs, ", ") + "\n";
  } catch (const std::exception& e) {
    return std::string("(graph unreadable: ") + e.what() + ")\n";
  }
}

}  // namespace

std::string render_csv(const std::vector<Finding>& findings, const std::vector<Finding>& suspects) {
  std::string out =
      "symptom,backend,device,ops,nodes,reduced_nodes,duplicates,standalone,agreeing,bound_eps,"
      "ratio,graph,reduced,bundle,detail,suspect\r\n";
  std::vector<const Finding*> rows;
  for (const auto& f : findings) rows.push_back(&f);
  for (const auto& f : suspects) rows.push_back(&f);
  for (const auto* row_of : rows) {
    const Finding& f = *row_of;
    const std::vector<std::string> row = {
        std::string(to_string(f.symptom)),
        f.backend,
        f.device,
        join(f.reduced.empty() ? f.ops : f.reduced_ops, " "),
        std::to_string(f.nodes),
        f.reduced.empty() ? "" : std::to_string(f.reduced_nodes),
        std::to_string(f.duplicates),
        standalone_text(f),
        f.symptom == Symptom::kMismatch || f.symptom == Symptom::kSuspect
            ? std::to_string(f.agreeing)
            : "",
        num(f.bound_eps, "%.4g"),
        num(f.ratio, "%.3g"),
        f.graph,
        f.reduced,
        f.bundle,
        detail_text(f),
        f.suspect};
    std::string line;
    for (const auto& cell : row) line += (line.empty() ? "" : ",") + report::csv_field(cell);
    out += line + "\r\n";
  }
  return out;
}

namespace {

std::string markdown_findings(const std::vector<Finding>& findings) {
  std::ostringstream md;
  std::map<std::string, int> by_symptom;
  for (const auto& f : findings) {
    ++by_symptom[std::string(to_string(f.symptom)) + " on " + f.backend];
  }
  md << "\n## Findings\n\n" << findings.size() << " unique";
  for (const auto& [k, n] : by_symptom) md << "; " << k << ": " << n;
  md << ".\n\n";
  if (!findings.empty()) {
    md << "| # | symptom | backend | device | ops (reduced) | nodes | dups | standalone | detail "
          "|\n"
          "|---|---|---|---|---|---|---:|---|---|\n";
    int i = 0;
    for (const auto& f : findings) {
      std::string detail = detail_text(f).substr(0, 300);
      for (auto& c : detail) {
        if (c == '|') c = '/';
      }
      const std::string hint = verdict_hint(f);
      md << "| " << ++i << " | " << to_string(f.symptom) << " | " << f.backend << " | " << f.device
         << " | " << join(f.reduced.empty() ? f.ops : f.reduced_ops, ", ") << " | " << f.nodes
         << (f.reduced.empty() ? "" : " → " + std::to_string(f.reduced_nodes)) << " | "
         << f.duplicates << " | " << standalone_text(f) << " | " << detail
         << (hint.empty() ? "" : " (" + hint + ")") << " |\n";
    }
  }
  return md.str();
}

std::string no_pipes(std::string text) {
  for (auto& c : text) {
    if (c == '|') c = '/';
  }
  return text;
}

std::string markdown_suspects(const std::vector<Finding>& suspects) {
  std::ostringstream md;
  md << "\n## Suspects\n\n"
     << suspects.size()
     << " suspect mismatches: the float64 reference is at or below its dtype's noise floor "
        "(exactly 0, underflowing, or cancelling), so the oracle cannot tell a wrong backend "
        "from rounding. Never findings.\n\n";
  if (suspects.empty()) return md.str();
  md << "| # | backend | device | ops | nodes | dups | graph | why |\n"
        "|---|---|---|---|---|---:|---|---|\n";
  int i = 0;
  for (const auto& f : suspects) {
    md << "| " << ++i << " | " << f.backend << " | " << f.device << " | "
       << join(f.reduced.empty() ? f.ops : f.reduced_ops, ", ") << " | " << f.nodes
       << (f.reduced.empty() ? "" : " → " + std::to_string(f.reduced_nodes)) << " | "
       << f.duplicates << " | " << f.graph << " | " << no_pipes(f.suspect.substr(0, 400)) << " |\n";
  }
  return md.str();
}

}  // namespace

std::string render_markdown(const json& s, const std::vector<Finding>& findings,
                            const std::vector<Finding>& suspects) {
  std::ostringstream md;
  md << "# Fuzz campaign " << s.value("id", "") << "\n\n";
  if (!s["options"].value("command", "").empty()) {
    md << "```\n" << s["options"]["command"].get<std::string>() << "\n```\n\n";
  }
  char line[256];
  std::snprintf(line, sizeof(line),
                "%lld graphs generated, %d run as %d cases in %.0f s; %d rejected by every "
                "backend; %d suite errors.\n\n",
                static_cast<long long>(s.value("graphs_generated", int64_t{0})),
                s.value("graphs_run", 0), s.value("cases", 0), s.value("seconds", 0.0),
                s.value("rejected_by_all", 0), s.value("suite_errors", 0));
  md << line;
  md << "Generator: " << s["options"].value("nodes", 0) << " nodes per graph, solver "
     << s["options"].value("solver", "") << ", seed " << s["options"].value("seed", 0)
     << ", dtypes " << s["options"].value("dtypes", json::array()).dump() << ".\n\n";
  md << "## Backends\n\n| backend | graphs attempted | ran | accepted | unavailable cases "
        "|\n|---|---:|---:|---:|---:|\n";
  const json acceptance = s.value("acceptance", json::object());
  for (const auto& [b, a] : acceptance.items()) {
    std::snprintf(line, sizeof(line), "| %s | %d | %d | %.1f%% | %d |\n", b.c_str(),
                  a.value("attempted", 0), a.value("ran", 0), 100 * a.value("fraction", 0.0),
                  s["unavailable"].value(b, 0));
    md << line;
  }
  const json unavailable = s.value("unavailable", json::object());
  for (const auto& [b, n] : unavailable.items()) {
    if (!s["acceptance"].contains(b))
      md << "| " << b << " | 0 | 0 | - | " << n.get<int>() << " |\n";
  }
  md << markdown_findings(findings) << markdown_suspects(suspects);
  md << "\n## Coverage\n\n"
     << s.value("coverage", json::object()).size() << " of " << s.value("ops_specified", 0)
     << " ops used.\n\n| op | nodes | attribute values | rank:dtype |\n|---|---:|---:|---:|\n";
  const json coverage = s.value("coverage", json::object());
  for (const auto& [op, c] : coverage.items()) {
    md << "| " << op << " | " << c.value("nodes", 0) << " | " << c.value("attr_values", 0) << " | "
       << c.value("rank_dtypes", 0) << " |\n";
  }
  return md.str();
}

std::string render_junit(const json& s, const std::vector<Finding>& findings,
                         const std::vector<Finding>& suspects) {
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"fuzz "
    << esc(s.value("id", "")) << "\" tests=\"" << findings.size() + suspects.size()
    << "\" failures=\"" << findings.size() << "\" skipped=\"" << suspects.size() << "\">\n";
  for (const auto& f : findings) {
    x << "<testcase classname=\"fuzz." << esc(f.backend) << "\" name=\""
      << esc(std::string(to_string(f.symptom)) + " " + f.device + " " +
             join(f.reduced.empty() ? f.ops : f.reduced_ops, ","))
      << "\"><failure type=\"" << esc(to_string(f.symptom)) << "\" message=\""
      << esc(f.detail.substr(0, 300)) << "\">"
      << report::xml_escape("bundle: " + f.bundle + "\ngraph: " + f.graph, false)
      << "</failure></testcase>\n";
  }
  for (const auto& f : suspects) {  // skipped: the oracle cannot judge them
    x << "<testcase classname=\"fuzz." << esc(f.backend) << "\" name=\""
      << esc("suspect " + f.device + " " + f.graph) << "\"><skipped message=\""
      << esc("suspect: " + f.suspect.substr(0, 300)) << "\"/></testcase>\n";
  }
  x << "</testsuite></testsuites>\n";
  return x.str();
}

namespace {

// The suspects' section of report.html.
std::string html_suspects(const std::vector<Finding>& suspects) {
  std::ostringstream h;
  h << "<h2>Suspects</h2><p>" << suspects.size()
    << " suspect mismatches: the float64 reference is at or below its dtype's noise floor "
       "(exactly 0, underflowing, or cancelling). Never findings.</p>\n<table "
       "id=\"suspects\"><tr><th>#</th><th>backend</th><th>device</th><th>ops</th><th>graph</"
       "th><th>duplicates</th><th>why</th></tr>\n";
  int i = 0;
  for (const auto& f : suspects) {
    h << "<tr class=\"suspect\"><td>" << ++i << "</td><td>" << esc(f.backend) << "</td><td>"
      << esc(f.device) << "</td><td>" << esc(join(f.reduced.empty() ? f.ops : f.reduced_ops, ", "))
      << "</td><td>" << esc(f.graph) << "</td><td>" << f.duplicates << "</td><td>" << esc(f.suspect)
      << "</td></tr>\n";
  }
  h << "</table>\n";
  return h.str();
}

}  // namespace

std::string render_html(const fs::path& dir, const json& s, const std::vector<Finding>& findings,
                        const std::vector<Finding>& suspects) {
  std::ostringstream h;
  h << "<!doctype html><html><head><meta charset=\"utf-8\"><title>MudJack fuzz "
    << esc(s.value("id", ""))
    << "</title><style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}pre{margin:0;font-size:12px}"
       ".crash,.raise,.timeout{background:#f8d0d0}.mismatch{background:#fde8c8}.slow{background:#"
       "e8e0f8}.suspect{background:#eee}"
       "</style></head><body>\n<h1>Fuzz campaign "
    << esc(s.value("id", "")) << "</h1>\n<p>" << s.value("graphs_generated", 0)
    << " graphs generated, " << s.value("graphs_run", 0) << " run as " << s.value("cases", 0)
    << " cases; " << s.value("rejected_by_all", 0) << " rejected by every backend; "
    << s.value("suite_errors", 0) << " suite errors; " << findings.size() << " unique findings; "
    << suspects.size()
    << " suspects.</p>\n<h2>Backends</h2><table "
       "id=\"acceptance\"><tr><th>backend</th><th>graphs "
       "attempted</th><th>ran</th><th>accepted</th></tr>\n";
  const json acceptance = s.value("acceptance", json::object());
  for (const auto& [b, a] : acceptance.items()) {
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%.1f%%", 100 * a.value("fraction", 0.0));
    h << "<tr><td>" << esc(b) << "</td><td>" << a.value("attempted", 0) << "</td><td>"
      << a.value("ran", 0) << "</td><td>" << pct << "</td></tr>\n";
  }
  h << "</table>\n<h2>Findings</h2><table "
       "id=\"findings\"><tr><th>#</th><th>symptom</th><th>backend</th>"
       "<th>device</th><th>ops</th><th>nodes</th><th>duplicates</th><th>standalone</th><th>detail</"
       "th>"
       "<th>reduced graph</th></tr>\n";
  int i = 0;
  for (const auto& f : findings) {
    const std::string hint = verdict_hint(f);
    h << "<tr class=\"" << esc(to_string(f.symptom)) << "\"><td>" << ++i << "</td><td>"
      << esc(to_string(f.symptom)) << "</td><td>" << esc(f.backend) << "</td><td>" << esc(f.device)
      << "</td><td>" << esc(join(f.reduced.empty() ? f.ops : f.reduced_ops, ", ")) << "</td><td>"
      << f.nodes << (f.reduced.empty() ? "" : " &rarr; " + std::to_string(f.reduced_nodes))
      << "</td><td>" << f.duplicates << "</td><td>" << esc(standalone_text(f)) << "</td><td>"
      << esc(detail_text(f)) << (hint.empty() ? "" : "<br><i>" + esc(hint) + "</i>")
      << "<br><small>" << esc(f.bundle) << "</small></td><td><pre>"
      << report::xml_escape(f.bundle.empty() ? "" : graph_text(dir / f.bundle / "graph.json"),
                            false)
      << "</pre></td></tr>\n";
  }
  h << "</table>\n"
    << html_suspects(suspects)
    << "<h2>Coverage</h2><table "
       "id=\"coverage\"><tr><th>op</th><th>nodes</th><th>attribute "
       "values</th><th>rank:dtype</th></tr>\n";
  const json coverage = s.value("coverage", json::object());
  for (const auto& [op, c] : coverage.items()) {
    h << "<tr><td>" << esc(op) << "</td><td>" << c.value("nodes", 0) << "</td><td>"
      << c.value("attr_values", 0) << "</td><td>" << c.value("rank_dtypes", 0) << "</td></tr>\n";
  }
  h << "</table>\n</body></html>\n";
  return h.str();
}

void write_reports(const fs::path& dir, const json& summary, const std::vector<Finding>& findings,
                   const std::vector<Finding>& suspects) {
  json all = summary;
  all["format"] = "mudjack.fuzz-findings/1";
  all["schema_version"] = kFindingsSchemaVersion;
  all["findings"] = json::array();
  for (const auto& f : findings) all["findings"].push_back(to_json(f));
  all["suspects"] = json::array();
  for (const auto& f : suspects) all["suspects"].push_back(to_json(f));
  report::write_file_atomically(dir / "findings.json", all.dump(1) + "\n");
  report::write_file_atomically(dir / "findings.csv", render_csv(findings, suspects));
  report::write_file_atomically(dir / "summary.md", render_markdown(summary, findings, suspects));
  report::write_file_atomically(dir / "junit.xml", render_junit(summary, findings, suspects));
  report::write_file_atomically(dir / "report.html", render_html(dir, summary, findings, suspects));
}

}  // namespace mudjack::fuzz
