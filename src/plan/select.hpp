#pragma once
// Structured case selection beside --filter's regex: exact dtypes and modes,
// function names as shell globs ("torch.nn.*"), and the cases that did not
// pass in an earlier run (--last-failed). One model for `list` and `run`.

#include <set>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace mudjack::plan {

struct Fields {
  std::vector<std::string> dtypes;     // exact ("float16" never matches "bfloat16")
  std::vector<std::string> modes;      // model::kModes
  std::vector<std::string> functions;  // fnmatch globs on CaseInfo::function
  // "key::value" labels (globs in the value: task::*Vision*); a case must
  // carry every one (a model's labels are its tags).
  std::vector<std::string> labels;
  bool empty() const {
    return dtypes.empty() && modes.empty() && functions.empty() && labels.empty();
  }
};

// The cases matching every non-empty list of `fields` (any value of a list;
// every label of `labels`).
// FatalError for a value no listed case has, naming the nearest one there
// ("--dtype fp16: no case has this dtype; did you mean float16?").
std::vector<model::CaseInfo> select(const std::vector<model::CaseInfo>& cases,
                                    const Fields& fields);

// The cases whose id is in `ids` (--last-failed), in their listed order.
std::vector<model::CaseInfo> only(const std::vector<model::CaseInfo>& cases,
                                  const std::set<std::string>& ids);

// What did not pass in `results`: fail, crash, timeout, mismatch or error
// on any device.
std::set<std::string> failed_ids(const std::vector<model::CaseResult>& results);

}  // namespace mudjack::plan
