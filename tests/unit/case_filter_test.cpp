// Unit tests for plan::CaseFilter: RE2 patterns over case ids, matched in
// linear time whatever the pattern; bad patterns are one-line errors.

#include "plan/case_filter.hpp"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace mudjack::plan {
namespace {

TEST(CaseFilter, MatchesAnywhereInTheId) {
  CaseFilter f("ok\\.");
  EXPECT_TRUE(f.matches("ok.add"));
  EXPECT_TRUE(f.matches("numpy/ok.add"));
  EXPECT_FALSE(f.matches("okadd"));
  EXPECT_TRUE(CaseFilter("").matches("anything")) << "an empty filter keeps every case";
  EXPECT_TRUE(CaseFilter("^torch/").matches("torch/sum/v"));
  EXPECT_FALSE(CaseFilter("^torch/").matches("jax/torch/v"));
}

// "(a+)+$" takes exponential time in a backtracking engine (std::regex) on
// "aaa...ab"; RE2 answers at once.
TEST(CaseFilter, HostilePatternsRunInLinearTime) {
  const std::string id = std::string(5000, 'a') + "b";
  const auto start = std::chrono::steady_clock::now();
  for (const char* pattern : {"(a+)+$", "(a|a)*$", "(a*)*b$c", "(.*a){20}$"}) {
    ASSERT_FALSE(filter_error(pattern).has_value()) << pattern;
    CaseFilter f(pattern);
    (void)f.matches(id);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(CaseFilter, BadPatternsAreOneLineErrors) {
  for (const char* pattern : {"(unclosed", "a{2,1}", "(?<=x)y", "(a)\\1", "*", "x\n(y"}) {
    auto why = filter_error(pattern);
    ASSERT_TRUE(why.has_value()) << pattern;
    EXPECT_FALSE(why->empty());
    EXPECT_EQ(why->find('\n'), std::string::npos) << *why;
    try {
      CaseFilter f(pattern);
      ADD_FAILURE() << "no FatalError for " << pattern;
    } catch (const util::FatalError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("bad filter regex: ", 0), 0u) << e.what();
    }
  }
  EXPECT_FALSE(filter_error("").has_value());
}

TEST(CaseFilter, AHugeProgramIsRefusedNotBuilt) {
  EXPECT_TRUE(filter_error("((((a{100}){100}){100}){100})").has_value());
}

}  // namespace
}  // namespace mudjack::plan
