// mudjack check FILE.py:NAME: a person's own function or torch module,
// checked on every local device without writing a suite (the built-in
// suite `check`, probe/mudjack_probe/checking.py), judged and timed like any
// case, printed as one short table with error sizes.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/check_framework.hpp"
#include "cli/check_table.hpp"
#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "cli/progress.hpp"
#include "envs/envs.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"
#include "run/options.hpp"
#include "stats/timing.hpp"
#include "util/error.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::cli {
namespace {
namespace fs = std::filesystem;

struct CheckArgs {
  Common common;
  std::string target;  // FILE.py:NAME, or FILE.py: the torch modules the script calls
  std::string framework;
  std::vector<std::string> devices;
  bool quick = false;
  std::optional<double> budget_ms;
  std::optional<double> memory_limit_mb;  // over mudjack.toml's run.memory_limit_mb
  std::optional<double> timeout_s;        // over mudjack.toml's run.timeout_s
  plan::Fields fields;                    // --dtype, --mode
};

// Whether `line` is an import of `module` ("import torch", "from torch.nn
// import X", indented or not). By hand, line by line: std::regex recursed per
// character, and a file of 60,000 blank lines overflowed the stack.
bool imports_module(std::string_view line, std::string_view module) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; };
  size_t i = 0;
  while (i < line.size() && blank(line[i])) ++i;
  const auto word = [&](std::string_view w) {
    if (line.substr(i, w.size()) != w) return false;
    i += w.size();
    return true;
  };
  if (!word("import") && !word("from")) return false;
  const size_t spaces = i;
  while (i < line.size() && blank(line[i])) ++i;
  if (i == spaces || !word(module)) return false;
  if (i == line.size()) return true;
  const auto c = static_cast<unsigned char>(line[i]);
  return !(std::isalnum(c) || c == '_');  // "torchvision" is not "torch"
}

// The framework a file imports first in this order (torch and the libraries
// built on it, jax, tensorflow, then transformers, whose models here are
// torch's), else numpy: whose interpreter can import it. A models-suite
// script imports only its library, inside its build().
std::string framework_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  const std::vector<std::pair<std::string, std::string>> known = {{"torch", "torch"},
                                                                  {"torchvision", "torch"},
                                                                  {"torchaudio", "torch"},
                                                                  {"timm", "torch"},
                                                                  {"torch_geometric", "torch"},
                                                                  {"diffusers", "torch"},
                                                                  {"jax", "jax"},
                                                                  {"flax", "jax"},
                                                                  {"tensorflow", "tensorflow"},
                                                                  {"keras", "tensorflow"},
                                                                  {"transformers", "torch"}};
  for (const auto& [module, framework] : known) {
    for (const auto& line : lines) {
      if (imports_module(line, module)) return framework;
    }
  }
  return "numpy";
}

run::RunOptions options_of(const CheckArgs& a, const Settings& s, const std::string& framework) {
  run::RunOptions o;
  o.suites = {plan::resolve_suite("check")};
  o.frameworks = {framework};
  o.devices = a.devices;
  o.profile = s.config.profile;
  o.python = s.python;
  o.params = {
      {"target", a.target}, {"quick", a.quick ? "true" : "false"}, {"framework", framework}};
  o.budget_ms = a.budget_ms.value_or(o.budget_ms);
  o.memory_limit_bytes = memory_limit_bytes_of(s, a.memory_limit_mb);
  o.timeout_s = a.timeout_s.value_or(s.config.timeout_s.value_or(o.timeout_s));
  o.rounds = a.quick ? 1 : o.rounds;
  o.command = invocation();
  if (auto why = run::invalid(o)) throw util::FatalError(*why);
  return o;
}

// The target's cases, listed by `python` (which imports FILE). With
// `call_once` the listing probe calls NAME once on its inputs, to report
// what it returns (check_framework.hpp).
std::vector<model::CaseInfo> list_target(const run::RunOptions& options,
                                         const envs::Interpreter& python, bool call_once) {
  auto params = options.params;
  if (call_once) params["call_once"] = "true";
  try {
    return plan::list_cases(options.suites, python, params, nullptr, run::memory_limit_of(options));
  } catch (const util::FatalError& e) {  // the target's own one line, without the suite's frame
    const std::string what = e.what();
    const std::string mark = "CheckTargetError: ";
    const auto at = what.find(mark);
    throw util::FatalError(at == std::string::npos ? what : what.substr(at + mark.size()));
  }
}

// NAME's cases for the framework decided from the probe's facts
// (check_framework.hpp): listed once with the first guess (--framework, else
// what FILE imports), again only when the facts decide otherwise.
std::vector<model::CaseInfo> target_cases(const CheckArgs& a, run::RunOptions& options,
                                          const envs::Interpreter& python) {
  auto cases = list_target(options, python, true);
  const auto colon = a.target.rfind(':');
  if (colon == std::string::npos) return cases;  // a script's torch modules
  const std::string name = a.target.substr(colon + 1);
  const auto facts = check_facts(cases);
  if (auto why = non_tensor_return(facts, name); !why.empty()) throw util::FatalError(why);
  const std::string decided = decide_framework(a.framework, facts, name);
  if (decided == options.frameworks.front()) return cases;
  options.frameworks = {decided};
  options.params["framework"] = decided;
  return list_target(options, python, false);
}

// 1 when a case failed, mismatched, crashed or timed out; a dtype the
// framework lacks (unsupported) and a skip are not failures.
int exit_code(const verdict::Judged& judged) {
  for (const auto& r : judged.cases) {
    if (model::props(r.outcome).fine) continue;
    if (!verdict::unsupported_reason(r)) return 1;
  }
  return 0;
}

int check(const CheckArgs& a) {
  const auto colon = a.target.rfind(':');
  if (colon == 0 || (colon != std::string::npos && colon + 1 == a.target.size())) {
    throw util::FatalError("check needs FILE.py:NAME or FILE.py, got '" + a.target + "'");
  }
  const fs::path file = a.target.substr(0, colon);
  if (!fs::is_regular_file(file)) throw util::FatalError(file.string() + ": no such file");
  auto s = settings(a.common);
  const std::string framework = a.framework.empty() ? framework_of(file) : a.framework;
  if (colon == std::string::npos && framework != "torch") {
    throw util::FatalError(file.string() +
                           ": without NAME, check runs the script and checks the torch modules "
                           "it calls, but it does not import torch; name one: FILE.py:NAME");
  }
  // Stored with the file's absolute path: `repro` and `runs` read it later,
  // from any folder.
  CheckArgs stored = a;
  stored.target = fs::absolute(file).lexically_normal().string() +
                  (colon == std::string::npos ? "" : a.target.substr(colon));
  auto options = options_of(stored, s, framework);
  // Listed by the interpreter of what FILE imports: listing imports the file.
  const auto python = envs::resolve(framework, s.config.profile, s.python);
  if (python.python.empty()) throw util::FatalError(python.missing_reason, 3);
  // The interpreter that imports the file runs every case of it: a numpy
  // function in a file that imports torch runs where torch is.
  for (const auto& fw : envs::kFrameworks) options.python.try_emplace(fw, python.python.string());
  auto cases = plan::select(target_cases(a, options, python), a.fields);
  if (cases.empty()) throw util::FatalError("nothing to check in " + a.target);
  auto store = open_store(s.results_dir);
  auto discovery = run::discover(options, cases, interrupted());
  auto prepared = run::create(*store, options, cases, discovery, "running");
  const run::Place place{s.results_dir, std::nullopt};
  // On a terminal, the progress line `run` draws (done/total, failures,
  // ETA); piped, nothing but the table, as before.
  std::optional<Progress> progress;
  if (!a.common.json && isatty(2) != 0) {
    std::map<std::string, size_t> per_device;
    for (const auto& [info, device] : prepared.work) ++per_device[device];
    progress.emplace(prepared.planned, prepared.done, per_device, true, stderr);
  }
  const bool completed = run::execute(
      *store, prepared, discovery, place,
      [&](const model::CaseResult& r) {
        if (progress) progress->on_result(r);
      },
      interrupted());
  if (progress) progress->finish();
  auto judged = run::finish(*store, prepared.info.id, completed, place);
  // Absolute: the repro and resume lines run from any folder.
  const auto results_dir = fs::absolute(s.results_dir).lexically_normal();
  if (a.common.json) {
    std::cout << report::render("json", judged) << "\n";
  } else {
    std::fputs(check_table_text(judged, results_dir).c_str(), stdout);
    if (auto busy = stats::busy_line(stats::busy_machine(judged.cases)); !busy.empty()) {
      std::printf("%s\n", busy.c_str());
    }
    std::printf("run %s: %s\n", judged.run.id.c_str(), run::run_dir(place, judged.run.id).c_str());
  }
  std::fflush(stdout);  // the table before the closing line on stderr
  if (!completed) {
    // The run is stored with its target, interpreters and options: `run
    // --resume` finishes it as it finishes any run.
    std::fprintf(stderr,
                 "mudjack: interrupted; %zu outcomes kept. Resume with: mudjack run --resume %s "
                 "--out %s (or check again from the start: %s)\n",
                 judged.cases.size(), shell_word(judged.run.id).c_str(),
                 shell_word(results_dir.string()).c_str(), invocation().c_str());
    return 130;
  }
  return exit_code(judged);
}

}  // namespace

Command check_command() {
  return {
      "check",
      "Check your own function or torch module (FILE.py:NAME with NAME_inputs() beside it) on "
      "every local device: accuracy against float64, latency",
      [](CLI::App* c) -> std::function<int()> {
        auto a = std::make_shared<CheckArgs>();
        add_common(c, a->common);
        c->add_option("target", a->target,
                      "FILE.py:NAME, or FILE.py: the script is run and each torch module it "
                      "calls is checked")
            ->required();
        c->add_flag("--quick", a->quick, "Eager only, the inputs' own dtype, one timing round");
        c->add_option("--framework", a->framework,
                      "The framework NAME runs on (default: NAME's own module, else the one "
                      "framework it names, else its inputs' types)")
            ->check(CLI::IsMember({"numpy", "torch", "jax", "tensorflow"}));
        c->add_option("--device", a->devices, "Only these devices (repeatable)");
        add_number(c, "--budget-ms", a->budget_ms, run::kBudgetRangeMs,
                   "Timing budget per case and round, ms");
        add_number(c, "--memory-limit-mb", a->memory_limit_mb, run::kMemoryLimitRangeMb,
                   "Resident memory limit per probe and the processes it starts, listing "
                   "included (default: run.memory_limit_mb in mudjack.toml, else 3/4 of RAM)");
        std::ostringstream timeout_help;
        timeout_help << "Deadline per case, seconds (default: run.timeout_s in mudjack.toml, else "
                     << run::RunOptions{}.timeout_s << ")";
        add_number(c, "--timeout-s", a->timeout_s, run::kTimeoutRangeS, timeout_help.str());
        c->add_option("--dtype", a->fields.dtypes, "Only these dtypes (comma list)")
            ->delimiter(',');
        c->add_option("--mode", a->fields.modes, "Only these modes (comma list)")->delimiter(',');
        return [a] { return check(*a); };
      }};
}

}  // namespace mudjack::cli
