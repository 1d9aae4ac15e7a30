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
  std::string publish;  // folder for the published views
};

int report_run(const ReportArgs& a) {
  auto s = settings(a.common);
  auto loaded = load_run_or_file(a.run, s);  // a results.json is judged again
  model::RunInfo run = std::move(loaded.results.run);
  if (!a.baseline.empty()) run.baseline = a.baseline;
  auto judged =
      run::judge(std::move(run), std::move(loaded.results.cases), intolerable_path(a.common));
  if (!a.publish.empty()) {
    const std::string id = judged.run.id;
    const size_t differ =
        run::publish_evidence(std::move(judged), a.publish, intolerable_path(a.common));
    std::cerr << "published run " << id << " to " << a.publish;
    if (differ > 0) {
      std::cerr << " (" << differ
                << " verdict rows judged from the kept samples differ from the raw samples' "
                   "judgement)";
    }
    std::cerr << "\n";
    return 0;
  }
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
            c->add_option("--publish", a->publish,
                          "Write every view, without raw samples, to this folder; refused for a "
                          "run made from a dirty or unknown source tree");
            return [a] { return report_run(*a); };
          }};
}

}  // namespace mudjack::cli
