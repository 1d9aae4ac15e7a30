#pragma once
// A campaign's state (docs/fuzz.md, "Campaigns"): what campaign.json holds
// (options, the graph counter, seconds spent, the batches with their runs
// and facts, the findings, the suspects, which (graph, backend, device)
// were already judged, each backend's framework) and the summary every
// report renders. Owned by the campaign's one thread.

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/campaign.hpp"
#include "fuzz/findings.hpp"
#include "gen/generator.hpp"

namespace mudjack::fuzz {

inline constexpr const char* kCampaignFormat = "mudjack.fuzz-campaign/1";

struct CampaignState {
  std::string id;
  std::filesystem::path dir;
  Options options;
  int64_t next_graph = 0;
  double seconds = 0;
  nlohmann::json batches = nlohmann::json::array();
  std::vector<Finding> findings;  // unique findings
  std::vector<Finding> suspects;  // symptom "suspect": mismatches at the noise floor
  std::set<std::string> seen;     // graph|backend|device already judged
  std::map<std::string, std::string> framework_of;  // backend -> framework
  gen::Coverage coverage;                           // of every graph generated

  // campaign.json read back (FatalError: unreadable, not a campaign); the
  // coverage recomputed from the graphs written so far.
  void load();
  void save() const;  // campaign.json, atomically
  // <dir>/graphs/batch-NNNN
  std::filesystem::path batch_dir(size_t index) const;
  // The counts every report shows (graphs, cases, acceptance, coverage, ...).
  nlohmann::json summary() const;
};

// A batch's facts as stored in campaign.json's batches.
nlohmann::json facts_json(const BatchFacts& f);

// Suspects read from / written as a JSON array (findings.json, campaign.json).
std::vector<Finding> findings_from_json(const nlohmann::json& array);

}  // namespace mudjack::fuzz
