#pragma once
// Descriptive statistics of latency samples (CONTRIBUTING.md rule 11): pure functions
// with no state, tested against exact values.
//
// Contracts shared by every function here:
// - Input order does not matter; inputs are never modified (functions that
//   need order sort a copy).
// - An empty input, or one that contains NaN, has no statistic: scalar
//   functions return NaN, functions that return a struct or a value that must
//   be checked (summarize, geometric_mean) return nullopt. NaN rather than
//   nullopt for the scalar functions because they are mostly composed into
//   other arithmetic, where NaN propagates and a missing value cannot.
// - Percentiles follow numpy's default ('linear', Hyndman & Fan type 7):
//   the q-th percentile of n sorted values sits at rank h = (n - 1) * q / 100
//   and is interpolated linearly between the closest ranks floor(h) and
//   ceil(h). The interpolation uses numpy's own formula so results agree with
//   numpy.percentile bit for bit.

#include <cstdint>
#include <optional>
#include <span>

#include "model/model.hpp"

namespace mudjack::stats {

// The q-th percentile, q in [0, 100]. NaN if xs is empty, holds NaN, or q is
// outside [0, 100] or NaN.
double percentile(std::span<const double> xs, double q);

// percentile(xs, 50).
double median(std::span<const double> xs);

// Arithmetic mean. NaN if empty.
double mean(std::span<const double> xs);

// Sample standard deviation (divisor n - 1, numpy's ddof=1), computed in two
// passes around the mean. 0 for a single value; NaN if empty.
double stddev(std::span<const double> xs);

// Coefficient of variation, stddev / mean. 0 when the mean is 0 (all-zero
// samples vary by nothing we can express relative to them); NaN if empty.
double cv(std::span<const double> xs);

// Smallest value. NaN if empty or holds NaN.
double min(std::span<const double> xs);

// exp(mean(log x)) of strictly positive finite values; nullopt if xs is empty
// or any value is <= 0, NaN or infinite. Returns the value itself, exactly,
// when all values are equal (a ratio of 10 stays 10, not 10.000000000000002).
std::optional<double> geometric_mean(std::span<const double> xs);

// Every field of LatencyStats from one sort of the samples (nanoseconds in,
// nanoseconds out; cv is unitless): median, p10, p90, iqr = p75 - p25, mean,
// stddev (n - 1), cv, min, n. nullopt if samples is empty or holds NaN.
std::optional<model::LatencyStats> summarize(std::span<const double> samples_ns);

// Mann-Whitney U test, two-sided, normal approximation with tie and
// continuity corrections (scipy.stats.mannwhitneyu, method="asymptotic").
// u is the statistic of `a`; p is 1 when every value ties. nullopt when a
// side is empty or holds NaN.
struct UTest {
  double u = 0;
  double p = 1;
};
std::optional<UTest> mann_whitney_u(std::span<const double> a, std::span<const double> b);

// Two sample sets of one case: the device's and the baseline's.
struct SamplePair {
  std::span<const double> device;
  std::span<const double> baseline;
};

struct RatioInterval {
  double ratio = 0;  // geometric mean over pairs of median(device) / median(baseline)
  double low = 0;    // percentile bootstrap interval of that statistic
  double high = 0;
};

// Percentile bootstrap of the geometric mean of median ratios: each of
// `iterations` rounds resamples every pair's two sample sets with
// replacement (drawing each resample's median exactly, in O(1)).
// Deterministic for a given seed. nullopt when pairs is empty, a side is
// empty or holds NaN, or a median is not positive.
std::optional<RatioInterval> bootstrap_ratio(std::span<const SamplePair> pairs, int iterations,
                                             double confidence, uint64_t seed);

}  // namespace mudjack::stats
