#include "fuzz/bundle.hpp"

#include <chrono>
#include <cstdio>

#include "envs/envs.hpp"
#include "fuzz/reduction.hpp"
#include "fuzz/runs.hpp"
#include "repro/repro.hpp"
#include "supervisor/standalone.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The script the probe writes for `f` through the one writer of standalone
// scripts (src/repro/, protocol `repro_graph`); empty, and
// f.standalone_output saying why, when it cannot.
std::string written_script(const CampaignState& state, Finding& f, const fs::path& dir,
                           const fs::path& python) {
  protocol::GraphScriptRequest req;
  req.graph = (dir / "graph.json").string();
  req.backend = f.backend;
  req.device = f.device;
  req.seed = state.options.seed;
  req.symptom = std::string(to_string(f.symptom));
  req.bound_eps = f.bound_eps;
  req.slow_ratio = state.options.slow_ratio;
  req.eager = eager_twin(state.framework_of, f.backend);  // the engine's rule, sent (slow)
  std::string why;
  std::string script = repro::write_graph(python, req, &why);
  if (script.empty()) f.standalone_output = why;
  return script;
}

// repro.py run on its own (supervisor::run_standalone): its framework and
// NumPy only, for at most 120 s; whether it reproduced is its exit status,
// and what it printed last is kept for a person.
void run_script(Finding& f, const fs::path& dir, const fs::path& python) {
  const auto ran = supervisor::run_standalone(python, dir / "repro.py", std::chrono::seconds(120));
  // exit 1: the symptom reproduced; 0: it did not; anything else: the script broke
  if (ran.exit_code == 1) {
    f.standalone = true;
  } else if (ran.exit_code == 0) {
    f.standalone = false;
  }
  f.standalone_output = ran.output.empty() ? "the script ended with " + ran.ended : ran.output;
  if (ran.exit_code != 0 && ran.exit_code != 1) {
    f.standalone_output = ("the script ended with " + ran.ended + ": " + ran.output).substr(0, 600);
  }
}

// repro.py from the probe's script writer, then run on its own (`run_it`).
void write_script(const CampaignState& state, Finding& f, const fs::path& dir,
                  const std::string& framework, bool run_it) {
  if (framework.empty()) return;
  const auto python = envs::resolve(framework, state.options.profile, state.options.python);
  if (python.python.empty()) {
    f.standalone_output = "no script: " + python.missing_reason;
    return;
  }
  const std::string script = written_script(state, f, dir, python.python);
  if (script.empty()) return;
  write_text(dir / "repro.py", script);
  if (!run_it) {
    f.standalone_output = "not run on its own: the campaign's budget was spent";
    return;
  }
  run_script(f, dir, python.python);
}

}  // namespace

void write_bundle(const CampaignState& state, size_t number, Finding& f, const gen::Graph& original,
                  const gen::Graph& reduced, bool run_it) {
  char name[32];
  std::snprintf(name, sizeof(name), "%03zu", number);
  const std::string rel = std::string("findings/") + name + "-" +
                          std::string(to_string(f.symptom)) + "-" + sanitize(f.backend) + "-" +
                          sanitize(f.device);
  const fs::path dir = state.dir / rel;
  fs::create_directories(dir);
  f.bundle = rel;
  write_text(dir / "graph.json", gen::to_json(reduced).dump(1) + "\n");
  write_text(dir / "original.json", gen::to_json(original).dump(1) + "\n");
  const auto fw = state.framework_of.find(f.backend);
  const std::string framework = fw != state.framework_of.end() ? fw->second : "";
  write_script(state, f, dir, framework, run_it);
  json meta = to_json(f);
  meta["framework"] = framework;
  meta["seed"] = state.options.seed;
  meta["slow_ratio"] = state.options.slow_ratio;
  meta["campaign"] = state.id;
  write_text(dir / "finding.json", meta.dump(1) + "\n");
}

}  // namespace mudjack::fuzz
