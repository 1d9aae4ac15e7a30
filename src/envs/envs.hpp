#pragma once
// Where MudJack's own files and the framework environments are, and which
// Python interpreter runs each framework's probe.
//
// Framework environments are virtualenvs built by scripts/install.sh from
// the pin files envs/<profile>/<framework>.txt, cached outside the checkout at
// <cache>/envs/<framework>-<profile>-<first 16 hex of sha256(pin file)>, so any
// clone on the machine reuses them and a changed pin file builds a new one.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mudjack::envs {

inline const std::vector<std::string> kFrameworks = {"numpy", "torch", "jax", "tensorflow",
                                                     "onnxruntime"};
// current: this machine's pins (scripts/install.sh); paper-2023: the study's
// releases; latest: the newest releases the package index offers. The last two
// need other Pythons than Debian 12's and are built only in container images.
// xla: torch 2.9 with torch_xla (XLA devices), only torch, installed on request.
inline const std::vector<std::string> kProfiles = {"current", "paper-2023", "latest", "xla"};
// "current, paper-2023, latest", for messages.
std::string profile_names();
// "numpy, torch, jax, tensorflow, onnxruntime" (kFrameworks), for messages.
std::string framework_names();

// The folder holding probe/, suites/, envs/ and schemas/: $MUDJACK_DATA_DIR,
// else the source tree the binary was built from, else <exe>/../share/mudjack.
std::filesystem::path data_dir();
// $MUDJACK_CACHE_DIR, else $XDG_CACHE_HOME/mudjack, else $HOME/.cache/mudjack.
std::filesystem::path cache_dir();
// What model suites build (ONNX exports, compiler caches): $MUDJACK_BUILD_CACHE,
// else cache_dir()/builds. Probes get it as MUDJACK_BUILD_CACHE.
std::filesystem::path build_cache_dir();

// The cached environment folder for a pin file; empty path if the pin file is absent.
std::filesystem::path env_dir(const std::string& framework, const std::string& profile);

struct Interpreter {
  std::filesystem::path python;  // empty: none found
  std::string source;            // "--python", "config", "environment cache", "PATH"
  std::string missing_reason;    // why python is empty
};

// Order: explicit override (flag or config, already merged by the caller),
// then the cached environment of the profile. A missing interpreter is not an
// error here: the framework's cases become `unavailable` with the reason.
Interpreter resolve(const std::string& framework, const std::string& profile,
                    const std::map<std::string, std::string>& overrides);

// An interpreter able to import mudjack_probe for listing cases: any
// framework's, else python3 on PATH. Listing imports no framework.
Interpreter listing_interpreter(const std::string& profile,
                                const std::map<std::string, std::string>& overrides);

}  // namespace mudjack::envs
