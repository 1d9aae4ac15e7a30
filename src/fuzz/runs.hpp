#pragma once
// How a fuzz campaign runs graphs (docs/fuzz.md): a folder of graph files
// listed as cases of the fuzz suite and run as one ordinary run (the `run`
// lifecycle: create or reopen and resume, execute, finish) under a stop flag
// that is both an interrupt and the budget's end. Shared by the campaign's
// batches, the reducer's candidate batches and --replay; the one place of
// src/fuzz/ that calls the lifecycle's entry points (ARCHITECTURE.md).

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/campaign.hpp"
#include "model/model.hpp"

namespace mudjack::fuzz {

using Clock = std::chrono::steady_clock;

// Sets `stop` when the caller is interrupted or the deadline passes (a
// watcher thread, polling every 50 ms, joined by the destructor).
class Deadline {
 public:
  Deadline(const std::atomic<bool>& interrupted, Clock::time_point end);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  const std::atomic<bool>& stop() const { return stop_; }

 private:
  void watch();
  const std::atomic<bool>& interrupted_;
  Clock::time_point end_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

struct Listed {
  std::vector<model::CaseInfo> cases;              // of the chosen backends
  std::map<std::string, model::CaseInfo> backend;  // backend -> a case of it (framework, mode)
};

// The fuzz suite's cases for the graphs in `graphs`, of o.backends (all when
// empty). FatalError naming the known backends for an unknown one.
Listed list(const Options& o, const std::filesystem::path& graphs);

// One run over `cases` (already listed from `graphs`) on `devices`, in the
// store of `results_dir`; its judged cases. `created` gets the run id before
// anything runs (resumable). None, and *completed false, when `stop` came
// before the run was made.
std::vector<model::CaseResult> run_cases(const Options& o, const std::filesystem::path& graphs,
                                         const std::vector<model::CaseInfo>& cases,
                                         const std::vector<std::string>& devices,
                                         const std::filesystem::path& results_dir,
                                         const std::optional<std::filesystem::path>& intolerable,
                                         const std::atomic<bool>& stop,
                                         const std::function<void(const std::string&)>& created,
                                         bool* completed);

// Run `run_id` resumed where it stopped (nothing when it is complete); its
// judged cases, *completed whether it is now complete.
std::vector<model::CaseResult> resume_run(const std::string& run_id, const Where& w,
                                          const std::atomic<bool>& stop, bool* completed);

// Small file helpers of the campaign's folder.
nlohmann::json read_json(const std::filesystem::path& p);  // FatalError: unreadable, not JSON
void write_text(const std::filesystem::path& p, const std::string& text);  // atomic, folder made
std::string sanitize(const std::string& s);  // a folder name: [A-Za-z0-9-], others '_'

}  // namespace mudjack::fuzz
