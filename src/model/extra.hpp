#pragma once
// Facts a probe recorded under a case result's `extra`, read one way for
// every layer above (the supervisor's oracle, fuzz's suspect rule).

#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace mudjack::model {

// The paths of the extra outputs a probe saved beside a case's own
// (protocol 1.3), under extra[key]: "reference" (the case widened to
// float64) or "strict" (every precision knob at its strictest); one per
// output, empty where the record has none. Empty when there are none.
std::vector<std::string> extra_output_paths(const CaseResult& r, std::string_view key);

}  // namespace mudjack::model
