#include "run/options.hpp"

#include <unistd.h>

namespace mudjack::run {
using nlohmann::json;

int64_t default_memory_limit_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return static_cast<int64_t>(pages) * page * 3 / 4;
}

std::optional<std::string> invalid(const RunOptions& o) {
  if (o.min_samples < 1 || o.max_samples < o.min_samples) {
    return "min_samples must be >= 1 and <= max_samples";
  }
  if (!(o.timeout_s > 0)) return "timeout_s must be positive";
  if (!(o.budget_ms > 0)) return "budget_ms must be positive";
  if (!(o.warmup_ms >= 0)) return "warmup_ms must not be negative";
  if (o.memory_limit_bytes < 0) return "memory limit must not be negative";
  return std::nullopt;
}

json to_json(const RunOptions& o) {
  json suites = json::array();
  for (const auto& ref : o.suites)
    suites.push_back({{"name", ref.name}, {"dir", ref.dir.string()}});
  json j = {{"suites", suites},
            {"frameworks", o.frameworks},
            {"devices", o.devices},
            {"filter", o.filter},
            {"profile", o.profile},
            {"timeout_s", o.timeout_s},
            {"budget_ms", o.budget_ms},
            {"min_samples", o.min_samples},
            {"max_samples", o.max_samples},
            {"warmup_ms", o.warmup_ms},
            {"memory_limit_bytes",
             o.memory_limit_bytes > 0 ? o.memory_limit_bytes : default_memory_limit_bytes()},
            {"seed", o.seed},
            {"serial", o.serial},
            {"params", plan::params_to_json(o.params)},
            {"python", o.python}};
  if (!o.via.empty()) j["via"] = o.via;
  return j;
}

RunOptions from_json(const json& stored, const std::string& baseline) {
  RunOptions o;
  if (!stored.is_object()) return o;
  for (const auto& ref : stored.value("suites", json::array())) {
    o.suites.push_back({ref.value("name", ""), ref.value("dir", "")});
  }
  o.frameworks = stored.value("frameworks", o.frameworks);
  o.devices = stored.value("devices", o.devices);
  o.filter = stored.value("filter", o.filter);
  o.profile = stored.value("profile", o.profile);
  o.baseline = baseline;
  o.timeout_s = stored.value("timeout_s", o.timeout_s);
  o.budget_ms = stored.value("budget_ms", o.budget_ms);
  o.warmup_ms = stored.value("warmup_ms", o.warmup_ms);
  o.min_samples = stored.value("min_samples", o.min_samples);
  o.max_samples = stored.value("max_samples", o.max_samples);
  o.memory_limit_bytes = stored.value("memory_limit_bytes", o.memory_limit_bytes);
  o.seed = stored.value("seed", o.seed);
  o.serial = stored.value("serial", o.serial);
  o.params = plan::params_from_json(stored.value("params", json::object()));
  o.python = stored.value("python", o.python);
  o.via = stored.value("via", o.via);
  return o;
}

}  // namespace mudjack::run
