// mudjack runs: the runs in a results folder.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"

namespace mudjack::cli {
namespace {

int list_runs(const Common& c) {
  auto s = settings(c);
  auto store = open_existing_store(s.results_dir);
  auto runs = store->list_runs();
  if (c.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : runs) {
      out.push_back({{"id", r.id},
                     {"suite", r.suite},
                     {"state", r.state},
                     {"created_at", r.created_at},
                     {"finished_at", r.finished_at},
                     {"results", store->results(r.id).size()},
                     {"planned", store->plan(r.id).size()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-22s %-10s %-11s %-25s %s\n", "RUN", "SUITE", "STATE", "CREATED", "DONE/PLANNED");
  for (const auto& r : runs) {
    std::printf("%-22s %-10s %-11s %-25s %zu/%zu\n", r.id.c_str(), r.suite.c_str(), r.state.c_str(),
                r.created_at.c_str(), store->results(r.id).size(), store->plan(r.id).size());
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
