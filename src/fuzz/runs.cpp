#include "fuzz/runs.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "envs/envs.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"
#include "store/store.hpp"
#include "util/error.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

run::RunOptions run_options(const Options& o, const fs::path& graphs,
                            const std::vector<std::string>& devices) {
  run::RunOptions r;
  r.suites = {o.suite};
  r.devices = devices;
  r.profile = o.profile;
  r.python = o.python;
  r.params = {{"graphs", graphs.string()}};
  r.seed = o.seed;
  r.timeout_s = o.timeout_s;
  r.memory_limit_bytes = o.memory_limit_bytes;
  // A fuzz case needs its median for `slow`, not a measurement to publish.
  r.budget_ms = 2;
  r.warmup_ms = 1;
  r.rounds = 1;
  r.min_samples = 3;
  r.max_samples = 200;
  r.command = o.command;
  if (auto why = run::invalid(r)) throw util::FatalError(*why);
  return r;
}

// run::discover under the campaign's stop flag. Discovery answers a raised
// flag with FatalError "interrupted" (exit 130), meant for a signal; here the
// flag is also the budget's end, the normal end of a campaign, so a stop is a
// value: nullopt, and the batch stays incomplete for --resume. Whether a
// signal raised it is the caller's to say (Campaign::go).
std::optional<plan::Discovery> discover_in_budget(const run::RunOptions& options,
                                                  const std::vector<model::CaseInfo>& cases,
                                                  const std::atomic<bool>& stop) {
  if (stop) return std::nullopt;
  try {
    return run::discover(options, cases, stop);
  } catch (const util::FatalError& e) {
    if (stop && e.exit_code() == 130) return std::nullopt;
    throw;
  }
}

}  // namespace

Deadline::Deadline(const std::atomic<bool>& interrupted, Clock::time_point end)
    : interrupted_(interrupted), end_(end), watcher_([this] { watch(); }) {}

Deadline::~Deadline() {
  done_ = true;
  watcher_.join();
}

void Deadline::watch() {
  while (!done_) {
    if (interrupted_ || Clock::now() >= end_) stop_ = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Listed list(const Options& o, const fs::path& graphs) {
  const auto python = envs::listing_interpreter(o.profile, o.python);
  if (python.python.empty()) throw util::FatalError(python.missing_reason, 3);
  Listed l;
  for (auto& c : plan::list_cases({o.suite}, python, {{"graphs", graphs.string()}}, nullptr,
                                  run::memory_limit_or_default(o.memory_limit_bytes))) {
    auto id = parse_case_id(c.id);
    if (!id) continue;
    l.backend.try_emplace(id->second, c);
    if (o.backends.empty() ||
        std::find(o.backends.begin(), o.backends.end(), id->second) != o.backends.end()) {
      l.cases.push_back(std::move(c));
    }
  }
  for (const auto& b : o.backends) {
    if (l.backend.count(b) == 0) {
      std::vector<std::string> known;
      for (const auto& [name, c] : l.backend) known.push_back(name);
      throw util::FatalError("unknown backend '" + b + "' (known: " + join(known, ", ") + ")");
    }
  }
  return l;
}

std::vector<model::CaseResult> run_cases(
    const Options& o, const fs::path& graphs, const std::vector<model::CaseInfo>& cases,
    const std::vector<std::string>& devices, const fs::path& results_dir,
    const std::optional<fs::path>& intolerable, const std::atomic<bool>& stop,
    const std::function<void(const std::string&)>& created, bool* completed) {
  auto store = store::Store::open(store::default_db_path(results_dir));
  auto options = run_options(o, graphs, devices);
  std::set<std::string> frameworks;
  for (const auto& c : cases) frameworks.insert(c.framework);
  options.frameworks.assign(frameworks.begin(), frameworks.end());
  const auto discovery = discover_in_budget(options, cases, stop);
  if (!discovery) {
    if (completed != nullptr) *completed = false;
    return {};
  }
  auto prepared = run::create(*store, options, cases, *discovery, "running");
  if (created) created(prepared.info.id);  // recorded before anything runs: resumable
  const run::Place place{results_dir, intolerable};
  std::string fault;
  const bool done = run::execute(*store, prepared, *discovery, place, nullptr, stop, &fault);
  auto judged = run::finish(*store, prepared.info.id, done, place);
  if (!fault.empty()) throw util::FatalError("fuzz run " + prepared.info.id + ": " + fault);
  if (completed != nullptr) *completed = done;
  return judged.cases;
}

std::vector<model::CaseResult> resume_run(const std::string& run_id, const Where& w,
                                          const std::atomic<bool>& stop, bool* completed) {
  auto store = store::Store::open(store::default_db_path(w.results_dir));
  auto prepared = run::reopen(*store, run_id);
  *completed = false;
  if (prepared.work.empty()) {
    *completed = true;
  } else if (auto discovery = discover_in_budget(prepared.options, prepared.cases, stop)) {
    run::resume(*store, prepared, *discovery, "running");
    const run::Place place{w.results_dir, w.intolerable};
    std::string fault;
    *completed = run::execute(*store, prepared, *discovery, place, nullptr, stop, &fault);
    run::finish(*store, run_id, *completed, place);
    if (!fault.empty()) throw util::FatalError("fuzz run " + run_id + ": " + fault);
  }
  return store->results(run_id);
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw util::FatalError(p.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw util::FatalError(p.string() + ": not JSON (" + std::string(e.what()) + ")");
  }
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  report::write_file_atomically(p, text);
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

}  // namespace mudjack::fuzz
