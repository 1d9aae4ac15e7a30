#pragma once
// Two sets of results, case by case: which got slower or faster beyond a
// threshold with statistical confidence (Mann-Whitney U on the raw samples)
// and outside both runs' own measured noise (the spread of their rounds),
// which started or stopped failing, and whose error against float64 (the
// accuracy oracle's, in eps) got better or worse. `mudjack compare A B` renders this and
// exits 1 on a regression or a new failure, for CI. Pure functions.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::compare {

struct Side {
  std::string label;  // how the reports name it ("run r1 @ cuda:0")
  std::vector<model::CaseResult> results;
  std::string device;  // empty: match cases on (case id, device)
  // The run's RunInfo::environment and ::options (null when unknown): what
  // the warnings compare (chips, versions, settings).
  nlohmann::json environment = nullptr;
  nlohmann::json options = nullptr;
};

struct Options {
  double threshold = 1.2;  // ratio B/A beyond which a significant change counts
  double alpha = 0.01;     // significance level of the U test
  // An accuracy change (the oracle's error against float64, in eps of the
  // case's dtype) is shown when the larger error is at least
  // accuracy_factor times the smaller and they differ by at least
  // accuracy_min_eps: 0.91 -> 0.33 eps is shown (2.8x, 0.58 eps), 0.1 ->
  // 0.3 eps is not (under half an eps: rounding), nor 3 -> 5 eps (1.7x).
  // Shown beside latency; it never sets the exit code (a case that stops
  // agreeing is a mismatch: a new failure).
  double accuracy_factor = 2;
  double accuracy_min_eps = 0.5;
};

// Whether a case's error against float64 changed beyond Options' rule.
enum class Accuracy { kSame, kBetter, kWorse };
std::string_view to_string(Accuracy a);

enum class Change { kRegression, kImprovement, kNewFailure, kFixed, kUnchanged, kOnlyA, kOnlyB };
std::string_view to_string(Change c);

struct Row {
  std::string case_id;
  std::string device_a, device_b;
  std::optional<model::Outcome> a, b;
  std::optional<double> median_a_ns, median_b_ns;
  std::optional<double> ratio;  // median B / median A
  std::optional<double> p;      // U test
  // (1 + spread A) x (1 + spread B): a ratio inside [1/noise, noise] is no
  // change, whatever the threshold (timing rounds' spread; 1 without rounds).
  double noise = 1;
  // Significant and beyond the threshold, but inside `noise`: counted
  // unchanged, and said so.
  bool inside_noise = false;
  Change change = Change::kUnchanged;
  std::string detail;  // B's error when it newly fails
  // The oracle's error against float64 on each side, in eps, with the bound
  // B was held to; `accuracy` compares them (Options: accuracy_factor).
  std::string dtype;
  std::optional<double> error_a_eps, error_b_eps, bound_b_eps;
  Accuracy accuracy = Accuracy::kSame;
};

// One function's rows: its changes counted, and the geometric mean of its
// cases' median ratios.
struct FunctionRow {
  std::string function;  // "<framework>/<function>" from the case ids
  std::map<Change, int> changes;
  int inside_noise = 0;
  int accuracy_better = 0, accuracy_worse = 0;
  std::optional<double> ratio;
};

struct Report {
  std::string label_a, label_b;
  Options options;
  std::vector<Row> rows;  // sorted by case id
  // What makes the two sides hard to compare: different chips, framework
  // or Python versions, or timing settings; a side without measured noise.
  std::vector<std::string> warnings;
  int count(Change c) const;
  int count(Accuracy a) const;
  int inside_noise() const;
  // Functions with any row other than unchanged (or inside the noise, or
  // whose accuracy changed), sorted.
  std::vector<FunctionRow> functions() const;
  bool regressed() const { return count(Change::kRegression) + count(Change::kNewFailure) > 0; }
};

Report compare(const Side& a, const Side& b, const Options& options);
nlohmann::json to_json(const Report& report);
// The counts, the warnings and the per-function summary; with `cases`, the
// changed cases too.
std::string to_markdown(const Report& report, bool cases = false);

}  // namespace mudjack::compare
