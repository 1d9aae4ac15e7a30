#include "cli/config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "envs/envs.hpp"
#include "run/options.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
  throw util::FatalError(path.string() + ": " + what);
}

void only_keys(const toml::table& t, const std::set<std::string>& allowed,
               const std::filesystem::path& path, const std::string& where) {
  for (const auto& [key, value] : t) {
    if (!allowed.count(std::string(key.str()))) {
      bad(path, "unknown key '" + where + std::string(key.str()) + "'");
    }
  }
}

// [run] KEY: a number in the range `mudjack run`'s flag and the API take
// (run/options.hpp); TOML's nan and inf are refused like any value outside.
std::optional<double> number(const toml::table& t, const char* key, const run::Range& range,
                             const std::filesystem::path& path) {
  const auto* node = t.get(key);
  if (!node) return std::nullopt;
  const std::string name = std::string("run.") + key;
  if (auto v = node->value<double>()) {
    if (auto why = run::out_of_range(name, *v, range)) bad(path, *why);
    return v;
  }
  bad(path, name + " must be a number");
}

// [run] KEY: an integer in its range (run/options.hpp).
std::optional<int> integer(const toml::table& t, const char* key, const run::IntRange& range,
                           const std::filesystem::path& path) {
  const auto* node = t.get(key);
  if (!node) return std::nullopt;
  const std::string name = std::string("run.") + key;
  if (auto v = node->value_exact<int64_t>()) {
    if (auto why = run::out_of_range(name, *v, range)) bad(path, *why);
    return static_cast<int>(*v);
  }
  bad(path, name + " must be an integer");
}

// [probe] env_keep: the names as written (supervisor::keep_probe_environment
// judges them).
std::vector<std::string> env_keep(const toml::node& node, const std::filesystem::path& path) {
  const auto* t = node.as_table();
  if (!t) bad(path, "[probe] must be a table");
  only_keys(*t, {"env_keep"}, path, "probe.");
  std::vector<std::string> out;
  const auto* keep = t->get("env_keep");
  if (!keep) return out;
  const auto* names = keep->as_array();
  if (!names) bad(path, "probe.env_keep must be a list of variable names");
  for (const auto& n : *names) {
    auto v = n.value_exact<std::string>();
    if (!v) bad(path, "probe.env_keep must be a list of variable names");
    out.push_back(*v);
  }
  return out;
}

}  // namespace

Config load_config(const std::optional<std::filesystem::path>& explicit_path) {
  Config c;
  std::filesystem::path path = explicit_path.value_or("mudjack.toml");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (explicit_path) throw util::FatalError("config file " + path.string() + " does not exist");
    return c;
  }
  c.source = path;
  toml::table root;
  try {
    root = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    bad(path, "line " + std::to_string(where.line) + ": " + std::string(e.description()));
  }
  only_keys(root, {"profile", "results_dir", "python", "run", "params", "probe"}, path, "");
  if (const auto* node = root.get("profile")) {
    auto v = node->value<std::string>();
    if (!v) bad(path, "profile must be a string");
    if (std::find(envs::kProfiles.begin(), envs::kProfiles.end(), *v) == envs::kProfiles.end()) {
      bad(path, "unknown profile '" + *v + "'; known: " + envs::profile_names());
    }
    c.profile = *v;
  }
  if (const auto* node = root.get("results_dir")) {
    auto v = node->value<std::string>();
    if (!v) bad(path, "results_dir must be a string");
    c.results_dir = *v;
  }
  if (const auto* node = root.get("python")) {
    const auto* t = node->as_table();
    if (!t) bad(path, "[python] must be a table of framework = \"/path/to/python\"");
    for (const auto& [key, value] : *t) {
      std::string fw(key.str());
      if (std::find(envs::kFrameworks.begin(), envs::kFrameworks.end(), fw) ==
          envs::kFrameworks.end()) {
        bad(path, "unknown framework '" + fw + "' in [python]; known: " + envs::framework_names());
      }
      auto v = value.value<std::string>();
      if (!v) bad(path, "python." + fw + " must be a path string");
      c.python[fw] = *v;
    }
  }
  if (const auto* node = root.get("run")) {
    const auto* t = node->as_table();
    if (!t) bad(path, "[run] must be a table");
    only_keys(*t, {"timeout_s", "budget_ms", "memory_limit_mb", "cpu_probes"}, path, "run.");
    c.timeout_s = number(*t, "timeout_s", run::kTimeoutRangeS, path);
    c.budget_ms = number(*t, "budget_ms", run::kBudgetRangeMs, path);
    c.memory_limit_mb = number(*t, "memory_limit_mb", run::kMemoryLimitRangeMb, path);
    c.cpu_probes = integer(*t, "cpu_probes", run::kCpuProbesRange, path);
  }
  if (const auto* node = root.get("probe")) c.env_keep = env_keep(*node, path);
  if (const auto* node = root.get("params")) {
    const auto* t = node->as_table();
    if (!t) bad(path, "[params] must be a table of NAME = value");
    for (const auto& [key, value] : *t) {
      std::string name(key.str());
      if (auto v = value.value_exact<std::string>()) {
        c.params[name] = *v;
      } else if (auto i = value.value_exact<int64_t>()) {
        c.params[name] = std::to_string(*i);
      } else if (auto b = value.value_exact<bool>()) {
        c.params[name] = *b ? "true" : "false";
      } else if (auto d = value.value_exact<double>()) {
        std::ostringstream text;
        text.precision(17);
        text << *d;
        c.params[name] = text.str();
      } else {
        bad(path, "params." + name + " must be a string, integer, float or boolean");
      }
    }
  }
  return c;
}

}  // namespace mudjack::cli
