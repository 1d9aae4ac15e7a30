#pragma once
// `mudjack fuzz`: a campaign of generated graphs (docs/fuzz.md). Batches of
// graphs from src/gen/ are written to the campaign's folder and run as an
// ordinary run of the built-in suite `fuzz` (every (graph, backend) a case
// `fuzz/<hash>/<backend>` on every device, in the results store); each
// batch's judged cases become findings (fuzz/findings.hpp); each new finding
// is reduced (gen/reduce.hpp, every candidate batch one run in the
// campaign's own store) and bundled with a standalone script per backend
// that its framework and NumPy alone run; the campaign's reports are
// rewritten after every batch.
//
// A campaign stops when its budget of wall time or graphs is spent, or on
// an interrupt, and is resumable (`--resume ID`): campaign.json holds its
// options, its batches and their runs, and its findings.
//
// A mismatch whose float64 reference is at or below its dtype's noise floor
// is a suspect (fuzz/suspect.hpp), listed apart and never a finding.
//
// Folder: <results>/fuzz/<id>/ with campaign.json, graphs/batch-NNNN/,
// findings/<n>-<symptom>-<backend>-<device>/ (graph.json, original.json,
// finding.json, repro.py), reduce/ (the reducer's store), and the reports
// findings.json, findings.csv, summary.md, junit.xml, report.html.

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/findings.hpp"
#include "gen/generator.hpp"
#include "plan/plan.hpp"
#include "run/options.hpp"
#include "util/number.hpp"

namespace mudjack::fuzz {

struct Options {
  std::vector<std::string> backends;  // empty: every backend the suite declares
  std::vector<std::string> devices;   // empty: every device
  double budget_s = 600;              // wall time of this invocation
  int64_t max_graphs = 0;             // stop after this many graphs (0: budget only)
  int64_t seed = 0;
  gen::GenOptions gen;
  int batch = 40;          // graphs per run
  double slow_ratio = 10;  // compiled / eager median beyond which it is "slow"
  bool reduce = true;
  int reduce_per_key = 4;  // reductions per (symptom, backend, device, error class)
  double timeout_s = run::RunOptions{}.timeout_s;  // per case: a run's default
  // Resident limit of every probe (listing, batches), its tree included; 0:
  // run::default_memory_limit_bytes().
  int64_t memory_limit_bytes = 0;
  std::string profile = "current";
  std::map<std::string, std::string> python;  // framework -> interpreter
  plan::SuiteRef suite;                       // the fuzz suite (tests: planted backends)
  std::string command;                        // the command line, for the reports
};

nlohmann::json to_json(const Options& o);
Options options_from_json(const nlohmann::json& j);
// One line when the options cannot run (gen options, numbers out of range).
std::optional<std::string> invalid(const Options& o);

// The ranges of the numeric options (flags: cli/cmd_fuzz.cpp, which parses
// them with util/number.hpp; a stored campaign: invalid()). The budget is one
// invocation's wall time, up to 30 days (its end as a steady_clock time point
// stays far inside the clock's range).
inline constexpr util::Range kBudgetRangeS{0, 30.0 * 86400, false};
inline constexpr util::IntRange kGraphsRange{0, 1'000'000'000'000};
inline constexpr util::IntRange kBatchRange{1, 10000};
inline constexpr util::Range kSlowRatioRange{1, 1e6, false};

struct Where {
  std::filesystem::path results_dir;  // the store; campaigns in <results>/fuzz/<id>/
  std::optional<std::filesystem::path> intolerable;
};

using Say = std::function<void(const std::string&)>;

struct Outcome {
  std::string id;
  std::filesystem::path dir;
  bool completed = false;  // budget spent (not interrupted)
  size_t findings = 0;     // unique findings
  size_t suspects = 0;     // suspects (fuzz/suspect.hpp): never findings
};

// A new campaign. FatalError for options that cannot run or an unknown
// backend (naming the known ones).
Outcome start(const Options& o, const Where& w, const std::atomic<bool>& interrupted,
              const Say& say);
// Continues campaign `id` for `budget_s` more seconds (or `max_graphs` more
// graphs when not 0): its last run resumed if incomplete, its pending
// reductions done, new batches after. `python` is this invocation's
// interpreters (framework -> path, from --python and mudjack.toml): the
// campaign runs with them, and FatalError, before anything runs, when
// campaign.json stored others (docs/fuzz.md: never a program a file names).
// `suite` is this invocation's backends folder (--suite, else the built-in):
// the campaign runs it, and FatalError, before anything runs, when the stored
// one is another (a built-in campaign whose stored folder is gone, a moved
// checkout, takes this engine's).
Outcome resume(const std::string& id, double budget_s, int64_t max_graphs,
               const std::map<std::string, std::string>& python, const plan::SuiteRef& suite,
               const Where& w, const std::atomic<bool>& interrupted, const Say& say);

// Evidence for others: the campaign's reports and findings bundles (graph,
// original, finding, script) copied to `dest`, without its graphs and the
// reducer's store. FatalError, before copying anything, when a run of the
// campaign was made from a dirty or unknown source tree. No link is
// followed on either side: a source entry that is a symbolic link is skipped
// (returned as one note line each); each file is written to a new temporary
// file renamed into place (report::write_file_atomically), so a link planted
// at a destination name is replaced, never written through; a destination
// folder below `dest` that is a link is a FatalError. `dest` itself may be
// a link, as the results folder may. The copies of findings.json and
// campaign.json gain `provenance`: per batch run, its source tree's state,
// engine revision, CPU model and devices (model, driver), from the store.
std::vector<std::string> publish(const std::string& id, const Where& w,
                                 const std::filesystem::path& dest);

// Re-judges a stored campaign (its folder: <results>/fuzz/<id>/ or a
// published copy) with the suspect rule, without rerunning any backend: the
// float64 reference of each mismatch's graph (its bundle's reduced
// graph.json, else original.json) is recomputed on the host by the numpy
// probe from the graph and the campaign's seed; a mismatch whose every
// output is at or below its dtype's noise floor moves from the findings to
// the suspects. campaign.json (where there is one), findings.json and every
// report are rewritten. FatalError: not a campaign folder, or the
// reference could not be computed.
struct Rejudged {
  size_t findings_before = 0;
  size_t findings_after = 0;
  std::vector<Finding> suspects;  // all of them, those moved now included
};
Rejudged rejudge(const std::filesystem::path& dir, const std::string& profile,
                 const std::map<std::string, std::string>& python);

struct Replay {
  bool shows = false;
  std::string what;  // one line: the outcome seen
};
// Reruns a finding's bundle (its graph.json and finding.json) on its backend
// and device.
Replay replay(const std::filesystem::path& bundle, const Where& w, const Options& base,
              const std::atomic<bool>& interrupted);

}  // namespace mudjack::fuzz
