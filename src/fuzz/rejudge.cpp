// `mudjack fuzz --rejudge DIR`: a stored campaign judged again with the
// suspect rule, without rerunning a backend (fuzz/campaign.hpp, rejudge()).
#include <set>

#include "fuzz/campaign.hpp"
#include "fuzz/report.hpp"
#include "fuzz/runs.hpp"
#include "fuzz/state.hpp"
#include "fuzz/suspect.hpp"
#include "util/error.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The graph a stored mismatch is judged on: its bundle's reduced graph (the
// smallest that still showed it), else the graph it was found in; empty
// when the bundle has neither.
fs::path graph_of(const fs::path& dir, const Finding& f) {
  if (f.bundle.empty()) return {};
  for (const char* name : {"graph.json", "original.json"}) {
    if (fs::exists(dir / f.bundle / name)) return dir / f.bundle / name;
  }
  return {};
}

// The seed a finding's inputs were drawn from: its bundle's, else the campaign's.
int64_t seed_of(const fs::path& dir, const Finding& f, int64_t campaign_seed) {
  const fs::path meta = dir / f.bundle / "finding.json";
  if (f.bundle.empty() || !fs::exists(meta)) return campaign_seed;
  return read_json(meta).value("seed", campaign_seed);
}

// The bundle's finding.json notes why its mismatch is a suspect (its
// symptom stays: repro.py still reproduces that mismatch).
void note_in_bundle(const fs::path& dir, const Finding& f) {
  const fs::path meta = dir / f.bundle / "finding.json";
  if (f.bundle.empty() || !fs::exists(meta)) return;
  json j = read_json(meta);
  j["suspect"] = f.suspect;
  write_text(meta, j.dump(1) + "\n");
}

// Moves every mismatch of `findings` whose graph is suspect to `suspects`.
void judge(const fs::path& dir, int64_t campaign_seed, const std::string& profile,
           const std::map<std::string, std::string>& python, std::vector<Finding>& findings,
           std::vector<Finding>& suspects) {
  std::map<int64_t, std::vector<fs::path>> by_seed;
  for (const auto& f : findings) {
    const fs::path g = f.symptom == Symptom::kMismatch ? graph_of(dir, f) : fs::path{};
    if (!g.empty()) by_seed[seed_of(dir, f, campaign_seed)].push_back(g);
  }
  std::map<std::pair<int64_t, std::string>, GraphFacts> facts;
  for (const auto& [seed, graphs] : by_seed) {
    for (auto& [path, g] : reference_facts(graphs, seed, profile, python)) {
      if (!g.error.empty()) throw util::FatalError("cannot re-judge " + path + ": " + g.error);
      facts[{seed, path}] = std::move(g);
    }
  }
  std::vector<Finding> kept;
  for (auto& f : findings) {
    const fs::path g = f.symptom == Symptom::kMismatch ? graph_of(dir, f) : fs::path{};
    const auto it =
        g.empty() ? facts.end() : facts.find({seed_of(dir, f, campaign_seed), g.string()});
    auto why = it == facts.end() ? std::nullopt : suspect_mismatch(it->second, std::nullopt);
    if (!why) {
      kept.push_back(std::move(f));
      continue;
    }
    f.symptom = Symptom::kSuspect;
    f.suspect = *why;
    note_in_bundle(dir, f);
    suspects.push_back(std::move(f));
  }
  findings = std::move(kept);
}

}  // namespace

Rejudged rejudge(const fs::path& dir, const std::string& profile,
                 const std::map<std::string, std::string>& python) {
  if (!fs::exists(dir / "findings.json")) {
    throw util::FatalError(dir.string() + ": not a fuzz campaign folder (no findings.json)");
  }
  json all = read_json(dir / "findings.json");
  if (all.value("format", "") != "mudjack.fuzz-findings/1") {
    throw util::FatalError((dir / "findings.json").string() + ": not a fuzz campaign's findings");
  }
  std::vector<Finding> findings = findings_from_json(all.value("findings", json::array()));
  std::vector<Finding> suspects = findings_from_json(all.value("suspects", json::array()));
  Rejudged r;
  r.findings_before = findings.size();
  const int64_t seed = all.value("options", json::object()).value("seed", int64_t{0});
  judge(dir, seed, profile, python, findings, suspects);
  r.findings_after = findings.size();
  r.suspects = suspects;
  if (fs::exists(dir / "campaign.json")) {
    json campaign = read_json(dir / "campaign.json");
    campaign["findings"] = json::array();
    for (const auto& f : findings) campaign["findings"].push_back(to_json(f));
    campaign["suspects"] = json::array();
    for (const auto& f : suspects) campaign["suspects"].push_back(to_json(f));
    write_text(dir / "campaign.json", campaign.dump(1) + "\n");
  }
  json summary = all;
  for (const char* key : {"format", "schema_version", "findings", "suspects"}) summary.erase(key);
  write_reports(dir, summary, findings, suspects);
  return r;
}

}  // namespace mudjack::fuzz
