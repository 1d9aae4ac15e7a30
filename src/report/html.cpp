#include "report/html.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "report/models.hpp"
#include "report/svg.hpp"
#include "report/text.hpp"
#include "report/units.hpp"
#include "stats/timing.hpp"
#include "util/version.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::report {
namespace {

using model::Verdict;
using model::VerdictRow;
using nlohmann::json;

std::string esc(std::string_view s) {
  return html_escape(s);
}

std::string fmt(const char* format, double v) {
  std::array<char, 64> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), format, v);
  return std::string(buf.data(), static_cast<size_t>(std::max(n, 0)));
}

std::string ratio_text(double r) {
  return (r >= 100 ? fmt("%.0f", r) : fmt("%.2g", r)) + "×";
}

std::string cell_key(const std::string& fw, const std::string& fn, const std::string& dev) {
  return fw + "|" + fn + "|" + dev;
}

// The JSON the page's script reads, safe inside <script>: "</" cannot close
// the element.
std::string script_json(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') {
      out += "\\u003c";
    } else {
      out += s[i];
    }
  }
  return out;
}

json number_or_null(std::optional<double> v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

const char* kStyle = R"CSS(
:root{--portable:#a5d6a7;--partial_failure:#ffcc80;--complete_failure:#ef9a9a;--divergent:#ce93d8;
--intolerable_latency:#fff176;--unverified:#b3e5fc;--unavailable:#e0e0e0;--ink:#1d2125;--muted:#5f6b76}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--ink);margin:0;padding:24px 32px;max-width:1600px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;
padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}.meta{color:var(--muted);margin:0 0 12px}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f3f5f7;font-weight:600}td.n{text-align:right;
font-variant-numeric:tabular-nums}.heatmap td.cell{text-align:center;min-width:110px;cursor:pointer;
font-variant-numeric:tabular-nums}.heatmap td.cell:hover,.heatmap td.cell:focus{outline:2px solid #1565c0}
.heatmap th.fn{font-family:ui-monospace,monospace;font-weight:500;background:#fff}
.heatmap th.dev small{display:block;font-weight:400;color:var(--muted)}
.v-portable{background:var(--portable)}.v-partial_failure{background:var(--partial_failure)}
.v-complete_failure{background:var(--complete_failure)}.v-divergent{background:var(--divergent)}
.v-intolerable_latency{background:var(--intolerable_latency)}.v-unverified{background:var(--unverified)}.v-unavailable{background:var(--unavailable)}
.legend span{display:inline-block;padding:2px 8px;margin:0 6px 4px 0;border:1px solid #ccc;border-radius:3px}
.flag{font-size:11px;color:#6a1b9a}code{font-family:ui-monospace,monospace;font-size:12.5px}
#detail{position:fixed;top:0;right:0;width:min(760px,60vw);height:100vh;overflow:auto;background:#fff;
border-left:2px solid #1565c0;box-shadow:-4px 0 16px rgba(0,0,0,.15);padding:16px 20px;display:none}
#detail.open{display:block}#detail button{float:right}#detail td.msg{font-family:ui-monospace,monospace;
font-size:12px;word-break:break-word;background:#fafafa;color:#37474f;padding-left:24px}td small{display:block;color:var(--muted)}.o-pass{color:#2e7d32}.o-fail,.o-crash,.o-timeout{color:#c62828;
font-weight:600}.o-mismatch{color:#6a1b9a;font-weight:600}.o-skip,.o-unavailable{color:var(--muted)}
svg text{font:11px system-ui,sans-serif;fill:var(--ink)}.muted{color:var(--muted)}.warn{color:#c62828}
svg.chart{max-width:100%;height:auto}svg text.muted{fill:var(--muted)}svg text.warn{fill:#c62828}svg .grid{stroke:#e3e6e9}
svg .band{fill:#b0bec5}svg .median{stroke:#1d2125;stroke-width:2}svg .round{fill:#fff;stroke:#1565c0;
stroke-width:1.2}svg .unstable .band{fill:#ef9a9a}svg .unstable .round{stroke:#c62828}
svg .bound{fill:#c8e6c9;opacity:.8}svg .err{fill:#1565c0;fill-opacity:.7;stroke:#0d47a1;stroke-width:.5}
svg .err.over{fill:#c62828;stroke:#7f0000}svg .interval{stroke:#78909c;stroke-width:2;opacity:.5}
svg .one{stroke:#555}svg .cutoff{stroke:#c62828;stroke-dasharray:4 3}svg .pt{stroke:#333;stroke-width:.6;
fill-opacity:.85}details summary{cursor:pointer;margin:6px 0}
table.models{table-layout:fixed;width:100%;font-size:12px}table.models th{font-size:11px}
table.models th,table.models td{padding:3px 4px;overflow-wrap:break-word}
table.models td.cut{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.models td.hash{font-family:ui-monospace,monospace;font-size:10.5px}
)CSS";

// The page's script; dur() says a duration as report::duration_text does.
const char* kScript = R"JS(
(function(){
const data=JSON.parse(document.getElementById('mj-data').textContent);
const panel=document.getElementById('detail');
function el(tag,text,cls){const e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=text;if(cls)e.className=cls;return e;}
function dur(ns){if(ns===null||ns===undefined||!isFinite(ns))return '';if(ns<1e3)return ns.toFixed(0)+' ns';if(ns<1e6)return (ns/1e3).toFixed(1)+' us';if(ns<1e9)return (ns/1e6).toFixed(1)+' ms';return (ns/1e9).toFixed(2)+' s';}
function rat(r){return r===null||r===undefined?'':(r>=100?r.toFixed(0):r.toPrecision(2))+'×';}
function open(key){
  const v=data.verdicts[key];const cases=data.cases[key];if(!v||!cases)return false;
  panel.replaceChildren();
  const close=el('button','close');close.addEventListener('click',()=>{panel.classList.remove('open');history.replaceState(null,'',location.pathname);});
  panel.append(close);
  const [fw,fn,dev]=key.split('|');
  panel.append(el('h3',fn+' on '+dev));
  const p=el('p');p.append(el('span',v.verdict.replace(/_/g,' '),'v-'+v.verdict));p.append(' '+v.reason);panel.append(p);
  const t=el('table');t.id='detail-cases';
  const hr=el('tr');for(const h of ['variant','dtype','mode','outcome','median','× baseline','95% interval','cold'])hr.append(el('th',h));t.append(hr);
  for(const c of cases){const tr=el('tr');tr.className='case';tr.dataset.outcome=c[4];
    tr.append(el('td',c[0]),el('td',c[1]),el('td',c[3]),el('td',c[4],'o-'+c[4]),el('td',dur(c[5]),'n'),el('td',rat(c[6]),'n'),
      el('td',c[7]===null?'':rat(c[7])+' – '+rat(c[8]),'n'),el('td',dur(c[9]),'n'));t.append(tr);
    if(c[10]){const m=el('tr');const td=el('td',c[10],'msg');td.colSpan=8;m.append(td);t.append(m);}}
  panel.append(t);panel.classList.add('open');panel.dataset.cell=key;return true;}
for(const td of document.querySelectorAll('td.cell')){
  td.addEventListener('click',()=>{if(open(td.dataset.key))history.replaceState(null,'','#cell='+encodeURIComponent(td.dataset.key));});
  td.addEventListener('keydown',(e)=>{if(e.key==='Enter')td.click();});}
if(location.hash.startsWith('#cell=')){const k=decodeURIComponent(location.hash.slice(6));if(open(k)){const td=[...document.querySelectorAll('td.cell')].find(e=>e.dataset.key===k);if(td)td.scrollIntoView({block:'nearest'});}}
document.body.dataset.ready='1';
})();
)JS";

struct Group {
  std::string framework, device;
  bool operator<(const Group& o) const {
    return std::tie(framework, device) < std::tie(o.framework, o.device);
  }
};

std::string device_header(const json& env, const std::string& id) {
  const std::string model = device_model(env, id);
  return "<code>" + esc(id) + "</code>" +
         (model.empty() ? "" : "<small>" + esc(model) + "</small>");
}

void verdict_rows(std::string& h, const verdict::Judged& j) {
  for (const auto& [framework, by_device] : j.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.functions == 0) continue;
      h += "<tr><td>" + esc(framework) + "</td><td>" + device_header(j.run.environment, device) +
           "</td><td class=\"n\">" + std::to_string(tally.functions) + "</td>";
      for (auto v : kVerdictOrder) {
        const int n = tally.count(v);
        h += "<td class=\"n" + std::string(n > 0 ? " v-" + std::string(model::to_string(v)) : "") +
             "\">" + std::to_string(n) +
             (n > 0 ? " <span class=\"muted\">(" + fmt("%.0f", 100.0 * n / tally.functions) +
                          "%)</span>"
                    : "") +
             "</td>";
      }
      h += "</tr>\n";
    }
  }
}

// The outcome counts, or (with `reasons`) the paper's failure reasons, per
// (framework, device). Two tables: several reasons share an outcome's name
// (timeout, crash, unavailable), so one table would repeat those headers.
void outcome_rows(std::string& h, const verdict::Judged& j, bool reasons) {
  for (const auto& [framework, by_device] : j.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.cases == 0) continue;
      h += "<tr><td>" + esc(framework) + "</td><td><code>" + esc(device) + "</code></td>";
      if (reasons) {
        for (auto r : verdict::kPaperReasons) {
          h += "<td class=\"n\">" + std::to_string(tally.reasons.at(std::string(r))) + "</td>";
        }
      } else {
        for (auto o : model::kOutcomes) {
          h += "<td class=\"n\">" + std::to_string(tally.count(o)) + "</td>";
        }
      }
      h += "</tr>\n";
    }
  }
}

void summary_section(std::string& h, const verdict::Judged& j) {
  h += "<h2 id=\"summary\">Summary</h2>\n<p class=\"meta\">Functions per verdict (share of the "
       "functions tested on that device), as the paper tabulated them; then case outcomes and the "
       "paper's failure reasons.</p>\n<table id=\"summary-table\"><tr><th>framework</th>"
       "<th>device</th><th>functions</th>";
  for (auto v : kVerdictOrder) h += "<th>" + esc(words(model::to_string(v))) + "</th>";
  h += "</tr>\n";
  verdict_rows(h, j);
  h += "</table>\n<h3>Case outcomes</h3>\n<table id=\"outcome-table\"><tr><th>framework</th>"
       "<th>device</th>";
  for (auto o : model::kOutcomes) h += "<th>" + esc(model::to_string(o)) + "</th>";
  h += "</tr>\n";
  outcome_rows(h, j, false);
  h += "</table>\n<h3>Failure reasons</h3>\n<table id=\"reason-table\"><tr><th>framework</th>"
       "<th>device</th>";
  for (auto r : verdict::kPaperReasons) h += "<th>" + esc(r) + "</th>";
  h += "</tr>\n";
  outcome_rows(h, j, true);
  h += "</table>\n";
}

void heatmap_section(std::string& h, const model::RunInfo& run,
                     const std::vector<VerdictRow>& verdicts) {
  std::map<std::string, std::set<std::string>> devices;  // framework -> devices
  std::map<std::string, std::map<std::string, std::map<std::string, const VerdictRow*>>> grid;
  for (const auto& v : verdicts) {
    devices[v.framework].insert(v.device);
    grid[v.framework][v.function][v.device] = &v;
  }
  h += "<h2 id=\"heatmaps\">Verdicts per function and device</h2>\n<p class=\"legend\">";
  for (auto v : kVerdictOrder) {
    h += "<span class=\"v-" + std::string(model::to_string(v)) + "\">" +
         esc(words(model::to_string(v))) + "</span>";
  }
  h += "<br><span class=\"muted\">Each cell: the verdict's colour and the geometric mean of the "
       "cases' latency ratios to the baseline device (" +
       esc(run.baseline) +
       "; a merged run compares each machine with its own). Click a cell for its "
       "cases.</span></p>\n";
  std::vector<std::string> order;
  for (const char* fw : {"torch", "jax", "tensorflow", "numpy"}) {
    if (grid.count(fw) != 0) order.emplace_back(fw);
  }
  for (const auto& [fw, fns] : grid) {
    if (std::find(order.begin(), order.end(), fw) == order.end()) order.push_back(fw);
  }
  for (const auto& fw : order) {
    const auto& fns = grid.at(fw);
    h += "<h3>" + esc(fw) + "</h3>\n<table class=\"heatmap\" data-framework=\"" + esc(fw) +
         "\"><tr><th>function</th>";
    for (const auto& d : devices[fw]) {
      h += "<th class=\"dev\">" + device_header(run.environment, d) + "</th>";
    }
    h += "</tr>\n";
    for (const auto& [fn, by_device] : fns) {
      h += "<tr><th class=\"fn\">" + esc(fn) + "</th>";
      for (const auto& d : devices[fw]) {
        auto it = by_device.find(d);
        if (it == by_device.end()) {
          h += "<td class=\"muted\">—</td>";
          continue;
        }
        const VerdictRow& v = *it->second;
        const std::string name(model::to_string(v.verdict));
        std::string text = v.latency_ratio ? ratio_text(*v.latency_ratio) : "";
        if (model::props(v.verdict).failed) {
          text = std::to_string(v.failing.size()) + "/" + std::to_string(v.cases) + " failed";
        } else if (v.verdict == Verdict::kDivergent) {
          text = std::to_string(v.mismatching.size()) + "/" + std::to_string(v.cases) + " differ";
        } else if (v.verdict == Verdict::kUnavailable) {
          text = "unavailable";
        } else if (text.empty()) {
          text = "✓";
        }
        std::string flags;
        for (auto f : v.flags)
          flags += std::string(flags.empty() ? "" : " ") + std::string(model::to_string(f));
        h += "<td class=\"cell v-" + name + "\" tabindex=\"0\" data-key=\"" +
             esc(cell_key(fw, fn, d)) + "\" data-verdict=\"" + name + "\" title=\"" +
             esc(words(name) + ": " + v.reason) + "\">" + esc(text) +
             (flags.empty() ? "" : "<br><span class=\"flag\">+" + esc(words(flags)) + "</span>") +
             "</td>";
      }
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
}

// ---- Latency: a table per function, a chart of cases per device, ratios ----

// Charts draw at most this many cases per (framework, device): the unstable
// ones and those whose rounds or samples spread widest first (results.json
// has every case's samples).
constexpr size_t kMaxLatencyRows = 40;
// Tables longer than this start folded.
constexpr size_t kOpenTableRows = 30;

bool timed(const model::CaseResult& r) {
  return r.latency.stats && r.latency.stats->median_ns > 0 &&
         std::isfinite(r.latency.stats->median_ns);
}

// The results' own word, or rounds that spread beyond the timing rule's limit.
bool unstable(const model::CaseResult& r) {
  return r.latency.timing &&
         (r.latency.timing->unstable || r.latency.timing->spread > stats::kUnstableSpread);
}

double spread_of(const model::CaseResult& r) {
  return r.latency.timing ? r.latency.timing->spread : 0;
}

std::map<Group, std::vector<const model::CaseResult*>> timed_cases(const verdict::Judged& j) {
  std::map<Group, std::vector<const model::CaseResult*>> out;
  for (const auto& r : j.cases) {
    if (timed(r)) out[{r.info.framework, r.device}].push_back(&r);
  }
  return out;
}

svg::LatencyRow latency_row(const model::CaseResult& r) {
  const auto& s = *r.latency.stats;
  svg::LatencyRow row;
  row.label = r.info.function + " " + r.info.variant;
  row.median_ns = s.median_ns;
  row.p10_ns = s.p10_ns;
  row.p90_ns = s.p90_ns;
  if (r.latency.timing) {
    row.rounds_ns = r.latency.timing->rounds_ns;
    row.spread = r.latency.timing->spread;
  }
  row.unstable = unstable(r);
  std::string rounds;
  for (double v : row.rounds_ns) rounds += (rounds.empty() ? "" : ", ") + duration_text(v);
  row.title = r.info.id + " on " + r.device + ": median " + duration_text(s.median_ns) +
              ", p10–p90 " + duration_text(s.p10_ns) + " – " + duration_text(s.p90_ns) + ", " +
              std::to_string(s.n) + " samples" +
              (rounds.empty()
                   ? ""
                   : "; rounds " + rounds + " (spread " + fmt("%.0f%%", 100 * row.spread) + ")") +
              (row.unstable ? "; unstable" : "");
  return row;
}

// The cases a chart shows: unstable first, then the widest spread (rounds,
// else p10-p90 over the median), capped; drawn in case-id order.
std::vector<const model::CaseResult*> chart_cases(std::vector<const model::CaseResult*> cases) {
  const auto width = [](const model::CaseResult* r) {
    const auto& s = *r->latency.stats;
    return std::max(spread_of(*r), (s.p90_ns - s.p10_ns) / s.median_ns);
  };
  std::stable_sort(cases.begin(), cases.end(), [&](const auto* a, const auto* b) {
    if (unstable(*a) != unstable(*b)) return unstable(*a);
    return width(a) > width(b);
  });
  if (cases.size() > kMaxLatencyRows) cases.resize(kMaxLatencyRows);
  std::sort(cases.begin(), cases.end(),
            [](const auto* a, const auto* b) { return a->info.id < b->info.id; });
  return cases;
}

// The rows' labels as the chart shows them (svg::short_label: cut in the
// middle, so a long model name keeps its stage), numbered where two still
// read alike; the tooltip keeps each case's id.
void unique_labels(std::vector<svg::LatencyRow>& rows) {
  std::vector<std::string> full;
  std::map<std::string, int> alike;
  for (auto& r : rows) {
    full.push_back(r.label);
    r.label = svg::short_label(r.label, svg::kLabelChars);
    ++alike[r.label];
  }
  std::map<std::string, int> numbered;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string shown = rows[i].label;
    if (alike[shown] < 2) continue;
    rows[i].label = svg::short_label(full[i], svg::kLabelChars - 5) + " (" +
                    std::to_string(++numbered[shown]) + ")";
  }
}

void latency_charts(std::string& h, const verdict::Judged& j) {
  int n = 0;
  for (const auto& [g, cases] : timed_cases(j)) {
    const auto shown = chart_cases(cases);
    const auto unstable_n =
        std::count_if(cases.begin(), cases.end(), [](const auto* r) { return unstable(*r); });
    h += "<h3>" + esc(g.framework) + " on <code>" + esc(g.device) +
         "</code></h3>\n<p class=\"meta\">" + std::to_string(cases.size()) + " timed cases, " +
         std::to_string(unstable_n) + " unstable" +
         (shown.size() < cases.size()
              ? "; the " + std::to_string(shown.size()) + " shown are " +
                    (unstable_n > 0 ? "the unstable ones and " : "") + "those that spread widest"
              : "") +
         ".</p>\n";
    std::vector<svg::LatencyRow> rows;
    for (const auto* r : shown) rows.push_back(latency_row(*r));
    unique_labels(rows);
    h += svg::latency_chart("latency-" + std::to_string(n++), rows);
  }
}

// One row per (framework, function, device) with timed cases.
void latency_table(std::string& h, const verdict::Judged& j) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const model::CaseResult*>>
      by;
  for (const auto& r : j.cases) {
    if (timed(r)) by[{r.info.framework, r.info.function, r.device}].push_back(&r);
  }
  std::map<std::tuple<std::string, std::string, std::string>, const VerdictRow*> verdicts;
  for (const auto& v : j.verdicts) verdicts[{v.framework, v.function, v.device}] = &v;
  h += std::string("<details") + (by.size() <= kOpenTableRows ? " open" : "") +
       "><summary>Latency per function and device (" + std::to_string(by.size()) +
       " rows)</summary>\n<table id=\"latency-table\"><tr><th>framework</th><th>function</th>"
       "<th>device</th><th>timed cases</th><th>fastest median</th><th>slowest median</th>"
       "<th>unstable</th><th>× baseline</th><th>95% interval</th></tr>\n";
  for (const auto& [key, cases] : by) {
    const auto& [fw, fn, dev] = key;
    double lo = cases.front()->latency.stats->median_ns;
    double hi = lo;
    int unstable_n = 0;
    for (const auto* r : cases) {
      lo = std::min(lo, r->latency.stats->median_ns);
      hi = std::max(hi, r->latency.stats->median_ns);
      unstable_n += unstable(*r) ? 1 : 0;
    }
    auto it = verdicts.find(key);
    const VerdictRow* v = it == verdicts.end() ? nullptr : it->second;
    h += "<tr><td>" + esc(fw) + "</td><td><code>" + esc(fn) + "</code></td><td><code>" + esc(dev) +
         "</code></td><td class=\"n\">" + std::to_string(cases.size()) + "</td><td class=\"n\">" +
         esc(duration_text(lo)) + "</td><td class=\"n\">" + esc(duration_text(hi)) +
         "</td><td class=\"n" + (unstable_n > 0 ? " warn" : "") + "\">" +
         std::to_string(unstable_n) + "</td><td class=\"n\">" +
         (v && v->latency_ratio ? esc(ratio_text(*v->latency_ratio)) : "") +
         "</td><td class=\"n\">" +
         (v && v->latency_ratio_low && v->latency_ratio_high
              ? esc(ratio_text(*v->latency_ratio_low) + " – " + ratio_text(*v->latency_ratio_high))
              : "") +
         "</td></tr>\n";
  }
  h += "</table></details>\n";
}

// One strip per (framework, non-baseline device): each function's ratio
// with its interval.
void ratio_part(std::string& h, const std::vector<VerdictRow>& verdicts) {
  std::map<Group, svg::RatioStrip> strips;
  for (const auto& v : verdicts) {
    if (!v.latency_ratio || !std::isfinite(*v.latency_ratio) || *v.latency_ratio <= 0) continue;
    auto& s = strips[{v.framework, v.device}];
    s.label = v.framework + " " + v.device;
    svg::RatioPoint p;
    p.ratio = *v.latency_ratio;
    p.low = v.latency_ratio_low.value_or(0);
    p.high = v.latency_ratio_high.value_or(0);
    p.fill = "var(--" + std::string(model::to_string(v.verdict)) + ")";
    p.title = v.function + ": " + ratio_text(p.ratio) +
              (p.low > 0 && p.high > 0 ? " (" + ratio_text(p.low) + " – " + ratio_text(p.high) + ")"
                                       : "");
    s.points.push_back(std::move(p));
  }
  h += "<h3 id=\"ratios\">Device against baseline</h3>\n";
  if (strips.empty()) {
    h += "<p class=\"muted\" id=\"no-ratios\">One device ran timed cases: there is no second "
         "device to compare with the baseline. The times above stand alone.</p>\n";
    return;
  }
  std::vector<svg::RatioStrip> list;
  for (auto& [g, s] : strips) list.push_back(std::move(s));
  h += svg::ratio_chart("latency-plot", list);
  h += "<p class=\"muted\">One dot per function: the geometric mean of its cases' latency ratios "
       "to the baseline, the line behind it its 95% interval; the grey line is 1×, the dashed red "
       "line 10×, the paper's cut-off. Ratios beyond the axis are drawn at its end.</p>\n";
}

void latency_section(std::string& h, const verdict::Judged& j) {
  h += "<h2 id=\"latency\">Latency</h2>\n";
  if (timed_cases(j).empty()) {
    h += "<p class=\"muted\">No case was timed (a run of policy <code>once</code>, or nothing "
         "passed).</p>\n";
    return;
  }
  h += "<p class=\"meta\">Each row is one case on a log time axis: the grey band spans its warm "
       "samples' 10th to 90th percentile, the black tick is the median, each hollow dot one timing "
       "round's median. <span class=\"warn\">Red</span> rows are unstable: the rounds disagree by "
       "more than " +
       fmt("%.0f%%", 100 * stats::kUnstableSpread) + " of the median.</p>\n";
  latency_table(h, j);
  latency_charts(h, j);
  ratio_part(h, j.verdicts);
}

// ---- Accuracy: error in eps per dtype against its bound ----

int dtype_rank(const std::string& d) {
  static const std::array<std::string_view, 7> kOrder = {
      "float16", "bfloat16", "float32", "float64", "complex64", "complex128", ""};
  const auto* it = std::find(kOrder.begin(), kOrder.end(), d);
  return static_cast<int>(it - kOrder.begin());
}

void accuracy_section(std::string& h, const verdict::Judged& j) {
  h += "<h2 id=\"accuracy\">Accuracy against float64</h2>\n";
  std::map<Group, std::vector<svg::AccuracyPoint>> by;
  for (const auto& r : j.cases) {
    const auto& n = r.numeric;
    if (!n.error_eps || !std::isfinite(*n.error_eps)) continue;
    svg::AccuracyPoint p;
    p.dtype = r.info.dtype;
    p.error_eps = *n.error_eps;
    p.bound_eps = n.bound_eps.value_or(0);
    p.title = r.info.id + " on " + r.device + ": " + fmt("%.3g", p.error_eps) + " eps" +
              (n.bound_eps ? " (bound " + fmt("%.3g", *n.bound_eps) + ")" : "") +
              (n.baseline_error_eps ? "; baseline " + fmt("%.3g", *n.baseline_error_eps) : "") +
              " — " + std::string(model::to_string(r.outcome));
    by[{r.info.framework, r.device}].push_back(std::move(p));
  }
  if (by.empty()) {
    h += "<p class=\"muted\">No case carries an error against a float64 reference.</p>\n";
    return;
  }
  h += "<p class=\"meta\">Each dot is one case's largest error against its float64 reference, in "
       "units of its dtype's epsilon (log scale); the shaded band spans the bounds that dtype's "
       "cases were held to. <span class=\"warn\">Red</span> dots exceed their own bound; exact "
       "answers sit at the left end. On the right: the dtype's cases (n), its largest error and "
       "how many exceed their bound.</p>\n";
  int n = 0;
  for (const auto& [g, points] : by) {
    std::vector<std::string> dtypes;
    for (const auto& p : points) {
      if (std::find(dtypes.begin(), dtypes.end(), p.dtype) == dtypes.end())
        dtypes.push_back(p.dtype);
    }
    std::stable_sort(dtypes.begin(), dtypes.end(), [](const auto& a, const auto& b) {
      return std::make_pair(dtype_rank(a), a) < std::make_pair(dtype_rank(b), b);
    });
    h += "<h3>" + esc(g.framework) + " on <code>" + esc(g.device) + "</code></h3>\n";
    h += svg::accuracy_chart("accuracy-" + std::to_string(n++), dtypes, points);
  }
}

void problems_section(std::string& h, const std::vector<VerdictRow>& verdicts) {
  h += "<h2 id=\"problems\">Functions that fail, diverge or crawl</h2>\n";
  std::string rows;
  for (const auto& v : verdicts) {
    if (v.verdict == Verdict::kPortable || !model::props(v.verdict).attempted) continue;
    const std::string name(model::to_string(v.verdict));
    rows += "<tr><td>" + esc(v.framework) + "</td><td><code>" + esc(v.function) +
            "</code></td><td><code>" + esc(v.device) + "</code></td><td class=\"v-" + name + "\">" +
            esc(words(name)) + "</td><td>" + esc(v.reason) + "</td></tr>\n";
  }
  if (rows.empty()) {
    h += "<p>None: every function that could be attempted is portable.</p>\n";
    return;
  }
  h += "<table id=\"problems-table\"><tr><th>framework</th><th>function</th><th>device</th>"
       "<th>verdict</th><th>why</th></tr>\n" +
       rows + "</table>\n";
}

// Cases that pass on one device and not on another (verdict::Gap): a view
// apart from the verdicts, capped at kMaxGapRows rows (results.json has all).
constexpr size_t kMaxGapRows = 200;

void gaps_section(std::string& h, const std::vector<verdict::Gap>& gaps,
                  const std::vector<verdict::Unreached>& unreached) {
  if (gaps.empty() && unreached.empty()) return;
  h += "<h2 id=\"gaps\">Portability gaps (" + std::to_string(gaps.size()) +
       ")</h2>\n<p class=\"meta\">Cases that passed on one device and did not on another: code "
       "that works there does not here. Counted beside the failure rate, never in a verdict; "
       "<em>unsupported</em> ones are outside the function's domain, <em>kernel_missing</em> "
       "ones a gap of that chip (a failure there).</p>\n";
  for (const auto& u : unreached) {
    h += "<p class=\"unreached\">" + std::to_string(u.cases) + " " + esc(u.framework) +
         " cases failed on <code>" + esc(u.device) + "</code> that <code>" + esc(u.other) +
         "</code> never ran (the run did not reach them; e.g. <code>" + esc(u.example) +
         "</code>): whether they work there is not known.</p>\n";
  }
  h += "<table id=\"gaps-table\">"
       "<tr><th>case</th><th>device</th><th>passes on</th><th>here</th><th>why</th></tr>\n";
  for (size_t i = 0; i < gaps.size() && i < kMaxGapRows; ++i) {
    const auto& g = gaps[i];
    h += "<tr><td><code>" + esc(g.case_id) + "</code></td><td><code>" + esc(g.device) +
         "</code></td><td><code>" + esc(g.works_on) + "</code></td><td>" + esc(g.what) +
         "</td><td>" + esc(g.reason) + "</td></tr>\n";
  }
  h += "</table>\n";
  if (gaps.size() > kMaxGapRows) {
    h += "<p class=\"muted\">... and " + std::to_string(gaps.size() - kMaxGapRows) +
         " more in results.json (<code>portability_gaps</code>).</p>\n";
  }
}

void environment_section(std::string& h, const model::RunInfo& run) {
  h += "<h2 id=\"environment\">Environment</h2>\n";
  const json& ms = machines(run.environment);
  if (ms.empty()) {
    h += "<p class=\"muted\">The run recorded no environment.</p>\n";
    return;
  }
  for (const auto& m : ms) {
    if (!m.is_object()) continue;
    const std::string label = m.value("label", "");
    h += "<h3>" + esc(label.empty() ? m.value("host", "machine") : label) +
         "</h3>\n<p class=\"meta\">" + esc(m.value("cpu_model", "")) + " · " +
         esc(m.value("os", "")) + " · " + esc(m.value("arch", "")) + " · mudjack " +
         esc(m.value("mudjack_version", "")) + " (" + esc(m.value("mudjack_revision", "")) + ")" +
         (m.contains("run_id") ? " · run " + esc(m.value("run_id", "")) : "") + "</p>\n";
    if (auto probes = layout_line(m); !probes.empty()) {
      h += "<p class=\"meta\">Probes: " + esc(probes) + "</p>\n";
    }
    h += "<table><tr><th>device</th><th>model</th><th>memory</th><th>driver</th><th>runtime</th></"
         "tr>\n";
    const json no_devices = json::array();
    const json& devs = m.contains("devices") && m["devices"].is_array() ? m["devices"] : no_devices;
    for (const auto& d : devs) {
      if (!d.is_object()) continue;
      const auto mem = d.value("memory_bytes", json());
      h += "<tr><td><code>" + esc(d.value("id", "")) + "</code></td><td>" +
           esc(d.value("model", "")) + "</td><td class=\"n\">" +
           (mem.is_number() ? fmt("%.1f GiB", mem.get<double>() / (1024.0 * 1024 * 1024)) : "") +
           "</td><td>" + esc(d.value("driver_version", "")) + "</td><td>" +
           esc(d.value("runtime_version", "")) + "</td></tr>\n";
    }
    h += "</table>\n<table><tr><th>framework</th><th>version</th><th>python</th><th>note</th></"
         "tr>\n";
    const json no_frameworks = json::object();
    const json& fws =
        m.contains("frameworks") && m["frameworks"].is_object() ? m["frameworks"] : no_frameworks;
    for (const auto& [fw, f] : fws.items()) {
      if (!f.is_object()) continue;
      h += "<tr><td>" + esc(fw) + "</td><td>" + esc(f.value("version", "")) + "</td><td>" +
           esc(f.value("python", "")) + "</td><td>" + esc(one_line(f.value("unavailable", ""))) +
           "</td></tr>\n";
    }
    h += "</table>\n";
  }
}

// The data the page's script opens cells with: each verdict and each cell's cases.
json cell_data(const verdict::Judged& j) {
  json data{{"verdicts", json::object()}, {"cases", json::object()}};
  for (const auto& v : j.verdicts) {
    json flags = json::array();
    for (auto f : v.flags) flags.push_back(model::to_string(f));
    data["verdicts"][cell_key(v.framework, v.function, v.device)] = {
        {"verdict", model::to_string(v.verdict)}, {"reason", v.reason}, {"flags", flags}};
  }
  for (size_t i = 0; i < j.cases.size(); ++i) {
    const auto& r = j.cases[i];
    json row = json::array();
    row.push_back(r.info.variant);
    row.push_back(r.info.dtype);
    row.push_back(r.info.shape);
    row.push_back(r.info.mode + (r.info.compiler.empty() ? "" : " (" + r.info.compiler + ")"));
    row.push_back(model::to_string(r.outcome));
    row.push_back(r.latency.stats ? number_or_null(r.latency.stats->median_ns) : json(nullptr));
    if (const auto* q = j.ratio_of(r)) {
      row.push_back(number_or_null(q->ratio));
      row.push_back(number_or_null(q->low));
      row.push_back(number_or_null(q->high));
    } else {
      row.insert(row.end(), {nullptr, nullptr, nullptr});
    }
    row.push_back(r.latency.cold_ns ? json(static_cast<double>(*r.latency.cold_ns))
                                    : json(nullptr));
    // A refused fail says which word the judge gave it (refusal.hpp).
    const auto refusal = i < j.refusals.size() ? j.refusals[i].refusal : model::Refusal::kNone;
    row.push_back((refusal == model::Refusal::kNone
                       ? ""
                       : std::string(model::to_string(refusal)) +
                             (j.refusals[i].documented ? " (documented): " : ": ")) +
                  failure_text(r, 400));
    data["cases"][cell_key(r.info.framework, r.info.function, r.device)].push_back(std::move(row));
  }
  return data;
}

// `mudjack check`'s per-case table, in the words of the terminal and
// summary.md: device, mode, dtype, outcome, how a pass was checked, error
// and bound in eps.
void cases_section(std::string& h, const verdict::Judged& j) {
  if (j.run.suite != "check" || j.cases.empty()) return;
  h += "<h2 id=\"cases\">Cases</h2>\n<table id=\"cases-table\"><tr><th>device</th><th>mode</th>"
       "<th>dtype</th><th>outcome</th><th>checked</th><th>error (eps)</th><th>bound "
       "(eps)</th></tr>\n";
  const auto eps = [](const std::optional<double>& v) {
    return v ? fmt("%.3g", *v) : std::string("-");
  };
  for (size_t i = 0; i < j.cases.size(); ++i) {
    const auto& r = j.cases[i];
    const bool pass = r.outcome == model::Outcome::kPass;
    h += "<tr><td>" + esc(r.device) + "</td><td>" + esc(r.info.mode) + "</td><td>" +
         esc(r.info.dtype) + "</td><td>" + esc(model::to_string(r.outcome)) + "</td><td>" +
         (pass ? esc(model::to_string(j.checked[i])) : "-") + "</td><td class=\"num\">" +
         eps(r.numeric.error_eps) + "</td><td class=\"num\">" + eps(r.numeric.bound_eps) +
         "</td></tr>\n";
  }
  h += "</table>\n";
}

}  // namespace

std::string to_html(const verdict::Judged& j) {
  const auto& run = j.run;
  std::string h;
  h.reserve(1 << 20);
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>MudJack "
       "— " +
       esc(run.suite) + " — " + esc(run.id) + "</title>\n<style>" + kStyle +
       "</style></head>\n<body>\n";
  h += "<h1>MudJack: " + esc(run.suite) + " suite</h1>\n<p class=\"meta\">run <code>" +
       esc(run.id) + "</code> · " + esc(run.state) + " · created " + esc(run.created_at) +
       (run.finished_at.empty() ? "" : " · finished " + esc(run.finished_at)) +
       " · baseline <code>" + esc(run.baseline) + "</code> · " + std::to_string(j.cases.size()) +
       " results · report by mudjack " + esc(util::version()) + "</p>\n";
  cases_section(h, j);
  summary_section(h, j);
  heatmap_section(h, run, j.verdicts);
  h += models_html(model_rows(j.cases));
  latency_section(h, j);
  accuracy_section(h, j);
  problems_section(h, j.verdicts);
  gaps_section(h, j.gaps, j.unreached);
  environment_section(h, run);
  h += "<aside id=\"detail\" aria-live=\"polite\"></aside>\n<script type=\"application/json\" "
       "id=\"mj-data\">" +
       script_json(cell_data(j)) + "</script>\n<script>" + kScript + "</script>\n</body></html>\n";
  return h;
}

}  // namespace mudjack::report
