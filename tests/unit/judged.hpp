#pragma once
// Tests render hand-made verdicts: the judged value around them.

#include <utility>
#include <vector>

#include "verdict/judged.hpp"

namespace mudjack::testing {

inline verdict::Judged judged(model::RunInfo run, std::vector<model::CaseResult> cases,
                              std::vector<model::VerdictRow> verdicts) {
  verdict::Options options;
  options.baseline = run.baseline;
  return verdict::assemble(std::move(run), std::move(cases), std::move(verdicts), options);
}

}  // namespace mudjack::testing
