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

// What the float64 reference saved under r's extra is, as every view names it
// (numeric.reference): the case widened on `device` ("float64 on cpu"), or
// a trusted host computation the case named instead (`mudjack check`'s
// NAME_reference: "NAME_reference on the host"; protocol: the record's
// "trusted").
std::string reference_name(const CaseResult& r, const std::string& device);
// True when numeric.reference names a trusted host computation (a pass it
// judged is checked by `reference`, not `float64`).
bool trusted_reference(const Numeric& n);
// True when r's own extra reference is a trusted host computation.
bool extra_trusted(const CaseResult& r);

}  // namespace mudjack::model
