// Integration tests: the real mudjack binary, real probes (the numpy
// environment built by scripts/install.sh), hostile fixture cases.

#include "harness.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::map<std::string, json> by_function(const json& results) {
  std::map<std::string, json> m;
  for (const auto& c : results["cases"]) m[c["function"].get<std::string>()] = c;
  return m;
}

TEST_F(Cli, HostileCasesGetTheRightOutcomeAndOrdinaryOnesStillPass) {
  auto out = dir_ / "results";
  auto r =
      mudjack({"run", "--suite-dir", (kFixtures / "suites" / "hostile").string(), "--out",
               out.string(), "--timeout-s", "6", "--memory-limit-mb", "400", "--budget-ms", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  auto run_id = list[0]["id"].get<std::string>();
  auto results = json::parse(slurp(out / "runs" / run_id / "results.json"));
  auto cases = by_function(results);
  ASSERT_EQ(results["cases"].size(), 10u) << "exactly one outcome per planned case";

  EXPECT_EQ(cases["ok.add"]["outcome"], "pass");
  EXPECT_EQ(cases["ok.multiply"]["outcome"], "pass");
  EXPECT_EQ(cases["hostile.garbage_stdout"]["outcome"], "pass")
      << "prints must not corrupt the channel";

  EXPECT_EQ(cases["hostile.segfault"]["outcome"], "crash");
  EXPECT_EQ(cases["hostile.segfault"]["error"]["signal"], SIGSEGV);
  EXPECT_NE(cases["hostile.segfault"]["error"]["stderr_tail"].get<std::string>().find(
                "Fatal Python error"),
            std::string::npos);
  EXPECT_EQ(cases["hostile.abort"]["outcome"], "crash");
  EXPECT_EQ(cases["hostile.abort"]["error"]["signal"], SIGABRT);
  EXPECT_EQ(cases["hostile.hang"]["outcome"], "timeout");
  EXPECT_EQ(cases["hostile.raise"]["outcome"], "fail");
  EXPECT_EQ(cases["hostile.raise"]["error"]["kind"], "not_implemented");
  EXPECT_EQ(cases["hostile.runaway_memory"]["outcome"], "crash");
  EXPECT_EQ(cases["hostile.runaway_memory"]["error"]["kind"], "out_of_memory");
  EXPECT_EQ(cases["hostile.garbage_protocol"]["outcome"], "crash");
  EXPECT_NE(
      cases["hostile.garbage_protocol"]["error"]["message"].get<std::string>().find("protocol"),
      std::string::npos);
  EXPECT_EQ(cases["hostile.exit_mid_case"]["outcome"], "crash");
  EXPECT_EQ(cases["hostile.exit_mid_case"]["error"]["exit_code"], 7);

  // Passing cases carry real measurements.
  const auto& ok = cases["ok.add"];
  EXPECT_GT(ok["latency"]["cold_ns"].get<int64_t>(), 0);
  EXPECT_GE(ok["latency"]["n"].get<int64_t>(), 5);
  EXPECT_GT(ok["latency"]["median_ns"].get<double>(), 0);
  EXPECT_GT(ok["memory"]["peak_host_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(ok["latency"]["samples_ns"].size(), ok["latency"]["n"].get<size_t>());

  // Every view was written, and the verdicts follow the outcomes.
  for (const char* f : {"results.csv", "junit.xml", "summary.md"}) {
    EXPECT_TRUE(fs::exists(out / "runs" / run_id / f)) << f;
  }
  std::map<std::string, std::string> verdicts;
  for (const auto& v : results["verdicts"]) verdicts[v["function"]] = v["verdict"];
  EXPECT_EQ(verdicts["ok.add"], "portable");
  EXPECT_EQ(verdicts["hostile.segfault"], "complete_failure");
}

TEST_F(Cli, FailOnTurnsAVerdictIntoExitOne) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "hostile").string(), "--out",
                    out.string(), "--filter", "ok\\.add|hostile\\.raise", "--budget-ms", "5",
                    "--fail-on", "complete_failure"});
  EXPECT_EQ(r.code, 1) << r.err;
  r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "hostile").string(), "--out",
               out.string(), "--filter", "ok\\.add", "--budget-ms", "5", "--fail-on",
               "complete_failure"});
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(Cli, SigkillMidRunThenResumeLosesNothingAndRepeatsNothing) {
  auto out = dir_ / "results";
  // One round: outcomes land case by case (rounds hold a window of cases).
  pid_t pid = spawn({"run", "--suite-dir", (kFixtures / "suites" / "slow").string(), "--out",
                     out.string(), "--budget-ms", "5", "--rounds", "1"});
  ASSERT_TRUE(wait_results(out, 3, std::chrono::seconds(60)));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  auto run_id = list[0]["id"].get<std::string>();
  // Stored as running, its process gone: shown as interrupted, with the resume command.
  EXPECT_EQ(list[0]["stored_state"], "running");
  EXPECT_EQ(list[0]["state"], "incomplete");
  auto shown = mudjack({"runs", "--out", out.string()});
  EXPECT_NE(shown.out.find("resume " + run_id + ": mudjack run --resume " + run_id),
            std::string::npos)
      << shown.out;
  auto before =
      json::parse(mudjack({"report", run_id, "--out", out.string(), "--format", "json"}).out);
  std::map<std::string, std::string> started;
  for (const auto& c : before["cases"]) started[c["id"]] = c["started_at"];
  ASSERT_GE(started.size(), 3u);
  ASSERT_LT(started.size(), 8u);

  auto r = mudjack({"run", "--resume", run_id, "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  auto after = json::parse(slurp(out / "runs" / run_id / "results.json"));
  ASSERT_EQ(after["cases"].size(), 8u);
  EXPECT_EQ(after["run"]["state"], "complete");
  for (const auto& c : after["cases"]) {
    EXPECT_EQ(c["outcome"], "pass") << c["id"];
    auto it = started.find(c["id"]);
    if (it != started.end()) {
      EXPECT_EQ(c["started_at"], it->second) << "finished case ran again";
    }
  }
}

TEST_F(Cli, InterruptStopsCleanlyKeepsOutcomesAndExits130) {
  auto out = dir_ / "results";
  // One round: outcomes land case by case (rounds hold a window of cases).
  pid_t pid = spawn({"run", "--suite-dir", (kFixtures / "suites" / "slow").string(), "--out",
                     out.string(), "--budget-ms", "5", "--rounds", "1"});
  ASSERT_TRUE(wait_results(out, 2, std::chrono::seconds(60)));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(dir_ / "background.txt");
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["state"], "incomplete");
  EXPECT_GE(list[0]["results"].get<int>(), 2);
  EXPECT_NE(slurp(dir_ / "background.txt").find("--resume"), std::string::npos);
}

TEST_F(Cli, ListNeedsNoFrameworkAndShowsMetadata) {
  // /usr/bin/python3 has no torch, jax or tensorflow: listing must still work.
  auto r = mudjack({"list", "--suite", "paper", "--json", "--python", "numpy=/usr/bin/python3"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto cases = json::parse(r.out);
  ASSERT_GT(cases.size(), 10u);
  std::map<std::string, int> per_framework;
  for (const auto& c : cases) {
    ++per_framework[c["framework"]];
    for (const char* key : {"id", "function", "dtype", "mode", "shape", "variant"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
  }
  for (const char* fw : {"torch", "jax", "tensorflow", "numpy"})
    EXPECT_GT(per_framework[fw], 0) << fw;
}

struct BadInput {
  std::vector<std::string> args;
  std::string message;
};

TEST_F(Cli, BadInputGetsOneClearLineAndExitTwo) {
  auto bad_db_dir = dir_ / "corrupt";
  fs::create_directories(bad_db_dir);
  std::ofstream(bad_db_dir / "mudjack.db") << std::string(4096, 'x');
  std::ofstream(dir_ / "a-file") << "x";
  auto hostile = (kFixtures / "suites" / "hostile").string();
  std::ofstream(dir_ / "unknown-key.toml") << "profile = \"current\"\nspeed = 11\n";
  std::ofstream(dir_ / "bad-type.toml") << "[run]\ntimeout_s = \"soon\"\n";
  std::ofstream(dir_ / "not-toml.toml") << "[python\ntorch = \n";
  std::ofstream(dir_ / "bad-intolerable.toml") << "default = 0.5\n";
  std::ofstream(dir_ / "bad-framework.toml") << "[python]\ncaffe = \"/usr/bin/python3\"\n";
  std::ofstream(dir_ / "secret-keep.toml") << "[probe]\nenv_keep = [\"SITE_*\", \"db_Password\"]\n";
  std::vector<BadInput> cases = {
      {{"run", "--suite-dir", hostile, "--framework", "caffe"}, "unknown framework 'caffe'"},
      {{"run", "--suite-dir", hostile, "--device", "cuda:9"}, "no framework sees device 'cuda:9'"},
      {{"run", "--suite", "no-such-suite"}, "unknown suite 'no-such-suite'"},
      {{"list", "--suite-dir", (kFixtures / "suites" / "malformed").string()}, "broken.py"},
      {{"run", "--suite-dir", hostile, "--out", (dir_ / "a-file" / "sub").string()},
       "results folder"},
      {{"run", "--suite-dir", hostile, "--out", bad_db_dir.string()},
       "not a MudJack results database"},
      {{"run", "--suite-dir", hostile, "--python",
        "numpy=" + (kFixtures / "bin" / "protocol2-probe").string()},
       "speaks protocol 2"},
      {{"run", "--resume", "no-such-run", "--out", bad_db_dir.string() + "-none"},
       "unknown run 'no-such-run'"},
      {{"run", "--suite-dir", hostile, "--filter", "(unclosed"}, "bad --filter regex"},
      {{"report", "latest", "--out", (dir_ / "empty").string()}, "no results database"},
      {{"run", "--suite-dir", hostile, "--fail-on", "sometimes"}, "unknown verdict 'sometimes'"},
      {{"list", "--suite-dir", hostile, "--config", (dir_ / "unknown-key.toml").string()},
       "unknown key 'speed'"},
      {{"list", "--suite-dir", hostile, "--config", (dir_ / "bad-type.toml").string()},
       "run.timeout_s must be a number"},
      {{"list", "--suite-dir", hostile, "--config", (dir_ / "not-toml.toml").string()}, "line 1"},
      {{"list", "--suite-dir", hostile, "--config", (dir_ / "bad-framework.toml").string()},
       "unknown framework 'caffe' in [python]"},
      {{"list", "--suite-dir", hostile, "--config", (dir_ / "secret-keep.toml").string()},
       "env_keep: 'db_Password' looks like a secret"},
      {{"list", "--suite-dir", hostile, "--env-keep", "HF_api_TOKEN"},
       "env_keep: 'HF_api_TOKEN' looks like a secret"},
      {{"list", "--suite-dir", hostile, "--config", (dir_ / "missing.toml").string()},
       "config file"},
      {{"run", "--suite-dir", hostile, "--python", "numpy=/nonexistent/python"},
       "not an executable"},
      {{"run", "--suite-dir", hostile, "--intolerable", (dir_ / "bad-intolerable.toml").string()},
       "default must be greater than 1"},
  };
  for (const auto& c : cases) {
    auto r = mudjack(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.code, 2) << joined << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("mudjack: error: ", 0), 0u) << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << joined << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
}

TEST_F(Cli, ReportRendersEveryFormatFromTheStore) {
  auto out = dir_ / "results";
  auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / "hostile").string(), "--out",
                    out.string(), "--filter", "ok\\.", "--budget-ms", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto run_id = runs(out)[0]["id"].get<std::string>();
  for (const char* format : {"json", "csv", "junit", "md"}) {
    auto rep = mudjack({"report", "latest", "--out", out.string(), "--format", format});
    EXPECT_EQ(rep.code, 0) << format << rep.err;
    auto expected = std::string(format) == "md" ? run_id : std::string("ok.add");
    EXPECT_NE(rep.out.find(expected), std::string::npos) << format;
  }
  auto bad = mudjack({"report", "latest", "--out", out.string(), "--format", "pdf"});
  EXPECT_EQ(bad.code, 2);
}

TEST_F(Cli, CompareRunsFilesAndDevicesAndFailsOnNewFailures) {
  auto out = dir_ / "results";
  auto hostile = (kFixtures / "suites" / "hostile").string();
  for (int i = 0; i < 2; ++i) {
    auto r = mudjack({"run", "--suite-dir", hostile, "--out", out.string(), "--filter", "ok\\.",
                      "--budget-ms", "5"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  auto list = runs(out);
  ASSERT_EQ(list.size(), 2u);
  auto newer = list[0]["id"].get<std::string>();
  auto older = list[1]["id"].get<std::string>();
  // Timing noise between two runs must not read as a regression at a lax threshold.
  auto r =
      mudjack({"compare", older, newer + "@cpu", "--out", out.string(), "--threshold", "1000"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# Compare: run " + older + " → run " + newer + " @ cpu"), std::string::npos)
      << r.out;

  // The same run as a file, with one case turned into a failure: exit 1, named.
  auto original = out / "runs" / older / "results.json";
  auto doc = json::parse(slurp(original));
  for (auto& c : doc["cases"]) {
    if (c["function"] == "ok.add") {
      c["outcome"] = "fail";
      c["error"] = {{"kind", "not_implemented"}, {"message", "gone"}, {"signal", nullptr},
                    {"exit_code", nullptr},      {"stderr_tail", ""}, {"traceback", ""}};
    }
  }
  auto broken = dir_ / "broken.json";
  std::ofstream(broken) << doc.dump();
  r = mudjack({"compare", original.string(), broken.string(), "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  auto report = json::parse(r.out);
  EXPECT_EQ(report["counts"]["new_failure"], 1);

  r = mudjack({"compare", "no-such-run", newer, "--out", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown run 'no-such-run'"), std::string::npos) << r.err;
  r = mudjack({"compare", older + "@cuda:7", newer, "--out", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no results for device 'cuda:7'"), std::string::npos) << r.err;
}

}  // namespace
