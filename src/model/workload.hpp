#pragma once
// What a case does besides taking time: the work one timed call performs (so
// that latency becomes throughput) and the figures it measured (final loss,
// accuracy, iterations, an optimum). The capability suite's cases declare
// them; cases that declare nothing carry none. Pure functions; thread-safe.

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mudjack::model {

// The work one timed call does, as the case declares it: 2*n^3 "FLOP" for an
// n x n matmul, n "element" for an element-wise function, the samples of a
// training run. `amount` > 0; `unit` is a singular noun.
struct Work {
  double amount = 0;
  std::string unit;
};

// A figure the case measured besides its latency. `value` is absent when the
// probe sent null (a non-finite number); `unit` is free text: "" for a count
// or plain number, "1" for a fraction, "s" for seconds.
struct Metric {
  std::optional<double> value;
  std::string unit;
};

using Metrics = std::map<std::string, Metric>;

// Work per second at the median latency: amount / (median_ns * 1e-9), unit
// "<work unit>/s".
struct Throughput {
  double per_s = 0;
  std::string unit;
};

// Absent without work, without a median, or with a median that is not a
// positive finite number.
std::optional<Throughput> throughput(const std::optional<Work>& work,
                                     std::optional<double> median_ns);

// "12.3 GFLOP/s", "4.56 Melement/s", "812 sample/s": three significant
// digits with an SI prefix (k, M, G, T, P); plain below 1000.
std::string format_si(double value, const std::string& unit);

// JSON forms shared by the probe protocol, the store and results.json:
//   work:    null | {"amount": number, "unit": string}
//   metrics: {name: {"value": number | null, "unit": string}}
// The readers are lenient about what is missing (absent work, no metrics) and
// return nullopt / skip entries whose types are wrong, so a malformed figure
// never costs the outcome it rides on.
nlohmann::json work_to_json(const std::optional<Work>& work);
std::optional<Work> work_from_json(const nlohmann::json& j);
nlohmann::json metrics_to_json(const Metrics& metrics);
Metrics metrics_from_json(const nlohmann::json& j);

}  // namespace mudjack::model
