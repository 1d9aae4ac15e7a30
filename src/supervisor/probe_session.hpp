#pragma once
// One live probe process bound to one framework and one device, and the rules
// for turning whatever it does into exactly one outcome per case.
//
// Owned and driven by a single lane thread. Blocking: every call blocks at
// most for its stated deadline. Kills on timeout, on a broken protocol line
// and on a memory overrun; after any of those the session is dead and the
// lane starts a new one for the next case.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "os/process.hpp"
#include "protocol/protocol.hpp"

namespace mudjack::supervisor {

struct ProbeCommand {
  std::filesystem::path python;
  std::filesystem::path probe_dir;  // folder holding the mudjack_probe package
  std::vector<std::filesystem::path> suite_dirs;
  std::string framework;  // empty: listing only
  std::string device;     // empty: discovery only
  std::map<std::string, std::string> env;
  std::vector<int> cpu_affinity;
  // Run parameters, passed as `--param NAME=VALUE` (schemas/probe-protocol-v1.md).
  std::map<std::string, std::string> params;
};

// What every probe process's environment gets on top of the engine's: the
// probe package first on PYTHONPATH, no bytecode files, a Python stack on a
// crash, the model hubs' offline switches, and the build cache.
// How ProbeSession::start's error begins when the probe reported an engine
// fault in its hello (the framework is installed but cannot load here).
inline constexpr std::string_view kCannotLoad = "probe cannot load on this machine: ";

void add_probe_environment(const std::filesystem::path& probe_dir,
                           std::map<std::string, std::string>& env);
// Whether a probe inherits the engine's variable `name`: an allow-list (the
// system's basics, locale, and the prefixes the frameworks, compilers and
// accelerator runtimes read, MUDJACK_ among them), never a name that looks
// like a secret (looks_secret: MUDJACK_TOKEN, a cloud key, HF_api_token).
// An operator adds names with keep_probe_environment. Every process the
// engine starts for Python uses it.
bool probe_may_inherit(std::string_view name);
// Whether a variable's name, in any case, holds TOKEN, SECRET, PASSW,
// CREDENTIAL, KEY or AUTH.
bool looks_secret(std::string_view name);
// Names (NAME, or PREFIX* for a prefix) probes inherit besides the list, from
// mudjack.toml's [probe] env_keep and --env-keep; process-wide, set once at
// start-up. Why not, one line, for a name that is not one or looks secret.
std::optional<std::string> keep_probe_environment(const std::vector<std::string>& names);
os::SpawnOptions spawn_options(const ProbeCommand& command);
// A probe of the interpreter `python` that imports no framework and answers
// the requests that need none (`list`, `repro_graph`, `reference`); the probe
// package from the data folder (envs::data_dir()).
ProbeCommand tool_command(const std::filesystem::path& python);

class ProbeSession {
 public:
  struct Limits {
    std::chrono::milliseconds start_timeout{180'000};  // import + device init
    std::chrono::milliseconds case_timeout{120'000};
    // Resident bytes of the probe and every process it started
    // (os::Child::tree_memory_bytes); 0 = no limit.
    int64_t memory_limit_bytes = 0;
    std::chrono::milliseconds poll{50};
    // A gap between two polls longer than poll + stall_jump is time the
    // engine could not observe (it was stopped, or its machine paused): the
    // deadline moves by it, so a paused machine is not a case's timeout.
    std::chrono::milliseconds stall_jump{1000};
  };

  // Starts the probe and reads its hello. On failure returns nullptr and sets
  // *error to one line (with the stderr tail appended after a newline); a
  // hello that reports an engine fault (protocol 1.1) is such a failure.
  static std::unique_ptr<ProbeSession> start(const ProbeCommand& command, const Limits& limits,
                                             const std::atomic<bool>& interrupted,
                                             std::string* error);

  const protocol::Hello& hello() const { return hello_; }
  bool alive() const { return alive_; }
  // Whether the probe was killed for its memory; peak_memory_bytes() is the
  // count that went over the limit.
  bool over_memory() const { return over_memory_; }
  int64_t peak_memory_bytes() const { return peak_rss_bytes_; }

  // Lists the cases of the probe's suites; nullopt + *error on failure.
  // `params_read`, when given, receives the run parameters the suites read
  // (protocol::parse_cases).
  std::optional<std::vector<model::CaseInfo>> list(const std::string& framework, std::string* error,
                                                   nlohmann::json* params_read = nullptr);

  // Runs one case and returns its outcome. Returns none (nullopt: the case
  // runs again on --resume) only when the engine was interrupted, or when the
  // probe reported an engine fault: the machine, not the case, failed (its
  // outputs could not be saved); then *fault is that one line and the probe
  // is stopped. Fills outcome, error, latency (without stats), memory,
  // outputs, extra.
  std::optional<model::CaseResult> run(const model::CaseInfo& info, const std::string& device,
                                       int64_t seed, const protocol::Policy& policy,
                                       const std::filesystem::path& artifact_dir,
                                       std::string* fault);

  // Asks the probe to write one case as a standalone script (protocol
  // `repro`); nullopt + *error when the probe fails or times out.
  std::optional<protocol::Repro> repro(const protocol::ReproRequest& request, std::string* error);
  // Asks the probe to write a fuzz graph as a standalone script (protocol
  // 1.9 `repro_graph`); nullopt + *error (one line) when the probe fails,
  // dies or times out.
  std::optional<protocol::Repro> repro_graph(const protocol::GraphScriptRequest& request,
                                             std::string* error);
  // The float64 reference's magnitudes of one fuzz graph (protocol 1.9
  // `reference`): the reply object; nullopt + *error (one line) on failure.
  std::optional<nlohmann::json> reference(const std::string& graph, int64_t seed,
                                          std::string* error);
  // Fills the build cache (protocol 1.9 `build`): `on_built` sees each
  // case's line as the probe streams it. True once `build_done` came; false
  // with *error empty when interrupted (the probe and its workers are
  // killed), else with *error one line (the probe died, went silent for
  // the request's timeout_s plus the start timeout, or broke the protocol).
  bool build(const protocol::BuildRequest& request,
             const std::function<void(const protocol::Built&)>& on_built, std::string* error);
  // Polite shutdown, then kill after a grace period.
  void stop();

 private:
  ProbeSession(std::unique_ptr<os::Child> child, Limits limits,
               const std::atomic<bool>& interrupted)
      : child_(std::move(child)), limits_(limits), interrupted_(interrupted) {}

  enum class Wait { kLine, kTimeout, kDied, kMemory, kInterrupted };
  Wait wait_line(std::string& line, std::chrono::milliseconds timeout);
  bool memory_over_limit();
  model::CaseResult died(model::CaseResult r, const std::string& why);
  // Sends one request line and reads one reply line within `timeout`;
  // nullopt + *error (one line: what happened to the probe, and the last
  // line of its stderr) when it could not.
  std::optional<std::string> ask(const std::string& request, std::string_view what,
                                 std::chrono::milliseconds timeout, std::string* error);
  // One line for a reply that did not come: `w` is why wait_line returned.
  std::string no_reply(Wait w, std::string_view what);

  std::unique_ptr<os::Child> child_;
  Limits limits_;
  const std::atomic<bool>& interrupted_;
  protocol::Hello hello_;
  bool alive_ = true;
  int64_t peak_rss_bytes_ = 0;  // of the whole tree
  bool over_memory_ = false;
  std::chrono::steady_clock::time_point last_tree_check_{};
};

}  // namespace mudjack::supervisor
