// Integration test: timing rounds are stored as they land (store.hpp:
// hold). An engine killed (SIGKILL: nothing of it runs) in the middle of its
// rounds loses at most the round in flight; --resume runs only the rounds
// each case is missing and stores each outcome once.

#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kCases = 4;   // tests/fixtures/suites/durable
constexpr size_t kRounds = 3;  // the default: each round builds the case once

size_t lines(const fs::path& file) {
  std::istringstream in(fs::exists(file) ? slurp(file) : std::string());
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.empty() ? 0 : 1;
  return n;
}

class DurableRounds : public Cli {
 protected:
  // A run of the durable fixture into `out`, each round's build logged to
  // `log`, returned once every first round and round 2 of the first case
  // have been built: the engine is then in the middle of round 2 (the window
  // holds all four cases). The engine's pid.
  pid_t run_into_round_two(const fs::path& out, const fs::path& log) {
    ::setenv("MUDJACK_BUILD_LOG", log.c_str(), 1);
    pid_t pid = spawn({"run", "--suite-dir", (kFixtures / "suites" / "durable").string(), "--out",
                       out.string(), "--budget-ms", "2"});
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (lines(log) < kCases + 2 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pid;
  }
};

TEST_F(DurableRounds, AKillDuringRoundsLosesAtMostTheRoundInFlight) {
  const auto out = dir_ / "results";
  const auto log = dir_ / "builds.txt";
  pid_t pid = run_into_round_two(out, log);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  const size_t before = lines(log);
  ASSERT_GE(before, kCases + 2) << slurp(dir_ / "background.txt");
  ASSERT_LT(before, kCases * kRounds) << "the run ended before the kill";
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["results"], 0) << "no case had all its rounds at the kill";
  const auto run_id = list[0]["id"].get<std::string>();

  auto r = mudjack({"run", "--resume", run_id, "--out", out.string()});
  ::unsetenv("MUDJACK_BUILD_LOG");
  ASSERT_EQ(r.code, 0) << r.err;
  // Each round builds its case once: a resume that ran only the missing
  // rounds built kCases * kRounds in all, plus the one in flight at the kill.
  const size_t builds = lines(log);
  EXPECT_LE(builds, kCases * kRounds + 1) << "stored rounds ran again";
  EXPECT_GE(builds, kCases * kRounds) << "rounds are missing";
  auto after = json::parse(slurp(out / "runs" / run_id / "results.json"));
  EXPECT_EQ(after["run"]["state"], "complete");
  std::set<std::string> ids;
  for (const auto& c : after["cases"]) {
    ids.insert(c["id"].get<std::string>());
    EXPECT_EQ(c["outcome"], "pass") << c["id"];
    EXPECT_EQ(c["latency"]["timing"]["rounds"].size(), kRounds) << c.dump();
  }
  EXPECT_EQ(after["cases"].size(), kCases);  // each outcome once
  EXPECT_EQ(ids.size(), kCases);
}

// The same with an interrupt (Ctrl-C: the engine stops its lanes and writes
// its reports): cases whose rounds were under way stay held, shown in the
// incomplete run's reports with the rounds they have, and --resume adds the
// missing ones. Before, they were stored with one round and a resume never
// added the rest.
TEST_F(DurableRounds, AnInterruptDuringRoundsKeepsTheMissingRoundsForResume) {
  const auto out = dir_ / "results";
  const auto log = dir_ / "builds.txt";
  pid_t pid = run_into_round_two(out, log);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << slurp(dir_ / "background.txt");
  EXPECT_EQ(WEXITSTATUS(status), 130);
  ASSERT_LT(lines(log), kCases * kRounds) << "the run ended before the interrupt";
  auto list = runs(out);
  ASSERT_EQ(list.size(), 1u);
  const auto run_id = list[0]["id"].get<std::string>();
  auto stopped = json::parse(slurp(out / "runs" / run_id / "results.json"));
  EXPECT_EQ(stopped["run"]["state"], "incomplete");
  size_t held = 0;
  for (const auto& c : stopped["cases"]) held += c["extra"].contains("rounds_held") ? 1 : 0;
  EXPECT_GE(held, 1u) << "the reports show the held cases";

  auto r = mudjack({"run", "--resume", run_id, "--out", out.string()});
  ::unsetenv("MUDJACK_BUILD_LOG");
  ASSERT_EQ(r.code, 0) << r.err;
  auto after = json::parse(slurp(out / "runs" / run_id / "results.json"));
  EXPECT_EQ(after["run"]["state"], "complete");
  EXPECT_EQ(after["cases"].size(), kCases);
  for (const auto& c : after["cases"]) {
    EXPECT_EQ(c["outcome"], "pass") << c["id"];
    EXPECT_EQ(c["latency"]["timing"]["rounds"].size(), kRounds) << c.dump();
    EXPECT_FALSE(c["extra"].contains("rounds_held")) << c["id"];
  }
}

}  // namespace
