#include "stats/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "oracle/accuracy.hpp"
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
  if (auto l = take("load"); l.is_number()) f.load = l.get<double>();
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
    const bool waits = !t.enqueue_ns || *t.enqueue_ns <= kHostWaitShare * wall;
    const bool busy = t.device_ns && wall > 0 && *t.device_ns >= kDeviceBoundShare * wall && waits;
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
  t.load = facts.load;
  if (auto m = positive_median(latency.samples_ns)) t.rounds_ns.push_back(*m);
  latency.stats = summarize(latency.samples_ns);
  if (latency.stats &&
      latency.stats->median_ns > 0) {  // one round's spread, until rounds replace it
    t.spread = (latency.stats->p90_ns - latency.stats->p10_ns) / latency.stats->median_ns;
    t.unstable = t.spread > kUnstableSpread;
  }
  latency.timing = std::move(t);
}

bool whole_model(const model::CaseInfo& info) {
  return std::any_of(info.tags.begin(), info.tags.end(),
                     [](const std::string& t) { return t.rfind("name::", 0) == 0; });
}

bool composition(const model::CaseInfo& info) {
  return whole_model(info) ||
         std::find(info.tags.begin(), info.tags.end(), "check.target::model") != info.tags.end();
}

std::optional<int64_t> reduction_depth(const model::Metrics& metrics) {
  constexpr std::string_view kOp = "op:";
  bool histogram = false;
  double depth = 0;
  for (const auto& [name, metric] : metrics) {
    if (!name.starts_with(kOp) || !metric.value) continue;
    histogram = true;
    if (oracle::reduces(std::string_view(name).substr(kOp.size()))) depth += *metric.value;
  }
  if (!histogram) return std::nullopt;
  return static_cast<int64_t>(std::max(1.0, depth));
}

bool in_device_time(const model::Timing& t) {
  return t.bound == "device_bound" && t.rule == "device_events";
}

bool slow_case(const model::Latency& latency) {
  return latency.stats && latency.stats->median_ns >= kSlowCallMs * 1e6;
}

bool wants_rounds(const model::CaseResult& r) {
  const auto& t = r.latency.timing;
  return t && (t->bound == "host_bound" || in_device_time(*t)) && r.info.mode != "compiled" &&
         !whole_model(r.info) && !r.latency.samples_ns.empty() && !slow_case(r.latency) &&
         model::props(r.outcome).ran;
}

void add_round(model::Latency& latency, const RoundFacts& facts) {
  if (!latency.timing) return;
  auto& t = *latency.timing;
  const auto& samples = in_device_time(t) ? facts.device_samples_ns : facts.samples_ns;
  latency.samples_ns.insert(latency.samples_ns.end(), samples.begin(), samples.end());
  if (auto m = positive_median(samples)) t.rounds_ns.push_back(*m);
  if (facts.drift_ns) t.drift_ns.push_back(*facts.drift_ns);
  if (facts.load) t.load = std::max(t.load.value_or(0), *facts.load);
}

double round_budget_ms(const model::Latency& latency, double budget_ms) {
  const bool device = latency.timing && in_device_time(*latency.timing);
  return device ? std::max(budget_ms, kDeviceRoundMs) : budget_ms;
}

void finish_rounds(model::Latency& latency) {
  if (!latency.timing || latency.samples_ns.empty()) return;
  auto& t = *latency.timing;
  latency.stats = summarize(latency.samples_ns);
  if (t.rounds_ns.size() < 2 || !latency.stats) return;
  const double mid = median(t.rounds_ns);
  const auto [lo, hi] = std::minmax_element(t.rounds_ns.begin(), t.rounds_ns.end());
  latency.stats->median_ns = in_device_time(t) ? *lo : mid;
  t.spread = mid > 0 ? (*hi - *lo) / mid : 0;
  t.unstable = t.spread > kUnstableSpread;
}

double drift_spread(const model::Timing& t) {
  if (t.drift_ns.size() < 2) return 0;
  const double mid = median(t.drift_ns);
  const auto [lo, hi] = std::minmax_element(t.drift_ns.begin(), t.drift_ns.end());
  return mid > 0 ? (*hi - *lo) / mid : 0;
}

namespace {

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * share);
  return buf;
}

std::string fixed(double v, const char* format) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// p90 / p10 of the drift detector per (framework, device), the worst one
// above kBusyDrift as a cause.
std::string drift_cause(const std::vector<model::CaseResult>& cases) {
  std::map<std::string, std::vector<double>> per;
  for (const auto& r : cases) {
    if (!r.latency.timing) continue;
    auto& xs = per[r.info.framework + " on " + r.device];
    for (double d : r.latency.timing->drift_ns) {
      if (d > 0) xs.push_back(d);
    }
  }
  std::string worst;
  double top = kBusyDrift;
  for (const auto& [where, xs] : per) {
    if (xs.size() < 5) continue;
    const double ratio = percentile(xs, 90) / percentile(xs, 10);
    if (ratio > top) {
      top = ratio;
      worst = "drift detector p90/p10 " + fixed(ratio, "%.2f") + " (" + where + ")";
    }
  }
  return worst;
}

}  // namespace

std::string unstable_text(const model::Latency& latency) {
  if (!latency.timing || !latency.timing->unstable) return "";
  const auto& t = *latency.timing;
  std::string out = "unstable, spread " + percent(t.spread);
  if (const double host = drift_spread(t); host > kUnstableSpread) {
    out += ", host drift " + percent(host);
  }
  return out;
}

Busy busy_machine(const std::vector<model::CaseResult>& cases) {
  Busy b;
  double steal = 0, load = 0, lo_mhz = 0, hi_mhz = 0;
  std::vector<std::string> throttle;
  for (const auto& r : cases) {
    if (!r.latency.timing) continue;
    const auto& t = *r.latency.timing;
    b.timed += r.latency.stats ? 1 : 0;
    b.unstable += t.unstable ? 1 : 0;
    steal = std::max(steal, t.steal.value_or(0));
    load = std::max(load, t.load.value_or(0));
    if (t.sm_clock_mhz && *t.sm_clock_mhz > 0) {
      lo_mhz = lo_mhz == 0 ? *t.sm_clock_mhz : std::min(lo_mhz, *t.sm_clock_mhz);
      hi_mhz = std::max(hi_mhz, *t.sm_clock_mhz);
    }
    for (const auto& name : t.throttle) {
      if (std::find(throttle.begin(), throttle.end(), name) == throttle.end()) {
        throttle.push_back(name);
      }
    }
  }
  if (steal > kBusySteal) b.causes.push_back("steal up to " + percent(steal));
  if (load > kBusyLoad) b.causes.push_back("load up to " + fixed(load, "%.1f") + " per core");
  if (hi_mhz > 0 && (hi_mhz - lo_mhz) > kBusyClockDrop * hi_mhz) {
    b.causes.push_back("GPU SM clock " + fixed(lo_mhz, "%.0f") + "-" + fixed(hi_mhz, "%.0f") +
                       " MHz");
  }
  if (!throttle.empty()) {
    std::string names;
    for (const auto& n : throttle) names += (names.empty() ? "" : ", ") + n;
    b.causes.push_back("GPU clock throttled (" + names + ")");
  }
  if (auto drift = drift_cause(cases); !drift.empty()) b.causes.push_back(drift);
  return b;
}

std::string busy_line(const Busy& busy) {
  if (busy.causes.empty() && busy.unstable == 0) return "";
  std::string out = "timing: " + std::to_string(busy.unstable) + " of " +
                    std::to_string(busy.timed) + " timed cases unstable (spread over " +
                    percent(kUnstableSpread) + ")";
  if (!busy.causes.empty()) {
    out += "; busy machine: ";
    for (size_t i = 0; i < busy.causes.size(); ++i) out += (i ? ", " : "") + busy.causes[i];
    out += "; read medians as this machine's state, not the case's";
  }
  return out;
}

}  // namespace mudjack::stats
