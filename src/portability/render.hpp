#pragma once
// The views of a portability join (join.hpp): JSON, a summary.md section,
// the terminal table and a self-contained HTML page with a stacked bar per
// device. Each renders the one Portability value and computes nothing
// (CONTRIBUTING.md rule 8). Pure and thread-safe.
//
// JSON shape (kSchemaVersion; extend it only with a MINOR bump):
//   { schema_version, mudjack_version, mudjack_revision,
//     corpus: [origin...], surface: {origin, run_id}, manifest: {torch},
//     models, calls, blind: {outcome: n},
//     ops: [{op, calls, models, how, functions[]}],           (how "" = unmapped)
//     unmapped: [{op, calls, share, models}],
//     views: [{device, dtype, models, calls,
//              calls_by_status: {portable, partial, failing, unverified, unmapped},
//              shares: {the same, of calls},
//              top: [op row], unknown: [op row], ops: [op row],
//              confusion: {fail|risk|fine|unknown: {fine, not_fine, not_run}},
//              models_list: [{framework, model, prediction, actual,
//                             outcome (null when not run there), failing_ops[]}]}] }
//   op row: {op, status, why, calls, models, failed_cases, attempted_cases,
//            failing_calls}

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "portability/join.hpp"

namespace mudjack::portability {

inline constexpr std::string_view kSchemaVersion = "1.0";

// Rows of a model list a text view shows before "... and N more".
inline constexpr size_t kListedModels = 40;

nlohmann::json to_json(const Portability& p);

// "## Portability weighted by use": the inputs, the share table per device
// and dtype, the unmapped ops, per view the ops that matter most, the
// largest unknowns, the confusion table and the models predicted to fail or
// at risk that the corpus ran there (at most kListedModels).
std::string to_markdown(const Portability& p);

// The share table, each view's top ops (at most 10) and confusion table.
std::string to_terminal(const Portability& p);

// One page: the stacked bar per (device, dtype), then to_markdown's tables
// as HTML.
std::string to_html(const Portability& p);

}  // namespace mudjack::portability
