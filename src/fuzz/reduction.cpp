#include "fuzz/reduction.hpp"

#include <memory>

#include "fuzz/suspect.hpp"
#include "gen/reduce.hpp"
#include "util/error.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;

// One reduction step: the candidates written to `dir` and run on f's
// backend (and eager twin) and device; whether each still shows f.
std::vector<bool> run_step(const CampaignState& state, const Where& w, const Finding& f,
                           const std::vector<gen::Graph>& cands, const fs::path& dir,
                           const Deadline& deadline) {
  std::vector<std::string> hashes;
  for (const auto& c : cands) {
    hashes.push_back(gen::hash(c));
    write_text(dir / (hashes.back() + ".json"), gen::to_json(c).dump(1) + "\n");
  }
  Options o = state.options;
  o.backends = {f.backend};
  const std::string eager_backend = eager_twin(state.framework_of, f.backend);
  if (f.symptom == Symptom::kSlow && !eager_backend.empty()) o.backends.push_back(eager_backend);
  const Listed l = list(o, dir);
  const auto results = run_cases(o, dir, l.cases, {f.device}, state.dir / "reduce", w.intolerable,
                                 deadline.stop(), nullptr, nullptr);
  std::map<std::string, std::string> suspects;
  if (f.symptom == Symptom::kMismatch) {
    suspects = suspect_cases(results, dir, o.seed, o.profile, o.python, nullptr);
  }
  std::vector<bool> out(cands.size(), false);
  for (size_t i = 0; i < cands.size(); ++i) {
    const model::CaseResult* mine = nullptr;
    const model::CaseResult* eager = nullptr;
    for (const auto& r : results) {
      auto id = parse_case_id(r.info.id);
      if (!id || id->first != hashes[i] || r.device != f.device) continue;
      if (id->second == f.backend) mine = &r;
      if (id->second == eager_backend) eager = &r;
    }
    out[i] = mine != nullptr && shows(f, *mine, eager, state.options.slow_ratio) &&
             suspects.count(hashes[i] + "|" + f.backend + "|" + f.device) == 0;
  }
  return out;
}

gen::StillShows still_shows(const CampaignState& state, const Where& w, const Say& say,
                            const Finding& f, const Deadline& deadline) {
  auto step = std::make_shared<int>(0);
  const fs::path root = state.dir / "reduce" /
                        sanitize(f.graph + "-" + f.backend + "-" + f.device + "-" +
                                 std::string(to_string(f.symptom)));
  return [&state, &w, &say, f, &deadline, step, root](const std::vector<gen::Graph>& cands) {
    if (deadline.stop()) return std::vector<bool>(cands.size(), false);
    const fs::path dir = root / ("step-" + std::to_string((*step)++));
    fs::create_directories(dir);
    try {
      return run_step(state, w, f, cands, dir, deadline);
    } catch (const util::FatalError& e) {
      say(std::string("  reduction step failed: ") + e.what());
      return std::vector<bool>(cands.size(), false);
    }
  };
}

}  // namespace

std::string eager_twin(const std::map<std::string, std::string>& framework_of,
                       const std::string& backend) {
  const auto fw = framework_of.find(backend);
  if (fw == framework_of.end()) return "";
  for (const auto& [b, framework] : framework_of) {
    if (framework == fw->second && b != backend && backend.rfind(b, 0) == 0) return b;
  }
  return "";
}

gen::Graph reduce_finding(const CampaignState& state, const Where& w, const Say& say, Finding& f,
                          const gen::Graph& g, const Deadline& deadline) {
  gen::ReduceStats st;
  gen::Graph reduced = gen::reduce(g, still_shows(state, w, say, f, deadline), &st);
  f.reduced = gen::hash(reduced);
  f.reduced_nodes = reduced.nodes.size();
  f.reduced_ops = gen::ops_of(reduced);
  say("  reduced " + std::string(to_string(f.symptom)) + " on " + f.backend + "/" + f.device +
      ": " + std::to_string(st.nodes_before) + " -> " + std::to_string(st.nodes_after) +
      " nodes (" + join(f.reduced_ops, ", ") + "), " + std::to_string(st.batches) + " runs");
  return reduced;
}

}  // namespace mudjack::fuzz
