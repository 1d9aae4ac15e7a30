// util/number.hpp: the one parser of numeric flags, and its refusals.
#include "util/number.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mudjack::util {
namespace {

constexpr Range kPositive{0, 86400, false};
constexpr Range kAnyNonNegative{0, 1e300, true};
constexpr IntRange kSeed{0, INT64_MAX};

TEST(Number, ReadsPlainDecimals) {
  EXPECT_EQ(parse_real("--x", "120", kPositive).value, 120);
  EXPECT_EQ(parse_real("--x", "0.5", kPositive).value, 0.5);
  EXPECT_EQ(parse_real("--x", "1e3", kPositive).value, 1000);
  EXPECT_EQ(parse_real("--x", "2.5E-1", kPositive).value, 0.25);
  EXPECT_EQ(parse_int("--n", "9223372036854775807", kSeed).value, INT64_MAX);
  EXPECT_EQ(parse_int("--n", "007", kSeed).value, 7);
}

// The hostile strings of tests/integration/numeric_flags_test.cpp, here
// against the functions themselves: each refused with one line naming the
// flag and its range.
TEST(Number, RefusesHostileText) {
  const std::string huge(50000, '9');
  for (const std::string text :
       {"", " ", "-1", "nan", "inf", "-inf", "1e309", "1e-400", "0x10", "\xd9\xa3", " 5", "5 ",
        "+5", "5.", ".5", "1e", "--5", "1,5", huge.c_str()}) {
    const auto real = parse_real("--timeout-s", text, kPositive);
    EXPECT_FALSE(real.value.has_value()) << text;
    EXPECT_EQ(real.error.rfind("--timeout-s must be ", 0), 0u) << real.error;
    EXPECT_NE(real.error.find("more than 0 and at most 86400, got "), std::string::npos)
        << real.error;
    EXPECT_EQ(real.error.find('\n'), std::string::npos);
    EXPECT_LT(real.error.size(), 200u);
    const auto integer = parse_int("--seed", text, kSeed);
    EXPECT_FALSE(integer.value.has_value()) << text;
    EXPECT_EQ(integer.error.rfind("--seed must be ", 0), 0u) << integer.error;
    EXPECT_NE(integer.error.find("between 0 and 9223372036854775807, got "), std::string::npos)
        << integer.error;
  }
  // Underflow is refused even where 0 is in range: "1e-400" is not 0.
  EXPECT_FALSE(parse_real("--w", "1e-400", kAnyNonNegative).value.has_value());
  EXPECT_FALSE(parse_real("--w", "1e-310", kAnyNonNegative).value.has_value());  // subnormal
  EXPECT_FALSE(parse_int("--n", "9223372036854775808", kSeed).value.has_value());
  EXPECT_FALSE(parse_int("--n", "1.0", kSeed).value.has_value());
}

TEST(Number, Durations) {
  constexpr Range kBudget{0, 30.0 * 86400, false};
  const auto s = [&](const char* text) {
    return parse_duration_s("--budget", text, kBudget).value;
  };
  EXPECT_EQ(s("90"), 90);
  EXPECT_EQ(s("90s"), 90);
  EXPECT_EQ(s("10m"), 600);
  EXPECT_EQ(s("1h30m"), 5400);
  EXPECT_EQ(s("1.5h"), 5400);
  EXPECT_EQ(s("2m30"), 150);
  for (const char* bad : {"soon", "", " ", "-5m", "0s", "3000000h", "1e309s", "nan", "inf", "0x10",
                          "30s5", "1m1h", "1h1h", "1.s", "m", "5 m"}) {
    EXPECT_FALSE(s(bad).has_value()) << bad;
  }
  const std::string huge(50000, '9');
  const auto r = parse_duration_s("--budget", huge + "h", kBudget);
  EXPECT_FALSE(r.value.has_value());
  EXPECT_NE(r.error.find("--budget must be a duration"), std::string::npos);
  EXPECT_NE(r.error.find("at most 2592000"), std::string::npos);
}

TEST(Number, OutOfRangeNamesTheRange) {
  EXPECT_EQ(out_of_range("--timeout-s", 0.0, kPositive),
            "--timeout-s must be more than 0 and at most 86400, got 0");
  EXPECT_EQ(out_of_range("'seed'", int64_t{-1}, kSeed),
            "'seed' must be between 0 and 9223372036854775807, got -1");
  EXPECT_FALSE(out_of_range("x", 5.0, kPositive).has_value());
}

}  // namespace
}  // namespace mudjack::util
