// mudjack serve: the HTTP API (the work is in server/).
#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "run/options.hpp"
#include "server/server.hpp"
#include "util/error.hpp"
#include "util/redact.hpp"

namespace mudjack::cli {
namespace fs = std::filesystem;
namespace {

struct ServeArgs {
  Common common;
  std::vector<std::string> suites;
  std::vector<std::string> suite_dirs;
  std::vector<std::string> frameworks;
  server::ServeOptions o;  // the plain settings, filled by their flags
  std::optional<std::string> port_file;
  std::optional<std::string> token_file;
  double drain_s = 0;
  double keepalive_s = 15;
  double request_timeout_s = 10;
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> memory_limit_mb;
};

// The operator's run defaults: flags over mudjack.toml over run::RunOptions.
server::RunDefaults run_defaults(const ServeArgs& a, const Settings& s) {
  server::RunDefaults d;
  d.results_dir = s.results_dir;
  d.profile = s.config.profile;
  d.python = s.python;
  // The flags' ranges are checked as they are parsed (cli/numbers.hpp).
  d.timeout_s = a.timeout_s.value_or(s.config.timeout_s.value_or(d.timeout_s));
  d.budget_ms = a.budget_ms.value_or(s.config.budget_ms.value_or(d.budget_ms));
  d.cpu_probes = s.config.cpu_probes.value_or(d.cpu_probes);
  if (auto mb = a.memory_limit_mb ? a.memory_limit_mb : s.config.memory_limit_mb) {
    d.memory_limit_bytes = run::mb_to_bytes(*mb);
  }
  // The server's defaults must be a runnable run, or every request would fail.
  if (auto why = run::invalid(d)) throw util::FatalError("serve defaults: " + *why);
  d.intolerable = intolerable_path(a.common);
  d.params = s.config.params;
  return d;
}

int serve(const ServeArgs& a) {
  auto s = settings(a.common);
  check_intolerable(a.common);  // fail now, not later
  server::ServeOptions o = a.o;
  o.token = server::resolve_token(
      a.token_file ? std::optional<fs::path>(*a.token_file) : std::nullopt, a.o.no_auth);
  util::add_secret(o.token);  // redacted from whatever a probe prints
  if (a.port_file) o.port_file = fs::path(*a.port_file);
  for (const auto& n : a.suites) o.suites.push_back(plan::resolve_suite(n));
  for (const auto& d : a.suite_dirs) o.suites.push_back(plan::suite_from_dir(d));
  o.frameworks = split_commas(a.frameworks);
  plan::filter({}, o.frameworks, "");  // validates names
  o.defaults = run_defaults(a, s);
  o.drain_grace = std::chrono::milliseconds(static_cast<int64_t>(a.drain_s * 1000));
  o.keepalive = std::chrono::milliseconds(static_cast<int64_t>(a.keepalive_s * 1000));
  o.request_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.request_timeout_s * 1000));
  auto store = open_store(s.results_dir);
  return server::serve(o, *store, interrupted());
}

void add_offer_flags(CLI::App* c, ServeArgs& a) {
  c->add_option("--suite", a.suites, "Suites offered (default: every known suite; repeatable)");
  c->add_option("--suite-dir", a.suite_dirs, "Offer a folder of case files too")
      ->check(CLI::ExistingDirectory);
  c->add_option("--framework", a.frameworks,
                "Frameworks offered (default all; repeatable or comma list)");
  add_number(c, "--timeout-s", a.timeout_s, run::kTimeoutRangeS,
             "Default deadline per case, seconds");
  add_number(c, "--budget-ms", a.budget_ms, run::kBudgetRangeMs,
             "Default timing budget per case, ms");
  add_number(c, "--memory-limit-mb", a.memory_limit_mb, run::kMemoryLimitRangeMb,
             "Resident memory limit per probe (default 3/4 of RAM)");
}

void add_http_flags(CLI::App* c, ServeArgs& a) {
  c->add_option("--host", a.o.host, "Address to bind (default 127.0.0.1)");
  add_number(c, "--port", a.o.port, util::IntRange{0, 65535},
             "Port (default 8080; 0 picks a free one)");
  c->add_option("--port-file", a.port_file, "Write the bound port to this file");
  c->add_option("--token-file", a.token_file, "Bearer token file (default: $MUDJACK_TOKEN)");
  c->add_flag("--no-auth", a.o.no_auth, "Serve without a token (trusted networks)");
  add_number(c, "--backlog", a.o.backlog, util::IntRange{1, 1 << 20},
             "listen(2) backlog (default 4096)");
  add_number(c, "--threads", a.o.threads, util::IntRange{5, 4096},
             "HTTP worker threads (default 64)");
  add_number(c, "--max-body-bytes", a.o.max_body_bytes, util::IntRange{64, 64 << 20},
             "Largest request body (default 65536)");
  add_number(c, "--max-head-bytes", a.o.max_head_bytes, util::IntRange{1024, 1 << 20},
             "Largest request head: request line, headers, blank line (default 32768; 431 beyond)");
  add_number(c, "--max-header-lines", a.o.max_header_lines, util::IntRange{8, 10000},
             "Most header lines in a request (default 100; 431 beyond)");
  add_number(c, "--max-line-bytes", a.o.max_line_bytes, util::IntRange{256, 1 << 20},
             "Longest request or header line (default 8192; 431 beyond)");
  add_number(c, "--max-queued", a.o.max_queued, util::IntRange{1, 100000},
             "Runs that may wait in the queue; POST /v1/runs answers 429 beyond (default 64)");
  add_number(c, "--max-connections", a.o.max_connections, util::IntRange{8, 65536},
             "Client connections open at once (default 512)");
  add_number(c, "--request-timeout-s", a.request_timeout_s, util::Range{0.1, 3600, true},
             "Seconds a request may take to arrive whole, head and body (default 10)");
  // A day at most: a grace period, and milliseconds of it fit int64 (serve()).
  add_number(c, "--drain-s", a.drain_s, util::Range{0, 86400, true},
             "On SIGTERM, seconds running runs get to finish before cancel (default 0)");
  add_number(c, "--keepalive-s", a.keepalive_s, util::Range{0.05, 3600, true},
             "Comment on an idle event stream every N seconds (default 15)");
}

}  // namespace

Command serve_command() {
  return {"serve", "Serve the HTTP API: start runs, follow their events, fetch results",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<ServeArgs>();
            add_common(c, a->common);
            add_intolerable(c, a->common);
            add_offer_flags(c, *a);
            add_http_flags(c, *a);
            return [a] { return serve(*a); };
          }};
}

}  // namespace mudjack::cli
