#pragma once
// Where a case's computation did not run where it was asked to
// (docs/design.md, "host fallback"), read from the facts its probe reported:
//   - host_ops: torch on XLA counted ops that have no XLA lowering and ran on
//     the host CPU (extra.xla.counters: a counter named `aten::NAME` that
//     changed during the case; the `xla::` counters are lowered ops);
//   - soft_placement: TensorFlow, a case that failed on an accelerator with
//     soft placement off would have run with it on (extra.fallback true),
//     that is, on another device;
//   - elsewhere: the output lives on another device than the one asked for
//     (extra.output_device; the probe failed the case with device_error), as
//     JAX does when a computation runs on its default device.
// Recompilation (extra.xla.warm_compiles > 0: warm calls compiled a new
// graph) is counted beside it. A flag under the verdict, never a verdict:
// a case that fell back still passed or failed on its own.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace mudjack::verdict {

struct CaseFallback {
  std::string kind;                // host_ops, soft_placement, elsewhere
  std::map<std::string, int> ops;  // host_ops: op name -> times it ran on the host
  std::string where;               // elsewhere: the device the output lives on
};

// The case's fallback, if its facts show one.
std::optional<CaseFallback> case_fallback(const model::CaseResult& r);

// Graphs compiled by the case's warm calls (extra.xla.warm_compiles), if reported.
std::optional<int> warm_compiles(const model::CaseResult& r);

// One row per (framework, function, device) with a fallback or a
// recompilation in any of its cases; order: framework, device, function.
struct FallbackRow {
  std::string framework;
  std::string function;
  std::string device;
  int cases = 0;                   // cases that fell back
  int recompiling = 0;             // cases whose warm calls compiled again
  std::vector<std::string> kinds;  // the fallback kinds seen, sorted
  std::map<std::string, int> ops;  // host ops over all its cases
};
std::vector<FallbackRow> fallback_rows(const std::vector<model::CaseResult>& cases);

// "aten::nonzero×3, aten::unique2" (ops), or the kind where there are none.
std::string describe(const CaseFallback& f);

}  // namespace mudjack::verdict
