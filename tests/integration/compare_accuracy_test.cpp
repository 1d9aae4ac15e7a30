// mudjack compare on two real `mudjack check` runs of one function, before
// and after a fix that accumulates float16 in float32: the error against
// float64 drops from about 6 eps to under half an eps, and compare says so
// beside latency.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"

using namespace mjtest;
using nlohmann::json;

namespace {

TEST_F(Cli, CompareShowsAnAccuracyChangeBetweenTwoCheckRuns) {
  const auto out = dir_ / "results";
  for (const char* file : {"row_sum_float16.py", "row_sum_float32.py"}) {
    auto r = mudjack({"check", (kFixtures / "check" / file).string() + ":row_sum", "--quick",
                      "--out", out.string()});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
  }
  auto list = json::parse(mudjack({"runs", "--out", out.string(), "--json"}).out);
  ASSERT_EQ(list.size(), 2u);
  const auto after = list[0]["id"].get<std::string>();
  const auto before = list[1]["id"].get<std::string>();
  // A lax latency threshold: only accuracy is under test here.
  auto r = mudjack(
      {"compare", before, after, "--out", out.string(), "--threshold", "1000", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err << "an accuracy change never fails the comparison";
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["counts"]["accuracy_better"], 1);
  EXPECT_EQ(doc["counts"]["accuracy_worse"], 0);
  ASSERT_EQ(doc["rows"].size(), 1u);
  const auto& row = doc["rows"][0];
  EXPECT_EQ(row["case"], "numpy/row_sum/float16-given-eager");
  EXPECT_EQ(row["accuracy"], "better");
  EXPECT_GT(row["error_a_eps"].get<double>(), 2.0) << row.dump();
  EXPECT_LT(row["error_b_eps"].get<double>(), 0.5) << row.dump();

  r = mudjack({"compare", before, after, "--out", out.string(), "--threshold", "1000"});
  EXPECT_NE(r.out.find("## Accuracy changes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `numpy/row_sum/float16-given-eager` | cpu | float16 |"),
            std::string::npos)
      << r.out;
}

}  // namespace
