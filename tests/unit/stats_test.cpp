// Exact values: hand-computed or numpy.percentile / numpy.std(ddof=1) output,
// compared bit for bit (EXPECT_EQ) where the module promises numpy's formula.

#include "stats/stats.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace mudjack::stats {
namespace {

const std::vector<double> kEmpty;

TEST(StatsPercentile, LinearInterpolationMatchesNumpy) {
  const std::vector<double> xs{1, 2, 3, 4};
  EXPECT_EQ(percentile(xs, 10), 1.3);
  EXPECT_EQ(percentile(xs, 90), 3.7);
  EXPECT_EQ(percentile(xs, 25), 1.75);
  EXPECT_EQ(percentile(xs, 75), 3.25);
  EXPECT_EQ(percentile(xs, 0), 1.0);
  EXPECT_EQ(percentile(xs, 100), 4.0);
}

TEST(StatsPercentile, UnsortedInputIsSortedFirstAndLeftUntouched) {
  const std::vector<double> xs{9, 1, 7, 3, 5};
  EXPECT_EQ(percentile(xs, 10), 1.8);
  EXPECT_EQ(percentile(xs, 33), 3.64);
  EXPECT_EQ(percentile(xs, 50), 5.0);
  EXPECT_EQ(percentile(xs, 90), 8.2);
  EXPECT_EQ(xs, (std::vector<double>{9, 1, 7, 3, 5}));
}

TEST(StatsPercentile, NumpyBitForBitOnAwkwardFractions) {
  // numpy.percentile([.1,.2,.3,.7,1.1,5.5,2.2], q)
  const std::vector<double> xs{0.1, 0.2, 0.3, 0.7, 1.1, 5.5, 2.2};
  EXPECT_EQ(percentile(xs, 10), 0.16000000000000003);
  EXPECT_EQ(percentile(xs, 25), 0.25);
  EXPECT_EQ(percentile(xs, 75), 1.6500000000000001);
  EXPECT_EQ(percentile(xs, 90), 3.5200000000000014);
}

TEST(StatsPercentile, Duplicates) {
  const std::vector<double> xs{3, 1, 3, 3, 2, 2};
  EXPECT_EQ(percentile(xs, 10), 1.5);
  EXPECT_EQ(percentile(xs, 25), 2.0);
  EXPECT_EQ(percentile(xs, 50), 2.5);
  EXPECT_EQ(percentile(xs, 75), 3.0);
  EXPECT_EQ(percentile(xs, 90), 3.0);
}

TEST(StatsPercentile, SingleElementIsEveryPercentile) {
  const std::vector<double> xs{42.5};
  for (double q : {0.0, 10.0, 50.0, 90.0, 100.0}) {
    EXPECT_EQ(percentile(xs, q), 42.5);
  }
}

TEST(StatsPercentile, NoValueForEmptyNaNOrOutOfRangeQ) {
  const std::vector<double> xs{1, 2, 3};
  EXPECT_TRUE(std::isnan(percentile(kEmpty, 50)));
  EXPECT_TRUE(std::isnan(percentile(xs, -0.1)));
  EXPECT_TRUE(std::isnan(percentile(xs, 100.1)));
  EXPECT_TRUE(std::isnan(percentile(xs, std::nan(""))));
  const std::vector<double> with_nan{1, std::nan(""), 3};
  EXPECT_TRUE(std::isnan(percentile(with_nan, 50)));
}

TEST(StatsMedian, OddAndEvenCounts) {
  EXPECT_EQ(median(std::vector<double>{5, 1, 3}), 3.0);
  EXPECT_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median(std::vector<double>{7}), 7.0);
  EXPECT_EQ(median(std::vector<double>{2, 2, 2, 9}), 2.0);
  EXPECT_TRUE(std::isnan(median(kEmpty)));
}

TEST(StatsMoments, MeanStddevCvOfTextbookSample) {
  const std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_EQ(mean(xs), 5.0);
  EXPECT_EQ(stddev(xs), 2.138089935299395);  // numpy.std(xs, ddof=1)
  EXPECT_EQ(cv(xs), 0.427617987059879);
}

TEST(StatsMoments, SingleElementHasNoSpread) {
  const std::vector<double> xs{3.5};
  EXPECT_EQ(mean(xs), 3.5);
  EXPECT_EQ(stddev(xs), 0.0);
  EXPECT_EQ(cv(xs), 0.0);
}

TEST(StatsMoments, ZeroMeanGivesZeroCv) {
  EXPECT_EQ(cv(std::vector<double>{-1, 1}), 0.0);
  EXPECT_EQ(cv(std::vector<double>{0, 0, 0}), 0.0);
}

TEST(StatsMoments, EmptyIsNaN) {
  EXPECT_TRUE(std::isnan(mean(kEmpty)));
  EXPECT_TRUE(std::isnan(stddev(kEmpty)));
  EXPECT_TRUE(std::isnan(cv(kEmpty)));
  EXPECT_TRUE(std::isnan(min(kEmpty)));
}

TEST(StatsMin, SmallestOfUnsorted) {
  EXPECT_EQ(min(std::vector<double>{3, -2, 7, -2}), -2.0);
  EXPECT_TRUE(std::isnan(min(std::vector<double>{1, std::nan("")})));
}

TEST(StatsGeometricMean, ExactAndComputedValues) {
  EXPECT_EQ(geometric_mean(std::vector<double>{10}), 10.0);
  EXPECT_EQ(geometric_mean(std::vector<double>{10, 10, 10}), 10.0);
  EXPECT_EQ(geometric_mean(std::vector<double>{2, 8}), 4.0);
  EXPECT_DOUBLE_EQ(*geometric_mean(std::vector<double>{5, 20}), 10.0);
  EXPECT_DOUBLE_EQ(*geometric_mean(std::vector<double>{1.5, 2.5, 4.0}), 2.46621207433047);
}

TEST(StatsGeometricMean, NoValueForEmptyOrNonPositive) {
  EXPECT_FALSE(geometric_mean(kEmpty).has_value());
  EXPECT_FALSE(geometric_mean(std::vector<double>{1, 0}).has_value());
  EXPECT_FALSE(geometric_mean(std::vector<double>{1, -2}).has_value());
  EXPECT_FALSE(geometric_mean(std::vector<double>{1, std::nan("")}).has_value());
  EXPECT_FALSE(geometric_mean(std::vector<double>{1, INFINITY}).has_value());
}

TEST(StatsSummarize, FillsEveryField) {
  const std::vector<double> xs{4, 1, 3, 2};
  const auto s = summarize(xs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->median_ns, 2.5);
  EXPECT_EQ(s->p10_ns, 1.3);
  EXPECT_EQ(s->p90_ns, 3.7);
  EXPECT_EQ(s->iqr_ns, 1.5);  // 3.25 - 1.75
  EXPECT_EQ(s->mean_ns, 2.5);
  EXPECT_DOUBLE_EQ(s->stddev_ns, 1.2909944487358056);  // sqrt(5/3)
  EXPECT_DOUBLE_EQ(s->cv, 1.2909944487358056 / 2.5);
  EXPECT_EQ(s->min_ns, 1.0);
  EXPECT_EQ(s->n, 4);
}

TEST(StatsSummarize, AgreesWithTheSingleFunctions) {
  const std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  const auto s = summarize(xs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->median_ns, median(xs));
  EXPECT_EQ(s->p10_ns, percentile(xs, 10));
  EXPECT_EQ(s->p90_ns, percentile(xs, 90));
  EXPECT_EQ(s->iqr_ns, percentile(xs, 75) - percentile(xs, 25));
  EXPECT_EQ(s->stddev_ns, stddev(xs));
  EXPECT_EQ(s->cv, cv(xs));
  EXPECT_EQ(s->min_ns, 2.0);
  EXPECT_EQ(s->n, 8);
}

TEST(StatsSummarize, SingleSample) {
  const auto s = summarize(std::vector<double>{1000});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->median_ns, 1000.0);
  EXPECT_EQ(s->p10_ns, 1000.0);
  EXPECT_EQ(s->p90_ns, 1000.0);
  EXPECT_EQ(s->iqr_ns, 0.0);
  EXPECT_EQ(s->stddev_ns, 0.0);
  EXPECT_EQ(s->cv, 0.0);
  EXPECT_EQ(s->n, 1);
}

TEST(StatsSummarize, EmptyOrNaNHasNoSummary) {
  EXPECT_FALSE(summarize(kEmpty).has_value());
  EXPECT_FALSE(summarize(std::vector<double>{1, std::nan("")}).has_value());
}

}  // namespace
}  // namespace mudjack::stats

namespace mudjack::stats {
namespace {

TEST(Bootstrap, IdenticalSamplesGiveAPointInterval) {
  std::vector<double> device(50, 20.0), baseline(40, 10.0);
  SamplePair pairs[] = {{device, baseline}};
  auto ci = bootstrap_ratio(pairs, 200, 0.95, 1);
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->ratio, 2.0);
  EXPECT_EQ(ci->low, 2.0);
  EXPECT_EQ(ci->high, 2.0);
}

TEST(Bootstrap, IntervalHoldsTheRatioAndShrinksWithMoreSamples) {
  auto noisy = [](size_t n, double centre) {
    std::vector<double> v;
    for (size_t i = 0; i < n; ++i)
      v.push_back(centre * (0.8 + 0.4 * static_cast<double>(i) / static_cast<double>(n - 1)));
    return v;
  };
  auto few_d = noisy(9, 30), few_b = noisy(9, 10);
  auto many_d = noisy(901, 30), many_b = noisy(901, 10);
  SamplePair few[] = {{few_d, few_b}};
  SamplePair many[] = {{many_d, many_b}};
  auto a = bootstrap_ratio(few, 1000, 0.95, 7);
  auto b = bootstrap_ratio(many, 1000, 0.95, 7);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(a->ratio, 3.0);
  EXPECT_LT(a->low, 3.0);
  EXPECT_GT(a->high, 3.0);
  EXPECT_LE(b->low, 3.0);
  EXPECT_GE(b->high, 3.0);
  EXPECT_LT(b->high - b->low, (a->high - a->low) / 3)
      << "901 samples pin the median far better than 9";
}

TEST(Bootstrap, GeometricMeanOverCasesAndDeterminism) {
  std::vector<double> d1(11, 40.0), b1(11, 10.0), d2(11, 10.0), b2(11, 10.0);
  SamplePair pairs[] = {{d1, b1}, {d2, b2}};
  auto x = bootstrap_ratio(pairs, 100, 0.9, 3);
  auto y = bootstrap_ratio(pairs, 100, 0.9, 3);
  ASSERT_TRUE(x && y);
  EXPECT_DOUBLE_EQ(x->ratio, 2.0);  // sqrt(4 * 1)
  EXPECT_EQ(x->low, y->low);
  EXPECT_EQ(x->high, y->high);
}

TEST(Bootstrap, RefusesWhatItCannotMeasure) {
  std::vector<double> some(5, 1.0), none, zeros(5, 0.0);
  SamplePair empty_side[] = {{some, none}};
  SamplePair zero_median[] = {{some, zeros}};
  EXPECT_FALSE(bootstrap_ratio(empty_side, 10, 0.95, 0));
  EXPECT_FALSE(bootstrap_ratio(zero_median, 10, 0.95, 0));
  EXPECT_FALSE(bootstrap_ratio({}, 10, 0.95, 0));
  SamplePair ok[] = {{some, some}};
  EXPECT_FALSE(bootstrap_ratio(ok, 10, 1.5, 0));
}

}  // namespace
}  // namespace mudjack::stats

namespace mudjack::stats {
namespace {

// Expected values from scipy.stats.mannwhitneyu(a, b, alternative="two-sided",
// method="asymptotic", use_continuity=True), scipy 1.17.1.
TEST(MannWhitneyU, MatchesScipyWithoutTies) {
  std::vector<double> a = {1.1, 2.2, 3.3, 4.4, 5.5}, b = {6.6, 7.7, 8.8, 9.9, 10.0, 11.1};
  auto t = mann_whitney_u(a, b);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->u, 0.0);
  EXPECT_NEAR(t->p, 0.00811311726556578, 1e-12);
}

TEST(MannWhitneyU, MatchesScipyWithTies) {
  std::vector<double> a = {1, 2, 2, 3, 3, 3, 4}, b = {3, 4, 4, 5, 5, 6};
  auto t = mann_whitney_u(a, b);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->u, 3.5);
  EXPECT_NEAR(t->p, 0.012999854364387305, 1e-12);
}

TEST(MannWhitneyU, AllTiesAndBadInput) {
  std::vector<double> a = {5, 5, 5}, b = {5, 5, 5, 5}, none;
  auto t = mann_whitney_u(a, b);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->u, 6.0);
  EXPECT_EQ(t->p, 1.0);
  EXPECT_FALSE(mann_whitney_u(a, none));
  std::vector<double> with_nan = {1, std::nan("")};
  EXPECT_FALSE(mann_whitney_u(with_nan, b));
}

}  // namespace
}  // namespace mudjack::stats
