#include "stats/timing.hpp"

#include <algorithm>
#include <cmath>

#include "stats/stats.hpp"

namespace mudjack::stats {
namespace {

std::vector<double> numbers(const nlohmann::json& j) {
  std::vector<double> out;
  if (!j.is_array()) return out;
  for (const auto& x : j) {
    if (x.is_number()) out.push_back(x.get<double>());
  }
  return out;
}

std::optional<double> positive_median(std::span<const double> xs) {
  const double m = median(xs);
  return std::isfinite(m) && m > 0 ? std::optional<double>(m) : std::nullopt;
}

}  // namespace

RoundFacts take_round_facts(model::Latency& latency, nlohmann::json& extra) {
  RoundFacts f;
  f.samples_ns = latency.samples_ns;
  auto take = [&](const char* key) {
    nlohmann::json v;
    if (auto it = extra.find(key); it != extra.end()) {
      v = std::move(*it);
      extra.erase(key);
    }
    return v;
  };
  if (auto e = take("enqueue_ns"); e.is_number()) f.enqueue_ns = e.get<double>();
  f.device_samples_ns = numbers(take("device_samples_ns"));
  if (auto d = take("drift_ns"); d.is_number()) f.drift_ns = d.get<double>();
  return f;
}

void first_round(model::Latency& latency, const RoundFacts& facts, std::string_view device) {
  if (facts.samples_ns.empty()) return;
  model::Timing t;
  t.wall_ns = positive_median(facts.samples_ns);
  t.enqueue_ns = facts.enqueue_ns;
  if (facts.drift_ns) t.drift_ns.push_back(*facts.drift_ns);
  const double wall = t.wall_ns.value_or(0);
  if (device == "cpu") {
    t.rule = "host";
    t.bound = "host_bound";
  } else if (!facts.device_samples_ns.empty()) {
    t.rule = "device_events";
    t.device_ns = positive_median(facts.device_samples_ns);
    const bool busy = t.device_ns && wall > 0 && *t.device_ns >= kDeviceBoundShare * wall;
    t.bound = busy ? "device_bound" : "host_bound";
    if (busy) {
      latency.samples_ns = facts.device_samples_ns;
      latency.calls_per_sample = 1;
    }
  } else {
    t.rule = "enqueue";
    const bool waits = t.enqueue_ns && wall > 0 && wall - *t.enqueue_ns >= kDeviceBoundShare * wall;
    t.bound = waits ? "device_bound" : "host_bound";
  }
  if (auto m = positive_median(latency.samples_ns)) t.rounds_ns.push_back(*m);
  latency.timing = std::move(t);
  latency.stats = summarize(latency.samples_ns);
}

bool whole_model(const model::CaseInfo& info) {
  return std::any_of(info.tags.begin(), info.tags.end(),
                     [](const std::string& t) { return t.rfind("name::", 0) == 0; });
}

bool wants_rounds(const model::CaseResult& r) {
  const auto& t = r.latency.timing;
  return t && t->bound == "host_bound" && r.info.mode != "compiled" && !whole_model(r.info) &&
         !r.latency.samples_ns.empty() &&
         (r.outcome == model::Outcome::kPass || r.outcome == model::Outcome::kMismatch);
}

void add_round(model::Latency& latency, const RoundFacts& facts) {
  if (!latency.timing) return;
  latency.samples_ns.insert(latency.samples_ns.end(), facts.samples_ns.begin(),
                            facts.samples_ns.end());
  if (auto m = positive_median(facts.samples_ns)) latency.timing->rounds_ns.push_back(*m);
  if (facts.drift_ns) latency.timing->drift_ns.push_back(*facts.drift_ns);
}

void finish_rounds(model::Latency& latency) {
  if (!latency.timing || latency.samples_ns.empty()) return;
  auto& t = *latency.timing;
  latency.stats = summarize(latency.samples_ns);
  if (t.rounds_ns.size() < 2 || !latency.stats) return;
  const double mid = median(t.rounds_ns);
  const auto [lo, hi] = std::minmax_element(t.rounds_ns.begin(), t.rounds_ns.end());
  latency.stats->median_ns = mid;
  t.spread = mid > 0 ? (*hi - *lo) / mid : 0;
  t.unstable = t.spread > kUnstableSpread;
}

}  // namespace mudjack::stats
