#pragma once
// A finding's bundle (docs/fuzz.md, "Bundles"): findings/NNN-<symptom>-
// <backend>-<device>/ with graph.json (reduced), original.json,
// finding.json and repro.py, the script written by the probe and then run
// on its own with only the framework's interpreter (exit 1: it reproduced).

#include <string>

#include "fuzz/findings.hpp"
#include "fuzz/state.hpp"
#include "gen/graph.hpp"

namespace mudjack::fuzz {

// Writes the bundle of `f`, the campaign's finding number `number` (from
// 1), and sets f.bundle, f.standalone and f.standalone_output. The script
// runs on its own only when `run_script` (the budget lasts), for at most
// 120 s.
void write_bundle(const CampaignState& state, size_t number, Finding& f, const gen::Graph& original,
                  const gen::Graph& reduced, bool run_script);

}  // namespace mudjack::fuzz
