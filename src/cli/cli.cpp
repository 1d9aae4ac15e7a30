#include "cli/cli.hpp"

#include <signal.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "util/error.hpp"
#include "util/version.hpp"

namespace mudjack::cli {
namespace {

extern "C" void on_signal(int) {
  interrupted().store(true);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a probe that died must not kill the engine on write
}

// The command table: --help prints it (CONTRIBUTING.md rule 5).
std::vector<Command> commands() {
  return {devices_command(), list_command(),  run_command(),  report_command(), compare_command(),
          merge_command(),   repro_command(), runs_command(), serve_command(),  sweep_command()};
}

constexpr const char* kExitCodes =
    "Exit codes: 0 run completed (whatever the verdicts), 1 --fail-on matched or compare found a "
    "regression or new failure, 2 bad usage or input, 130 interrupted.";

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  CLI::App app{
      "mudjack: do the framework functions you rely on run, agree and run fast on this chip?"};
  app.set_version_flag("--version",
                       std::string(util::version()) + " (" + std::string(util::revision()) + ")");
  app.require_subcommand(1);
  app.footer(kExitCodes);
  int rc = 0;
  for (const auto& cmd : commands()) {
    auto* sub = app.add_subcommand(cmd.name, cmd.summary);
    sub->callback([&rc, action = cmd.setup(sub)] { rc = action(); });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const util::FatalError& e) {
    std::fprintf(stderr, "mudjack: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {  // a library threw what should have been a FatalError
    std::fprintf(stderr, "mudjack: error: unexpected: %s\n", e.what());
    return 2;
  }
  return rc;
}

}  // namespace mudjack::cli
