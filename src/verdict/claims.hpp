#pragma once
// Claimed versus actual support (docs/design.md, "whole-surface suites"): a
// case may carry what its framework's own op database claims about its
// dtype per device kind (CaseInfo::claims: PyTorch's OpInfo dtypes, JAX's
// harness limitations). Each (framework, function, dtype, device) with a
// claim is set against what its cases did there:
//   - ran:    pass or mismatch (the op ran; a wrong answer is a divergence,
//             judged by the oracle, not a support question);
//   - failed: fail, crash or timeout;
//   - unavailable, skipped and suite errors say nothing either way.
// A claimed dtype with any failed case is `claimed_failing`; an unclaimed
// one whose cases ran, none failing, is `unclaimed_working`; the rest agree.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace mudjack::verdict {

enum class Claim { kAgrees, kClaimedFailing, kUnclaimedWorking };
std::string_view to_string(Claim c);

struct ClaimRow {
  std::string framework;
  std::string function;
  std::string dtype;
  std::string device;
  bool claimed = false;
  int ran = 0;     // cases that ran (pass, mismatch)
  int failed = 0;  // cases that failed (fail, crash, timeout)
  Claim claim = Claim::kAgrees;
  // The evidence: the first failed case (claimed_failing) or the first that
  // ran (unclaimed_working), and its error's one line.
  std::string case_id;
  std::string error;
};

// The device kind of a device id, as claims name it: "cuda" for "cuda:0"
// and "lab/cuda:1" (a merged run's label is dropped).
std::string device_kind(std::string_view device);

// One row per (framework, function, dtype, device) whose cases carry a claim
// for the device's kind and at least one of which ran or failed, in a stable
// order (framework, device, function, dtype).
std::vector<ClaimRow> claims(const std::vector<model::CaseResult>& cases);

// Per framework and device: how many rows agree, and the rows that do not.
struct ClaimTally {
  int agrees = 0;
  std::vector<const ClaimRow*> claimed_failing;
  std::vector<const ClaimRow*> unclaimed_working;
};
std::map<std::string, std::map<std::string, ClaimTally>> tally(const std::vector<ClaimRow>& rows);

// A kernel registry's prediction (protocol 1.6 `kernels`, TensorFlow): for
// a case, whether every op its call uses has a kernel for its dtypes on
// each device type, set against what the case did on the device it ran on.
// TensorFlow runs on the CPU only (it cannot reach the GPU machines), so the
// GPU column is a prediction with nothing observed beside it.
struct KernelRow {
  std::string framework;
  std::string function;
  std::string dtype;
  std::string device;  // where the case ran
  std::string case_id;
  model::Outcome outcome = model::Outcome::kPass;
  std::string error;  // the case's error, one line
  // Per device type ("cpu", "gpu"): the prediction, and the ops without a kernel.
  std::map<std::string, bool> predicted;
  std::map<std::string, std::vector<std::string>> missing;
};

// Every case whose result carries a prediction (extra.kernels with at least
// one device type), in case order; predictions that failed (`error`) are left out.
std::vector<KernelRow> kernel_rows(const std::vector<model::CaseResult>& cases);

// Per framework: the prediction for the device kind its cases ran on against
// what they did, and the cases predicted to lack a kernel on each other kind.
struct KernelTally {
  int cases = 0;
  int agree = 0;                                           // predicted and observed alike
  std::vector<const KernelRow*> predicted_missing_ran;     // no kernel predicted, yet it ran
  std::vector<const KernelRow*> predicted_present_failed;  // kernels predicted, yet it failed
  // Device type never observed ("gpu") -> cases predicted to lack a kernel there.
  std::map<std::string, std::vector<const KernelRow*>> unobserved_missing;
};
std::map<std::string, KernelTally> kernel_tally(const std::vector<KernelRow>& rows);

}  // namespace mudjack::verdict
