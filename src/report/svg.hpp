#pragma once
// The charts of report.html as inline SVG, written here and nowhere else:
// no JavaScript library, nothing fetched, readable with scripts off. Each
// chart is an <svg class="chart" data-chart="KIND"> element (the Chromium
// test finds them by that attribute) whose marks carry a <title> tooltip.
// The callers (html.cpp) pick the rows from a verdict::Judged; these
// functions only draw what they are given: no statistics here.
//
// Pure and thread-safe. Times are in ns, errors in units of the output
// dtype's epsilon (model::Numeric), ratios are device / baseline.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mudjack::report::svg {

// A log10 axis: values in [lo, hi] (clamped into it) onto pixels [x0, x1].
struct LogAxis {
  double lo = 1, hi = 10;
  double x0 = 0, x1 = 100;
  double at(double v) const;
  // Powers of ten from lo to hi, inclusive.
  std::vector<double> decades() const;
};
// The smallest power-of-ten range holding every positive finite value of
// `values`, at least [floor_lo, ceil_hi] wide where given (0: no minimum).
LogAxis fit_axis(const std::vector<double>& values, double floor_lo, double ceil_hi);

// Characters a latency chart's row label keeps (its left margin).
inline constexpr size_t kLabelChars = 40;

// `s` cut to `max_chars` code points in the middle, "…" where the cut is:
// the start (a function's name) and the end (a variant's stage) both stay,
// so two stages of one long name read apart. `s` itself when it fits.
std::string short_label(std::string_view s, size_t max_chars);

// One timed case on a device: its warm samples' p10-p90 band and median,
// each timing round's median, and whether the rounds disagree.
struct LatencyRow {
  std::string label;  // what the row is called on the left (the case's variant)
  std::string title;  // the tooltip (case id, numbers)
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  std::vector<double> rounds_ns;
  double spread = 0;      // (max - min) / median of rounds_ns
  bool unstable = false;  // the results say the rounds disagree
};
// A row per case on one log time axis: the band, the median tick, a hollow
// dot per round; an unstable row is drawn in red and says so on its right.
std::string latency_chart(const std::string& id, const std::vector<LatencyRow>& rows);

// One case's accuracy against its float64 reference.
struct AccuracyPoint {
  std::string dtype;
  double error_eps = 0;  // 0: exact
  double bound_eps = 0;  // the allowance it was held to
  std::string title;
};
// A row per dtype (in `dtypes`' order) on one log eps axis: the span of the
// bounds the dtype's cases were held to as a shaded band, each case's error
// as a dot, red where it exceeds its own bound; exact answers sit at the
// axis' left end.
std::string accuracy_chart(const std::string& id, const std::vector<std::string>& dtypes,
                           const std::vector<AccuracyPoint>& points);

// One function on one device against the baseline: the geometric mean of
// its cases' latency ratios, with its 95% interval where known.
struct RatioPoint {
  double ratio = 1;
  double low = 0, high = 0;  // 0: no interval
  std::string fill;          // CSS colour of the dot (the verdict's)
  std::string title;
};
struct RatioStrip {
  std::string label;  // "torch cuda:0"
  std::vector<RatioPoint> points;
};
// A strip per (framework, device) on a log axis from 0.01x to 1000x, with
// 1x and the paper's 10x cut-off marked.
std::string ratio_chart(const std::string& id, const std::vector<RatioStrip>& strips);

// One bar of a stacked-bar chart: a label on the left, then its segments
// side by side, each a share (0..1) of the bar's full width, drawn in order.
struct Segment {
  double share = 0;
  std::string fill;   // CSS colour
  std::string title;  // the tooltip
};
struct StackedBar {
  std::string label;  // "cpu float32"
  std::vector<Segment> segments;
};
// A horizontal bar per row from 0% to 100%, with gridlines every 25% and a
// legend (name, fill) below; a segment of under half a pixel is not drawn
// (its share still reads in the bar's title).
std::string stacked_chart(const std::string& id, const std::vector<StackedBar>& bars,
                          const std::vector<std::pair<std::string, std::string>>& legend);

}  // namespace mudjack::report::svg
