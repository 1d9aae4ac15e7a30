#pragma once
// summary.md: a paper-style summary fit to paste into an issue. A rendering
// of the results model (CONTRIBUTING.md rule 8).
//
// Contents, in order:
//   - a title with the run id, then suite, date (RunInfo::created_at), host
//     and baseline device;
//   - per framework (sorted), two tables with one row per device (baseline
//     first): functions by verdict (portable, partial failure, complete
//     failure, divergent, intolerable latency, unavailable, and the failure
//     rate = (partial + complete) / functions attempted, i.e. not
//     unavailable), and cases by outcome;
//   - every non-portable (framework, function, device) with its verdict, its
//     flags, its reason and the first failing case's error, cut to one line.
// The host comes from the environment object: `host` (a string, or an object
// with `hostname` or `name`), else `hostname`, else `hosts[]` of either form.
// A device's model is shown when `environment.devices[]` holds a record with
// that `id` and a `model`.
// Pure and thread-safe.

#include <string>
#include <vector>

#include "verdict/judged.hpp"

namespace mudjack::report {

std::string to_markdown(const verdict::Judged& judged);

}  // namespace mudjack::report
