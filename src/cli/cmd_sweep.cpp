// mudjack sweep: one request on every server of a targets file (the work is in fleet/).
#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "fleet/sweep.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {

struct SweepArgs {
  Common common;
  fleet::SweepOptions o;  // the plain settings, filled by their flags
  std::string targets;
  double backoff_ms = 500;
  double connect_timeout_s = 5;
  double read_timeout_s = 60;
};

int sweep(const SweepArgs& a) {
  check_intolerable(a.common);
  if (a.common.out.empty()) throw util::FatalError("sweep needs --out DIR");
  fleet::SweepOptions o = a.o;
  o.targets_file = a.targets;
  o.out = a.common.out;
  o.backoff = std::chrono::milliseconds(static_cast<int64_t>(a.backoff_ms));
  o.connect_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.connect_timeout_s * 1000));
  o.read_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.read_timeout_s * 1000));
  o.intolerable = intolerable_path(a.common);
  o.json = a.common.json;
  return fleet::sweep(o, interrupted());
}

void add_sweep_flags(CLI::App* c, SweepArgs& a) {
  c->add_option("--targets", a.targets, "Targets file (TOML, or JSON by .json)")
      ->required()
      ->check(CLI::ExistingFile);
  c->add_option("--out", a.common.out,
                "Sweep folder: state, per-target results, merged store and reports")
      ->required();
  add_intolerable(c, a.common);
  c->add_flag("--json", a.common.json, "The merged results.json on stdout");
  c->add_flag("--resume", a.o.resume, "Continue the sweep in --out");
  add_number(c, "--retries", a.o.retries, util::IntRange{0, 100},
             "Retries of a failing call before a target is given up (default 5)");
  add_number(c, "--backoff-ms", a.backoff_ms, util::Range{1, 600000, true},
             "First retry delay, doubling up to 10 s (default 500)");
  add_number(c, "--connect-timeout-s", a.connect_timeout_s, util::Range{0.01, 600, true},
             "Connection timeout (default 5)");
  add_number(c, "--read-timeout-s", a.read_timeout_s, util::Range{0.05, 3600, true},
             "Silence that counts as a lost target (default 60)");
}

}  // namespace

Command sweep_command() {
  return {"sweep", "Run on every endpoint of a targets file; merge into one cross-chip report",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<SweepArgs>();
            add_sweep_flags(c, *a);
            return [a] { return sweep(*a); };
          }};
}

}  // namespace mudjack::cli
