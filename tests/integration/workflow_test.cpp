// Integration tests of a person's workflow at the terminal (the real binary,
// real numpy probes): suite mistakes apart from framework failures, the
// short summary, selection, doctor, exit codes.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "envs/envs.hpp"
#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(Cli, SuiteMistakesAreErrorsApartFromFrameworkFailures) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "mistakes").string(), "--out",
                    out.string(), "--budget-ms", "2", "--rounds", "1"});
  EXPECT_EQ(r.code, 1) << "a broken suite never exits 0\n" << r.err;
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  const fs::path run_dir = out / "runs" / list[0]["id"].get<std::string>();
  auto results = json::parse(slurp(run_dir / "results.json"));
  std::map<std::string, json> cases;
  for (const auto& c : results["cases"]) cases[c["function"].get<std::string>()] = c;
  for (const char* f :
       {"mine.returns_tensor", "mine.typo", "mine.check_raises", "mine.metric_raises"}) {
    EXPECT_EQ(cases[f]["outcome"], "error") << f;
  }
  EXPECT_EQ(cases["mine.fails"]["outcome"], "fail");
  EXPECT_EQ(cases["mine.ok"]["outcome"], "pass");
  // No verdict counts a suite error.
  std::map<std::string, std::string> verdicts;
  for (const auto& v : results["verdicts"]) verdicts[v["function"]] = v["verdict"];
  EXPECT_EQ(verdicts.size(), 3u);
  EXPECT_EQ(verdicts["mine.fails"], "complete_failure");
  EXPECT_EQ(verdicts["mine.ok"], "portable");
  // junit.xml: errors, not failures.
  auto junit = slurp(run_dir / "junit.xml");
  EXPECT_TRUE(has(junit, "errors=\"4\"")) << junit;
  EXPECT_TRUE(has(junit, "<error type=\"suite\""));
  // The terminal says which cases are the suite's mistakes, with the
  // traceback of the suite's code, and what failed with its first error.
  EXPECT_TRUE(has(r.out, "suite errors: 4")) << r.out;
  EXPECT_TRUE(has(r.out, "did you mean 'float16'")) << r.out;
  EXPECT_TRUE(has(r.out, "check 'shape' raised IndexError")) << r.out;
  EXPECT_TRUE(has(r.out, "mistakes.py")) << "the traceback names the suite's file\n" << r.out;
  EXPECT_TRUE(has(r.out, "returned ndarray, not t.call")) << r.out;
  EXPECT_TRUE(has(r.out, "metric 'ratio' raised ZeroDivisionError")) << r.out;
  EXPECT_TRUE(has(r.out, "complete failure")) << r.out;
  EXPECT_TRUE(has(r.out, "RuntimeError: kernel exploded  [numpy/mine.fails/float32-small-eager]"))
      << r.out;
}

TEST_F(Cli, DoctorSaysWhatIsReadyAndHowToInstallWhatIsMissing) {
  auto r = mudjack({"doctor", "--framework", "numpy"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "numpy       ready")) << r.out;
  EXPECT_TRUE(has(r.out, "1 of 1 frameworks ready")) << r.out;
  r = mudjack({"doctor", "--framework", "numpy", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["frameworks"][0]["ready"], true);
  EXPECT_FALSE(doc["frameworks"][0]["version"].get<std::string>().empty());
  // No environment at all: missing, with the command that installs it; exit 3.
  ::setenv("MUDJACK_CACHE_DIR", (dir_ / "empty-cache").c_str(), 1);
  r = mudjack({"doctor", "--framework", "numpy"});
  auto torch = mudjack({"doctor", "--framework", "torch"});
  ::unsetenv("MUDJACK_CACHE_DIR");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "numpy       missing")) << r.out;
  EXPECT_TRUE(has(r.out, "install: MUDJACK_FRAMEWORKS=numpy ")) << r.out;
  EXPECT_TRUE(has(r.out, "scripts/install.sh")) << r.out;
  EXPECT_FALSE(has(r.out, "XLA devices")) << "the hint is torch's: " << r.out;
  // torch seeing no XLA device: the one line that says how to add them.
  EXPECT_EQ(torch.code, 3) << torch.out << torch.err;
  EXPECT_TRUE(has(torch.out,
                  "torch on XLA devices (TPU, or xla:0 on this CPU through PJRT): "
                  "MUDJACK_FRAMEWORKS=torch MUDJACK_PROFILE=xla "))
      << torch.out;
}

// doctor and devices answer from the hello a framework's probe gave last
// while nothing it depends on changed: a virtualenv whose interpreter counts
// its starts is asked once, again after --refresh or an install into its
// site-packages; an interpreter that is no virtualenv is asked every time.
TEST_F(Cli, DoctorAndDevicesReuseAProbesAnswerUntilItsEnvironmentChanges) {
  const auto real = mudjack::envs::resolve("numpy", "current", {}).python;
  ASSERT_FALSE(real.empty()) << "the numpy environment (scripts/install.sh)";
  const auto venv = dir_ / "venv";
  const auto site = venv / "lib" / "python3.11" / "site-packages";
  fs::create_directories(site);
  fs::create_directories(venv / "bin");
  std::ofstream(venv / "pyvenv.cfg") << "home = /usr/bin\ninclude-system-site-packages = false\n";
  const auto starts = dir_ / "starts";
  const auto python = venv / "bin" / "python";
  std::ofstream(python) << "#!/bin/sh\necho start >> '" << starts.string() << "'\nexec '"
                        << real.string() << "' \"$@\"\n";
  fs::permissions(python, fs::perms::owner_all);
  auto count = [&] {
    std::ifstream f(starts);
    int n = 0;
    for (std::string line; std::getline(f, line);) ++n;
    return n;
  };
  ::setenv("MUDJACK_CACHE_DIR", (dir_ / "cache").c_str(), 1);
  const std::vector<std::string> numpy = {"--framework", "numpy", "--python",
                                          "numpy=" + python.string()};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), numpy.begin(), numpy.end());
    return mudjack(args);
  };
  auto first = with({"devices"});
  EXPECT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(count(), 1);
  EXPECT_FALSE(has(first.out, "--refresh asks again")) << first.out;
  auto again = with({"devices"});
  auto doctor = with({"doctor"});
  EXPECT_EQ(count(), 1) << "answered from the cache";
  EXPECT_EQ(again.out.substr(0, again.out.find("\n(") + 1), first.out) << again.out;
  EXPECT_TRUE(has(again.out, "(cached answers: numpy;")) << again.out;
  EXPECT_EQ(doctor.code, 0) << doctor.err;
  EXPECT_TRUE(has(doctor.out, "1 of 1 frameworks ready")) << doctor.out;
  with({"devices", "--refresh"});
  EXPECT_EQ(count(), 2) << "--refresh starts the probe";
  fs::create_directories(site / "newly_installed");  // an install changes site-packages
  with({"devices"});
  EXPECT_EQ(count(), 3) << "an install is seen";
  with({"devices"});
  EXPECT_EQ(count(), 3);
  // Not a virtualenv: what it imports cannot be watched, so it is asked each time.
  fs::remove(venv / "pyvenv.cfg");
  with({"devices"});
  with({"devices"});
  EXPECT_EQ(count(), 5);
  ::unsetenv("MUDJACK_CACHE_DIR");
}

TEST_F(Cli, ARunThatCouldAttemptNothingExitsThreeAndSaysWhy) {
  ::setenv("MUDJACK_CACHE_DIR", (dir_ / "empty-cache").c_str(), 1);
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "mistakes").string(), "--out",
                    (dir_ / "results").string()});
  ::unsetenv("MUDJACK_CACHE_DIR");
  EXPECT_EQ(r.code, 3) << "every case unavailable is never a green run\n" << r.err;
  EXPECT_TRUE(has(r.err, "nothing could be attempted")) << r.err;
  EXPECT_TRUE(has(r.err, "no numpy environment")) << "the whole reason, not cut\n" << r.err;
  EXPECT_TRUE(has(r.err, "mudjack doctor")) << r.err;
}

TEST_F(Cli, MistakesOnTheCommandLineGetOneLineAndExitTwo) {
  auto r = mudjack({"rn"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'rn'; did you mean 'run'?")) << r.err;
  r = mudjack({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "(commands: doctor, check, devices, list, run")) << r.err;
  r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "mistakes").string(), "--out",
               (dir_ / "results").string(), "--baseline", "gpu0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--baseline gpu0 is not a device here (devices: cpu")) << r.err;
  r = mudjack({"run", "--budget-ms", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--budget-ms must be more than 0 and at most 600000, got 0")) << r.err;
}

class Workflow : public Cli {
 protected:
  fs::path out() const { return dir_ / "results"; }
  Result run(std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "run",   "--suite-dir",  (kFixtures / "suites" / "mistakes").string(),
        "--out", out().string(), "--budget-ms",
        "2",     "--rounds",     "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return mudjack(args);
  }
  // The newest run's results.json and folder.
  std::pair<json, fs::path> newest() {
    auto list = runs(out());
    EXPECT_FALSE(list.empty());
    const fs::path dir = out() / "runs" / list[0]["id"].get<std::string>();
    return {json::parse(slurp(dir / "results.json")), dir};
  }
};

std::set<std::string> ids_of(const json& results) {
  std::set<std::string> ids;
  for (const auto& c : results["cases"]) ids.insert(c["id"].get<std::string>());
  return ids;
}

TEST_F(Workflow, StructuredSelectionAndAFilteredRunSaysItsVerdictsCoverOnlyThat) {
  auto r = mudjack({"list", "--suite", "paper", "--framework", "torch", "--dtype", "float16",
                    "--mode", "eager", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto listed = json::parse(r.out);
  ASSERT_FALSE(listed.empty());
  for (const auto& c : listed) {
    EXPECT_EQ(c["dtype"], "float16") << "float16 never matches bfloat16: " << c["id"];
    EXPECT_EQ(c["mode"], "eager");
  }
  r = mudjack({"list", "--suite", "paper", "--framework", "torch", "--function", "torch.nn.Conv*",
               "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& c : json::parse(r.out)) {
    EXPECT_EQ(c["function"].get<std::string>().rfind("torch.nn.Conv", 0), 0u) << c["id"];
  }
  r = mudjack({"list", "--suite", "paper", "--dtype", "fp16"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--dtype fp16: no listed case has it; did you mean")) << r.err;
  r = mudjack({"list", "--suite", "paper", "--mode", "jit"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--mode jit: a mode is eager, compiled, amp, onnxruntime or train"))
      << r.err;

  r = run({"--function", "mine.o*"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "selection: --function mine.o*: 1 of 7 cases; the verdicts cover only"))
      << r.out;
  auto [results, dir] = newest();
  EXPECT_EQ(ids_of(results), std::set<std::string>{"numpy/mine.ok/float32-small-eager"});
  EXPECT_TRUE(has(slurp(dir / "summary.md"), "- Selection: --function mine.o\\*: 1 of 7 cases"))
      << slurp(dir / "summary.md");
}

TEST_F(Workflow, SummaryOpensWithTheCommandLineMachineAndVersions) {
  ASSERT_EQ(run({"--function", "mine.ok"}).code, 0);
  auto [results, dir] = newest();
  const auto md = slurp(dir / "summary.md");
  EXPECT_EQ(md.find("```\nmudjack run --suite-dir "), md.find('\n') + 2) << md;
  EXPECT_TRUE(has(md, "--function mine.ok")) << md;
  EXPECT_TRUE(has(md, "- Machine: ")) << md;
  EXPECT_TRUE(has(md, "- MudJack: ")) << md;
  EXPECT_TRUE(has(md, ", revision `")) << md;
  EXPECT_TRUE(has(md, "- Device `cpu`: ")) << md;
  EXPECT_TRUE(has(md, "- numpy 2.")) << md;
  EXPECT_TRUE(has(md, "(Python 3.")) << md;
}

TEST_F(Workflow, ExitFirstStopsAtTheFirstFailureAndTheRestResumes) {
  auto r = run({"-x"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(has(r.err, "stopped at the first failure (-x): numpy/mine.returns_tensor/")) << r.err;
  auto [results, dir] = newest();
  EXPECT_LT(results["cases"].size(), 7u) << "the run stopped early";
  EXPECT_EQ(results["run"]["state"], "incomplete");
  auto list = runs(out());
  r = mudjack({"run", "--resume", list[0]["id"].get<std::string>(), "--out", out().string()});
  EXPECT_EQ(r.code, 1) << "the rest holds suite errors\n" << r.err;
  auto [resumed, unused] = newest();
  EXPECT_EQ(resumed["cases"].size(), 7u);
}

TEST_F(Workflow, LastFailedRerunsOnlyWhatDidNotPass) {
  EXPECT_EQ(run({}).code, 1);
  auto r = run({"--last-failed"});
  EXPECT_EQ(r.code, 1) << r.err;
  auto [results, dir] = newest();
  EXPECT_EQ(ids_of(results), (std::set<std::string>{
                                 "numpy/mine.check_raises/float32-small-eager",
                                 "numpy/mine.fails/float32-small-eager",
                                 "numpy/mine.metric_raises/float32-small-eager",
                                 "numpy/mine.returns_tensor/float32-small-eager",
                                 "numpy/mine.typo/fp16-small-eager",
                             }));
  EXPECT_TRUE(has(r.out, "selection: --last-failed (run ")) << r.out;
}

TEST_F(Workflow, ExpectedFailuresDoNotTripFailOnAndOneThatPassesIsAnError) {
  const auto file = dir_ / "xfail.txt";
  std::ofstream(file) << "# known\nnumpy/mine.fails/*\n";
  auto r = run({"--function", "mine.fails,mine.ok", "--fail-on", "complete_failure"});
  EXPECT_EQ(r.code, 1) << "without the file, the failure trips --fail-on";
  r = run({"--function", "mine.fails,mine.ok", "--fail-on", "complete_failure", "--xfail",
           file.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "1 listed cases still fail")) << r.err;
  std::ofstream(file, std::ios::app) << "numpy/mine.ok/float32-small-eager cpu\n";
  r = run({"--function", "mine.fails,mine.ok", "--xfail", file.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(has(r.err, "1 listed cases now pass; remove them from")) << r.err;
  EXPECT_TRUE(has(r.err, "numpy/mine.ok/float32-small-eager cpu")) << r.err;
  std::ofstream(file, std::ios::app) << "a b c\n";
  r = run({"--xfail", file.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "xfail.txt:4: expected 'CASE_ID [DEVICE]'")) << r.err;
}

TEST_F(Workflow, OutputsKeptAreWhatFindingsNeedAndOldRunsPrune) {
  // check.fails diverges; the other checks fixture cases pass.
  auto checks = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run",
                                     "--suite-dir",
                                     (kFixtures / "suites" / "checks").string(),
                                     "--out",
                                     out().string(),
                                     "--budget-ms",
                                     "2",
                                     "--rounds",
                                     "1",
                                     "--filter",
                                     "check\\.(fails|reference|property)"};
    args.insert(args.end(), extra.begin(), extra.end());
    return mudjack(args);
  };
  auto npy_files = [](const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir / "artifacts")) {
      if (e.path().extension() == ".npy") names.insert(e.path().filename().string());
    }
    return names;
  };
  ASSERT_EQ(checks({}).code, 0);
  auto [kept_results, kept_dir] = newest();
  auto kept = npy_files(kept_dir);
  ASSERT_FALSE(kept.empty());
  for (const auto& name : kept) {
    EXPECT_EQ(name.rfind("numpy_check.fails_", 0), 0u)
        << "a passing case's output stayed: " << name;
  }
  ASSERT_EQ(checks({"--keep-outputs", "all"}).code, 0);
  auto [all_results, all_dir] = newest();
  EXPECT_GT(npy_files(all_dir).size(), kept.size());
  ASSERT_EQ(checks({"--keep-outputs", "none"}).code, 0);
  auto [none_results, none_dir] = newest();
  EXPECT_FALSE(fs::exists(none_dir / "artifacts"));
  EXPECT_EQ(checks({"--keep-outputs", "some"}).code, 2);

  auto r = mudjack({"cache", "prune", "--out", out().string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(npy_files(all_dir).size(), kept.size()) << "prune keeps what findings need\n" << r.out;
  r = mudjack({"cache", "prune", "--out", out().string(), "--keep-last", "1", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(runs(out()).size(), 3u) << "a dry run removes nothing";
  r = mudjack({"cache", "prune", "--out", out().string(), "--keep-last", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto list = runs(out());
  ASSERT_EQ(list.size(), 1u);
  EXPECT_TRUE(fs::exists(out() / "runs" / list[0]["id"].get<std::string>()));
  EXPECT_FALSE(fs::exists(kept_dir)) << "a forgotten run's folder goes too";
}

}  // namespace

namespace {

// A build cache as the probe leaves it: one folder per build with its
// build.json, and a compiler's cache folder without one.
void fake_build(const fs::path& root, const std::string& key, const std::string& model,
                double last_used, size_t bytes) {
  fs::create_directories(root / key);
  std::ofstream(root / key / "model.onnx") << std::string(bytes, 'x');
  std::ofstream(root / key / "build.json")
      << json{{"key", key},         {"model", model},        {"stage", "onnxruntime"},
              {"dtype", "float32"}, {"shape", "b1"},         {"build_s", 1.5},
              {"uses", 2},          {"last_used", last_used}}
             .dump();
}

}  // namespace

TEST_F(Cli, TheBuildCacheIsListedAndCleanedByModelAgeAndSize) {
  const fs::path cache = dir_ / "builds";
  ::setenv("MUDJACK_BUILD_CACHE", cache.c_str(), 1);
  const double now = static_cast<double>(std::time(nullptr));
  fake_build(cache, "aaaa", "bert", now - 10 * 86400, 300000);  // oldest
  fake_build(cache, "bbbb", "resnet18", now - 3600, 200000);
  fake_build(cache, "cccc", "gpt2", now - 60, 100000);  // newest
  fs::create_directories(cache / "torchinductor");
  std::ofstream(cache / "torchinductor" / "kernel.so") << std::string(5000, 'y');

  auto r = mudjack({"cache", "builds"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "bert onnxruntime float32 b1")) << r.out;
  EXPECT_TRUE(has(r.out, "compiler cache (torchinductor)")) << r.out;
  EXPECT_TRUE(has(r.out, "4 entries")) << r.out;
  r = mudjack({"cache", "builds", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, int64_t> bytes;
  int64_t total = 0;
  for (const auto& b : json::parse(r.out)) {
    bytes[fs::path(b["dir"].get<std::string>()).filename().string()] = b["bytes"];
    total += b["bytes"].get<int64_t>();
  }
  ASSERT_EQ(bytes.size(), 4u);

  // --dry-run names what would go and removes nothing.
  r = mudjack({"cache", "clean-builds", "--model", "resnet*", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "would remove " + (cache / "bbbb").string())) << r.out;
  EXPECT_TRUE(fs::exists(cache / "bbbb"));

  // --keep-gb: the least recently used go first, only until the rest fits.
  const double keep_gb = static_cast<double>(total - bytes["aaaa"]) / 1e9;
  char arg[64];
  std::snprintf(arg, sizeof arg, "%.9f", keep_gb);
  r = mudjack({"cache", "clean-builds", "--keep-gb", arg});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(cache / "aaaa")) << r.out;
  EXPECT_TRUE(fs::exists(cache / "bbbb")) << r.out;
  EXPECT_TRUE(fs::exists(cache / "cccc")) << r.out;
  EXPECT_TRUE(fs::exists(cache / "torchinductor")) << r.out;

  // --unused-days: only builds unused that long; a compiler's cache has no age of its own.
  fake_build(cache, "dddd", "vit", now - 5 * 86400, 1000);
  r = mudjack({"cache", "clean-builds", "--unused-days", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(cache / "dddd")) << r.out;
  EXPECT_TRUE(fs::exists(cache / "bbbb")) << r.out;
  EXPECT_TRUE(fs::exists(cache / "torchinductor")) << r.out;

  // Bad values: one line, exit 2, nothing removed.
  for (const char* bad : {"--keep-gb", "--unused-days"}) {
    r = mudjack({"cache", "clean-builds", bad, "-1"});
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, std::string(bad) + " must be at least 0")) << r.err;
  }
  EXPECT_TRUE(fs::exists(cache / "cccc"));

  // No filter: everything, compiler caches too.
  r = mudjack({"cache", "clean-builds"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_empty(cache)) << r.out;
  ::unsetenv("MUDJACK_BUILD_CACHE");
}
