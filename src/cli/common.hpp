#pragma once
// What the commands share: the command table's row type, the flags every
// command takes, mudjack.toml merged under them, the results folder and its
// store, case selection, and loading a run or a results.json.
//
// Errors are util::FatalError (bad usage or input), printed once by main().

#include <CLI/CLI.hpp>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/config.hpp"
#include "model/model.hpp"
#include "plan/params.hpp"
#include "plan/plan.hpp"
#include "plan/select.hpp"
#include "report/json.hpp"
#include "store/store.hpp"

namespace mudjack::cli {

// One row of the command table: `setup` adds the command's flags to its
// sub-app and returns the action that runs it once they are parsed.
struct Command {
  const char* name;
  const char* summary;
  std::function<std::function<int()>(CLI::App*)> setup;
};

// Set by SIGINT/SIGTERM; lanes, discovery and the server poll it.
std::atomic<bool>& interrupted();

// The command line as typed, shell-quoted where needed ("mudjack run
// --dtype float16"); set once by main(), recorded with each run.
std::string& invocation();

// `word` as one shell word, as Python's shlex.quote writes it (the Python
// API's `mudjack repro` lines): unchanged when it is only letters, digits and
// @%+=:,./_-, else in single quotes ("''" when empty).
std::string shell_word(std::string_view word);

// Options every command shares.
struct Common {
  std::optional<std::string> config;
  std::string out;
  std::string profile;
  std::vector<std::string> python;    // framework=PATH
  std::vector<std::string> env_keep;  // --env-keep NAME: probes inherit it
  bool json = false;
  std::optional<std::string> intolerable;  // thresholds file (run, report, merge, serve, sweep)
};

struct Settings {
  Config config;
  std::filesystem::path results_dir;
  std::map<std::string, std::string> python;
};

void add_common(CLI::App* app, Common& c);
void add_intolerable(CLI::App* app, Common& c);
// mudjack.toml (or --config) with the flags on top; FatalError for a bad
// profile or --python.
Settings settings(const Common& c);
std::optional<std::filesystem::path> intolerable_path(const Common& c);
// The memory limit per probe, in bytes: the command's --memory-limit-mb,
// else mudjack.toml's run.memory_limit_mb, else the default.
int64_t memory_limit_bytes_of(const Settings& s, std::optional<double> flag_mb);
// Reads the thresholds file now, so a bad one fails before any work.
void check_intolerable(const Common& c);

std::vector<std::string> split_commas(const std::vector<std::string>& items);

// One line after doctor's and devices' text naming the frameworks that
// answered from the discovery cache (plan::discover), and --refresh; none
// when every probe was asked.
void print_cached(const plan::Discovery& d);

// Bytes on disk as a person reads them: "85.7 KiB", "2.4 GiB".
std::string size_text(int64_t bytes);

// Creates the results folder if needed; FatalError if it is not writable.
std::unique_ptr<store::Store> open_store(const std::filesystem::path& results_dir);
// For commands that read results: a missing database is an error, not a new one.
std::unique_ptr<store::Store> open_existing_store(const std::filesystem::path& results_dir,
                                                  const std::string& context = "");
// A run id, or 'latest'; FatalError naming the folder for an unknown one.
std::string resolve_run_id(store::Store& store, const std::string& id,
                           const std::filesystem::path& dir);

// Which cases: suites, own folders, frameworks, filter, parameters.
struct Selection {
  std::vector<std::string> suites;
  std::vector<std::string> suite_dirs;
  std::vector<std::string> frameworks;
  std::string filter;
  std::vector<std::string> params;  // NAME=VALUE
  plan::Fields fields;              // --dtype, --mode, --function
};
void add_selection(CLI::App* app, Selection& sel);
std::vector<plan::SuiteRef> suites_of(const Selection& sel);
// mudjack.toml's [params], then --param on top.
plan::Params params_of(const Selection& sel, const Settings& s);
// The selected cases, listed with their parameters; a --param no selected
// suite reads is refused. `listed`, when given, receives how many cases the
// selected suites list before --framework, --filter and the fields narrow them.
// The listing probe's memory limit is `memory_limit_bytes`, else
// mudjack.toml's run.memory_limit_mb, else the run default.
std::vector<model::CaseInfo> selected_cases(const Selection& sel, const Settings& s,
                                            size_t* listed = nullptr,
                                            int64_t memory_limit_bytes = 0);
// How the selection narrowed the suites ("--dtype float16 --filter x: 12 of
// 4783 cases"), or "" when it kept every listed case.
std::string narrowing(const Selection& sel, size_t selected, size_t listed);

// WHAT is a results.json file, or a run id (or 'latest') in the results folder.
struct Loaded {
  report::Results results;
  std::string origin;  // the file, or "run <id>"
};
Loaded load_run_or_file(const std::string& what, const Settings& s);

}  // namespace mudjack::cli
