// mudjack compare: two runs or two devices, case by case.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "compare/compare.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {

struct CompareArgs {
  Common common;
  std::string a, b;
  double threshold = 1.2;
  double alpha = 0.01;
  std::string format = "md";
  bool cases = false;
};

// SPEC is RUN[@DEVICE] (a run id in the results folder, or 'latest') or
// FILE[@DEVICE] (a results.json).
compare::Side load_side(const std::string& spec, const Settings& s) {
  compare::Side side;
  std::string what = spec;
  if (auto at = spec.rfind('@'); at != std::string::npos) {
    what = spec.substr(0, at);
    side.device = spec.substr(at + 1);
  }
  auto loaded = load_run_or_file(what, s);
  side.results = std::move(loaded.results.cases);
  side.environment = loaded.results.run.environment;
  side.options = loaded.results.run.options;
  what = loaded.origin;
  if (!side.device.empty() &&
      std::none_of(side.results.begin(), side.results.end(),
                   [&](const model::CaseResult& r) { return r.device == side.device; })) {
    throw util::FatalError("no results for device '" + side.device + "' in " + what);
  }
  side.label = what + (side.device.empty() ? "" : " @ " + side.device);
  return side;
}

int compare_runs(const CompareArgs& a) {
  if (a.format != "md" && a.format != "json") {
    throw util::FatalError("unknown compare format '" + a.format + "' (known: md, json)");
  }
  auto s = settings(a.common);
  compare::Options o;
  o.threshold = a.threshold;
  o.alpha = a.alpha;
  auto report = compare::compare(load_side(a.a, s), load_side(a.b, s), o);
  if (a.common.json || a.format == "json") {
    std::cout << compare::to_json(report).dump(1) << "\n";
  } else {
    std::cout << compare::to_markdown(report, a.cases);
  }
  return report.regressed() ? 1 : 0;
}

}  // namespace

Command compare_command() {
  return {"compare", "Compare two runs or devices case by case; exit 1 on a regression",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<CompareArgs>();
            add_common(c, a->common);
            c->add_option("a", a->a, "RUN[@DEVICE] or results.json[@DEVICE] (the reference)")
                ->required();
            c->add_option("b", a->b, "RUN[@DEVICE] or results.json[@DEVICE]")->required();
            add_number(c, "--threshold", a->threshold, util::Range{1, 1e9, true},
                       "Median ratio counted as a change, either way (default 1.2)");
            add_number(c, "--alpha", a->alpha, util::Range{0, 1, true},
                       "Significance level of the U test (default 0.01)");
            c->add_option("--format", a->format, "md | json (default md)");
            c->add_flag("--cases", a->cases,
                        "List every changed case too (default: the per-function summary)");
            return [a] { return compare_runs(*a); };
          }};
}

}  // namespace mudjack::cli
