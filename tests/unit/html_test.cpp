// report.html: self-contained, and probe text cannot break out of it.
#include "report/html.hpp"
#include "judged.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include "report/svg.hpp"
#include "report/units.hpp"

namespace mudjack::report {
namespace {

using model::CaseResult;
using model::Outcome;

CaseResult result(const std::string& function, const std::string& device, Outcome outcome) {
  CaseResult r;
  r.info.framework = "torch";
  r.info.function = function;
  r.info.variant = "v";
  r.info.id = "torch/" + function + "/v";
  r.device = device;
  r.outcome = outcome;
  return r;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

TEST(Html, ProbeTextIsEscapedEverywhere) {
  auto bad = result("torch.<b>x</b>", "cuda:0", Outcome::kFail);
  bad.error.message = "</script><script>alert(1)</script> & \"quotes\"";
  bad.error.kind = model::ErrorKind::kOther;
  std::vector<CaseResult> cases{result("torch.<b>x</b>", "cpu", Outcome::kPass), bad};
  model::VerdictRow v;
  v.framework = "torch";
  v.function = "torch.<b>x</b>";
  v.device = "cuda:0";
  v.verdict = model::Verdict::kCompleteFailure;
  v.reason = "<img src=x onerror=alert(2)>";
  model::RunInfo run;
  run.id = "r<1>";
  run.suite = "paper";
  run.environment = {
      {"machines", {{{"host", "<h>"}, {"devices", {{{"id", "cpu"}, {"model", "<m>"}}}}}}}};
  const std::string html = to_html(testing::judged(run, cases, {v}));
  EXPECT_EQ(count(html, "<script"), 2u) << "only the page's own two script elements";
  EXPECT_EQ(count(html, "</script>"), 2u);
  EXPECT_EQ(html.find("<b>x</b>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<h>"), std::string::npos);
  EXPECT_NE(html.find("torch.&lt;b&gt;x&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos)
      << "the message travels in the embedded data, unable to close its element";
  EXPECT_EQ(html.find("http"), std::string::npos) << "nothing to fetch";
}

TEST(Html, EmptyRunStillRenders) {
  model::RunInfo run;
  run.id = "empty";
  const std::string html = to_html(testing::judged(run, {}, {}));
  EXPECT_NE(html.find("No case was timed"), std::string::npos);
  EXPECT_NE(html.find("No case carries an error against a float64 reference."), std::string::npos);
  EXPECT_NE(html.find("The run recorded no environment."), std::string::npos);
  EXPECT_EQ(html.substr(0, 15), "<!DOCTYPE html>");
}

// A timed pass on `device` with three rounds and an oracle error.
CaseResult timed(const std::string& function, const std::string& dtype, const std::string& device,
                 double median_ns, std::vector<double> rounds_ns, double error_eps,
                 double bound_eps) {
  CaseResult r = result(function, device, Outcome::kPass);
  r.info.dtype = dtype;
  r.info.variant = dtype;
  r.info.id = "torch/" + function + "/" + dtype;
  r.latency.stats = model::LatencyStats{};
  r.latency.stats->median_ns = median_ns;
  r.latency.stats->p10_ns = median_ns * 0.9;
  r.latency.stats->p90_ns = median_ns * 1.2;
  r.latency.stats->n = 10;
  for (int i = 0; i < 10; ++i) r.latency.samples_ns.push_back(median_ns * (0.95 + 0.01 * i));
  model::Timing t;
  const auto [lo, hi] = std::minmax_element(rounds_ns.begin(), rounds_ns.end());
  t.spread = (*hi - *lo) / median_ns;
  t.unstable = t.spread > 0.10;
  t.rounds_ns = std::move(rounds_ns);
  r.latency.timing = t;
  r.numeric.error_eps = error_eps;
  r.numeric.bound_eps = bound_eps;
  return r;
}

std::vector<std::string> matches(const std::string& s, const std::string& pattern) {
  std::vector<std::string> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

TEST(Html, EveryTableHasDistinctHeaders) {
  // A timeout counts under the outcome `timeout` and the paper's reason
  // `timeout`: two tables, so no header repeats within one.
  auto slow = result("torch.a", "cpu", Outcome::kTimeout);
  auto crash = result("torch.b", "cpu", Outcome::kCrash);
  const std::string html = to_html(testing::judged({}, {slow, crash}, {}));
  const auto tables = matches(html, "<table[^>]*>([\\s\\S]*?)</table>");
  ASSERT_GE(tables.size(), 3u);
  for (const auto& t : tables) {
    const auto headers = matches(t, "<th[^>]*>([^<]*)</th>");
    const std::set<std::string> distinct(headers.begin(), headers.end());
    EXPECT_EQ(distinct.size(), headers.size()) << t.substr(0, 300);
  }
  EXPECT_NE(html.find("id=\"reason-table\""), std::string::npos);
}

TEST(Html, OneDeviceStillHasItsLatencyTableAndCharts) {
  model::RunInfo run;
  run.id = "one";
  std::vector<CaseResult> cases{
      timed("torch.add", "float16", "cpu", 2000, {2000, 2900, 2000}, 3, 16),  // 45%: unstable
      timed("torch.add", "float32", "cpu", 1000, {1000, 1010, 990}, 0, 4),
      timed("torch.sum", "float16", "cpu", 5000, {5000, 5000, 5000}, 40, 16)};  // over its bound
  const std::string html = to_html(testing::judged(run, cases, {}));
  EXPECT_NE(html.find("id=\"latency-table\""), std::string::npos);
  EXPECT_EQ(count(html, "data-chart=\"latency\""), 1u);
  EXPECT_EQ(count(html, "<g class=\"row\">"), 2u);
  EXPECT_EQ(count(html, "<g class=\"row unstable\">"), 1u);
  EXPECT_NE(html.find("spread 45% unstable"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"round\""), 9u) << "a dot per round";
  EXPECT_NE(html.find("id=\"no-ratios\""), std::string::npos);
  EXPECT_EQ(count(html, "data-chart=\"ratio\""), 0u);
  EXPECT_EQ(count(html, "data-chart=\"accuracy\""), 1u);
  EXPECT_EQ(count(html, "data-dtype=\"float16\""), 1u);
  EXPECT_EQ(count(html, "data-dtype=\"float32\""), 1u);
  EXPECT_EQ(count(html, "class=\"err over\""), 1u) << "40 eps held to 16";
  EXPECT_EQ(count(html, "class=\"err\""), 2u);
  EXPECT_LT(html.find("data-dtype=\"float16\""), html.find("data-dtype=\"float32\""));
}

TEST(Html, TwoDevicesAddTheRatioChartWithIntervals) {
  model::RunInfo run;
  run.id = "two";
  std::vector<CaseResult> cases{timed("torch.add", "float32", "cpu", 1000, {1000, 1000}, 0, 4),
                                timed("torch.add", "float32", "cuda:0", 3000, {3000, 3000}, 1, 4)};
  const auto j = verdict::judge(run, cases, verdict::Options{});
  const std::string html = to_html(j);
  EXPECT_EQ(count(html, "data-chart=\"ratio\""), 1u);
  EXPECT_EQ(html.find("id=\"no-ratios\""), std::string::npos);
  EXPECT_EQ(count(html, "class=\"interval\""), 1u);
  EXPECT_EQ(count(html, "data-chart=\"latency\""), 2u) << "a chart per device";
  EXPECT_EQ(count(html, "data-chart=\"accuracy\""), 2u);
  EXPECT_NE(html.find("3×"), std::string::npos) << "the ratio in the latency table";
}

// A long model name's rows keep their stage (cut in the middle), and two
// rows that still read alike are numbered: no two labels of a chart repeat.
TEST(Html, LatencyChartLabelsKeepTheStageAndNeverRepeat) {
  const std::string fn = "transformers/google/bigbird-roberta-base";
  const std::string x(25, 'x');
  std::vector<CaseResult> cases;
  for (const auto& variant :
       std::vector<std::string>{"float32-b1-s128-eager", "float32-b1-s128-compiled",
                                "float32-aaa-" + x + "-eager", "float32-bbb-" + x + "-eager"}) {
    auto r = timed(fn, "float32", "cpu", 1000, {1000, 1000}, 0, 4);
    r.info.variant = variant;
    r.info.id = "torch/" + fn + "/" + variant;
    cases.push_back(r);
  }
  const std::string html = to_html(testing::judged({}, cases, {}));
  const auto at = html.find("data-chart=\"latency\"");
  ASSERT_NE(at, std::string::npos);
  const std::string chart = html.substr(at, html.find("</svg>", at) - at);
  const auto labels =
      matches(chart, "<text x=\"4.0\" y=\"[^\"]*\" text-anchor=\"start\">([^<]*)</text>");
  ASSERT_EQ(labels.size(), 4u) << chart;
  EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), 4u) << chart;
  EXPECT_NE(chart.find(">transformers/google/…oat32-b1-s128-eager<"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">transformers/google/…32-b1-s128-compiled<"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">transformers/goog…xxxxxxxxxxx-eager (1)<"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">transformers/goog…xxxxxxxxxxx-eager (2)<"), std::string::npos) << chart;
  EXPECT_EQ(svg::short_label("short", 40), "short");
  EXPECT_EQ(svg::short_label("αβγδεζηθ", 5), "αβ…ηθ") << "cut by code points";
}

// The Models table fits a 1400 px page: a fixed layout as wide as the page.
TEST(Html, TheModelsTableHasAFixedLayoutThatFitsThePage) {
  const std::string html = to_html(testing::judged({}, {}, {}));
  EXPECT_NE(html.find("table.models{table-layout:fixed;width:100%"), std::string::npos);
  EXPECT_NE(html.find("table.models td.cut{white-space:nowrap;overflow:hidden;text-overflow:"
                      "ellipsis}"),
            std::string::npos);
  EXPECT_NE(html.find("table.models th,table.models td{padding:3px 4px;overflow-wrap:break-word}"),
            std::string::npos);
}

TEST(Svg, AxesAndDurations) {
  const auto axis = svg::fit_axis({3, 250, 0, -1}, 0, 0);
  EXPECT_DOUBLE_EQ(axis.lo, 1);
  EXPECT_DOUBLE_EQ(axis.hi, 1000);
  EXPECT_EQ(axis.decades(), (std::vector<double>{1, 10, 100, 1000}));
  svg::LogAxis a{1, 100, 0, 200};
  EXPECT_DOUBLE_EQ(a.at(10), 100);
  EXPECT_DOUBLE_EQ(a.at(0), 0) << "zero sits at the left end";
  EXPECT_DOUBLE_EQ(a.at(1e9), 200) << "clamped";
  EXPECT_DOUBLE_EQ(svg::fit_axis({}, 0.01, 10).lo, 0.01);
  EXPECT_DOUBLE_EQ(svg::fit_axis({}, 0.01, 10).hi, 10);
  // One unit formatter for every view (report/units.hpp), the Python API's _duration.
  EXPECT_EQ(duration_text(340), "340 ns");
  EXPECT_EQ(duration_text(1234), "1.2 us");
  EXPECT_EQ(duration_text(2.5e6), "2.5 ms");
  EXPECT_EQ(duration_text(44e6), "44.0 ms");
  EXPECT_EQ(duration_text(3e9), "3.00 s");
  EXPECT_EQ(duration_text(std::nan("")), "-");
}

TEST(Svg, ChartTextIsEscaped) {
  svg::LatencyRow row;
  row.label = "<b>";
  row.title = "</svg><script>";
  row.median_ns = row.p10_ns = row.p90_ns = 10;
  const auto out = svg::latency_chart("x\"", {row});
  EXPECT_EQ(out.find("<b>"), std::string::npos);
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_NE(out.find("id=\"x&quot;\""), std::string::npos);
}

}  // namespace
}  // namespace mudjack::report
