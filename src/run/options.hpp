#pragma once
// RunOptions: everything a run is asked to do, typed, with every default
// written once (here). `mudjack run` fills it from flags over mudjack.toml
// over these defaults; `mudjack serve` from a request over the server's own
// defaults. The run stores it as RunInfo::options (JSON), so `--resume`, the
// server and reports read back exactly what ran.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/params.hpp"
#include "plan/plan.hpp"

namespace mudjack::run {

struct RunOptions {
  std::vector<plan::SuiteRef> suites;   // what the cases were listed from
  std::vector<std::string> frameworks;  // selection as asked (empty: every framework)
  std::vector<std::string> devices;     // selection as asked (empty: every device)
  std::string filter;                   // regular expression on case ids
  std::string profile = "current";      // pinned framework versions (envs/<profile>/)
  std::string baseline = "cpu";         // stored as RunInfo::baseline
  double timeout_s = 120;               // deadline per case
  double budget_ms = 100;               // timing budget per case
  double warmup_ms = 20;
  int min_samples = 5;
  int max_samples = 1000;
  int64_t memory_limit_bytes = 0;  // resident limit per probe; 0: default_memory_limit_bytes()
  int64_t seed = 0;                // seed for case inputs
  bool serial = false;             // devices one after another instead of parallel lanes
  plan::Params params;             // run parameters (--param NAME=VALUE)
  std::map<std::string, std::string> python;  // framework -> interpreter
  std::string via;                            // "serve" for runs a server made, else ""
};

// 3/4 of this machine's RAM: the memory limit when none is given.
int64_t default_memory_limit_bytes();

// A one-line reason when the options cannot run (samples out of order, a
// non-positive budget or timeout); nullopt when they can.
std::optional<std::string> invalid(const RunOptions& options);

// The stored form (RunInfo::options), as `run` and `serve` have always
// written it; the baseline is not part of it (RunInfo::baseline).
nlohmann::json to_json(const RunOptions& options);
// Reads a stored run's options; fields an older run lacks take their
// defaults. Throws nlohmann::json errors on a field of the wrong type.
RunOptions from_json(const nlohmann::json& stored, const std::string& baseline);

}  // namespace mudjack::run
