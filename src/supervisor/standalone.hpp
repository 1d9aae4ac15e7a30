#pragma once
// A standalone script run on its own (a fuzz finding's repro.py, written by
// the probe over protocol `repro_graph`): the framework's interpreter with
// no MudJack on its path, in the script's folder, under a deadline. Its
// result is its exit status, the scripts' contract (1: the symptom showed,
// 0: it did not, anything else: the script broke); what it printed is kept
// for a person, never read for meaning.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace mudjack::supervisor {

struct StandaloneRun {
  std::optional<int> exit_code;  // unset: it did not start, or a signal or the deadline ended it
  std::string ended;             // how it ended ("exit code 1", "signal 9 (SIGKILL)")
  std::string output;            // its last lines of output, joined by "; " (at most 600 bytes)
};

// Runs `script` with `python` in the script's folder for at most `timeout`.
StandaloneRun run_standalone(const std::filesystem::path& python,
                             const std::filesystem::path& script, std::chrono::seconds timeout);

}  // namespace mudjack::supervisor
