// Integration tests: a failing machine is not a framework's outcome. The real
// binary and real numpy probes on the `faults` fixture suite, while the test
// kills or stops the engine, breaks the artifact folder or limits the
// probes' address space; plus the supervisor called in-process for the
// engine fault's one line.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../proc.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "envs/envs.hpp"
#include "harness.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const fs::path kFaults = kFixtures / "suites" / "faults";

using mjtest_proc::running;

// The case probes `parent` started (their command line names --device).
std::vector<pid_t> probes_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    std::string line;
    pid_t ppid = -1;
    while (std::getline(status, line)) {
      if (line.rfind("PPid:", 0) == 0) ppid = std::stoi(line.substr(5));
    }
    if (ppid != parent) continue;
    auto cmdline = slurp(entry.path() / "cmdline");
    if (cmdline.find("mudjack_probe") != std::string::npos &&
        cmdline.find("--device") != std::string::npos) {
      out.push_back(std::stoi(name));
    }
  }
  return out;
}

template <typename F>
bool eventually(F condition, milliseconds limit, milliseconds step = milliseconds(20)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(step);
  }
  return condition();
}

// Lines of the marker file the fixture cases append to as they start.
size_t marks(const fs::path& marker, const std::string& name) {
  std::ifstream f(marker);
  std::string line;
  size_t n = 0;
  while (std::getline(f, line)) n += line == name ? 1 : 0;
  return n;
}

int wait_exit(pid_t pid, seconds limit) {
  int status = 0;
  if (!eventually([&] { return waitpid(pid, &status, WNOHANG) == pid; }, limit, milliseconds(50))) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// An environment variable for the engines and probes a test starts.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

class MachineFaults : public Cli {
 protected:
  json results_of(const fs::path& out, const std::string& run_id) {
    auto r = mudjack({"report", run_id, "--out", out.string(), "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  std::string only_run(const fs::path& out) {
    auto list = runs(out);
    return list.size() == 1 ? list[0]["id"].get<std::string>() : std::string();
  }
};

TEST_F(MachineFaults, AProbeDiesWithItsEngineKilledMidCase) {
  // A SIGKILLed engine runs no destructor; its probe, spinning in a hung
  // case, must not run on as an orphan at 100% CPU.
  auto out = dir_ / "results";
  auto marker = dir_ / "marker";
  ScopedEnv env("MUDJACK_FAULTS_MARKER", marker.string());
  pid_t engine = spawn({"run", "--suite-dir", kFaults.string(), "--filter", "faults\\.spin",
                        "--out", out.string(), "--timeout-s", "300"});
  ASSERT_TRUE(eventually([&] { return marks(marker, "spin") >= 1; }, milliseconds(90'000)))
      << slurp(dir_ / "background.txt");
  auto probes = probes_of(engine);
  ASSERT_EQ(probes.size(), 1u) << "the probe running the case";
  ASSERT_TRUE(running(probes[0]));
  kill(engine, SIGKILL);
  waitpid(engine, nullptr, 0);
  EXPECT_TRUE(eventually([&] { return !running(probes[0]); }, milliseconds(2000)))
      << "probe " << probes[0] << " outlived its engine";
  if (running(probes[0])) kill(probes[0], SIGKILL);
}

TEST_F(MachineFaults, AnUnwritableArtifactFolderStopsTheRunWithoutAnOutcomeAndResumeFinishes) {
  auto out = dir_ / "results";
  auto marker = dir_ / "marker";
  std::optional<ScopedEnv> env(std::in_place, "MUDJACK_FAULTS_MARKER", marker.string());
  pid_t engine =
      spawn({"run", "--suite-dir", kFaults.string(), "--filter", "faults\\.short", "--out",
             out.string(), "--budget-ms", "5", "--timeout-s", "60", "--rounds", "1"});
  // The first case has saved its outputs, the second sleeps: break the folder.
  ASSERT_TRUE(eventually([&] { return marks(marker, "short") >= 2; }, milliseconds(90'000)))
      << slurp(dir_ / "background.txt");
  auto run_id = only_run(out);
  ASSERT_FALSE(run_id.empty());
  auto folder = out / "runs" / run_id / "artifacts" / "cpu";
  ASSERT_TRUE(fs::is_directory(folder));
  // Read-only; and, since root writes into read-only folders, a file where
  // the folder should be.
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
  if (::geteuid() == 0) {
    fs::permissions(folder, fs::perms::owner_all);
    fs::rename(folder, folder.string() + ".moved");
    std::ofstream(folder) << "not a folder\n";
  }
  EXPECT_NE(wait_exit(engine, seconds(60)), 0) << slurp(dir_ / "background.txt");

  auto stopped = json::parse(slurp(out / "runs" / run_id / "results.json"));
  EXPECT_EQ(stopped["run"]["state"], "incomplete") << "a machine fault is not a complete run";
  EXPECT_GE(stopped["cases"].size(), 1u);
  EXPECT_LT(stopped["cases"].size(), 4u);
  for (const auto& c : stopped["cases"]) {
    EXPECT_EQ(c["outcome"], "pass") << c["id"] << ": no crash stored for the machine's fault";
  }

  // The machine is repaired: --resume runs exactly the pairs left.
  if (::geteuid() == 0) {
    fs::remove(folder);
    fs::rename(folder.string() + ".moved", folder);
  }
  fs::permissions(folder, fs::perms::owner_all);
  env.reset();
  auto r = mudjack({"run", "--resume", run_id, "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  auto after = json::parse(slurp(out / "runs" / run_id / "results.json"));
  EXPECT_EQ(after["run"]["state"], "complete");
  ASSERT_EQ(after["cases"].size(), 4u);
  for (const auto& c : after["cases"]) EXPECT_EQ(c["outcome"], "pass") << c["id"];
}

TEST_F(MachineFaults, ProbesThatCannotLoadStopTheRunAndResumeFinishesIt) {
  // 50 MB: numpy's libraries cannot be mapped (the probe says so in its
  // hello); 100 MB: OpenBLAS cannot allocate and the probe dies before its
  // hello. Neither is numpy failing: nothing may be stored as its outcome.
  auto python = mudjack::envs::resolve("numpy", "current", {}).python;
  ASSERT_FALSE(python.empty()) << "the numpy environment (scripts/install.sh)";
  ScopedEnv real("MUDJACK_REAL_PYTHON", python.string());
  auto wrapper = (kFixtures / "bin" / "limited-python").string();
  for (const char* limit_kb : {"51200", "102400"}) {
    SCOPED_TRACE(limit_kb);
    auto out = dir_ / (std::string("results-") + limit_kb);
    {
      ScopedEnv limit("MUDJACK_PROBE_AS_KB", limit_kb);
      auto r = mudjack({"run", "--suite-dir", kFaults.string(), "--filter", "faults\\.twin",
                        "--out", out.string(), "--python", "numpy=" + wrapper, "--budget-ms", "5"});
      EXPECT_NE(r.code, 0) << r.err;
    }
    auto run_id = only_run(out);
    ASSERT_FALSE(run_id.empty());
    auto stopped = json::parse(slurp(out / "runs" / run_id / "results.json"));
    EXPECT_EQ(stopped["run"]["state"], "incomplete");
    EXPECT_EQ(stopped["cases"].size(), 0u) << stopped["cases"].dump(1);
    for (const auto& v : stopped["verdicts"]) {
      EXPECT_NE(v["verdict"], "complete_failure") << v.dump();
      EXPECT_NE(v["verdict"], "unavailable") << v.dump();
    }

    auto r = mudjack({"run", "--resume", run_id, "--out", out.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto after = json::parse(slurp(out / "runs" / run_id / "results.json"));
    EXPECT_EQ(after["run"]["state"], "complete");
    ASSERT_EQ(after["cases"].size(), 2u);
    for (const auto& c : after["cases"]) EXPECT_EQ(c["outcome"], "pass") << c["id"];
  }
}

TEST_F(MachineFaults, AFrameworkInstalledButFailingToImportIsAnEngineFaultAnAbsentOneUnavailable) {
  // The numpy environment's Python has neither jax nor onnxruntime; the
  // fixture folder first on PYTHONPATH makes `import jax` find a jax that
  // raises ImportError, as a wheel built for another CUDA does.
  auto python = mudjack::envs::resolve("numpy", "current", {}).python;
  ASSERT_FALSE(python.empty()) << "the numpy environment (scripts/install.sh)";
  const auto suite = (kFixtures / "suites" / "broken").string();
  ScopedEnv path("PYTHONPATH", (kFixtures / "broken-jax").string());
  auto broken =
      mudjack({"run", "--suite-dir", suite, "--framework", "numpy,jax", "--python",
               "jax=" + python.string(), "--out", (dir_ / "broken").string(), "--budget-ms", "5"});
  EXPECT_NE(broken.code, 0) << broken.err;
  EXPECT_NE(broken.err.find("jax is installed in"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("but fails to import: ImportError: libjax_planted.so"),
            std::string::npos)
      << broken.err;
  const auto run_id = only_run(dir_ / "broken");
  ASSERT_FALSE(run_id.empty());
  const auto stopped = json::parse(slurp(dir_ / "broken" / "runs" / run_id / "results.json"));
  for (const auto& c : stopped["cases"]) {
    EXPECT_EQ(c.dump().find("jax/"), std::string::npos)
        << "an outcome blames the broken framework: " << c;
  }
  auto absent = mudjack({"run", "--suite-dir", suite, "--framework", "numpy,onnxruntime",
                         "--python", "onnxruntime=" + python.string(), "--out",
                         (dir_ / "absent").string(), "--budget-ms", "5"});
  const auto absent_id = only_run(dir_ / "absent");
  ASSERT_FALSE(absent_id.empty()) << absent.err;
  const auto doc = json::parse(slurp(dir_ / "absent" / "runs" / absent_id / "results.json"));
  ASSERT_EQ(doc["cases"].size(), 2u) << doc.dump();
  for (const auto& c : doc["cases"]) {
    if (c.dump().find("onnxruntime/") == std::string::npos) continue;
    EXPECT_EQ(c["outcome"], "unavailable") << c;
    EXPECT_NE(c.dump().find("onnxruntime is not installed in"), std::string::npos) << c;
  }
}

TEST_F(MachineFaults, APausedMachineIsNoTimeout) {
  // A VM pause: engine and probe stopped for 5 s mid-case under a 2 s
  // deadline. The engine resumes first and sees its deadline passed; the
  // probe answers 0.2 s later. Only time the engine could watch counts.
  auto out = dir_ / "results";
  auto marker = dir_ / "marker";
  auto release = dir_ / "release";
  ScopedEnv mark("MUDJACK_FAULTS_MARKER", marker.string());
  ScopedEnv go("MUDJACK_FAULTS_RELEASE", release.string());
  pid_t engine =
      spawn({"run", "--suite-dir", kFaults.string(), "--filter", "faults\\.short.*index=0", "--out",
             out.string(), "--budget-ms", "5", "--timeout-s", "2"});
  ASSERT_TRUE(eventually([&] { return marks(marker, "short") >= 1; }, milliseconds(90'000)))
      << slurp(dir_ / "background.txt");
  auto probes = probes_of(engine);
  ASSERT_EQ(probes.size(), 1u);
  kill(probes[0], SIGSTOP);
  kill(engine, SIGSTOP);
  std::this_thread::sleep_for(seconds(5));
  std::ofstream(release) << "go\n";
  kill(engine, SIGCONT);
  std::this_thread::sleep_for(milliseconds(200));
  kill(probes[0], SIGCONT);
  ASSERT_EQ(wait_exit(engine, seconds(60)), 0) << slurp(dir_ / "background.txt");
  auto run_id = only_run(out);
  auto results = json::parse(slurp(out / "runs" / run_id / "results.json"));
  ASSERT_EQ(results["cases"].size(), 1u);
  EXPECT_EQ(results["cases"][0]["outcome"], "pass") << results["cases"][0].dump(1);
}

TEST_F(MachineFaults, AStoppedEngineIsNoTimeoutEither) {
  // The engine alone stopped for 5 s while a 0.4 s case runs to its end.
  auto out = dir_ / "results";
  auto marker = dir_ / "marker";
  ScopedEnv env("MUDJACK_FAULTS_MARKER", marker.string());
  pid_t engine =
      spawn({"run", "--suite-dir", kFaults.string(), "--filter", "faults\\.short.*index=0", "--out",
             out.string(), "--budget-ms", "5", "--timeout-s", "2"});
  ASSERT_TRUE(eventually([&] { return marks(marker, "short") >= 1; }, milliseconds(90'000),
                         milliseconds(5)))
      << slurp(dir_ / "background.txt");
  kill(engine, SIGSTOP);
  std::this_thread::sleep_for(seconds(5));
  kill(engine, SIGCONT);
  ASSERT_EQ(wait_exit(engine, seconds(60)), 0) << slurp(dir_ / "background.txt");
  auto results = json::parse(slurp(out / "runs" / only_run(out) / "results.json"));
  ASSERT_EQ(results["cases"].size(), 1u);
  EXPECT_EQ(results["cases"][0]["outcome"], "pass") << results["cases"][0].dump(1);
}

TEST_F(MachineFaults, CasesWhoseIdsReadAlikeKeepTheirOwnOutputs) {
  auto out = dir_ / "results";
  // --keep-outputs all: these cases pass, and a complete run keeps only failing outputs.
  auto r = mudjack({"run", "--suite-dir", kFaults.string(), "--filter", "faults\\.twin", "--out",
                    out.string(), "--budget-ms", "5", "--keep-outputs", "all"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = json::parse(slurp(out / "runs" / only_run(out) / "results.json"));
  ASSERT_EQ(results["cases"].size(), 2u);
  std::set<std::string> paths;
  for (const auto& c : results["cases"]) {
    ASSERT_EQ(c["outputs"].size(), 1u) << c.dump(1);
    auto path = c["outputs"][0]["path"].get<std::string>();
    EXPECT_TRUE(fs::exists(path)) << path;
    paths.insert(path);
  }
  EXPECT_EQ(paths.size(), 2u) << "\"a b\" and \"a_b\" share a file";
}

TEST_F(MachineFaults, ControlCharactersInIdsAndMessagesReachTheTerminalEscaped) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", kFaults.string(), "--filter", "owned", "--out",
                    out.string(), "--budget-ms", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("fail"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\\x1B[2J"), std::string::npos) << r.err;
  for (char c : {'\x1b', '\r', '\x07'}) {
    EXPECT_EQ(r.err.find(c), std::string::npos) << "raw control character " << int(c) << ":\n"
                                                << r.err;
  }
}

// The supervisor itself: an engine fault stores nothing and says, in one
// line, what failed where.
TEST_F(MachineFaults, TheSupervisorReportsTheFaultInOneLineAndStoresNothing) {
  namespace sv = mudjack::supervisor;
  auto python = mudjack::envs::resolve("numpy", "current", {}).python;
  ASSERT_FALSE(python.empty());
  auto store = mudjack::store::Store::open(dir_ / "mudjack.db");
  mudjack::model::RunInfo run;
  run.id = "fault-run";
  run.suite = "faults";
  run.state = "running";
  run.created_at = "2025-01-01T00:00:00Z";
  store->create_run(run);
  sv::RunSpec spec;
  spec.run_id = run.id;
  std::vector<mudjack::model::CaseInfo> cases;
  std::vector<mudjack::store::CaseDevice> pairs;
  for (const char* name : {"faults.twin a b", "faults.twin a_b"}) {
    mudjack::model::CaseInfo info;
    info.function = name;
    info.variant = "float32-default-eager";
    info.framework = "numpy";
    info.id = "numpy/" + info.function + "/" + info.variant;
    cases.push_back(info);
    pairs.emplace_back(info.id, "cpu");
    spec.work.emplace_back(info, "cpu");
  }
  store->add_plan(run.id, cases, pairs);
  spec.frameworks["numpy"] = sv::FrameworkRuntime{"numpy", python, "", ""};
  spec.probe_dir = mudjack::envs::data_dir() / "probe";
  spec.suite_dirs = {kFaults};
  spec.artifact_root = dir_ / "artifacts";
  std::ofstream(spec.artifact_root) << "a file where the artifact folder should be\n";
  spec.policy.budget_ms = 5;
  std::atomic<bool> interrupted{false};
  std::string fault;
  size_t landed = 0;
  bool completed = sv::execute(
      spec, *store, [&](const mudjack::model::CaseResult&) { ++landed; }, interrupted, &fault);
  EXPECT_FALSE(completed);
  EXPECT_EQ(landed, 0u);
  EXPECT_TRUE(store->results(run.id).empty());
  EXPECT_EQ(store->remaining(run.id).size(), 2u) << "both pairs run again on --resume";
  EXPECT_EQ(fault.rfind("numpy on cpu, case numpy/faults.twin a b/float32-default-eager: "
                        "cannot save outputs in ",
                        0),
            0u)
      << fault;
  EXPECT_EQ(fault.find('\n'), std::string::npos) << fault;
}

}  // namespace
