// `mudjack check`'s terminal table (cli/check_table.hpp): the error beside
// its bound, an unstable median in brackets and its spread as a ratio, and
// under each failure the exact `mudjack repro` line.

#include "cli/check_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/common.hpp"
#include "judged.hpp"

namespace mudjack::cli {
namespace {

model::CaseResult case_of(const std::string& dtype, model::Outcome outcome, double error,
                          double bound) {
  model::CaseResult r;
  r.info.framework = "numpy";
  r.info.function = "scaled";
  r.info.mode = "eager";
  r.info.dtype = dtype;
  r.info.variant = dtype + "-given-eager";
  r.info.id = "numpy/scaled/" + r.info.variant;
  r.device = "cpu";
  r.outcome = outcome;
  r.numeric.error_eps = error;
  r.numeric.bound_eps = bound;
  return r;
}

void timed(model::CaseResult& r, double median_ns, std::vector<double> rounds, bool unstable) {
  r.latency.stats = model::LatencyStats{};
  r.latency.stats->median_ns = median_ns;
  r.latency.stats->p10_ns = median_ns;
  r.latency.stats->p90_ns = median_ns;
  model::Timing t;
  t.bound = "host_bound";
  t.rounds_ns = std::move(rounds);
  t.unstable = unstable;
  t.spread = 0.45;
  r.latency.timing = t;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST(CheckTable, OneErrorColumnBracketsAnUnstableMedianAndARatioNeverAPercent) {
  model::RunInfo run;
  run.id = "20260101-000000-abcd";
  run.suite = "check";
  auto steady = case_of("float32", model::Outcome::kPass, 12, 64);
  timed(steady, 1234, {1200, 1250, 1300}, false);
  auto noisy = case_of("float16", model::Outcome::kPass, 0.5, 8);
  timed(noisy, 44e6, {25e6, 44e6, 45e6}, true);
  const auto j = testing::judged(run, {steady, noisy}, {});
  const auto text = check_table_text(j, "/results");
  const auto rows = lines(text);
  ASSERT_EQ(rows.size(), 3u) << text;
  EXPECT_NE(rows[0].find("ERROR/BOUND eps"), std::string::npos) << text;
  EXPECT_EQ(text.find("MAX_REL"), std::string::npos) << text;
  EXPECT_EQ(text.find('%'), std::string::npos) << "a spread is a ratio, never a percent\n" << text;
  EXPECT_NE(rows[1].find("scaled cpu      eager     float32   pass"), std::string::npos) << text;
  EXPECT_NE(rows[1].find("12 / 64"), std::string::npos) << text;
  EXPECT_NE(rows[1].find(" 1.2 us"), std::string::npos) << text;
  EXPECT_NE(rows[1].find("×1.08"), std::string::npos) << "1300 / 1200\n" << text;
  EXPECT_EQ(rows[1].find("unstable"), std::string::npos) << text;
  EXPECT_NE(rows[2].find("0.5 / 8"), std::string::npos) << text;
  EXPECT_NE(rows[2].find("[44.0 ms]"), std::string::npos) << text;
  EXPECT_NE(rows[2].find("×1.80 unstable"), std::string::npos) << "45 / 25\n" << text;
  EXPECT_EQ(text.find("mudjack repro"), std::string::npos) << "no failure, no repro line";
}

TEST(CheckTable, EveryFailureIsFollowedByItsReproLine) {
  model::RunInfo run;
  run.id = "r1";
  run.suite = "check";
  auto beyond = case_of("float16", model::Outcome::kMismatch, 6.0004, 6);
  beyond.numeric.message = "1 of 4 elements beyond 6 eps of the float64 reference";
  auto ok = case_of("float32", model::Outcome::kPass, 1, 6);
  const auto j = testing::judged(run, {beyond, ok}, {});
  const auto rows = lines(check_table_text(j, "/tmp/my results"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_NE(rows[1].find("mismatch"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("6.0004 / 6"), std::string::npos) << "the error beyond its bound shows";
  EXPECT_NE(rows[2].find("1 of 4 elements beyond 6 eps"), std::string::npos) << rows[2];
  EXPECT_EQ(rows[3],
            std::string(16, ' ') +
                "mudjack repro numpy/scaled/float16-given-eager --device cpu --run r1 --out "
                "'/tmp/my results'");
  EXPECT_NE(rows[4].find("pass"), std::string::npos);
}

TEST(CheckTable, ShellWordsAreQuotedAsShlexQuotesThem) {
  EXPECT_EQ(shell_word("numpy/f/float32-given-eager"), "numpy/f/float32-given-eager");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("it's"), "'it'\"'\"'s'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("$HOME"), "'$HOME'");
}

}  // namespace
}  // namespace mudjack::cli
