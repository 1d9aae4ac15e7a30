#include "report/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "report/text.hpp"
#include "report/units.hpp"

namespace mudjack::report::svg {
namespace {

std::string esc(std::string_view s) {
  return html_escape(s);
}

std::string num(double v) {
  std::array<char, 32> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), "%.1f", v);
  return std::string(buf.data(), static_cast<size_t>(std::max(n, 0)));
}

std::string fmt(const char* format, double v) {
  std::array<char, 64> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), format, v);
  return std::string(buf.data(), static_cast<size_t>(std::max(n, 0)));
}

bool positive(double v) {
  return std::isfinite(v) && v > 0;
}

std::string open_svg(const std::string& id, const char* kind, double width, double height,
                     const std::string& label) {
  return "<svg class=\"chart\" data-chart=\"" + std::string(kind) + "\" id=\"" + esc(id) +
         "\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
         num(width) + " " + num(height) + "\" role=\"img\" aria-label=\"" + esc(label) + "\">\n";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* cls = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" +
         (*cls != 0 ? std::string(" class=\"") + cls + "\"" : "") + ">" + esc(s) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" " + attrs + "/>";
}

// Vertical grid lines and labels at each decade of `axis`, from y0 to y1.
template <class Label>
std::string grid(const LogAxis& axis, double y0, double y1, Label label) {
  std::string out;
  for (double d : axis.decades()) {
    const double x = axis.at(d);
    out += line(x, y0, x, y1, "class=\"grid\"");
    out += text(x, y1 + 13, label(d), "middle") + "\n";
  }
  return out;
}

}  // namespace

std::string short_label(std::string_view s, size_t max_chars) {
  std::vector<size_t> starts;  // where each code point begins
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= max_chars) return std::string(s);
  if (max_chars == 0) return "";
  const size_t tail = (max_chars - 1) / 2;  // code points kept at the end
  const size_t head = max_chars - 1 - tail;
  return std::string(s.substr(0, starts[head])) + "…" +
         (tail == 0 ? std::string() : std::string(s.substr(starts[starts.size() - tail])));
}

double LogAxis::at(double v) const {
  const double c = std::clamp(positive(v) ? v : lo, lo, hi);
  return x0 + (std::log10(c) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (x1 - x0);
}

std::vector<double> LogAxis::decades() const {
  std::vector<double> out;
  for (double d = std::pow(10.0, std::ceil(std::log10(lo) - 1e-9)); d <= hi * (1 + 1e-9); d *= 10) {
    out.push_back(d);
  }
  return out;
}

LogAxis fit_axis(const std::vector<double>& values, double floor_lo, double ceil_hi) {
  double lo = 0;
  double hi = 0;
  for (double v : values) {
    if (!positive(v)) continue;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo == 0) lo = hi = 1;
  if (floor_lo > 0) lo = std::min(lo, floor_lo);
  if (ceil_hi > 0) hi = std::max(hi, ceil_hi);
  LogAxis axis;
  axis.lo = std::pow(10.0, std::floor(std::log10(lo)));
  axis.hi = std::pow(10.0, std::ceil(std::log10(hi)));
  if (axis.hi <= axis.lo) axis.hi = axis.lo * 10;
  return axis;
}

namespace {

constexpr double kLeft = 260;   // labels
constexpr double kRight = 150;  // spread and counts
constexpr double kWidth = 980;
constexpr double kRow = 18;
constexpr double kTop = 8;
constexpr double kBottom = 24;  // axis labels

std::string latency_row(const LatencyRow& r, const LogAxis& axis, double y) {
  const char* cls = r.unstable ? "row unstable" : "row";
  std::string out = "<g class=\"" + std::string(cls) + "\"><title>" + esc(r.title) + "</title>";
  out += text(4, y + 4, short_label(r.label, kLabelChars));
  const double a = axis.at(r.p10_ns);
  const double b = axis.at(r.p90_ns);
  out += "<rect class=\"band\" x=\"" + num(a) + "\" y=\"" + num(y - 4) + "\" width=\"" +
         num(std::max(b - a, 1.0)) + "\" height=\"8\"/>";
  const double m = axis.at(r.median_ns);
  out += line(m, y - 6, m, y + 6, "class=\"median\"");
  for (double round : r.rounds_ns) {
    if (!positive(round)) continue;
    out += "<circle class=\"round\" cx=\"" + num(axis.at(round)) + "\" cy=\"" + num(y) +
           "\" r=\"3\"/>";
  }
  std::string note = r.rounds_ns.size() > 1 ? "spread " + fmt("%.0f%%", 100 * r.spread) : "";
  if (r.unstable) note += note.empty() ? "unstable" : " unstable";
  out += text(kWidth - kRight + 8, y + 4, note, "start", r.unstable ? "warn" : "muted");
  return out + "</g>\n";
}

}  // namespace

std::string latency_chart(const std::string& id, const std::vector<LatencyRow>& rows) {
  std::vector<double> values;
  for (const auto& r : rows) {
    values.insert(values.end(), {r.median_ns, r.p10_ns, r.p90_ns});
    values.insert(values.end(), r.rounds_ns.begin(), r.rounds_ns.end());
  }
  LogAxis axis = fit_axis(values, 0, 0);
  axis.x0 = kLeft;
  axis.x1 = kWidth - kRight;
  const double height = kTop + kRow * static_cast<double>(rows.size()) + kBottom;
  std::string out = open_svg(id, "latency", kWidth, height, "latency per case, log scale");
  out += grid(axis, kTop, height - kBottom, report::duration_text);
  double y = kTop + kRow / 2;
  for (const auto& r : rows) {
    out += latency_row(r, axis, y);
    y += kRow;
  }
  return out + "</svg>\n";
}

namespace {

constexpr double kDtypeRow = 30;

// "0.01 eps", "100 eps", "1e+04 eps": short enough for a decade's width.
std::string eps_label(double d) {
  return (d < 1 ? fmt("%g", d) : d <= 1000 ? fmt("%.0f", d) : fmt("%.0e", d)) + " eps";
}
constexpr double kAccuracyRight = 230;  // the counts beside each dtype

std::string accuracy_row(const std::string& dtype, const std::vector<const AccuracyPoint*>& pts,
                         const LogAxis& axis, double y) {
  std::string out = "<g class=\"dtype\" data-dtype=\"" + esc(dtype) + "\">";
  double bound_lo = 0;
  double bound_hi = 0;
  int over = 0;
  double worst = 0;
  for (const auto* p : pts) {
    if (positive(p->bound_eps)) {
      bound_lo = bound_lo == 0 ? p->bound_eps : std::min(bound_lo, p->bound_eps);
      bound_hi = std::max(bound_hi, p->bound_eps);
    }
    if (p->error_eps > p->bound_eps && positive(p->bound_eps)) ++over;
    worst = std::max(worst, p->error_eps);
  }
  out += text(4, y + 4, dtype);
  if (bound_hi > 0) {
    const double a = axis.at(bound_lo);
    const double b = axis.at(bound_hi);
    out +=
        "<rect class=\"bound\" x=\"" + num(a - 1) + "\" y=\"" + num(y - 10) + "\" width=\"" +
        num(b - a + 2) + "\" height=\"20\"><title>" +
        esc(dtype + ": bounds " + fmt("%.3g", bound_lo) + " – " + fmt("%.3g", bound_hi) + " eps") +
        "</title></rect>";
  }
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = *pts[i];
    const bool beyond = positive(p.bound_eps) && p.error_eps > p.bound_eps;
    // A small deterministic vertical jitter keeps equal errors apart.
    const double dy = static_cast<double>(static_cast<int>(i % 5) - 2) * 2.5;
    out += "<circle class=\"" + std::string(beyond ? "err over" : "err") + "\" cx=\"" +
           num(axis.at(p.error_eps)) + "\" cy=\"" + num(y + dy) + "\" r=\"3.5\"><title>" +
           esc(p.title) + "</title></circle>";
  }
  out += text(kWidth - kAccuracyRight + 8, y + 4,
              "n=" + std::to_string(pts.size()) + " · max " + fmt("%.3g", worst) + " eps" +
                  (over > 0 ? " · " + std::to_string(over) + " over" : ""),
              "start", over > 0 ? "warn" : "muted");
  return out + "</g>\n";
}

}  // namespace

std::string accuracy_chart(const std::string& id, const std::vector<std::string>& dtypes,
                           const std::vector<AccuracyPoint>& points) {
  std::vector<double> values;
  for (const auto& p : points) values.insert(values.end(), {p.error_eps, p.bound_eps});
  LogAxis axis = fit_axis(values, 0.01, 10);
  axis.lo = std::max(axis.lo, 0.01);  // exact and near-exact answers sit at the left end
  axis.x0 = 110;
  axis.x1 = kWidth - kAccuracyRight;
  const double height = kTop + kDtypeRow * static_cast<double>(dtypes.size()) + kBottom;
  std::string out = open_svg(id, "accuracy", kWidth, height, "error in eps per dtype, log scale");
  out += grid(axis, kTop, height - kBottom, [](double d) { return eps_label(d); });
  double y = kTop + kDtypeRow / 2;
  for (const auto& dtype : dtypes) {
    std::vector<const AccuracyPoint*> pts;
    for (const auto& p : points) {
      if (p.dtype == dtype) pts.push_back(&p);
    }
    out += accuracy_row(dtype, pts, axis, y);
    y += kDtypeRow;
  }
  return out + "</svg>\n";
}

namespace {

std::string ratio_label(double r) {
  return (r >= 100 ? fmt("%.0f", r) : fmt("%.2g", r)) + "×";
}

std::string ratio_points(const RatioStrip& s, const LogAxis& axis, double y) {
  std::string out = "<g class=\"strip\">" + text(4, y + 4, short_label(s.label, 36));
  for (const auto& p : s.points) {
    if (positive(p.low) && positive(p.high)) {
      out += line(axis.at(p.low), y, axis.at(p.high), y, "class=\"interval\"");
    }
  }
  for (const auto& p : s.points) {
    out += "<circle class=\"pt\" cx=\"" + num(axis.at(p.ratio)) + "\" cy=\"" + num(y) +
           "\" r=\"5\" fill=\"" + esc(p.fill) + "\"><title>" + esc(p.title) + "</title></circle>";
  }
  return out + "</g>\n";
}

}  // namespace

std::string ratio_chart(const std::string& id, const std::vector<RatioStrip>& strips) {
  constexpr double kStrip = 34;
  LogAxis axis{0.01, 1000, 230, kWidth - 40};
  const double height = kTop + kStrip * static_cast<double>(strips.size()) + kBottom;
  std::string out =
      open_svg(id, "ratio", kWidth, height, "latency ratios to the baseline, log scale");
  for (double d : axis.decades()) {
    const double x = axis.at(d);
    const char* cls = d == 1.0    ? "class=\"one\""
                      : d == 10.0 ? "class=\"cutoff\""
                                  : "class=\"grid\"";
    out += line(x, kTop, x, height - kBottom, cls);
    out += text(x, height - kBottom + 13, ratio_label(d), "middle") + "\n";
  }
  double y = kTop + kStrip / 2;
  for (const auto& s : strips) {
    out += ratio_points(s, axis, y);
    y += kStrip;
  }
  return out + "</svg>\n";
}

namespace {

constexpr double kBar = 26;
constexpr double kBarLeft = 230;
constexpr double kLegendRow = 20;

std::string stacked_row(const StackedBar& bar, double x0, double x1, double y) {
  std::string title = bar.label;
  for (const auto& s : bar.segments) title += "; " + s.title;
  std::string out = "<g class=\"bar\"><title>" + esc(title) + "</title>" +
                    text(4, y + 4, short_label(bar.label, 32));
  double x = x0;
  for (const auto& s : bar.segments) {
    const double w = std::clamp(s.share, 0.0, 1.0) * (x1 - x0);
    if (w >= 0.5) {
      out += "<rect class=\"seg\" x=\"" + num(x) + "\" y=\"" + num(y - 9) + "\" width=\"" + num(w) +
             "\" height=\"18\" fill=\"" + esc(s.fill) + "\"><title>" + esc(s.title) +
             "</title></rect>";
    }
    x += w;
  }
  return out + "</g>\n";
}

}  // namespace

std::string stacked_chart(const std::string& id, const std::vector<StackedBar>& bars,
                          const std::vector<std::pair<std::string, std::string>>& legend) {
  const double x0 = kBarLeft;
  const double x1 = kWidth - 40;
  const double bars_h = kBar * static_cast<double>(bars.size());
  const double height = kTop + bars_h + kBottom + kLegendRow;
  std::string out = open_svg(id, "stacked", kWidth, height, "shares per bar, 0 to 100%");
  for (int q = 0; q <= 4; ++q) {
    const double x = x0 + (x1 - x0) * static_cast<double>(q) / 4.0;
    out += line(x, kTop, x, kTop + bars_h, "class=\"grid\"");
    out += text(x, kTop + bars_h + 13, std::to_string(q * 25) + "%", "middle") + "\n";
  }
  double y = kTop + kBar / 2;
  for (const auto& bar : bars) {
    out += stacked_row(bar, x0, x1, y);
    y += kBar;
  }
  double x = x0;
  const double ly = kTop + bars_h + kBottom + kLegendRow / 2;
  for (const auto& [name, fill] : legend) {
    out += "<rect class=\"key\" x=\"" + num(x) + "\" y=\"" + num(ly - 6) +
           "\" width=\"12\" height=\"12\" fill=\"" + esc(fill) + "\"/>" +
           text(x + 16, ly + 4, name) + "\n";
    x += 24 + 8 * static_cast<double>(name.size());
  }
  return out + "</svg>\n";
}

}  // namespace mudjack::report::svg
