// mudjack repro: one case as a standalone script (the work is in repro/).
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "report/write.hpp"
#include "repro/repro.hpp"
#include "run/options.hpp"

namespace mudjack::cli {
namespace fs = std::filesystem;
namespace {

struct ReproArgs {
  Common common;
  Selection sel;
  std::string case_id;
  std::string device = "cpu";
  std::string run;
  std::string output;
  bool minimal = false;
  std::optional<double> memory_limit_mb;  // over mudjack.toml's run.memory_limit_mb
};

int write_repro(const ReproArgs& a) {
  auto s = settings(a.common);
  repro::Request req;
  req.case_id = a.case_id;
  req.device = a.device;
  req.suites = suites_of(a.sel);
  req.suites_named = !a.sel.suites.empty() || !a.sel.suite_dirs.empty();
  req.minimal = a.minimal;
  req.profile = s.config.profile;
  req.python = s.python;
  req.memory_limit_bytes = memory_limit_bytes_of(s, a.memory_limit_mb);
  std::unique_ptr<store::Store> store;
  std::error_code ec;
  if (!a.run.empty() || fs::exists(s.results_dir / "mudjack.db", ec)) {
    store = open_existing_store(s.results_dir);
    if (!a.run.empty()) req.run_id = resolve_run_id(*store, a.run, s.results_dir);
    req.store = store.get();
  }
  auto script = repro::write(req, interrupted());
  if (a.output.empty()) {
    std::cout << script.text;
    return 0;
  }
  report::write_file_atomically(a.output, script.text);
  fs::permissions(a.output, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add, ec);
  std::fprintf(stderr, "wrote %s (run it with %s's python)\n", a.output.c_str(),
               script.framework.c_str());
  return 0;
}

}  // namespace

Command repro_command() {
  return {"repro", "Write one case as a standalone Python script for a bug report",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<ReproArgs>();
            add_common(c, a->common);
            c->add_option("--suite", a->sel.suites, "Suite name (default paper; repeatable)");
            c->add_option("--suite-dir", a->sel.suite_dirs, "A folder of your own case files")
                ->check(CLI::ExistingDirectory);
            c->add_option("case", a->case_id, "Case id (see: mudjack list)")->required();
            c->add_option("--device", a->device, "Device to reproduce on (default cpu)");
            c->add_option("--run", a->run,
                          "Run whose outcome and baseline outputs to use (default: the newest run "
                          "with this case on this device, if any)");
            c->add_option("-o,--output", a->output, "Write the script here (default stdout)");
            c->add_flag("--minimal", a->minimal,
                        "The smallest script that shows the failure: the call and one test of "
                        "what the run saw (no timing, grid or checks)");
            add_number(c, "--memory-limit-mb", a->memory_limit_mb, run::kMemoryLimitRangeMb,
                       "Resident memory limit per probe and the processes it starts, listing "
                       "included (default: run.memory_limit_mb in mudjack.toml, else 3/4 of RAM)");
            return [a] { return write_repro(*a); };
          }};
}

}  // namespace mudjack::cli
