// Integration tests of hostile inputs and a failing machine, through the real
// binary and real probes: numbers out of range (flags and mudjack.toml), an
// empty --resume, unknown [params], bad filters, duplicate suites, damaged and
// foreign databases, read-only results folders, a results folder deleted
// mid-run, and two executions of one run.

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kHostile = (kFixtures / "suites" / "hostile").string();
const std::string kSlow = (kFixtures / "suites" / "slow").string();

// Exit code of a child, waiting up to `limit` (then SIGKILL and -1).
int wait_exit(pid_t pid, std::chrono::seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void sql(const fs::path& db, const std::string& text) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, text.c_str(), nullptr, nullptr, &err);
  std::string msg = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += a + " ";
  return s;
}

class Inputs : public Cli {
 protected:
  // One line, `mudjack: error: ...` containing `message`, exit 2.
  void expect_refused(const std::vector<std::string>& args, const std::string& message) {
    auto r = mudjack(args);
    EXPECT_EQ(r.code, 2) << joined(args) << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("mudjack: error: ", 0), 0u) << joined(args) << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << joined(args) << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }

  // A quick real run of the hostile suite's ordinary cases; its id.
  std::string quick_run(const fs::path& out) {
    auto r = mudjack({"run", "--suite-dir", kHostile, "--out", out.string(), "--filter", "ok\\.",
                      "--budget-ms", "5"});
    EXPECT_EQ(r.code, 0) << r.err;
    auto list = runs(out);
    return list.empty() ? "" : list[0]["id"].get<std::string>();
  }

  fs::path toml(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
};

// --- 1. numbers: one range per option, the flag or key named ---------------

TEST_F(Inputs, NumbersOutOfRangeAreRefusedBeforeAnythingRuns) {
  const auto out = (dir_ / "results").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> flags = {
      {{"--timeout-s", "nan"},
       "--timeout-s must be a decimal number more than 0 and at most 86400, got 'nan'"},
      {{"--timeout-s", "inf"},
       "--timeout-s must be a decimal number more than 0 and at most 86400, got 'inf'"},
      {{"--timeout-s", "1e300"}, "--timeout-s must be more than 0 and at most 86400"},
      {{"--timeout-s", "0"}, "--timeout-s must be more than 0"},
      {{"--budget-ms", "nan"},
       "--budget-ms must be a decimal number more than 0 and at most 600000, got 'nan'"},
      {{"--budget-ms", "-5"}, "--budget-ms must be more than 0"},
      {{"--warmup-ms", "nan"},
       "--warmup-ms must be a decimal number at least 0 and at most 600000"},
      {{"--memory-limit-mb", "1e308"}, "--memory-limit-mb must be more than 0"},
      {{"--memory-limit-mb", "-1"}, "--memory-limit-mb must be more than 0"},
      {{"--seed", "-1"}, "--seed must be between 0 and 9223372036854775807, got -1"},
      {{"--min-samples", "0"}, "--min-samples must be between 1 and 1000000"},
      {{"--max-samples", "2000000"}, "--max-samples must be between 1 and 1000000"},
  };
  for (const auto& [extra, message] : flags) {
    std::vector<std::string> args = {"run", "--suite-dir", kHostile, "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    expect_refused(args, message);
  }
  const std::vector<std::pair<std::string, std::string>> files = {
      {"[run]\ntimeout_s = nan\n", "run.timeout_s must be more than 0 and at most 86400, got nan"},
      {"[run]\ntimeout_s = inf\n", "run.timeout_s must be more than 0 and at most 86400, got inf"},
      {"[run]\ntimeout_s = 1e300\n", "run.timeout_s must be more than 0"},
      {"[run]\nbudget_ms = nan\n", "run.budget_ms must be more than 0"},
      {"[run]\nmemory_limit_mb = 1e308\n", "run.memory_limit_mb must be more than 0"},
  };
  int i = 0;
  for (const auto& [text, message] : files) {
    auto config = toml("bad-" + std::to_string(i++) + ".toml", text);
    expect_refused({"run", "--suite-dir", kHostile, "--out", out, "--config", config.string()},
                   config.string() + ": " + message);
  }
  EXPECT_FALSE(fs::exists(dir_ / "results" / "mudjack.db")) << "nothing was stored";
}

// --- 3, 5, 2: --resume, filters, duplicate suites ---------------------------

TEST_F(Inputs, ResumeNeedsARunIdAndLatestResolvesToTheNewest) {
  auto out = dir_ / "results";
  expect_refused({"run", "--resume", "", "--out", out.string()}, "--resume needs a run id");
  EXPECT_FALSE(fs::exists(out / "mudjack.db")) << "an empty --resume started a run";
  auto id = quick_run(out);
  ASSERT_FALSE(id.empty());
  expect_refused({"run", "--resume", "", "--out", out.string()}, "--resume needs a run id");
  auto r = mudjack({"run", "--resume", "latest", "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("run " + id + ":"), std::string::npos) << r.err;
  EXPECT_EQ(runs(out).size(), 1u) << "latest resumed the run, made no new one";
  expect_refused({"run", "--resume", "latest", "--out", (dir_ / "none").string()},
                 "no results database");
}

TEST_F(Inputs, FiltersAreLinearTimeAndBadOnesOneLine) {
  expect_refused({"list", "--suite-dir", kHostile, "--filter", "(?<=ok)add"}, "bad --filter regex");
  expect_refused({"list", "--suite-dir", kHostile, "--filter", "(a)\\1"}, "bad --filter regex");
  // Ids are numpy/ok.add/float32-default-eager: a backtracking engine would
  // try the (a+)+ branch the long way; RE2 does not.
  auto r =
      mudjack({"list", "--suite-dir", kHostile, "--json", "--filter", "ok\\.(a+)+$|/ok\\.add/"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto cases = json::parse(r.out);
  ASSERT_EQ(cases.size(), 1u) << r.out;
  EXPECT_EQ(cases[0]["function"], "ok.add");
}

TEST_F(Inputs, ASuiteSelectedTwiceIsRefused) {
  expect_refused({"list", "--suite-dir", kHostile, "--suite-dir", kHostile}, "selected twice");
  expect_refused({"run", "--suite-dir", kHostile, "--suite-dir", kHostile + "/", "--out",
                  (dir_ / "results").string()},
                 "selected twice");
}

// --- 4. [params] in mudjack.toml ---------------------------------------------

TEST_F(Inputs, ConfigParamsNoSuiteReadsAreRefusedLikeParam) {
  auto typo = toml("typo.toml", "[params]\nmatrix_sise = 64\n");
  expect_refused({"list", "--suite-dir", kHostile, "--config", typo.string()},
                 typo.string() + ": no suite reads [params] 'matrix_sise'");
  // A parameter of a suite this run does not select (capability's) is fine.
  auto other = toml("other.toml", "[params]\nmatrix_size = 64\n");
  auto r = mudjack({"list", "--suite-dir", kHostile, "--config", other.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  // Commands that select no suite do not list anything to check against.
  r = mudjack({"runs", "--out", (dir_ / "none").string(), "--config", typo.string()});
  EXPECT_EQ(r.err.find("matrix_sise"), std::string::npos) << r.err;
}

// --- 6. the store --------------------------------------------------------------

TEST_F(Inputs, ForeignDatabaseIsRefusedUnchanged) {
  auto out = dir_ / "foreign";
  fs::create_directories(out);
  sql(out / "mudjack.db",
      "CREATE TABLE photos (id INTEGER PRIMARY KEY); INSERT INTO photos VALUES (1)");
  const auto before = bytes_of(out / "mudjack.db");
  expect_refused({"runs", "--out", out.string()}, "is not a MudJack results database");
  expect_refused({"report", "latest", "--out", out.string()}, "is not a MudJack results database");
  expect_refused({"run", "--suite-dir", kHostile, "--out", out.string()},
                 "is not a MudJack results database");
  EXPECT_EQ(bytes_of(out / "mudjack.db"), before);
  EXPECT_FALSE(fs::exists(out / "mudjack.db-wal"));
}

// One run serves both: a damaged row hides no other run, and the read-only
// commands work on a folder nobody may write (a folder where the WAL's -shm
// file should be stops SQLite from making it, even for root) and change
// nothing.
TEST_F(Inputs, ReadOnlyCommandsWorkOnAReadOnlyFolderAndSkipABadRow) {
  auto out = dir_ / "results";
  auto id = quick_run(out);
  ASSERT_FALSE(id.empty());
  sql(out / "mudjack.db",
      "INSERT INTO runs (id, suite, state, created_at, baseline, options_json) VALUES "
      "('20000101-000000-bad0', 'x', 'complete', '2000-01-01T00:00:00Z', 'cpu', '{broken')");
  ASSERT_FALSE(fs::exists(out / "mudjack.db-wal"));
  fs::create_directories(out / "mudjack.db-shm");
  fs::permissions(out, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  const auto before = bytes_of(out / "mudjack.db");

  auto r = mudjack({"runs", "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(id), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("mudjack: warning: run 20000101-000000-bad0 cannot be read"),
            std::string::npos)
      << r.err;
  auto listed = runs(out);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_GE(listed[0]["results"].get<int>(), 1);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"report", "latest", "--out", out.string(), "--format", "json"},
           {"report", id, "--out", out.string(), "--format", "md"},
           {"compare", id, "latest", "--out", out.string()},
           {"repro", "numpy/ok.add/float32-default-eager", "--suite-dir", kHostile, "--run", id,
            "--out", out.string()}}) {
    auto c = mudjack(args);
    EXPECT_EQ(c.code, 0) << joined(args) << "\n" << c.err;
  }
  // (In a writable folder SQLite's readers may leave the WAL's -wal and -shm
  // files, as any reader does; the database itself never changes.)
  EXPECT_EQ(bytes_of(out / "mudjack.db"), before) << "a read-only command wrote";
  fs::permissions(out, fs::perms::owner_all, fs::perm_options::add);
}

TEST_F(Inputs, AResultsFolderDeletedMidRunFailsTheRun) {
  auto out = dir_ / "results";
  pid_t pid = spawn(
      {"run", "--suite-dir", kSlow, "--out", out.string(), "--budget-ms", "5", "--rounds", "1"});
  ASSERT_TRUE(wait_results(out, 1, std::chrono::seconds(90))) << slurp(dir_ / "background.txt");
  fs::remove_all(out);
  int code = wait_exit(pid, std::chrono::seconds(60));
  auto log = slurp(dir_ / "background.txt");
  EXPECT_EQ(code, 2) << log;
  EXPECT_NE(log.find("was deleted or replaced"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(out / "mudjack.db")) << log;
  bool report = false;
  for (auto it = fs::recursive_directory_iterator(dir_); it != fs::recursive_directory_iterator();
       ++it) {
    report = report || it->path().filename() == "results.json";
  }
  EXPECT_FALSE(report) << "reports written beside no database";
}

// --- 7. one execution per run ------------------------------------------------

TEST_F(Inputs, ASecondExecutionOfARunIsRefusedNamingTheOwner) {
  auto out = dir_ / "results";
  pid_t first = spawn(
      {"run", "--suite-dir", kSlow, "--out", out.string(), "--budget-ms", "5", "--rounds", "1"});
  ASSERT_TRUE(wait_results(out, 1, std::chrono::seconds(90))) << slurp(dir_ / "background.txt");
  auto id = runs(out)[0]["id"].get<std::string>();
  // A resume of a run still running: refused, its state untouched.
  expect_refused({"run", "--resume", id, "--out", out.string()},
                 "run " + id + " is being executed by pid " + std::to_string(first) + " on host ");
  EXPECT_EQ(runs(out)[0]["state"], "running");
  // Its owner dies: the lease is stale, and of two resumes at once exactly
  // one executes; the other is refused naming it.
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  pid_t a = spawn({"run", "--resume", id, "--out", out.string()});
  pid_t b = spawn({"run", "--resume", "latest", "--out", out.string()});
  int code_a = wait_exit(a, std::chrono::seconds(120));
  int code_b = wait_exit(b, std::chrono::seconds(120));
  auto log = slurp(dir_ / "background.txt");
  EXPECT_EQ(std::min(code_a, code_b), 0) << log;
  EXPECT_EQ(std::max(code_a, code_b), 2) << log;
  const pid_t winner = code_a == 0 ? a : b;
  EXPECT_NE(log.find("is being executed by pid " + std::to_string(winner)), std::string::npos)
      << log;
  auto after = json::parse(slurp(out / "runs" / id / "results.json"));
  EXPECT_EQ(after["run"]["state"], "complete");
  ASSERT_EQ(after["cases"].size(), 8u);
  for (const auto& c : after["cases"]) EXPECT_EQ(c["outcome"], "pass") << c["id"];
  // Released at the end: the run may be resumed again.
  EXPECT_EQ(mudjack({"run", "--resume", id, "--out", out.string()}).code, 0);
}

// A server asked to resume a run the CLI executes refuses, naming the CLI's
// process (409), and leaves the run alone.
TEST_F(Inputs, AServerResumeOfARunTheCliExecutesIsRefused) {
  auto out = dir_ / "results";
  auto port_file = dir_ / "port";
  pid_t server = spawn({"serve", "--port", "0", "--port-file", port_file.string(), "--no-auth",
                        "--out", out.string(), "--suite-dir", kSlow, "--framework", "numpy"});
  int port = 0;
  for (int i = 0; i < 900 && port == 0; ++i) {
    if (fs::exists(port_file) && !slurp(port_file).empty()) {
      httplib::Client probe("127.0.0.1", std::stoi(slurp(port_file)));
      auto ready = probe.Get("/readyz");
      if (ready && ready->status == 200) port = std::stoi(slurp(port_file));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(port, 0) << slurp(dir_ / "background.txt");
  pid_t cli = spawn(
      {"run", "--suite-dir", kSlow, "--out", out.string(), "--budget-ms", "5", "--rounds", "1"});
  ASSERT_TRUE(wait_results(out, 1, std::chrono::seconds(90))) << slurp(dir_ / "background.txt");
  auto id = runs(out)[0]["id"].get<std::string>();

  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(std::chrono::seconds(30));
  auto r = client.Post("/v1/runs", json{{"resume", id}}.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409) << r->body;
  EXPECT_NE(r->body.find("is being executed by pid " + std::to_string(cli)), std::string::npos)
      << r->body;
  EXPECT_EQ(runs(out)[0]["state"], "running") << "the refused resume changed the run";

  EXPECT_EQ(wait_exit(cli, std::chrono::seconds(120)), 0) << slurp(dir_ / "background.txt");
  auto after = json::parse(slurp(out / "runs" / id / "results.json"));
  EXPECT_EQ(after["run"]["state"], "complete");
  EXPECT_EQ(after["cases"].size(), 8u);
  kill(server, SIGTERM);
  EXPECT_EQ(wait_exit(server, std::chrono::seconds(60)), 0);
}

}  // namespace
