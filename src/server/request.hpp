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
#include "run/options.hpp"
#include "server/http_error.hpp"

namespace mudjack::server {

// What this server can run, read once at start-up (listing and discovery).
struct Catalog {
  std::map<std::string, std::filesystem::path> suites;        // suite name -> folder
  std::map<std::string, std::vector<model::CaseInfo>> cases;  // suite name -> its cases
  std::vector<std::string> frameworks;                        // frameworks offered, in order
  std::vector<std::string> devices;                           // device ids they see
  // Suite name -> the run parameters it reads, as its listing reported them
  // ({NAME: {type, default, value, path?}}; protocol 1.8's `path`).
  std::map<std::string, nlohmann::json> params;
};

// Whether any offered suite declares parameter `name` to name a file, folder
// or program (`param(..., path=True)`): a request may never set it, and a
// stored run that sets it to anything but the operator's value is not resumed.
bool names_path(const Catalog& catalog, const std::string& name);

// A checked POST /v1/runs body. Absent options take the server's defaults.
struct RunRequest {
  std::vector<std::string> suites;      // at least one, each in the catalog
  std::vector<std::string> frameworks;  // empty: every offered framework
  std::vector<std::string> devices;     // empty: every device
  std::string filter;  // RE2 regex over case ids (plan/case_filter.hpp); empty: all
  // Run parameters {name: "value"} (plan/params.hpp): the suites are listed
  // again with them, and a name no selected suite reads is refused.
  nlohmann::json params = nlohmann::json::object();
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> warmup_ms;
  std::optional<int> min_samples;
  std::optional<int> rounds;
  std::optional<int> cpu_probes;  // the cpu lane's probes (0: from the host)
  std::optional<int> max_samples;
  std::string policy;  // "" (as each case declares), "timed" or "once"
  int64_t seed = 0;    // in run::kSeedRange
  std::string baseline = "cpu";
  bool serial = false;
  bool no_baseline = false;  // run only the devices asked for (RunOptions::no_baseline)
  std::string resume;        // a run id to continue; nothing else may be set with it
};

// The largest body the server reads by default, and the bounds on options:
// the numbers' are the CLI's (run/options.hpp), so the API refuses exactly
// what `mudjack run` refuses.
inline constexpr size_t kDefaultMaxBodyBytes = size_t{64} * 1024;
inline constexpr size_t kMaxFilterChars = 1024;
inline constexpr double kMaxTimeoutS = run::kTimeoutRangeS.high;
inline constexpr double kMaxBudgetMs = run::kBudgetRangeMs.high;
inline constexpr int kMaxSamples = static_cast<int>(run::kSamplesRange.high);

// Parses and checks a body against the catalog: unknown fields, wrong types,
// unknown or repeated suites, unknown frameworks/devices, a bad regex,
// out-of-range numbers (NaN, infinities and negative seeds included) and
// malformed parameters and parameters that name paths (names_path) are
// errors, each a 400 (the client's mistake) whose
// one-line message names the field and what was wrong.
Result<RunRequest> parse_run_request(std::string_view body, const Catalog& catalog);

// The request's cases: its suites' cases, filtered by framework and regex.
// May be empty (the caller answers 400 "no cases match").
std::vector<model::CaseInfo> select_cases(const RunRequest& request, const Catalog& catalog);

}  // namespace mudjack::server
