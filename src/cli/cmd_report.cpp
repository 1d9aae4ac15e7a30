// mudjack report: a stored run or a results.json, judged again and rendered.
#include <iostream>

#include "cli/commands.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"

namespace mudjack::cli {
namespace {

struct ReportArgs {
  Common common;
  std::string run;
  std::string format = "md";
  std::string baseline;
};

int report_run(const ReportArgs& a) {
  auto s = settings(a.common);
  auto loaded = load_run_or_file(a.run, s);  // a results.json is judged again
  model::RunInfo run = std::move(loaded.results.run);
  if (!a.baseline.empty()) run.baseline = a.baseline;
  auto judged =
      run::judge(std::move(run), std::move(loaded.results.cases), intolerable_path(a.common));
  std::cout << report::render(a.common.json ? "json" : a.format, judged);
  return 0;
}

}  // namespace

Command report_command() {
  return {"report", "Render a stored run: json, csv, junit, md or html",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<ReportArgs>();
            add_common(c, a->common);
            add_intolerable(c, a->common);
            c->add_option("run", a->run, "Run id, 'latest', or a results.json file")->required();
            c->add_option("--format", a->format, "json | csv | junit | md | html (default md)");
            c->add_option("--baseline", a->baseline, "Baseline device (default: the run's)");
            return [a] { return report_run(*a); };
          }};
}

}  // namespace mudjack::cli
