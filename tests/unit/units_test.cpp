// Numbers as every view says them (report/units.hpp, oracle/digits.hpp): the
// same thresholds and digits as the Python API's _duration, _eps and _noise
// (python/mudjack/__init__.py).
#include "report/units.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "oracle/digits.hpp"

namespace mudjack {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Units, DurationsAsThePythonApiSaysThem) {
  EXPECT_EQ(report::duration_text(0), "0 ns");
  EXPECT_EQ(report::duration_text(999), "999 ns");
  EXPECT_EQ(report::duration_text(1000), "1.0 us");
  EXPECT_EQ(report::duration_text(44e6), "44.0 ms");
  EXPECT_EQ(report::duration_text(1.5e9), "1.50 s");
  EXPECT_EQ(report::duration_text(kInf), "-");
}

TEST(Units, TwoNumbersAreToldApart) {
  EXPECT_EQ(oracle::told_apart(1.0625, 1.0615),
            (std::pair<std::string, std::string>{"1.0625", "1.0615"}));
  EXPECT_EQ(oracle::told_apart(12, 64), (std::pair<std::string, std::string>{"12", "64"}));
  EXPECT_EQ(oracle::told_apart(1.06, 1.06), (std::pair<std::string, std::string>{"1.06", "1.06"}));
  // Beyond 6 digits: each as its shortest exact text.
  EXPECT_EQ(oracle::told_apart(1.0000001, 1.0000002),
            (std::pair<std::string, std::string>{"1.0000001", "1.0000002"}));
  EXPECT_EQ(oracle::shortest(0.1), "0.1");
  EXPECT_EQ(oracle::shortest(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(oracle::told_apart(kInf, 6).first, "inf");
}

TEST(Units, AnErrorBesideItsBound) {
  EXPECT_EQ(report::eps_over_bound(12, 64), "12 / 64");
  EXPECT_EQ(report::eps_over_bound(6.0004, 6), "6.0004 / 6");
  EXPECT_EQ(report::eps_over_bound(1234.5, 8192), "1.23e+03 / 8.19e+03");
  EXPECT_EQ(report::eps_over_bound(std::nullopt, 64), "- / 64");
  EXPECT_EQ(report::eps_over_bound(0.5, std::nullopt), "0.5");
  EXPECT_EQ(report::eps_over_bound(std::nullopt, std::nullopt), "-");
}

TEST(Units, ASpreadIsARatioNeverAPercent) {
  EXPECT_EQ(report::spread_ratio_text(1.8), "×1.80");
  EXPECT_EQ(report::spread_ratio_text(12.34), "×12.3");
  EXPECT_EQ(report::spread_ratio_text(291.6), "×292");
  EXPECT_EQ(report::spread_ratio_text(kInf), "×inf");
}

}  // namespace
}  // namespace mudjack
