#pragma once
// results.json: the primary, versioned view of a run (CONTRIBUTING.md rule 8); every
// other report renders the same model. schemas/results-v1.schema.json
// describes exactly what to_json writes.
//
// Shape (a contract; extend it only with a MINOR bump of
// model::kResultsSchemaVersion):
//   { schema_version: "1.3",
//     run: {id, suite, state, created_at, finished_at, baseline, options},
//     environment: <RunInfo::environment as is>,
//     cases: [ {id, framework, function, variant, device, dtype, shape, mode,
//               compiler, params, requires, dims, note, successor, rtol, atol,
//               tags, outcome,
//               error: null | {kind, message, signal, exit_code, stderr_tail,
//                              traceback},
//               latency: {cold_ns, median_ns, p10_ns, p90_ns, iqr_ns, mean_ns,
//                         stddev_ns, cv, min_ns, n, calls_per_sample,
//                         samples_ns[]},
//               memory: {peak_device_bytes, peak_host_bytes},
//               numeric: {max_abs_err, max_rel_err, compared_with, message},
//               outputs: [{path, dtype, saved_dtype, shape[]}],
//               extra, started_at, finished_at, wall_s,
//               latency_ratio: null | {baseline, ratio, low, high},      (1.1)
//               checked: none | reference | property | baseline} ],       (1.2)
//     (1.3: verdict `unverified`; checked `reference` written by probes 1.2)
//     verdicts: [ {framework, function, device, verdict, flags[], cases,
//                  failing[], mismatching[], latency_ratio, reason,
//                  unchecked, successor, successor_verdict} ],              (1.3)
//     counts: {framework: {device: {outcome: n, ... all seven}}},
//     reasons: {framework: {device: {paper reason: n, ... all eight}}} }  (1.1)
// Conventions: strings are always strings ("" when empty); an absent optional
// number is null; NaN and infinities are written as null; `error` is null
// when the result carries no error information at all, and error.kind is null
// for ErrorKind::kNone; the latency statistics are all null when the result
// has no samples (latency.n null marks that).
//
// All functions are pure and thread-safe.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "verdict/judged.hpp"

namespace mudjack::report {

// A results.json read back into the model.
struct Results {
  std::string schema_version;            // as written in the file, e.g. "1.0"
  model::RunInfo run;                    // environment included
  std::vector<model::CaseResult> cases;  // run_id set to run.id
  std::vector<model::VerdictRow> verdicts;
};

// The judged run as results.json.
nlohmann::json to_json(const verdict::Judged& judged);

// The pieces of to_json, for views that stream or merge (server, fleet).
nlohmann::json case_to_json(const model::CaseResult& r);
nlohmann::json verdict_to_json(const model::VerdictRow& v);
// {framework: {device: {outcome: n}}}, every outcome present (0 if none).
nlohmann::json counts_to_json(const verdict::Judged& judged);

// Reads a results.json document back. Accepts any 1.x (fields added by a
// later MINOR are ignored, fields it lacks take their defaults); throws
// util::FatalError naming `source` for another MAJOR ("results.json has
// schema 2.0; this mudjack reads 1.x"), a missing schema_version, a value of
// the wrong type, or an outcome/verdict/error kind outside the closed lists.
Results from_json(const nlohmann::json& doc, std::string_view source = "results.json");

// Reads and parses a results.json file; FatalError naming the file if it
// cannot be read or parsed.
Results load_json(const std::filesystem::path& file);

}  // namespace mudjack::report
