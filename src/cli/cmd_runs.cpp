// mudjack runs: the runs in a results folder.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"

namespace mudjack::cli {
namespace {

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
      out.push_back({{"id", r.id},
                     {"suite", r.suite},
                     {"state", r.state},
                     {"created_at", r.created_at},
                     {"finished_at", r.finished_at},
                     {"results", n.results},
                     {"planned", n.planned}});
    }
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::printf("%-22s %-10s %-11s %-25s %s\n", "RUN", "SUITE", "STATE", "CREATED", "DONE/PLANNED");
  for (const auto& r : runs) {
    const auto n = store->counts(r.id);
    std::printf("%-22s %-10s %-11s %-25s %zu/%zu\n", r.id.c_str(), r.suite.c_str(), r.state.c_str(),
                r.created_at.c_str(), n.results, n.planned);
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
