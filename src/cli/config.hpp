#pragma once
// mudjack.toml: optional settings a user keeps beside their results
// (docs/config.md). Command-line flags override the file.
//
//   profile = "current"            # pinned framework versions (envs/<profile>/)
//   results_dir = "mudjack-results"
//   [python]                        # an interpreter per framework
//   torch = "/opt/torch/bin/python"
//   [run]
//   timeout_s = 120
//   budget_ms = 7
//   memory_limit_mb = 16384
//   cpu_probes = 4                  # probes of the cpu lane (0: from the host)
//   [probe]
//   env_keep = ["SITE_*", "FOO"]    # variables probes inherit besides the list
//   [params]                        # case parameters; --param NAME=VALUE overrides
//   matrix_size = "1024,4096"       # strings, integers, floats or booleans

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mudjack::cli {

struct Config {
  std::string profile = "current";
  std::filesystem::path results_dir = "mudjack-results";
  std::map<std::string, std::string> python;
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> memory_limit_mb;
  std::optional<int> cpu_probes;
  // [params], values as text. Checked where suites are listed
  // (cli::selected_cases): a name no suite reads is refused.
  std::map<std::string, std::string> params;
  std::vector<std::string> env_keep;  // [probe] env_keep: names probes inherit besides the list
  std::filesystem::path source = "mudjack.toml";  // the file read, for messages
};

// Reads `path` if given (FatalError if missing), else ./mudjack.toml if it
// exists, else defaults. Unknown keys and wrong types are FatalErrors.
Config load_config(const std::optional<std::filesystem::path>& path);

}  // namespace mudjack::cli
