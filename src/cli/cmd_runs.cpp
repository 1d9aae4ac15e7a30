// mudjack runs: the runs in a results folder.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "run/lease.hpp"
#include "run/lifecycle.hpp"
#include "run/retention.hpp"

namespace mudjack::cli {
namespace {

// The state a person should see: a run stored as running whose process is
// gone (no live lease) was interrupted.
std::string shown_state(store::Store& store, const model::RunInfo& r) {
  if (r.state == "running" && !run::lease_holder(store, r.id)) return "incomplete";
  return r.state;
}

// What a run checked, when a person named it (`mudjack check FILE.py[:NAME]`,
// the run parameter `target`): the whole target, and as the table shows it,
// the file's own name with NAME ("rms.py:rmsnorm"); "" for a suite's run.
std::string target_of(const model::RunInfo& r) {
  const auto params = r.options.value("params", nlohmann::json::object());
  const auto it = params.find("target");
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string shown_target(const std::string& target) {
  if (target.empty()) return "-";
  const auto colon = target.rfind(':');
  const std::string file = target.substr(0, colon);
  const std::string name = colon == std::string::npos ? "" : target.substr(colon);
  return terminal_safe(std::filesystem::path(file).filename().string() + name);
}

int list_runs(const Common& c) {
  auto s = settings(c);
  auto store = open_existing_store(s.results_dir);
  // A damaged row is named on stderr; every other run is still listed.
  std::vector<store::BadRow> bad;
  auto runs = store->list_runs(&bad);
  for (const auto& b : bad) {
    std::fprintf(stderr, "mudjack: warning: run %s cannot be read, left out: %s\n",
                 b.run_id.c_str(), b.problem.c_str());
  }
  if (c.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : runs) {
      const auto n = store->counts(r.id);
      out.push_back(
          {{"id", r.id},
           {"suite", r.suite},
           {"target", target_of(r)},
           {"state", shown_state(*store, r)},
           {"stored_state", r.state},
           {"outputs_bytes", run::disk_bytes(s.results_dir / "runs" / r.id / "artifacts")},
           {"created_at", r.created_at},
           {"finished_at", r.finished_at},
           {"results", n.results},
           {"planned", n.planned}});
    }
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::printf("%-22s %-10s %-11s %-25s %-13s %-10s %s\n", "RUN", "SUITE", "STATE", "CREATED",
              "DONE/PLANNED", "OUTPUTS", "TARGET");
  std::vector<std::string> resumable;
  for (const auto& r : runs) {
    const auto n = store->counts(r.id);
    const auto state = shown_state(*store, r);
    if (state == "incomplete") resumable.push_back(r.id);
    const auto done = std::to_string(n.results) + "/" + std::to_string(n.planned);
    std::printf("%-22s %-10s %-11s %-25s %-13s %-10s %s\n", r.id.c_str(), r.suite.c_str(),
                state.c_str(), r.created_at.c_str(), done.c_str(),
                size_text(run::disk_bytes(s.results_dir / "runs" / r.id / "artifacts")).c_str(),
                shown_target(target_of(r)).c_str());
  }
  for (const auto& id : resumable) {
    std::printf("resume %s: mudjack run --resume %s --out %s\n", id.c_str(), id.c_str(),
                s.results_dir.c_str());
  }
  return 0;
}

}  // namespace

Command runs_command() {
  return {"runs", "List the runs in a results folder", [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<Common>();
            add_common(c, *a);
            return [a] { return list_runs(*a); };
          }};
}

}  // namespace mudjack::cli
