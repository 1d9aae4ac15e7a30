#pragma once
// A finding shrunk (docs/fuzz.md, "Reduction"): gen::reduce's candidate
// batches each run as one run of the finding's backend (and its eager twin
// for `slow`) on its device, in the campaign's own store (<id>/reduce/); a
// candidate is kept when it shows the same key. A mismatch candidate whose
// reference is at its dtype's noise floor (fuzz/suspect.hpp) does not show
// it: the reducer never drifts from a real mismatch onto noise.

#include "fuzz/campaign.hpp"
#include "fuzz/findings.hpp"
#include "fuzz/runs.hpp"
#include "fuzz/state.hpp"
#include "gen/graph.hpp"

namespace mudjack::fuzz {

// The reduced graph of `f` (found in `g`); fills f.reduced, f.reduced_nodes
// and f.reduced_ops and says one line of what it did.
gen::Graph reduce_finding(const CampaignState& state, const Where& w, const Say& say, Finding& f,
                          const gen::Graph& g, const Deadline& deadline);

// The eager backend of the same framework as `backend` ("" when `backend`
// is eager or its framework is not known).
std::string eager_twin(const std::map<std::string, std::string>& framework_of,
                       const std::string& backend);

}  // namespace mudjack::fuzz
