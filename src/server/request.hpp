#pragma once
// What a client may ask `mudjack serve` to run (POST /v1/runs), checked
// against what the server offers. A request names suites, frameworks,
// devices, a case-id filter and timing options; never code, never a folder
// or an interpreter (those are the operator's, fixed when the server starts).
//
// Pure functions over values: no I/O, thread-safe.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "server/http_error.hpp"

namespace mudjack::server {

// What this server can run, read once at start-up (listing and discovery).
struct Catalog {
  std::map<std::string, std::filesystem::path> suites;        // suite name -> folder
  std::map<std::string, std::vector<model::CaseInfo>> cases;  // suite name -> its cases
  std::vector<std::string> frameworks;                        // frameworks offered, in order
  std::vector<std::string> devices;                           // device ids they see
};

// A checked POST /v1/runs body. Absent options take the server's defaults.
struct RunRequest {
  std::vector<std::string> suites;      // at least one, each in the catalog
  std::vector<std::string> frameworks;  // empty: every offered framework
  std::vector<std::string> devices;     // empty: every device
  std::string filter;                   // ECMAScript regex over case ids; empty: all
  // Run parameters {name: "value"} (plan/params.hpp): the suites are listed
  // again with them, and a name no selected suite reads is refused.
  nlohmann::json params = nlohmann::json::object();
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> warmup_ms;
  std::optional<int> min_samples;
  std::optional<int> max_samples;
  int64_t seed = 0;
  std::string baseline = "cpu";
  bool serial = false;
  std::string resume;  // a run id to continue; nothing else may be set with it
};

// The largest body the server reads by default, and the bounds on options.
inline constexpr size_t kDefaultMaxBodyBytes = size_t{64} * 1024;
inline constexpr size_t kMaxFilterChars = 1024;
inline constexpr double kMaxTimeoutS = 24 * 3600;
inline constexpr double kMaxBudgetMs = 600'000;
inline constexpr int kMaxSamples = 1'000'000;

// Parses and checks a body against the catalog: unknown fields, wrong types,
// unknown suites/frameworks/devices, a bad regex, out-of-range numbers and
// malformed parameters are errors, each a 400 (the client's mistake) whose
// one-line message names the field and what was wrong.
Result<RunRequest> parse_run_request(std::string_view body, const Catalog& catalog);

// The request's cases: its suites' cases, filtered by framework and regex.
// May be empty (the caller answers 400 "no cases match").
std::vector<model::CaseInfo> select_cases(const RunRequest& request, const Catalog& catalog);

}  // namespace mudjack::server
