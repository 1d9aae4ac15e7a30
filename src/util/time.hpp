#pragma once
#include <string>

namespace mudjack::util {

// Wall-clock now as ISO 8601 UTC with milliseconds: 2026-11-26T01:17:38.123Z.
std::string now_iso8601();
// A sortable run id from the wall clock plus 4 random hex digits: 20261126-011738-a3f9.
std::string new_run_id();

}  // namespace mudjack::util
