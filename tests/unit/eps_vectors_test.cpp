// The accuracy oracle's error in eps held to tests/fixtures/eps_vectors.json,
// the table the probe's Python function (probe/mudjack_probe/eps.py, which
// the repro and fuzz scripts embed) is held to by
// tests/python/test_eps_vectors.py: one metric, two implementations, the same
// answers (issue 49).

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "oracle/accuracy.hpp"
#include "oracle/npy.hpp"

namespace mudjack::oracle {
namespace {

using nlohmann::json;

double number(const json& v) {
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return v.get<double>();
}

// Complex elements are [re, im] pairs, stored interleaved as the oracle reads them.
Array array_of(const json& values, const json& shape, const std::string& descr, bool complex) {
  Array a;
  a.descr = descr;
  a.is_complex = complex;
  a.shape = shape.get<std::vector<int64_t>>();
  for (const auto& v : values) {
    if (complex) {
      a.values.push_back(number(v.at(0)));
      a.values.push_back(number(v.at(1)));
    } else {
      a.values.push_back(number(v));
    }
  }
  return a;
}

bool agrees(double got, double want) {
  if (std::isinf(want) || want == 0) return got == want;
  return std::fabs(got - want) <= 1e-12 * std::fabs(want);
}

TEST(EpsVectors, TheOracleGivesTheTablesAnswers) {
  std::ifstream in(std::string(MUDJACK_FIXTURES) + "/eps_vectors.json");
  ASSERT_TRUE(in.good());
  const auto doc = json::parse(in);
  ASSERT_EQ(doc["format"], "mudjack.eps_vectors/1");
  ASSERT_GE(doc["vectors"].size(), 20u);
  for (const auto& v : doc["vectors"]) {
    const auto name = v["name"].get<std::string>();
    const auto descr = v["descr"].get<std::string>();
    const bool complex = descr.find('c') != std::string::npos;
    const auto x = array_of(v["output"], v["shape"], descr, complex);
    const auto r = array_of(v["reference"], v["shape"], complex ? "<c16" : "<f8", complex);
    const auto eps = dtype_epsilon(v["dtype"].get<std::string>());
    ASSERT_TRUE(eps) << name;
    const auto e = measure(x, r, *eps, 1e300);
    EXPECT_TRUE(e.problem.empty()) << name << ": " << e.problem;
    EXPECT_TRUE(agrees(e.eps, number(v["max"]))) << name << ": " << e.eps << " vs " << v["max"];
  }
}

}  // namespace
}  // namespace mudjack::oracle
