#pragma once
// Internal to src/store/: what the Store's three files share. store.cpp is
// the API (runs, plans, results, changes, leases); store_schema.cpp the
// schema, its migrations and the checks before a file is trusted (open);
// store_rows.cpp rows to the model and back. Nothing outside store/
// includes this.

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

namespace mudjack::store::detail {

// --- the schema (store_schema.cpp) ------------------------------------------
// meta.schema_version, or "0.0" for an empty database. Throws when the file
// holds other tables but no MudJack meta.
std::string read_version(const Connection& db);

// --- rows (store_rows.cpp) --------------------------------------------------
// Dumps JSON for storage; invalid UTF-8 (a probe's stderr) is replaced, never
// thrown on.
std::string dump(const nlohmann::json& j);

inline constexpr std::string_view kRunColumns =
    "id, suite, state, created_at, finished_at, baseline, options_json, environment_json";
model::RunInfo run_from_row(const Statement& q);

// Case metadata columns, in the order case_from_row() reads them from `first`.
inline constexpr std::string_view kCaseColumns =
    "c.case_id, c.framework, c.function, c.variant, c.dtype, c.shape, c.mode, c.compiler, "
    "c.params_json, c.requires_json, c.dims_json, c.note, c.successor, c.rtol, c.atol, "
    "c.tags_json, c.oracle_json";
void case_from_row(const Statement& q, int first, model::CaseInfo& c);

// Result columns, then the joined case columns (kCaseColumns) from index 37.
inline constexpr std::string_view kResultColumns =
    "r.run_id, r.case_id, r.device, r.outcome, r.error_kind, r.error_message, r.error_signal, "
    "r.error_exit_code, r.error_stderr_tail, r.error_traceback, r.cold_ns, r.samples_json, "
    "r.calls_per_sample, r.median_ns, r.p10_ns, r.p90_ns, r.iqr_ns, r.mean_ns, r.stddev_ns, "
    "r.cv, r.min_ns, r.n, r.peak_device_bytes, r.peak_host_bytes, r.max_abs_err, "
    "r.max_rel_err, r.compared_with, r.numeric_message, r.outputs_json, r.extra_json, "
    "r.started_at, r.finished_at, r.wall_s, r.work_json, r.metrics_json, r.accuracy_json, "
    "r.timing_json";
inline constexpr int kResultColumnCount = 37;
// One row of kResultColumns + kCaseColumns. `path` names the database in errors.
model::CaseResult result_from_row(const Statement& q, const std::filesystem::path& path);

inline constexpr std::string_view kCaseInsertTail =
    " INTO cases (run_id, case_id, framework, function, variant, dtype, shape, mode, "
    "compiler, params_json, requires_json, dims_json, note, successor, rtol, atol, tags_json, "
    "oracle_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
    "?17, ?18)";
void upsert_case(Statement& q, const std::string& run_id, const model::CaseInfo& c);

// The columns record() and hold() write, in bind_result()'s order.
inline constexpr std::string_view kResultInsertColumns =
    "run_id, case_id, device, outcome, error_kind, error_message, error_signal, "
    "error_exit_code, error_stderr_tail, error_traceback, cold_ns, samples_json, "
    "calls_per_sample, median_ns, p10_ns, p90_ns, iqr_ns, mean_ns, stddev_ns, cv, min_ns, n, "
    "peak_device_bytes, peak_host_bytes, max_abs_err, max_rel_err, compared_with, "
    "numeric_message, outputs_json, extra_json, started_at, finished_at, wall_s, work_json, "
    "metrics_json, accuracy_json, timing_json";
inline constexpr std::string_view kResultInsertValues =
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
    "?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37";
// Binds ?1-?37 of kResultInsertColumns.
void bind_result(Statement& q, const model::CaseResult& r);

inline constexpr std::string_view kLeaseColumns =
    "run_id, host, pid, process_start, acquired_at, heartbeat_at, heartbeat_unix_ms";
Lease lease_from_row(const Statement& q);

}  // namespace mudjack::store::detail
