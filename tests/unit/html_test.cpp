// report.html: self-contained, and probe text cannot break out of it.
#include "report/html.hpp"
#include "judged.hpp"

#include <gtest/gtest.h>

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
  EXPECT_NE(html.find("No device other than the baseline ran timed cases."), std::string::npos);
  EXPECT_NE(html.find("The run recorded no environment."), std::string::npos);
  EXPECT_EQ(html.substr(0, 15), "<!DOCTYPE html>");
}

}  // namespace
}  // namespace mudjack::report
