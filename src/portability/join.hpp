#pragma once
// Portability weighted by use (docs/portability.md): a models corpus's eager
// aten operator histograms joined with an OpInfo surface run's outcomes, so
// that each device's share of operator *calls* whose op runs right is known,
// not only its share of functions.
//
// The join, in order:
//   1. Models (corpus_models): a model is (framework, model, dtype) of the
//      `eager` cases of the corpus runs that are compositions
//      (stats::composition: a models-suite model, or a model `mudjack check`
//      was given), its histogram the case's metrics "op:aten.<op>" (one eager
//      forward pass as dispatched); a later run's case replaces an earlier
//      one's outcome on the same device, and its histogram where it has one.
//      Models without an aten histogram anywhere are counted apart
//      (Portability::blind), never weighed or predicted.
//   2. Mapping (Mapper): each aten op ("aten.X") to OpInfo entries, as the
//      surface's function names ("name" or "name.variant"), by the first rule
//      that finds one: the table of internal ops (kDispatchedBy: the public
//      ops that dispatch X); entries whose `aten_name` is X; entries with X
//      among their `aliases`; entries whose dotted name ends in ".X"; for an
//      in-place X_ ("relu_"), the same rules for X. No entry: unmapped,
//      listed with its calls, never dropped.
//   3. Status (status_of) of an op on (device, dtype): the surface's opinfo
//      cases (torch's, tagged "opinfo") of its entries on that device and
//      dtype, pooled, leaving out
//      cases not attempted (error, unavailable, skip) and fails refused as
//      `unsupported` (verdict::refusal_of: outside the op's domain). None
//      left: unverified; every one a failure (model::props failure: fail,
//      crash, timeout, mismatch): failing; some: partial; a pass checked by
//      nothing (verdict::checks_of): unverified; else portable.
//   4. Per device of the surface and dtype of the models: the share of calls
//      by status, each model's histogram taken as recorded on that device,
//      else on cpu, else on any (histogram_on); the ops that matter most
//      (failing and partial ops by calls x the share of their cases that
//      failed); the largest unknowns (unverified and unmapped ops by calls);
//      each model's prediction (fail: an op failing; risk: an op partial;
//      fine: every op portable; unknown: otherwise) against its own outcome
//      on that device where the corpus ran there (fine: model::props fine;
//      not_fine: failure; else not_run), and the confusion table.
//
// Pure and thread-safe. studies/portability/portability.py is the same join
// in Python alone, a cross-check of this one.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::portability {

// One OpInfo entry as suites/opinfo/manifest.json records it.
struct Entry {
  std::string name;      // OpInfo's name ("nn.functional.pad")
  std::string function;  // the surface's function name: "name", or "name.variant"
  std::string aten_name;
  std::vector<std::string> aliases;
};
// The manifest's {"torch", "ops": [{name, variant, aten_name, aliases}]}:
// its torch version and entries. util::FatalError naming `source` for a
// document that is not one, or an entry without aten_name (a manifest
// written before it was recorded: scripts/update-opinfo-manifest.py
// --names-only).
struct Manifest {
  std::string torch;
  std::vector<Entry> entries;
};
Manifest manifest_from_json(const nlohmann::json& doc, std::string_view source);
Manifest load_manifest(const std::filesystem::path& file);

// How an aten op maps to OpInfo entries; `how` is "table", "aten_name",
// "alias" or "name", prefixed "inplace+" when found for X of an in-place X_;
// "" (and no functions) when unmapped.
struct Mapping {
  std::vector<std::string> functions;  // sorted
  std::string how;
};

// Rule 2 above over one manifest's entries.
class Mapper {
 public:
  explicit Mapper(const std::vector<Entry>& entries);
  Mapping map(std::string_view op) const;

 private:
  Mapping find(std::string_view name) const;
  using Index = std::map<std::string, std::vector<std::string>, std::less<>>;
  Index by_aten_, by_alias_, by_tail_;
  std::set<std::string, std::less<>> known_;  // every function name
};

// The table of internal aten ops no entry names (rule 2's first): the op
// without its "aten." and the surface function names that dispatch it.
struct Dispatched {
  std::string_view op;
  std::vector<std::string_view> functions;
};
const std::vector<Dispatched>& dispatched_by();

enum class Status { kPortable, kPartial, kFailing, kUnverified, kUnmapped };
inline constexpr std::array<Status, 5> kStatuses = {
    Status::kPortable, Status::kPartial, Status::kFailing, Status::kUnverified, Status::kUnmapped};
enum class Prediction { kFail, kRisk, kFine, kUnknown };
inline constexpr std::array<Prediction, 4> kPredictions = {Prediction::kFail, Prediction::kRisk,
                                                           Prediction::kFine, Prediction::kUnknown};
enum class Actual { kFine, kNotFine, kNotRun };
inline constexpr std::array<Actual, 3> kActuals = {Actual::kFine, Actual::kNotFine,
                                                   Actual::kNotRun};
std::string_view to_string(Status s);      // "portable", "partial", ...
std::string_view to_string(Prediction p);  // "fail", "risk", "fine", "unknown"
std::string_view to_string(Actual a);      // "fine", "not_fine", "not_run"

// What the surface says of one (function, device, dtype): cases counted by
// rule 3 (attempted, in the op's domain), how many of them failed, how many
// passes nothing checked, and the fails left out as outside the domain.
struct Evidence {
  int attempted = 0;
  int failed = 0;
  int unchecked = 0;
  int outside_domain = 0;
  Evidence& operator+=(const Evidence& o);
};
// Keyed by (function, device, dtype); the opinfo cases of `cases` only.
using Surface = std::map<std::tuple<std::string, std::string, std::string>, Evidence>;
Surface surface_evidence(const std::vector<model::CaseResult>& cases);

// Rule 3 on pooled evidence; `why` is one line ("2 of 4 cases failed").
struct OpStatus {
  Status status = Status::kUnmapped;
  int failed = 0;
  int attempted = 0;
  std::string why;
};
OpStatus status_of(const Evidence& pooled);

// One model of the corpus (rule 1).
struct Model {
  std::string framework, model, dtype;
  std::map<std::string, std::map<std::string, int64_t>> ops_by_device;  // device -> histogram
  std::map<std::string, model::Outcome> outcome_by_device;              // its eager case's
};
struct Corpus {
  std::vector<Model> models;  // with a histogram, sorted by framework, model, dtype
  // Eager cases (one per device) of models that have no aten histogram
  // anywhere, by outcome.
  std::map<model::Outcome, int> blind;
};
// `runs`: each corpus run's cases, earliest first.
Corpus corpus_models(const std::vector<std::vector<model::CaseResult>>& runs);
// The histogram rule 4 weighs on `device`.
const std::map<std::string, int64_t>& histogram_on(const Model& m, const std::string& device);

// One op on one (device, dtype).
struct OpRow {
  std::string op;
  OpStatus status;
  int64_t calls = 0;
  int models = 0;            // models whose histogram has it
  double failing_calls = 0;  // calls x failed / attempted (failing, partial)
};
// One model on one (device, dtype).
struct ModelVerdict {
  std::string framework, model;
  Prediction prediction = Prediction::kUnknown;
  Actual actual = Actual::kNotRun;
  std::optional<model::Outcome> outcome;  // its eager row on the device
  std::vector<std::string> failing_ops;   // its failing and partial ops, sorted
};
struct DeviceView {
  std::string device, dtype;
  int models = 0;
  int64_t calls = 0;
  std::array<int64_t, kStatuses.size()> calls_by_status{};  // in kStatuses' order
  std::vector<OpRow> ops;      // every op, by calls (most first), then name
  std::vector<OpRow> top;      // failing and partial, by failing_calls; at most Inputs::top
  std::vector<OpRow> unknown;  // unverified and unmapped, by calls; at most Inputs::top
  std::array<std::array<int, kActuals.size()>, kPredictions.size()> confusion{};
  std::vector<ModelVerdict> verdicts;  // in Corpus::models' order

  double share(Status s) const;  // of calls; 0 without calls
};
// Every op of the corpus, how it maps and how often it is called (the
// histograms as rule 4 weighs them on cpu).
struct OpMapping {
  std::string op;
  int64_t calls = 0;
  int models = 0;
  Mapping mapping;
};
struct Portability {
  std::vector<std::string> corpus;  // where each corpus run came from
  std::string surface;              // where the surface run came from
  std::string surface_run;          // its run id
  std::string torch;                // the manifest's torch version
  int models = 0;
  int64_t calls = 0;
  std::map<model::Outcome, int> blind;
  std::vector<OpMapping> ops;  // by calls (most first), then name
  std::vector<DeviceView> views;

  int64_t unmapped_calls() const;
};

struct Inputs {
  std::vector<std::string> corpus_origins;
  std::vector<std::vector<model::CaseResult>> corpus;  // earliest first
  std::string surface_origin;
  std::string surface_run;
  std::vector<model::CaseResult> surface;
  Manifest manifest;
  std::vector<std::string> devices;  // only these surface devices; empty: all of them
  size_t top = 20;
};
// The whole join; a view per (surface device with opinfo cases, model
// dtype), sorted by device then dtype. util::FatalError when the surface has
// no opinfo case, or none on a device of Inputs::devices.
Portability join(const Inputs& in);

}  // namespace mudjack::portability
