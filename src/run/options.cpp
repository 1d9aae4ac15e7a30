#include "run/options.hpp"

#include <unistd.h>

#include <algorithm>

#include "run/retention.hpp"

namespace mudjack::run {
using nlohmann::json;

int64_t default_memory_limit_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return static_cast<int64_t>(pages) * page * 3 / 4;
}

int64_t memory_limit_or_default(int64_t bytes) {
  return bytes > 0 ? bytes : default_memory_limit_bytes();
}

int64_t memory_limit_of(const RunOptions& options) {
  return memory_limit_or_default(options.memory_limit_bytes);
}

int64_t mb_to_bytes(double mb) {
  return static_cast<int64_t>(mb * 1048576);
}

std::optional<std::string> invalid(const RunOptions& o) {
  if (auto why = out_of_range("timeout_s", o.timeout_s, kTimeoutRangeS)) return why;
  if (auto why = out_of_range("budget_ms", o.budget_ms, kBudgetRangeMs)) return why;
  if (auto why = out_of_range("warmup_ms", o.warmup_ms, kWarmupRangeMs)) return why;
  if (auto why = out_of_range("min_samples", o.min_samples, kSamplesRange)) return why;
  if (auto why = out_of_range("max_samples", o.max_samples, kSamplesRange)) return why;
  if (auto why = out_of_range("rounds", o.rounds, kRoundsRange)) return why;
  if (auto why = out_of_range("cpu_probes", o.cpu_probes, kCpuProbesRange)) return why;
  if (auto why = out_of_range("device_probes", o.device_probes, kDeviceProbesRange)) return why;
  if (o.max_samples < o.min_samples) {
    return "min_samples (" + std::to_string(o.min_samples) + ") must not exceed max_samples (" +
           std::to_string(o.max_samples) + ")";
  }
  if (auto why = out_of_range("seed", o.seed, kSeedRange)) return why;
  if (!parse_keep(o.keep_outputs)) {
    return "keep_outputs must be one of " + std::string(kKeepNames) + ", got '" + o.keep_outputs +
           "'";
  }
  if (!o.policy.empty() && !model::is_policy(o.policy)) {
    return "policy must be timed or once, got '" + o.policy + "'";
  }
  // 0: the default limit (default_memory_limit_bytes()).
  if (o.memory_limit_bytes != 0 &&
      (o.memory_limit_bytes < 0 || o.memory_limit_bytes > mb_to_bytes(kMemoryLimitRangeMb.high))) {
    return "memory_limit_bytes must be between 1 and " +
           std::to_string(mb_to_bytes(kMemoryLimitRangeMb.high)) + ", got " +
           std::to_string(o.memory_limit_bytes);
  }
  return std::nullopt;
}

json to_json(const RunOptions& o) {
  json j = {{"suites", plan::suites_to_json(o.suites)},
            {"frameworks", o.frameworks},
            {"devices", o.devices},
            {"filter", o.filter},
            {"profile", o.profile},
            {"timeout_s", o.timeout_s},
            {"budget_ms", o.budget_ms},
            {"min_samples", o.min_samples},
            {"max_samples", o.max_samples},
            {"warmup_ms", o.warmup_ms},
            {"rounds", o.rounds},
            {"memory_limit_bytes", memory_limit_of(o)},
            {"seed", o.seed},
            {"serial", o.serial},
            {"cpu_probes", o.cpu_probes},
            {"device_probes", o.device_probes},
            {"no_baseline", o.no_baseline},
            {"params", plan::params_to_json(o.params)},
            {"python", o.python}};
  if (!o.via.empty()) j["via"] = o.via;
  if (!o.narrowed.empty()) j["narrowed"] = o.narrowed;
  if (!o.command.empty()) j["command"] = o.command;
  j["keep_outputs"] = o.keep_outputs;
  if (!o.policy.empty()) j["policy"] = o.policy;
  return j;
}

std::vector<std::string> planned_devices(const RunOptions& o) {
  auto devices = o.devices;
  if (!devices.empty() && !o.no_baseline &&
      std::find(devices.begin(), devices.end(), o.baseline) == devices.end()) {
    devices.insert(devices.begin(), o.baseline);
  }
  return devices;
}

RunOptions from_json(const json& stored, const std::string& baseline) {
  RunOptions o;
  if (!stored.is_object()) return o;
  o.suites = plan::suites_from_json(stored.value("suites", json::array()));
  o.frameworks = stored.value("frameworks", o.frameworks);
  o.devices = stored.value("devices", o.devices);
  o.filter = stored.value("filter", o.filter);
  o.profile = stored.value("profile", o.profile);
  o.baseline = baseline;
  o.timeout_s = stored.value("timeout_s", o.timeout_s);
  o.budget_ms = stored.value("budget_ms", o.budget_ms);
  o.warmup_ms = stored.value("warmup_ms", o.warmup_ms);
  o.rounds = stored.value("rounds", 1);  // runs before rounds had one
  o.min_samples = stored.value("min_samples", o.min_samples);
  o.max_samples = stored.value("max_samples", o.max_samples);
  o.memory_limit_bytes = stored.value("memory_limit_bytes", o.memory_limit_bytes);
  o.seed = stored.value("seed", o.seed);
  o.serial = stored.value("serial", o.serial);
  o.cpu_probes = stored.value("cpu_probes", o.cpu_probes);
  o.device_probes = stored.value("device_probes", 1);  // runs before it had one
  o.no_baseline = stored.value("no_baseline", o.no_baseline);
  o.params = plan::params_from_json(stored.value("params", json::object()));
  o.python = stored.value("python", o.python);
  o.via = stored.value("via", o.via);
  o.narrowed = stored.value("narrowed", o.narrowed);
  o.command = stored.value("command", o.command);
  o.keep_outputs = stored.value("keep_outputs", o.keep_outputs);
  o.policy = stored.value("policy", o.policy);
  return o;
}

}  // namespace mudjack::run
