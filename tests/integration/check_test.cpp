// `mudjack check FILE.py:NAME`: own code checked without a suite (the real
// binary, real numpy and torch probes), and each kind of bad input one line
// and exit 2.

#include <gtest/gtest.h>

#include <string>

#include "harness.hpp"

using namespace mjtest;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(Cli, CheckQuickOfAFunctionPrintsItsErrorSizeAndMedian) {
  auto r = mudjack({"check", (kFixtures / "check" / "numpy_only.py").string() + ":scaled_cumsum",
                    "--quick", "--budget-ms", "2", "--out", (dir_ / "results").string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "ERROR_EPS")) << r.out;
  // One eager float32 case on cpu, passed against its float64 reference.
  EXPECT_TRUE(has(r.out, "cpu      eager     float32   pass")) << r.out;
  EXPECT_FALSE(has(r.out, "float16")) << "--quick keeps the inputs' own dtype\n" << r.out;
}

TEST_F(Cli, CheckOfATorchModuleRunsTheDtypeGridAndCompiled) {
  auto r = mudjack({"check", (kFixtures / "check" / "mine.py").string() + ":block", "--budget-ms",
                    "2", "--out", (dir_ / "results").string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const char* dtype : {"float16", "bfloat16", "float32", "float64"}) {
    EXPECT_TRUE(has(r.out, std::string("eager     ") + dtype)) << dtype << "\n" << r.out;
    EXPECT_TRUE(has(r.out, std::string("compiled  ") + dtype)) << dtype << "\n" << r.out;
  }
  EXPECT_FALSE(has(r.out, " fail ")) << r.out;
}

TEST_F(Cli, CheckOfBadInputIsOneLineAndExitTwo) {
  const auto fixture = [](const std::string& file) {
    return (kFixtures / "check" / file).string();
  };
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"nothere.py:f", "nothere.py: no such file"},
      {fixture("broken.py") + ":f", "broken.py does not import: RuntimeError: boom at import"},
      {fixture("numpy_only.py"), "check needs FILE.py:NAME"},
      {fixture("numpy_only.py") + ":nope", "numpy_only.py has no nope (it defines: "},
      {fixture("mine.py") + ":two_args", "does not take the 1 inputs two_args_inputs() returns"},
      {fixture("numpy_only.py") + ":broken_inputs",
       "broken_inputs_inputs() raised ValueError: no data here"},
  };
  for (const auto& [target, message] : bad) {
    auto r = mudjack({"check", target, "--out", (dir_ / "results").string()});
    EXPECT_EQ(r.code, 2) << target << "\n" << r.err;
    EXPECT_TRUE(has(r.err, message)) << target << "\n" << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line\n" << r.err;
  }
}

}  // namespace
