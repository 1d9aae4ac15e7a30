#pragma once
// The targets file of `mudjack sweep`: which `mudjack serve` endpoints to
// run on, with labels, and what to ask each for. TOML or JSON (by
// extension: .json is JSON, anything else TOML), one shape:
//
//   [run]                          # the POST /v1/runs body every target gets
//   suite = "paper"
//   filter = "argsort|sum"
//
//   [[target]]
//   label = "h100-torch"           # [A-Za-z0-9._-], unique; devices merge as <label>/<device>
//   url = "http://10.0.0.7:8080"   # http://HOST[:PORT] (no TLS: put a proxy in front)
//   token_file = "h100.token"      # relative to this file; default $MUDJACK_TOKEN
//   chip = "nvidia-h100"           # descriptive labels, kept in the report
//   framework = "torch"            # also the run's framework unless [target.run] names one
//   image = "mudjack:torch-cuda"
//   [target.run]                   # per-target overrides of [run]
//   devices = ["cuda:0"]
//
// JSON: {"run": {...}, "targets": [{"label": ..., "url": ..., "run": {...}}]}.
// Unknown keys, duplicate labels, bad URLs and wrong types are errors.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mudjack::fleet {

struct Target {
  std::string label;
  std::string url;  // as written, normalised without a trailing '/'
  std::string host;
  int port = 80;
  std::optional<std::filesystem::path> token_file;  // resolved against the file's folder
  std::string chip;
  std::string framework;
  std::string image;
  nlohmann::json request = nlohmann::json::object();  // the POST /v1/runs body for this target
};

// Parses a targets document; `format` is "toml" or "json"; `base` resolves
// relative token files. FatalError "<source>: <what>" on any bad input.
std::vector<Target> parse_targets(std::string_view text, std::string_view format,
                                  const std::filesystem::path& base, std::string_view source);

// Reads and parses a targets file (format by extension).
std::vector<Target> load_targets(const std::filesystem::path& file);

// "http://host:port/" -> host, port; nullopt and *error for anything else.
struct Url {
  std::string host;
  int port = 80;
};
std::optional<Url> parse_url(std::string_view url, std::string* error);

}  // namespace mudjack::fleet
