#pragma once
// Claimed versus actual support (docs/design.md, "claim sources"). Every
// case's dtype is claimed or not on its device by one source, the first of:
//   - op_database: what the framework's own op database claims per device
//     kind (CaseInfo::claims: PyTorch's OpInfo dtypes, JAX's harness
//     limitations);
//   - kernel_registry: the kernel registry's prediction for the device kind
//     (extra.kernels, TensorFlow);
//   - declared: a dtype the suite author declared by hand is claimed;
//   - grid: a dtype the grid added is claimed unless a case of it failed
//     outside the function's domain by its own message (refusal.hpp: an
//     API contract or a type rule).
// Each (framework, function, dtype, device) is set against what its cases
// did there:
//   - ran:    pass or mismatch (the op ran; a wrong answer is a divergence,
//             judged by the oracle, not a support question);
//   - failed: fail, crash or timeout;
//   - unavailable, skipped and suite errors say nothing either way.
// A claimed dtype with any failed case is `claimed_failing`; an unclaimed
// one whose cases ran, none failing, is `unclaimed_working`; the rest agree.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::verdict {

enum class Claim { kAgrees, kClaimedFailing, kUnclaimedWorking };
std::string_view to_string(Claim c);

enum class ClaimSource { kOpDatabase, kKernelRegistry, kDeclared, kGrid };
std::string_view to_string(ClaimSource s);

// Whether a case's dtype is claimed on its device, and by which source (the
// rule above). A grid case is unclaimed only when its failure's message
// reads as outside the function's domain.
struct CaseClaim {
  bool claimed = true;
  ClaimSource source = ClaimSource::kGrid;
};
CaseClaim claim_of(const model::CaseResult& r);

// The kernel registry's prediction for device kind `kind` in a result's
// extra.kernels ({"cpu": {"kernels": bool, "missing": [op, ...]}, "gpu":
// ...}; "cuda" reads "gpu"), if any.
const nlohmann::json* kernel_prediction(const model::CaseResult& r, std::string_view kind);

struct ClaimRow {
  std::string framework;
  std::string function;
  std::string dtype;
  std::string device;
  bool claimed = false;
  ClaimSource source = ClaimSource::kGrid;
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

// One row per (framework, function, dtype, device) at least one of whose
// cases ran or failed, in a stable order (framework, device, function,
// dtype). The row is claimed when every such case's dtype is claimed; its
// source is its first case's.
std::vector<ClaimRow> claims(const std::vector<model::CaseResult>& cases);

// Is the table worth a section? When a row's claim comes from the framework
// (op database, kernel registry) or a row disagrees; a run of hand-declared
// dtypes that all did what was declared has nothing to say.
bool worth_showing(const std::vector<ClaimRow>& rows);

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

// An op database's claims mapped onto another suite's functions
// (suites/paper/opinfo-claims.json: {"torch": VERSION, "functions":
// {FUNCTION: {"opinfo": ENTRY, "cpu": [dtypes], "cuda": [dtypes]}}}). Each
// case of `framework` whose function the map names and that has no claims of
// its own gets them ({kind: its dtype is listed}) when `version` has the
// map's major.minor ("2.11.0+cpu" and "2.11.0+cu130" match; another torch's
// claims are not this one's). Returns how many cases got claims; a map that
// is not of that shape gives none.
size_t apply_claims_map(const nlohmann::json& map, std::string_view framework,
                        std::string_view version, std::vector<model::CaseResult>& cases);

}  // namespace mudjack::verdict
