#pragma once
// The run lifecycle, written once: create (plan and store a new run) or
// reopen + resume (a stored run's unreached pairs), execute (the supervisor
// over the pairs, every outcome committed as it lands), finish (final state,
// judge, write every report). `mudjack run` and the server's run manager
// drive it; `merge`, `sweep`, `report` and the server's results route use
// its judge/publish half. ARCHITECTURE.md ("Lifecycle entry points") lists
// who may call what, and a CTest enforces it.
//
// Threads: every function may run on any thread; the store serialises its
// own writes. execute() blocks until the pairs are done or `interrupt` is
// set. Errors: bad input (unknown run, nothing to run) and storage failures
// throw util::FatalError; the outcome of a case is never an exception.

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/model.hpp"
#include "plan/plan.hpp"
#include "run/options.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"
#include "verdict/judged.hpp"

namespace mudjack::run {

// Where a run's reports go and how it is judged.
struct Place {
  std::filesystem::path results_dir;                 // reports in <results_dir>/runs/<id>/
  std::optional<std::filesystem::path> intolerable;  // thresholds file (else ./intolerable.toml)
};

std::filesystem::path run_dir(const Place& place, const std::string& run_id);

// A stored run and the pairs one execution of it runs.
struct Prepared {
  model::RunInfo info;                                        // as stored
  RunOptions options;                                         // info.options, typed
  std::vector<model::CaseInfo> cases;                         // every planned case
  std::vector<std::pair<model::CaseInfo, std::string>> work;  // pairs to run, plan order
  size_t planned = 0;                                         // every planned pair of the run
  bool baseline_planned = false;  // the run's plan has a pair on its baseline device
  size_t done = 0;                // pairs that already had an outcome
};

// Discovers the devices of the frameworks `cases` use, with the options'
// profile and interpreters.
plan::Discovery discover(const RunOptions& options, const std::vector<model::CaseInfo>& cases,
                         const std::atomic<bool>& interrupted);

// Plans `cases` on the discovered devices and stores the run (in `state`:
// "running" or "queued"), its provenance and its plan. FatalError when the
// options are invalid, no case is given, a selected device is unknown, or
// nothing pairs up.
Prepared create(store::Store& store, const RunOptions& options,
                const std::vector<model::CaseInfo>& cases, const plan::Discovery& discovery,
                std::string_view state);

// A stored run with the pairs that have no outcome yet; FatalError naming
// the results folder for an unknown run, or when its stored options are out
// of range (invalid()).
Prepared reopen(store::Store& store, const std::string& run_id);

// Marks a reopened run as executing again (`state`) with this machine's
// provenance. FatalError, before writing anything, when another live
// execution holds the run (run/lease.hpp: lease_holder).
void resume(store::Store& store, const Prepared& run, const plan::Discovery& discovery,
            std::string_view state);

// Runs the pairs under the supervisor while holding the run's lease
// (run/lease.hpp); true when every pair got its outcome, false when
// `interrupt` or an engine fault (supervisor.hpp) stopped it first; the
// fault's one line goes to *fault when given. FatalError naming the owner
// when another live execution holds the run (nothing is written then);
// FatalError when this execution lost its lease or its database file midway
// (it stops within a second, its lease released).
bool execute(store::Store& store, const Prepared& run, const plan::Discovery& discovery,
             const Place& place, const supervisor::ResultListener& on_result,
             const std::atomic<bool>& interrupt, std::string* fault = nullptr);

// Stores the final state (complete, or incomplete when not `completed`),
// then judges the stored run and writes its reports (publish). FatalError,
// before writing anything, when the store's file was deleted or replaced.
verdict::Judged finish(store::Store& store, const std::string& run_id, bool completed,
                       const Place& place);

// A run judged with its baseline and the thresholds of `intolerable`.
verdict::Judged judge(model::RunInfo run, std::vector<model::CaseResult> cases,
                      const std::optional<std::filesystem::path>& intolerable);

// Why `run` must not be published as evidence (`report --publish`), one
// line: a machine of it ran from a dirty source tree, or from one whose
// state is unknown (envs::unpublishable), or with an engine built from a
// dirty tree (its `mudjack_revision`), or was resumed from another source;
// nullopt when every machine's tree and engine were clean.
std::optional<std::string> unpublishable(const model::RunInfo& run);

// Evidence for others (`report --publish DIR`): FatalError, with the one-line
// reason, for a run unpublishable() refuses; else every view written to
// `dir` with each case's timing samples compacted (compact_samples: at most
// kPublishedSamples, what the judge's interval needs) and judged again from
// what is kept (with `intolerable`), so a re-judge of the page reads its
// verdicts back. Returns how many verdict rows (verdict or reason) differ
// from `judged`'s, i.e. from the raw samples' judgement.
inline constexpr size_t kPublishedSamples = 32;
size_t publish_evidence(verdict::Judged judged, const std::filesystem::path& dir,
                        const std::optional<std::filesystem::path>& intolerable);
// The samples a published case keeps: all of them when there are at most
// `keep`, else `keep` quantile points ((i + 0.5) / keep, interpolated);
// each rounded to 4 significant digits.
std::vector<double> compact_samples(const std::vector<double>& samples, size_t keep);

// judge(), then every report written to run_dir(place, run.id).
verdict::Judged publish(model::RunInfo run, std::vector<model::CaseResult> cases,
                        const Place& place);

}  // namespace mudjack::run
