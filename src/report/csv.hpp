#pragma once
// results.csv: one row per (case, device) result, for spreadsheets and
// pandas. A rendering of the results model (CONTRIBUTING.md rule 8); results.json
// stays the primary artifact.
//
// RFC 4180: a header row, CRLF line ends, and a field is quoted (quotes
// doubled) when it holds a comma, a quote, CR or LF. Absent values are empty
// fields; numbers are written in the shortest form that reads back exactly;
// invalid UTF-8 (a probe's message) is replaced by U+FFFD.
// Pure and thread-safe.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "verdict/refusal.hpp"

namespace mudjack::report {

// The last six (results 1.1) come from report/capability.hpp: work, throughput
// at the median, metrics as "name=value unit; ...", and the case's params as JSON.
// error_eps and bound_eps (results 1.9): the oracle's error against the
// float64 reference and the bound it was judged by; max_abs_err and
// max_rel_err the largest absolute and relative errors (against the
// reference where the oracle judged, else the baseline). Empty where nothing
// was compared.
inline constexpr std::array<std::string_view, 38> kCsvColumns = {
    "run_id", "case_id", "framework", "function", "variant", "device", "dtype", "shape", "mode",
    "outcome", "error_kind", "error_message", "cold_ns", "median_ns", "p10_ns", "p90_ns", "n",
    "peak_device_bytes", "peak_host_bytes", "max_abs_err", "max_rel_err", "error_eps", "bound_eps",
    "cause", "checked", "work_amount", "work_unit", "throughput_per_s", "throughput_unit",
    "metrics", "params",
    "unstable",  // true/false for a timed case (latency.timing.unstable), else empty
    "spread",    // latency.timing.spread: rounds' (max - min) / median, or one round's samples'
    // verdict/fallback.hpp: the host ops that ran instead of the device
    // ("aten::nonzero×3"), or the fallback kind; empty when none
    "host_fallback",
    "warm_compiles",  // torch on XLA: graphs its warm calls compiled (recompilation)
    // verdict/refusal.hpp (results 1.10), empty for a case that was not refused:
    "refusal",         // unsupported (never a failure) or kernel_missing (a failure)
    "refusal_source",  // op_database, kernel_registry, type_rule or message
    "documented",      // true/false: the framework's claims say so
};

// The whole file: header row then one row per result, in the given order;
// `checked` and `refusals` parallel to `cases` (verdict::Judged::checked,
// ::refusals), empty for "".
std::string to_csv(const std::vector<model::CaseResult>& cases,
                   const std::vector<model::Check>& checked = {},
                   const std::vector<verdict::RefusalOf>& refusals = {});

// One field, quoted if RFC 4180 requires it.
std::string csv_field(std::string_view value);

}  // namespace mudjack::report
