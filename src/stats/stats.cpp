#include "stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace mudjack::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool has_nan(std::span<const double> xs) {
  return std::any_of(xs.begin(), xs.end(), [](double x) { return std::isnan(x); });
}

// A sorted copy; callers have already rejected NaN, so the order is strict
// weak and std::sort is well defined.
std::vector<double> sorted_copy(std::span<const double> xs) {
  std::vector<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  return v;
}

// numpy's 'linear' method on already sorted, non-empty, NaN-free values.
// Mirrors numpy: the fraction q / 100 is formed first, the rank is
// (n - 1) * fraction, and the lerp is computed from the nearer end so that
// t == 1 lands exactly on the upper value.
double percentile_sorted(const std::vector<double>& sorted, double q) {
  const double fraction = q / 100.0;
  const double rank = static_cast<double>(sorted.size() - 1) * fraction;
  const double lower = std::floor(rank);
  const auto lo = static_cast<size_t>(lower);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double t = rank - lower;
  const double a = sorted[lo];
  const double b = sorted[hi];
  const double diff = b - a;
  if (t >= 0.5) {
    return b - diff * (1.0 - t);
  }
  return a + diff * t;
}

double mean_unchecked(std::span<const double> xs) {
  double sum = 0;
  for (double x : xs) {
    sum += x;
  }
  return sum / static_cast<double>(xs.size());
}

double stddev_around(std::span<const double> xs, double mu) {
  if (xs.size() < 2) {
    return 0;
  }
  double squares = 0;
  for (double x : xs) {
    squares += (x - mu) * (x - mu);
  }
  return std::sqrt(squares / static_cast<double>(xs.size() - 1));
}

}  // namespace

double percentile(std::span<const double> xs, double q) {
  if (xs.empty() || has_nan(xs) || !(q >= 0.0 && q <= 100.0)) {
    return kNaN;
  }
  return percentile_sorted(sorted_copy(xs), q);
}

double median(std::span<const double> xs) {
  return percentile(xs, 50.0);
}

double mean(std::span<const double> xs) {
  if (xs.empty()) {
    return kNaN;
  }
  return mean_unchecked(xs);
}

double stddev(std::span<const double> xs) {
  if (xs.empty()) {
    return kNaN;
  }
  return stddev_around(xs, mean_unchecked(xs));
}

double cv(std::span<const double> xs) {
  if (xs.empty()) {
    return kNaN;
  }
  const double mu = mean_unchecked(xs);
  if (mu == 0) {
    return 0;
  }
  return stddev_around(xs, mu) / mu;
}

double min(std::span<const double> xs) {
  if (xs.empty() || has_nan(xs)) {
    return kNaN;
  }
  return *std::min_element(xs.begin(), xs.end());
}

std::optional<double> geometric_mean(std::span<const double> xs) {
  if (xs.empty()) {
    return std::nullopt;
  }
  for (double x : xs) {
    if (!(x > 0) || !std::isfinite(x)) {
      return std::nullopt;
    }
  }
  if (std::all_of(xs.begin(), xs.end(), [&](double x) { return x == xs.front(); })) {
    return xs.front();
  }
  // Logs rather than a running product: a long run of large or small ratios
  // cannot overflow or underflow.
  double log_sum = 0;
  for (double x : xs) {
    log_sum += std::log(x);
  }
  return std::exp(log_sum / static_cast<double>(xs.size()));
}

std::optional<model::LatencyStats> summarize(std::span<const double> samples_ns) {
  if (samples_ns.empty() || has_nan(samples_ns)) {
    return std::nullopt;
  }
  const std::vector<double> sorted = sorted_copy(samples_ns);
  model::LatencyStats s;
  s.median_ns = percentile_sorted(sorted, 50.0);
  s.p10_ns = percentile_sorted(sorted, 10.0);
  s.p90_ns = percentile_sorted(sorted, 90.0);
  s.iqr_ns = percentile_sorted(sorted, 75.0) - percentile_sorted(sorted, 25.0);
  s.mean_ns = mean_unchecked(samples_ns);
  s.stddev_ns = stddev_around(samples_ns, s.mean_ns);
  s.cv = s.mean_ns == 0 ? 0 : s.stddev_ns / s.mean_ns;
  s.min_ns = sorted.front();
  s.n = static_cast<int64_t>(sorted.size());
  return s;
}

namespace {

// The median of a with-replacement resample of `sorted` (n values), drawn
// exactly without resampling: picking index floor(U * n) for uniform U is
// monotone, so the resample's median sits at the median order statistic of n
// uniforms, which is Beta(k, n + 1 - k); the next order statistic, given that
// one at u, is u + (1 - u) Beta(1, n - k). O(1) per draw, whatever n is.
double resampled_median(const std::vector<double>& sorted, std::mt19937_64& rng) {
  const size_t n = sorted.size();
  if (n == 1) return sorted[0];
  auto beta = [&rng](double a, double b) {
    std::gamma_distribution<double> ga(a, 1.0), gb(b, 1.0);
    const double x = ga(rng);
    const double y = gb(rng);
    return x / (x + y);
  };
  auto at = [&](double u) {
    return sorted[std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)))];
  };
  const auto dn = static_cast<double>(n);
  if (n % 2 == 1) {
    const double k = (dn + 1) / 2;
    return at(beta(k, dn + 1 - k));
  }
  const double k = dn / 2;
  const double u1 = beta(k, dn + 1 - k);
  const double u2 = u1 + (1 - u1) * beta(1, dn - k);
  return (at(u1) + at(u2)) / 2;
}

}  // namespace

std::optional<RatioInterval> bootstrap_ratio(std::span<const SamplePair> pairs, int iterations,
                                             double confidence, uint64_t seed) {
  if (pairs.empty() || iterations < 1 || !(confidence > 0 && confidence < 1)) return std::nullopt;
  std::vector<std::pair<std::vector<double>, std::vector<double>>> sorted;
  sorted.reserve(pairs.size());
  double log_sum = 0;
  for (const auto& p : pairs) {
    if (p.device.empty() || p.baseline.empty() || has_nan(p.device) || has_nan(p.baseline)) {
      return std::nullopt;
    }
    sorted.emplace_back(sorted_copy(p.device), sorted_copy(p.baseline));
    const double d = percentile_sorted(sorted.back().first, 50);
    const double b = percentile_sorted(sorted.back().second, 50);
    if (!(d > 0) || !(b > 0)) return std::nullopt;
    log_sum += std::log(d / b);
  }
  const auto count = static_cast<double>(pairs.size());
  RatioInterval out;
  out.ratio = std::exp(log_sum / count);
  std::mt19937_64 rng(seed);
  std::vector<double> estimates;
  estimates.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    double total = 0;
    for (const auto& [device, baseline] : sorted) {
      total += std::log(resampled_median(device, rng) / resampled_median(baseline, rng));
    }
    estimates.push_back(std::exp(total / count));
  }
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1 - confidence) / 2 * 100;
  out.low = percentile_sorted(estimates, tail);
  out.high = percentile_sorted(estimates, 100 - tail);
  return out;
}

std::optional<UTest> mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty() || has_nan(a) || has_nan(b)) return std::nullopt;
  // Midranks over the pooled samples; tie groups feed the variance correction.
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  pooled.reserve(a.size() + b.size());
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& l, const auto& r) { return l.first < r.first; });
  const auto n = static_cast<double>(pooled.size());
  double rank_sum_a = 0;
  double tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double midrank = (static_cast<double>(i + j) + 1) / 2;  // ranks i+1 .. j
    const auto t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_a += midrank;
    }
    i = j;
  }
  const auto n1 = static_cast<double>(a.size());
  const auto n2 = static_cast<double>(b.size());
  UTest out;
  out.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mu = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return out;  // every value ties: no evidence of a difference
  const double z = (std::abs(out.u - mu) - 0.5) / std::sqrt(variance);
  out.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return out;
}

}  // namespace mudjack::stats
