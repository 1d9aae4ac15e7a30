#pragma once
// One rule for refusals, per chip, from the framework's own word
// (docs/design.md, "domain vs device gap"). A case that failed (outcome
// `fail`: the framework raised) is read from its own result only — its
// claims, its kernel registry prediction, its error message and its device —
// never from another device's outcome, so one device judged alone or beside
// others gets the same word.
//
// The rule, first that speaks:
//   1. Claims (CaseInfo::claims: the op database, PyTorch's OpInfo or JAX's
//      harness limitations; else extra.kernels: TensorFlow's kernel
//      registry), per device kind they describe:
//      - every kind they describe excludes the dtype: `unsupported`
//        (outside the function's domain; never in a failure rate);
//      - this kind excludes it and another includes it: `kernel_missing`,
//        documented (a gap of this chip the framework itself declares);
//      - this kind includes it: a failure; `kernel_missing` (undocumented)
//        when the message names this chip's kernel or placement.
//   2. No claim covers the case: the message, by kRefusalPatterns (the one
//      table of message patterns): a device kernel or placement
//      (`kernel_missing`, undocumented), else an API contract or type rule
//      (`unsupported`). A dtype the suite declared by hand (not
//      CaseInfo::grid) is its author's claim: only a device pattern speaks.
//   3. Otherwise an ordinary failure (Refusal::kNone).
// A crash or a timeout is always an ordinary failure: a framework that does
// not support a dtype says so.

#include <span>
#include <string>
#include <string_view>

#include "model/model.hpp"

namespace mudjack::verdict {

// One message pattern: RE2 syntax, searched anywhere in the error's message
// (case-sensitive unless the pattern says (?i)). `name` labels it in
// reasons and tests.
struct RefusalPattern {
  std::string_view name;
  std::string_view regex;
  model::Refusal refusal;       // kUnsupported (domain) or kKernelMissing (this chip)
  model::RefusalSource source;  // kTypeRule or kMessage
};

// The table, device patterns first: a message that names this chip's kernel
// or placement is a gap of this chip even if it also reads as a contract.
std::span<const RefusalPattern> refusal_patterns();

// The first pattern of the table that `message` matches; nullptr if none.
// Only the first 64 KiB of a message are read (probe output is bounded, but
// a hostile one must not cost more).
const RefusalPattern* match_refusal(std::string_view message);

// A failing case's refusal and why, in one line.
struct RefusalOf {
  model::Refusal refusal = model::Refusal::kNone;
  model::RefusalSource source = model::RefusalSource::kNone;
  bool documented = false;  // the framework's claims say the dtype is missing here
  std::string reason;       // empty for kNone
};

// The rule above, for one result; kNone for anything but a `fail`.
RefusalOf refusal_of(const model::CaseResult& r);

}  // namespace mudjack::verdict
