// mudjack merge and the HTML report: two runs merged into one matrix, the
// page rendered in headless Chromium (Debian's `chromium`, installed by
// scripts/install.sh), its DOM checked after the script ran, a screenshot
// taken.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0) {
      return name;
    }
  }
  return "";
}

class Html : public Cli {
 protected:
  // Runs a few hostile fixture cases into `out`; returns the results.json path.
  fs::path run_fixture(const std::string& name, const std::string& filter) {
    auto out = dir_ / name;
    auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "hostile").string(), "--out",
                      out.string(), "--filter", filter, "--budget-ms", "5", "--timeout-s", "6"});
    EXPECT_EQ(r.code, 0) << r.err;
    auto list = json::parse(mudjack({"runs", "--out", out.string(), "--json"}).out);
    return out / "runs" / list[0]["id"].get<std::string>() / "results.json";
  }

  // Chromium, headless, on `url`; returns what it printed on stdout.
  std::string browse(const std::vector<std::string>& flags, const std::string& url) {
    std::string cmd = chromium() + " --headless --no-sandbox --disable-gpu --hide-scrollbars " +
                      "--user-data-dir=" + quote((dir_ / "chromium-profile").string());
    for (const auto& f : flags) cmd += " " + quote(f);
    cmd += " " + quote(url) + " 2>" + quote((dir_ / "chromium.err").string());
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t n = 0;
      while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
      pclose(p);
    }
    return out;
  }

  // The page's DOM after its script ran, and every console message Chromium
  // logged while loading it (a script error, an SVG attribute it could not
  // parse: "INFO:CONSOLE(...)" lines on stderr with --enable-logging).
  std::pair<std::string, std::vector<std::string>> load(const std::string& url) {
    std::string dom = browse(
        {"--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", "--dump-dom"}, url);
    std::vector<std::string> console;
    std::istringstream err(slurp(dir_ / "chromium.err"));
    for (std::string line; std::getline(err, line);) {
      if (line.find(":CONSOLE") != std::string::npos) console.push_back(line);
    }
    return {dom, console};
  }

  // What every report.html must show after loading cleanly: the charts, each
  // with its marks, and no console message.
  void expect_charts(const fs::path& html, bool ratios) {
    auto [dom, console] = load("file://" + html.string());
    EXPECT_TRUE(console.empty()) << console.front();
    ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos)
        << "the page's script did not finish";
    EXPECT_NE(dom.find("id=\"latency-table\""), std::string::npos);
    EXPECT_NE(dom.find("<svg class=\"chart\" data-chart=\"latency\""), std::string::npos);
    EXPECT_NE(dom.find("<circle class=\"round\""), std::string::npos) << "rounds drawn";
    EXPECT_NE(dom.find("<rect class=\"band\""), std::string::npos) << "p10-p90 drawn";
    EXPECT_NE(dom.find("<svg class=\"chart\" data-chart=\"accuracy\""), std::string::npos);
    EXPECT_NE(dom.find("<circle class=\"err over\""), std::string::npos)
        << "the error beyond its bound is drawn red";
    EXPECT_NE(dom.find("<rect class=\"bound\""), std::string::npos);
    if (ratios) {
      EXPECT_NE(dom.find("<svg class=\"chart\" data-chart=\"ratio\""), std::string::npos);
      EXPECT_NE(dom.find("class=\"interval\""), std::string::npos);
      EXPECT_EQ(dom.find("id=\"no-ratios\""), std::string::npos);
    } else {
      EXPECT_NE(dom.find("id=\"no-ratios\""), std::string::npos);
    }
    const auto png = dir_ / (html.stem().string() + ".png");
    browse({"--window-size=1200,900", "--screenshot=" + png.string()}, "file://" + html.string());
    EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
  }
};

// The console check itself: a page that logs an error is caught.
TEST_F(Html, ConsoleErrorsAreSeen) {
  ASSERT_FALSE(chromium().empty()) << "chromium is not installed (scripts/install.sh installs it)";
  const auto page = dir_ / "bad.html";
  std::ofstream(page) << "<!DOCTYPE html><svg><circle r=\"nan\"/></svg>"
                         "<script>console.error('planted');</script>";
  auto [dom, console] = load("file://" + page.string());
  ASSERT_EQ(console.size(), 2u) << slurp(dir_ / "chromium.err");
  EXPECT_NE(console[0].find("attribute r"), std::string::npos) << console[0];
  EXPECT_NE(console[1].find("planted"), std::string::npos) << console[1];
}

// A real run on this machine's one device (the accuracy fixture suite, three
// timing rounds): the latency table and charts, the accuracy chart with the
// float32 error the oracle catches, and the note that there is no ratio.
TEST_F(Html, OneDeviceRunHasItsChartsInHeadlessChromium) {
  ASSERT_FALSE(chromium().empty()) << "chromium is not installed (scripts/install.sh installs it)";
  auto out = dir_ / "one";
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "accuracy").string(), "--out",
                    out.string(), "--budget-ms", "2", "--warmup-ms", "1", "--rounds", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto list = json::parse(mudjack({"runs", "--out", out.string(), "--json"}).out);
  expect_charts(out / "runs" / list[0]["id"].get<std::string>() / "report.html", false);
}

// A crafted run of two devices (tests/fixtures/crafted/make_report.py): the
// ratio chart with its intervals beside the rest.
TEST_F(Html, TwoDeviceRunHasItsChartsInHeadlessChromium) {
  ASSERT_FALSE(chromium().empty()) << "chromium is not installed (scripts/install.sh installs it)";
  auto r =
      mudjack({"report", (kFixtures / "crafted" / "report.json").string(), "--format", "html"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto html = dir_ / "two.html";
  std::ofstream(html) << r.out;
  expect_charts(html, true);
}

TEST_F(Html, MergedRunRendersAndItsCellsOpenInHeadlessChromium) {
  ASSERT_FALSE(chromium().empty()) << "chromium is not installed (scripts/install.sh installs it)";
  auto a = run_fixture("a", "ok\\.add|hostile\\.raise|hostile\\.segfault");
  auto b = run_fixture("b", "ok\\.add|hostile\\.raise");

  // The same machine twice: without labels the pairs collide.
  auto merged_dir = dir_ / "merged";
  auto r = mudjack({"merge", a.string(), b.string(), "--out", merged_dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is in both"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  r = mudjack({"merge", a.string() + "=box-a", b.string() + "=box-b", "--out", merged_dir.string(),
               "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], "1.13");
  std::set<std::string> devices;
  for (const auto& c : doc["cases"]) devices.insert(c["device"].get<std::string>());
  EXPECT_EQ(devices, (std::set<std::string>{"box-a/cpu", "box-b/cpu"}));
  EXPECT_EQ(doc["cases"].size(), 5u);
  EXPECT_EQ(doc["reasons"]["numpy"]["box-a/cpu"]["crash"], 1);
  EXPECT_EQ(doc["reasons"]["numpy"]["box-a/cpu"]["not implemented"], 1);
  const auto run_id = doc["run"]["id"].get<std::string>();
  ASSERT_EQ(run_id.rfind("merged-", 0), 0u);

  // The merged run is a run like any other: listed, reported, written out.
  auto html_file = merged_dir / "runs" / run_id / "report.html";
  ASSERT_TRUE(fs::exists(html_file));
  r = mudjack({"report", run_id, "--out", merged_dir.string(), "--format", "html"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(html_file));
  // Self-contained: nothing to fetch.
  EXPECT_EQ(r.out.find("http://"), std::string::npos);
  EXPECT_EQ(r.out.find("https://"), std::string::npos);
  EXPECT_EQ(r.out.find(" src="), std::string::npos);

  // After the script ran, opening at #cell=... shows that cell's cases.
  const std::string url =
      "file://" + html_file.string() + "#cell=numpy%7Chostile.raise%7Cbox-a%2Fcpu";
  const std::string dom = browse({"--dump-dom"}, url);
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "the page's script did not finish";
  EXPECT_NE(dom.find("id=\"detail\" aria-live=\"polite\" class=\"open\""), std::string::npos);
  EXPECT_NE(dom.find("data-cell=\"numpy|hostile.raise|box-a/cpu\""), std::string::npos);
  EXPECT_NE(dom.find("<td class=\"o-fail\">fail</td>"), std::string::npos);
  EXPECT_NE(dom.find("NotImplementedError"), std::string::npos) << "the error message is shown";
  // The heatmap: one numpy table, a column per merged device, cells coloured by verdict.
  EXPECT_NE(dom.find("<table class=\"heatmap\" data-framework=\"numpy\">"), std::string::npos);
  EXPECT_NE(dom.find("<code>box-b/cpu</code>"), std::string::npos);
  const std::regex segfault_cell(
      "data-key=\"numpy\\|hostile\\.segfault\\|box-a/cpu\" data-verdict=\"complete_failure\"");
  EXPECT_TRUE(std::regex_search(dom, segfault_cell));
  EXPECT_NE(dom.find("data-verdict=\"portable\""), std::string::npos);

  // A screenshot: a PNG of the requested size.
  const auto png = dir_ / "report.png";
  browse({"--window-size=1200,900", "--screenshot=" + png.string()}, url);
  ASSERT_TRUE(fs::exists(png));
  const std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  auto be32 = [&](size_t at) {
    return (static_cast<unsigned char>(bytes[at]) << 24) |
           (static_cast<unsigned char>(bytes[at + 1]) << 16) |
           (static_cast<unsigned char>(bytes[at + 2]) << 8) |
           static_cast<unsigned char>(bytes[at + 3]);
  };
  EXPECT_EQ(be32(16), 1200u);
  EXPECT_EQ(be32(20), 900u);
}

TEST_F(Html, MergeRejectsWhatItCannotRead) {
  auto out = dir_ / "merged";
  auto bad = dir_ / "bad.json";
  std::ofstream(bad) << "{\"schema_version\": \"2.0\", \"cases\": []}";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"merge", bad.string(), "--out", out.string()},
           {"merge", (dir_ / "absent.json").string(), "--out", out.string()},
           {"merge", "--out", out.string()}}) {
    auto r = mudjack(args);
    EXPECT_EQ(r.code, 2) << args[1];
    if (args[1] != "--out") {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  auto r = mudjack({"merge", bad.string(), "--out", out.string()});
  EXPECT_NE(r.err.find("schema 2.0"), std::string::npos) << r.err;
  r = mudjack({"merge", (dir_ / "absent.json").string(), "--out", out.string()});
  EXPECT_NE(r.err.find("absent.json: no such file"), std::string::npos) << r.err;
}

}  // namespace
