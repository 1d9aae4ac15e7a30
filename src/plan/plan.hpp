#pragma once
// From suite names to planned cases, and from frameworks to devices.
// Listing spawns one probe with no framework (case metadata is static);
// discovery spawns one probe per framework, in parallel, bound to no device.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "envs/envs.hpp"
#include "model/model.hpp"
#include "plan/params.hpp"
#include "protocol/protocol.hpp"
#include "supervisor/supervisor.hpp"

namespace mudjack::plan {

struct SuiteRef {
  std::string name;
  std::filesystem::path dir;
};

std::vector<std::string> known_suites();
// FatalError for an unknown name, listing the known ones.
SuiteRef resolve_suite(const std::string& name);
// A user's own folder of case files (docs/suite-format.md); FatalError if absent.
SuiteRef suite_from_dir(const std::filesystem::path& dir);

// Suites as JSON (run options): [{name, dir}]; and back, read by
// run::from_json and by repro (which keeps the folders that still exist).
nlohmann::json suites_to_json(const std::vector<SuiteRef>& suites);
std::vector<SuiteRef> suites_from_json(const nlohmann::json& j);

// FatalError when a suite file is malformed, ids collide across suites, or a
// parameter's value does not convert. The suites are listed with `params`
// set, so case grids that depend on a parameter (matrix sizes) name the
// values the run will use. `params_read`, when given, receives the
// parameters the suites read (for check_params). The listing probe runs the
// suites' import-time code (and `mudjack check`'s NAME_inputs()): over
// `memory_limit_bytes` (its whole process tree; 0: no limit) it is killed
// and the listing is a FatalError naming the limit.
std::vector<model::CaseInfo> list_cases(const std::vector<SuiteRef>& suites,
                                        const envs::Interpreter& python, const Params& params = {},
                                        nlohmann::json* params_read = nullptr,
                                        int64_t memory_limit_bytes = 0);

// FatalError for an unknown framework name or a bad regex (RE2 syntax,
// plan/case_filter.hpp: matched anywhere in the id, in linear time).
std::vector<model::CaseInfo> filter(const std::vector<model::CaseInfo>& cases,
                                    const std::vector<std::string>& frameworks,
                                    const std::string& regex);

struct Discovery {
  std::map<std::string, supervisor::FrameworkRuntime> runtimes;
  std::map<std::string, protocol::Hello> hellos;  // frameworks that started
  std::vector<model::DeviceInfo> devices;         // union over frameworks, by id, in order
  std::map<std::string, std::vector<std::string>> devices_of;  // framework -> device ids
  std::vector<std::string> cached;  // frameworks that answered from the discovery cache
};

// Starts each framework's probe (in parallel) and keeps its hello. With
// `cache` (doctor, devices), a framework whose interpreter is a virtualenv
// answers from the hello it gave last (cache_dir()/discovery/) while nothing
// it depends on changed (discovery_key) and for at most kDiscoveryTtl; a
// probe that started writes its hello there. Runs and checks never read it.
Discovery discover(const std::vector<std::string>& frameworks, const std::string& profile,
                   const std::map<std::string, std::string>& python_overrides,
                   const std::atomic<bool>& interrupted, bool cache = false);

// How long a cached hello stands at most (doctor and devices).
inline constexpr std::chrono::seconds kDiscoveryTtl{3600};

// The key of a framework's cached hello: a hash of the framework, the
// interpreter, the engine's revision and protocol minor, every
// site-packages folder's modification time (an install or removal changes
// it), the variables that choose accelerators (CUDA_VISIBLE_DEVICES and
// the like), the accelerator device nodes in /dev and the boot's id.
// nullopt when the interpreter is no virtualenv of its own (no pyvenv.cfg,
// or one that includes the system's site-packages): what it imports cannot
// be watched, so it is always asked.
std::optional<std::string> discovery_key(const std::string& framework,
                                         const std::filesystem::path& python);

// Provenance of this machine and of every framework that answered, as stored
// in RunInfo::environment: {machines: [{host, os, arch, cpu_model,
// memory_total, mudjack_version, mudjack_revision, frameworks, devices}]}.
nlohmann::json environment_json(const Discovery& discovery);

// Pairs in plan order: for each case, each selected device its framework sees;
// a framework that could not start is planned on every device any other
// framework sees, so its absence is reported per device (`unavailable`).
std::vector<std::pair<std::string, std::string>> pairs(const std::vector<model::CaseInfo>& cases,
                                                       const Discovery& discovery,
                                                       const std::vector<std::string>& devices);

}  // namespace mudjack::plan
