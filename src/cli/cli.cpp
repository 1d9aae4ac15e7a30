#include "cli/cli.hpp"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "os/process_tree.hpp"
#include "util/error.hpp"
#include "util/nearest.hpp"
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
  return {doctor_command(), check_command(),   devices_command(), list_command(),  run_command(),
          report_command(), compare_command(), merge_command(),   repro_command(), runs_command(),
          cache_command(),  serve_command(),   sweep_command(),   fuzz_command()};
}

constexpr const char* kExitCodes =
    "Exit codes: 0 done, 1 a finding the command reports (see each command's --help), 2 bad "
    "usage or input, 3 nothing could be attempted, 130 interrupted.\n";
constexpr const char* kWords =
    "Words: a failing case is `unsupported` (never a failure) when the framework's claims "
    "exclude its dtype on every device, or its message is an API contract; `kernel_missing` (a "
    "failure) when the claims exclude it only on this device, or its message names this chip's "
    "kernel or placement; else a plain failure; a divergence's cause is own_check (the case's "
    "own check failed), full_precision, precision_default or baseline_wrong (the oracle); a pass "
    "was checked by a reference, a property, the baseline, float64 (the oracle against its own "
    "widened run) or none (unverified).";

// Each command's exit codes, in its --help footer.
std::string exit_codes_of(std::string_view command) {
  static const std::map<std::string_view, std::string_view> kCodes = {
      {"run",
       "0 run completed (whatever the verdicts), 1 --fail-on matched, a listed expected failure "
       "now passes, or a suite error, 2 bad usage, input or a machine fault, 3 nothing could be "
       "attempted, 130 interrupted (resume with --resume)"},
      {"check",
       "0 every case passed (or its dtype is one the framework lacks), 1 a case failed, "
       "mismatched, crashed or timed out, 2 bad usage or input, 130 interrupted"},
      {"compare", "0 no regression, 1 a regression or a new failure, 2 bad usage or input"},
      {"doctor", "0 every framework is ready, 3 something is missing"},
      {"fuzz",
       "0 no finding, 1 findings (suspects never count), 2 bad usage or input, 130 interrupted "
       "(resume with --resume)"},
      {"sweep", "0 every target complete, 1 a target incomplete, 2 bad usage, 130 interrupted"},
  };
  const auto it = kCodes.find(command);
  return "Exit codes: " +
         std::string(it != kCodes.end() ? it->second : "0 done, 2 bad usage or input") + ".";
}

// "unknown command 'rn'; did you mean 'run'?" for a first word that is no
// command; nullopt when it is one (or a flag, left to CLI11).
std::optional<std::string> unknown_command(int argc, char** argv,
                                           const std::vector<Command>& table) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string_view word = argv[1];
  std::vector<std::string> names;
  std::string known;
  for (const auto& c : table) {
    if (word == c.name) return std::nullopt;
    names.emplace_back(c.name);
    known += (known.empty() ? "" : ", ") + std::string(c.name);
  }
  std::string why = "unknown command '" + std::string(word) + "'";
  if (auto near = util::nearest(word, names)) return why + "; did you mean '" + *near + "'?";
  return why + " (commands: " + known + ")";
}

// The command `argv` names (a nested one, `cache prune`, too), else `app`.
const CLI::App* named_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const auto subs =
        at->get_subcommands([&word](const CLI::App* c) { return c->get_name() == word; });
    if (subs.empty()) continue;
    at = subs.front();
  }
  return at;
}

// Every flag `command` takes, spelled as typed ("--framework", "-h").
std::vector<std::string> flags_of(const CLI::App& command) {
  std::vector<std::string> flags;
  for (const auto* o : command.get_options()) {
    for (const auto& n : o->get_lnames()) flags.push_back("--" + n);
    for (const auto& n : o->get_snames()) flags.push_back("-" + n);
  }
  return flags;
}

// The first word of `argv` that looks like a flag and that `command` does not
// take, with the nearest it does: "unknown flag --framwork; did you mean
// --framework?"; "" when every flag is known.
std::string unknown_flag(const CLI::App& command, const std::string& path, int argc, char** argv) {
  const auto flags = flags_of(command);
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (word.size() < 2 || word[0] != '-' || std::isdigit(static_cast<unsigned char>(word[1]))) {
      continue;  // a value, or a negative number
    }
    word = word.substr(0, word.find('='));
    if (std::find(flags.begin(), flags.end(), word) != flags.end()) continue;
    std::string why = "unknown flag " + word;
    if (auto near = util::nearest(word, flags)) return why + "; did you mean " + *near + "?";
    return why + " (see: mudjack " + path + " --help)";
  }
  return "";
}

// A CLI11 parse error as the one `mudjack: error:` line: the command it
// happened in, then CLI11's words on one line, or a flag the command does
// not take with the nearest it does.
// "B is required" for a positional argument, said the way its help does:
// what it is and the command's usage. nullopt for anything else.
std::optional<std::string> missing_positional(const CLI::App& command, const std::string& path,
                                              const std::string& what) {
  const auto end = what.find(" is required");
  if (end == std::string::npos) return std::nullopt;
  const auto* missing = command.get_option_no_throw(what.substr(0, end));
  if (missing == nullptr || !missing->get_positional()) return std::nullopt;
  const auto upper = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
  };
  std::string usage = "mudjack " + path;
  for (const auto* o : command.get_options()) {
    if (o->get_positional()) usage += " " + upper(o->get_name());
  }
  return "missing " + upper(missing->get_name()) + " (" + missing->get_description() +
         "); usage: " + usage + " [options] (see: mudjack " + path + " --help)";
}

std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const CLI::App* command = named_command(app, argc, argv);
  std::string path;  // "cache prune"
  for (const auto* c = command; c != &app && c != nullptr; c = c->get_parent()) {
    path = c->get_name() + (path.empty() ? "" : " ") + path;
  }
  const std::string where = path.empty() ? "" : path + ": ";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    if (auto flag = unknown_flag(*command, path, argc, argv); !flag.empty()) return where + flag;
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && command != &app) {
    if (auto line = missing_positional(*command, path, e.what())) return where + *line;
  }
  std::string what = e.what();
  for (size_t at = what.find('\n'); at != std::string::npos; at = what.find('\n', at)) {
    what.replace(at, 1, "; ");
  }
  while (!what.empty() && (what.back() == ' ' || what.back() == ';')) what.pop_back();
  return where + what;
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  // What engines killed by SIGKILL left (their probes' cgroups, with what a
  // probe had started in them) is killed at every start, not only when this
  // engine first starts a probe: a notebook's interrupted mudjack.check()
  // otherwise left a dozen probe children running until the next run.
  (void)os::cgroup_support();
  CLI::App app{
      "mudjack: do the framework functions you rely on run, agree and run fast on this chip?"};
  app.set_version_flag("--version",
                       std::string(util::version()) + " (" + std::string(util::revision()) + ")");
  app.require_subcommand(1);
  app.footer(std::string(kExitCodes) + kWords);
  // --help shows each flag's default where it has one (subcommands inherit it).
  app.option_defaults()->always_capture_default();
  for (int i = 0; i < argc; ++i) {
    std::string word = i == 0 ? "mudjack" : argv[i];
    if (word.empty() || word.find_first_of(" \t'\"$\\;&|<>()*?[]{}`!#~") != std::string::npos) {
      std::string quoted = "'";
      for (char ch : word) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      word = quoted + "'";
    }
    invocation() += (i == 0 ? "" : " ") + word;
  }
  const auto table = commands();
  if (auto why = unknown_command(argc, argv, table)) {
    std::fprintf(stderr, "mudjack: error: %s\n", why->c_str());
    return 2;
  }
  int rc = 0;
  for (const auto& cmd : table) {
    auto* sub = app.add_subcommand(cmd.name, cmd.summary);
    sub->footer(exit_codes_of(cmd.name) + "\n" + kWords);
    sub->callback([&rc, action = cmd.setup(sub)] { rc = action(); });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "mudjack: error: %s\n", parse_error_line(app, e, argc, argv).c_str());
    return 2;
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
