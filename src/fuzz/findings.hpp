#pragma once
// What a batch of generated graphs showed (docs/fuzz.md, "Oracles"): each
// (graph, backend, device) outcome read against the other backends of the
// same graph. A finding is one of
//   crash    — the probe died where another backend of the graph ran;
//   raise    — the framework raised where another backend ran;
//   timeout  — the case ran past its deadline where another backend ran;
//   mismatch — the accuracy oracle rejected its outputs (float64 NumPy
//              reference, or the exact check of integer outputs);
//   slow     — a compiled backend's median is more than `slow_ratio` times
//              its eager twin's on the same device.
// A graph every attempted backend refuses is "rejected by all" (counted,
// never a finding); suite errors are MudJack's own bugs, counted apart.
// A finding's signature (symptom, backend, device, error class, ops of the
// graph it shows on — the reduced graph once reduced) groups duplicates.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::fuzz {

// What a finding saw: the symptoms above; or kSuspect, a mismatch whose
// float64 reference is at or below its dtype's noise floor (fuzz/suspect.hpp),
// reported apart and never a finding. kNone: the case shows nothing. A closed
// list (CONTRIBUTING.md rule 7): schemas/vocabulary.json's `fuzz_symptom`.
enum class Symptom { kNone, kCrash, kRaise, kTimeout, kMismatch, kSlow, kSuspect };
// Every symptom (kNone has no word), in enum order.
inline constexpr std::array<Symptom, 6> kSymptoms = {Symptom::kCrash,   Symptom::kRaise,
                                                     Symptom::kTimeout, Symptom::kMismatch,
                                                     Symptom::kSlow,    Symptom::kSuspect};
// The JSON word ("crash", "raise", ...); kNone is "".
std::string_view to_string(Symptom s);
// nullopt for a word outside kSymptoms (and for "").
std::optional<Symptom> parse_symptom(std::string_view s);

struct Finding {
  Symptom symptom = Symptom::kNone;
  std::string backend;
  std::string device;
  std::string error_class;       // raise/crash: the error with names and numbers masked
  std::string graph;             // the graph it was found in (hash)
  std::string detail;            // one line: the error, or the measured difference
  std::vector<std::string> ops;  // ops of the graph it shows on
  size_t nodes = 0;              // nodes of that graph
  // mismatch: other backends on the device whose outputs the same reference
  // accepted (0: nothing agrees with the reference; suspect the tolerance).
  int agreeing = 0;
  std::optional<double> bound_eps;  // mismatch: the bound it was held to
  std::optional<double> ratio;      // slow: compiled / eager median
  std::string suspect;              // suspect: why (one line per suspect output)
  // Filled by reduction and bundling.
  std::string reduced;  // hash of the reduced graph ("" until reduced)
  size_t reduced_nodes = 0;
  std::vector<std::string> reduced_ops;
  std::string bundle;              // folder of the bundle, relative to the campaign
  std::optional<bool> standalone;  // the bundle's script reproduced it on its own
  std::string standalone_output;   // the script's last line
  int duplicates = 0;              // further graphs with the same signature

  // symptom|backend|device|error class (what reduction must keep)
  std::string key() const;
  // key|ops of the reduced graph (or of the graph when not reduced)
  std::string signature() const;
};

nlohmann::json to_json(const Finding& f);
Finding finding_from_json(const nlohmann::json& j);

// `items` joined by `sep` (ops lists, in signatures and reports).
std::string join(const std::vector<std::string>& items, const char* sep);

// "fuzz/<hash>/<backend>" -> {hash, backend}; nullopt for another id.
std::optional<std::pair<std::string, std::string>> parse_case_id(const std::string& id);

// An error message with quoted names, numbers and addresses masked, cut to
// 120 characters: the same fault in two graphs reads the same.
std::string error_class(const std::string& message);

struct BatchFacts {
  std::vector<Finding> findings;  // one per (graph, backend, device) that shows a symptom
  int graphs = 0;
  int cases = 0;
  int rejected_by_all = 0;  // graphs no attempted backend ran
  int suite_errors = 0;     // cases whose outcome is error (MudJack's own bug)
  // backend -> {attempted, ran}: graphs whose case was attempted / ran (pass or mismatch)
  std::map<std::string, std::pair<int, int>> acceptance;
  std::map<std::string, int> unavailable;  // backend -> cases unavailable or skipped
};

// The findings and counts of one batch's judged cases. `ops_of` gives a
// graph's ops and node count by hash.
BatchFacts analyze(
    const std::vector<model::CaseResult>& cases, double slow_ratio,
    const std::map<std::string, std::pair<std::vector<std::string>, size_t>>& ops_of);

// Whether `r` (a case of a candidate graph) still shows finding `f`'s
// symptom (the same error class for raise and crash); `eager` is its eager
// twin on the same device, for slow.
bool shows(const Finding& f, const model::CaseResult& r, const model::CaseResult* eager,
           double slow_ratio);

}  // namespace mudjack::fuzz
