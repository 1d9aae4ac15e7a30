#pragma once
// Suspect outputs (docs/fuzz.md, "Suspects"): a mismatch whose float64
// reference is at or below its dtype's noise floor is not evidence of a wrong
// backend. The accuracy oracle measures an element's error against
// eps * (|r| + s), s the reference's RMS; when s is exactly 0, below the
// dtype's smallest normal number (the answer underflows to subnormals, whose
// precision is lower), or so small against the values it is computed from
// that one rounding of those values is already the whole bound, a correct
// computation in the output's dtype may fail the oracle. Such a mismatch is
// reported apart as `suspect`: never a finding, never exit 1.
//
// The numbers come from the numpy probe (protocol 1.9 `reference`, through
// supervisor::ProbeSession): it evaluates the graph in float64 and only
// reports magnitudes; every threshold is here.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::fuzz {

// One output of a graph as its float64 reference has it.
struct OutputFacts {
  std::string name;
  std::string dtype;                // the output's declared dtype
  std::string op;                   // the op that produces it ("" for a graph input)
  double rms = 0;                   // RMS of the reference's finite values
  std::vector<double> operand_rms;  // RMS of each operand of `op` (0: not floating)
};

struct GraphFacts {
  int64_t reduction = 1;  // the graph's K (the oracle's bound grows as sqrt(K))
  std::vector<OutputFacts> outputs;
  std::string error;  // set when the probe could not evaluate the graph
};

// The magnitude of the terms `op` adds or subtracts, from its operands' RMS:
// the scale its rounding error follows when the result cancels (sums,
// differences, contractions, normalizations' differences, gelu's 1 + tanh,
// elu's e^x - 1, softplus' and log's arguments near 1, sin and cos of large
// arguments). 0 for an op whose error follows its own result.
double cancellation_scale(const std::string& op, const std::vector<double>& operand_rms);

// Why output `o` of a graph with reduction `reduction` is at or below its
// dtype's noise floor (one line), or nullopt: integer and bool outputs never
// are.
std::optional<std::string> suspect_output(const OutputFacts& o, int64_t reduction);

// Why a mismatch on a graph with these facts is suspect, or nullopt.
// `failing`: per output, whether the backend's output failed (nullopt: not
// known, every output may have). Suspect when every output that failed is
// suspect (not known: when every output is), and at least one is.
std::optional<std::string> suspect_mismatch(const GraphFacts& g,
                                            const std::optional<std::vector<bool>>& failing);

// Per output of the mismatching case `r`, whether it failed: its saved
// outputs against the float64 reference saved with them (its own case's, or
// the same case's on another device among `peers`), floating outputs beyond
// the oracle's bound for a device judged alone, integer and bool outputs not
// equal. An output that cannot be measured counts as failed. nullopt when
// nothing could be measured or nothing failed (every output may have).
std::optional<std::vector<bool>> failing_outputs(const model::CaseResult& r,
                                                 const std::vector<model::CaseResult>& peers);

// A `reference` reply (schemas/probe-protocol-v1.md) read into facts;
// error set when it is not what the probe sends.
GraphFacts facts_from_json(const nlohmann::json& j);

// The facts of each graph file in `graphs` (by path, as given), their
// inputs drawn from `seed`, from the numpy framework's interpreter (profile
// and --python overrides as for a run). On failure every graph's facts
// carry the reason in `error` (the callers keep such mismatches as findings).
std::map<std::string, GraphFacts> reference_facts(const std::vector<std::filesystem::path>& graphs,
                                                  int64_t seed, const std::string& profile,
                                                  const std::map<std::string, std::string>& python);

// Why each mismatching case among `cases` is suspect, keyed
// "<graph hash>|<backend>|<device>" (only suspect ones), each graph read from
// `<graphs>/<hash>.json` and evaluated by reference_facts with `seed`.
// *error: why the facts could not be computed (those cases stay findings).
std::map<std::string, std::string> suspect_cases(const std::vector<model::CaseResult>& cases,
                                                 const std::filesystem::path& graphs, int64_t seed,
                                                 const std::string& profile,
                                                 const std::map<std::string, std::string>& python,
                                                 std::string* error);

}  // namespace mudjack::fuzz
