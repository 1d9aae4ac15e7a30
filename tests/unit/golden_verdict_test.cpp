// Golden verdicts: a crafted results.json (tests/fixtures/crafted/make.py:
// borderline latency, mixed outcomes) read back and judged, against verdicts
// worked out by hand in expected-verdicts.txt.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "report/json.hpp"
#include "verdict/verdict.hpp"

namespace mudjack {
namespace {

const std::string kCrafted = std::string(MUDJACK_FIXTURES) + "/crafted/";

TEST(GoldenVerdicts, CraftedResultsGetTheHandWorkedVerdicts) {
  auto results = report::load_json(kCrafted + "results.json");
  verdict::Options options;
  options.baseline = results.run.baseline;
  auto rows = verdict::compute(results.cases, options);

  std::ifstream expected(kCrafted + "expected-verdicts.txt");
  ASSERT_TRUE(expected) << "missing expected-verdicts.txt";
  std::string line;
  size_t checked = 0;
  while (std::getline(expected, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string function, device, verdict, flags, ratio;
    in >> function >> device >> verdict >> flags >> ratio;
    ASSERT_LT(checked, rows.size()) << "more expected rows than verdicts";
    const auto& row = rows[checked++];
    SCOPED_TRACE(line);
    EXPECT_EQ(row.function, function);
    EXPECT_EQ(row.device, device);
    EXPECT_EQ(model::to_string(row.verdict), verdict) << row.reason;
    std::string got_flags;
    for (auto f : row.flags)
      got_flags += (got_flags.empty() ? "" : ",") + std::string(model::to_string(f));
    EXPECT_EQ(got_flags.empty() ? "-" : got_flags, flags);
    if (ratio == "-") {
      EXPECT_FALSE(row.latency_ratio.has_value());
    } else {
      ASSERT_TRUE(row.latency_ratio.has_value());
      EXPECT_NEAR(*row.latency_ratio, std::stod(ratio), 1e-9 * std::stod(ratio));
    }
  }
  EXPECT_EQ(checked, rows.size()) << "verdicts without an expected row";

  // The borderline interval: the median ratio is above 10x, the lower bound is not.
  for (const auto& row : rows) {
    if (row.function == "f.straddles" && row.device == "cuda:0") {
      ASSERT_TRUE(row.latency_ratio_low && row.latency_ratio_high);
      EXPECT_LT(*row.latency_ratio_low, 10.0);
      EXPECT_GT(*row.latency_ratio_high, 10.0);
    }
    if (row.function == "f.exactly_ten" && row.device == "cuda:0") {
      EXPECT_DOUBLE_EQ(*row.latency_ratio_low, 10.0) << "one sample a side: a point interval";
    }
  }
}

}  // namespace
}  // namespace mudjack
