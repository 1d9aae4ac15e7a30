#pragma once
// Merging: the results of several runs, from one machine or many, into one
// run whose device columns stay apart. A device `cuda:0` of the source
// labelled `h200` becomes `h200/cuda:0`; each machine's devices are judged
// against that machine's own baseline (`h200/cpu`), never another machine's
// (verdict::Options::baseline_for).
//
// Sources that share a label are one machine: a torch run and a jax run of
// the same box merge into the same columns. A (case, device) pair present in
// two sources is an error, as are sources with different baselines.
//
// merge and default_label are pure and thread-safe; save writes a store.

#include <string>
#include <string_view>
#include <vector>

#include "report/json.hpp"
#include "store/store.hpp"

namespace mudjack::fleet {

struct Source {
  std::string label;   // machine label, e.g. "h200" or "epyc-2c"; [A-Za-z0-9._-]+
  std::string origin;  // where it came from, for provenance and errors: a file or a run id
  report::Results results;
};

// A label for a source that was given none: the model of its first
// accelerator (e.g. "nvidia-h200"), else its CPU model, else its host name,
// lower-cased, runs of other characters turned into '-'. "machine" if the
// environment says nothing.
std::string default_label(const report::Results& results);

// FatalError for an empty list, a bad label, a device id that already holds a
// '/', a (case, device) pair in two sources, or two baselines.
// The merged run: id `merged-<created_at digits>-<hash of the sources>`,
// suite the sources' suites joined by '+', state complete only if every
// source is, baseline the sources' (shared) baseline, options.merged_from
// listing {label, origin, run_id, suite, state}, environment.machines every
// source machine with its label and run id added.
report::Results merge(const std::vector<Source>& sources, std::string_view created_at);

// Stores a merged (or any) results document as a run of `store`: run,
// case metadata, plan and every result. FatalError if the run id exists.
// Blocks on the database.
void save(store::Store& store, const report::Results& results);

// "h200/cuda:0" -> {"h200", "cuda:0"}; a device without a label -> {"", id}.
std::pair<std::string, std::string> split_device(std::string_view device);

}  // namespace mudjack::fleet
