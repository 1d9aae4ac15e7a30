// mudjack merge: several machines' runs into one, devices labelled by machine.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "fleet/merge.hpp"
#include "report/terminal.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"
#include "util/time.hpp"

namespace mudjack::cli {
namespace {

struct MergeArgs {
  Common common;
  std::vector<std::string> sources;
};

// SOURCE is FILE[=LABEL] (a results.json) or RUN[=LABEL] (a run in --out).
fleet::Source load_source(const std::string& spec, const Settings& s) {
  fleet::Source src;
  std::string what = spec;
  if (auto eq = spec.rfind('='); eq != std::string::npos) {
    what = spec.substr(0, eq);
    src.label = spec.substr(eq + 1);
  }
  auto loaded = load_run_or_file(what, s);
  src.results = std::move(loaded.results);
  src.origin = std::move(loaded.origin);
  if (src.label.empty()) src.label = fleet::default_label(src.results);
  return src;
}

int merge_runs(const MergeArgs& a) {
  check_intolerable(a.common);
  auto s = settings(a.common);
  std::vector<fleet::Source> sources;
  for (const auto& spec : a.sources) sources.push_back(load_source(spec, s));
  auto merged = fleet::merge(sources, util::now_iso8601());
  auto store = open_store(s.results_dir);
  fleet::save(*store, merged);
  const run::Place place{s.results_dir, intolerable_path(a.common)};
  auto judged = run::publish(merged.run, merged.cases, place);
  if (a.common.json) {
    std::cout << report::render("json", judged) << "\n";
    return 0;
  }
  for (const auto& src : sources) {
    std::printf("%-24s %-28s %zu results\n", src.label.c_str(), src.origin.c_str(),
                src.results.cases.size());
  }
  std::cout << report::to_terminal(judged, run::run_dir(place, merged.run.id));
  return 0;
}

}  // namespace

Command merge_command() {
  return {"merge", "Merge runs of several machines into one run, devices labelled by machine",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<MergeArgs>();
            add_common(c, a->common);
            add_intolerable(c, a->common);
            c->add_option("sources", a->sources,
                          "results.json[=LABEL] or RUN[=LABEL] (default label: the chip model)")
                ->required();
            return [a] { return merge_runs(*a); };
          }};
}

}  // namespace mudjack::cli
