#pragma once
// Run parameters: `mudjack run --param NAME=VALUE` (repeatable), `[params]` in
// mudjack.toml, or RunSpec::params through the API. The engine does not
// interpret values: every probe gets them as `--param NAME=VALUE` and a suite
// reads them, typed, with `mudjack_probe.api.param(NAME, default)`. The
// listing probe reports which names its suites read, so a name no suite reads
// (a typo) is refused before anything runs. Pure functions; thread-safe.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mudjack::plan {

using Params = std::map<std::string, std::string>;

// {"matrix_size=4096", "data_dir=/d"} -> {matrix_size: "4096", data_dir: "/d"}; a
// later item overrides an earlier one. FatalError for an item without '=' or
// whose name is not an identifier ([A-Za-z_][A-Za-z0-9_]*).
Params parse_params(const std::vector<std::string>& items);

// FatalError naming every given parameter that is absent from `read` (the
// listing's {name: {type, default, value}}), with the ones the suites read.
void check_params(const Params& given, const nlohmann::json& read);
// The parameters `read` names, with their types: "matrix_size (int), data_dir
// (str)", or "none".
std::string describe_read(const nlohmann::json& read);

// Parameters as JSON (run options): {name: "value"}; and back (FatalError on
// anything but an object of strings).
nlohmann::json params_to_json(const Params& params);
Params params_from_json(const nlohmann::json& j);

}  // namespace mudjack::plan
