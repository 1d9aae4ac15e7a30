#include "fuzz/bundle.hpp"

#include <chrono>
#include <cstdio>

#include "envs/envs.hpp"
#include "fuzz/runs.hpp"
#include "os/process.hpp"
#include "supervisor/probe_session.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> writer_argv(const CampaignState& state, const Finding& f,
                                     const fs::path& dir, const fs::path& python) {
  std::vector<std::string> argv = {python.string(),
                                   "-m",
                                   "mudjack_probe.fuzz",
                                   "script",
                                   (dir / "graph.json").string(),
                                   f.backend,
                                   f.device,
                                   std::to_string(state.options.seed),
                                   "--symptom",
                                   f.symptom,
                                   "--slow-ratio",
                                   std::to_string(state.options.slow_ratio)};
  if (f.bound_eps) {
    argv.push_back("--bound-eps");
    argv.push_back(std::to_string(*f.bound_eps));
  }
  return argv;
}

// The script the probe writes for `f` (empty, and f.standalone_output
// saying why, when it cannot).
std::string written_script(const CampaignState& state, Finding& f, const fs::path& dir,
                           const fs::path& python) {
  os::SpawnOptions so;
  so.argv = writer_argv(state, f, dir, python);
  so.env_set["PYTHONPATH"] = (envs::data_dir() / "probe").string();
  so.env_keep = supervisor::probe_may_inherit;
  std::string error;
  auto child = os::Child::spawn(so, &error);
  if (!child) {
    f.standalone_output = "no script: " + error;
    return "";
  }
  std::string script;
  std::string line;
  while (child->read_line(line, std::chrono::seconds(60)) == os::Child::Read::kLine) {
    script += line + "\n";
  }
  const auto status = child->wait_or_kill(std::chrono::seconds(10));
  if (status.exit_code != 0 || script.empty()) {
    std::string tail = child->stderr_tail();
    while (!tail.empty() && tail.back() == '\n') tail.pop_back();
    f.standalone_output = "no script: the writer ended with " + status.describe() + ": " +
                          tail.substr(tail.rfind('\n') + 1).substr(0, 200);
    return "";
  }
  return script;
}

// repro.py run on its own: its framework and NumPy only, no MudJack on the
// path, for at most 120 s; what it measured and whether it reproduced.
void run_script(Finding& f, const fs::path& dir, const fs::path& python) {
  std::string error;
  std::string line;
  os::SpawnOptions run;
  run.argv = {python.string(), (dir / "repro.py").string()};
  run.env_unset = {"PYTHONPATH"};
  run.env_keep = supervisor::probe_may_inherit;
  run.cwd = dir;
  run.stderr_tail_bytes = 4096;
  auto script_run = os::Child::spawn(run, &error);
  if (!script_run) return;
  // what it measured (the per-output lines: "v3 (float32[4]): 9.1e+04 eps of
  // the float64 reference (bound 8.19e+03)") and its verdict line
  std::string measured;
  std::string last;
  const auto until = Clock::now() + std::chrono::seconds(120);
  while (Clock::now() < until &&
         script_run->read_line(line, std::chrono::seconds(120)) == os::Child::Read::kLine) {
    if (line.empty()) continue;
    last = line;
    if (line.find(" eps ") != std::string::npos || line.find("median") != std::string::npos) {
      const auto start = line.find_first_not_of(' ');
      measured += (measured.empty() ? "" : "; ") + line.substr(start);
    }
  }
  if (!measured.empty()) last = measured.substr(0, 400) + "; " + last;
  const auto st = script_run->wait_or_kill(std::chrono::seconds(10));
  // exit 1: the symptom reproduced; 0: it did not; anything else: the script broke
  if (st.exit_code == 1) {
    f.standalone = true;
  } else if (st.exit_code == 0) {
    f.standalone = false;
  }
  f.standalone_output = last.substr(0, 600);
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
  const std::string rel = std::string("findings/") + name + "-" + f.symptom + "-" +
                          sanitize(f.backend) + "-" + sanitize(f.device);
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
