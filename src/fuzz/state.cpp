#include "fuzz/state.hpp"

#include <cstdio>

#include "fuzz/runs.hpp"
#include "gen/ops.hpp"
#include "util/error.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Totals {
  int graphs = 0;
  int cases = 0;
  int rejected = 0;
  int suite_errors = 0;
  std::map<std::string, std::pair<int, int>> acceptance;
  std::map<std::string, int> unavailable;
  std::vector<std::string> runs;
};

Totals totals(const json& batches) {
  Totals t;
  for (const auto& b : batches) {
    if (!b.value("run", "").empty()) t.runs.push_back(b["run"]);
    if (!b.contains("facts")) continue;
    const auto& f = b["facts"];
    t.graphs += f.value("graphs", 0);
    t.cases += f.value("cases", 0);
    t.rejected += f.value("rejected_by_all", 0);
    t.suite_errors += f.value("suite_errors", 0);
    const json batch_acceptance = f.value("acceptance", json::object());
    for (const auto& [k, v] : batch_acceptance.items()) {
      t.acceptance[k].first += v[0].get<int>();
      t.acceptance[k].second += v[1].get<int>();
    }
    const json batch_unavailable = f.value("unavailable", json::object());
    for (const auto& [k, v] : batch_unavailable.items()) t.unavailable[k] += v.get<int>();
  }
  return t;
}

json coverage_json(const gen::Coverage& cov) {
  json c = json::object();
  for (const auto& [op, n] : cov.nodes) {
    c[op] = {{"nodes", n},
             {"attr_values", cov.attrs.count(op) ? cov.attrs.at(op).size() : 0},
             {"rank_dtypes", cov.rank_dtype.count(op) ? cov.rank_dtype.at(op).size() : 0}};
  }
  return c;
}

}  // namespace

std::vector<Finding> findings_from_json(const json& array) {
  std::vector<Finding> out;
  if (!array.is_array()) return out;
  for (const auto& f : array) out.push_back(finding_from_json(f));
  return out;
}

void CampaignState::load() {
  const json j = read_json(dir / "campaign.json");
  if (j.value("format", "") != kCampaignFormat) {
    throw util::FatalError((dir / "campaign.json").string() + ": not a fuzz campaign");
  }
  options = options_from_json(j.at("options"));
  next_graph = j.value("next_graph", int64_t{0});
  seconds = j.value("seconds", 0.0);
  batches = j.value("batches", json::array());
  findings = findings_from_json(j.value("findings", json::array()));
  suspects = findings_from_json(j.value("suspects", json::array()));
  for (const auto& t : j.value("seen", json::array())) seen.insert(t.get<std::string>());
  framework_of = j.value("frameworks", std::map<std::string, std::string>{});
  for (size_t i = 0; i < batches.size(); ++i) {  // the coverage of the graphs written so far
    if (!fs::exists(batch_dir(i))) continue;
    for (const auto& e : fs::directory_iterator(batch_dir(i))) {
      try {
        if (e.path().extension() == ".json") coverage.add(gen::read_file(e.path().string()));
      } catch (const gen::GraphError&) {
      }
    }
  }
}

void CampaignState::save() const {
  json j;
  j["format"] = kCampaignFormat;
  j["id"] = id;
  j["options"] = to_json(options);
  j["next_graph"] = next_graph;
  j["seconds"] = seconds;
  j["batches"] = batches;
  j["findings"] = json::array();
  for (const auto& f : findings) j["findings"].push_back(to_json(f));
  j["suspects"] = json::array();
  for (const auto& f : suspects) j["suspects"].push_back(to_json(f));
  j["seen"] = seen;
  j["frameworks"] = framework_of;
  write_text(dir / "campaign.json", j.dump(1) + "\n");
}

fs::path CampaignState::batch_dir(size_t index) const {
  char name[32];
  std::snprintf(name, sizeof(name), "batch-%04zu", index);
  return dir / "graphs" / name;
}

json CampaignState::summary() const {
  const Totals t = totals(batches);
  json s;
  s["id"] = id;
  s["options"] = to_json(options);
  s["seconds"] = seconds;
  s["graphs_generated"] = next_graph;
  s["graphs_run"] = t.graphs;
  s["cases"] = t.cases;
  s["rejected_by_all"] = t.rejected;
  s["suite_errors"] = t.suite_errors;
  json acc = json::object();
  for (const auto& [k, v] : t.acceptance) {
    acc[k] = {{"attempted", v.first},
              {"ran", v.second},
              {"fraction", v.first > 0 ? static_cast<double>(v.second) / v.first : 0.0}};
  }
  s["acceptance"] = acc;
  s["unavailable"] = t.unavailable;
  s["runs"] = t.runs;
  s["coverage"] = coverage_json(coverage);
  s["ops_specified"] = gen::op_specs().size();
  return s;
}

json facts_json(const BatchFacts& f) {
  json acc = json::object();
  for (const auto& [b, a] : f.acceptance) acc[b] = {a.first, a.second};
  return {{"graphs", f.graphs},
          {"cases", f.cases},
          {"rejected_by_all", f.rejected_by_all},
          {"suite_errors", f.suite_errors},
          {"acceptance", acc},
          {"unavailable", f.unavailable},
          {"findings", f.findings.size()}};
}

}  // namespace mudjack::fuzz
