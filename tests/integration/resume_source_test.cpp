// Integration test (issue 48): a resumed run keeps the source state and
// environment its first execution recorded, adds each later execution's to
// the machine's `resumed` list, and `report --publish` refuses a run whose
// executions disagree. Before, a resume overwrote the recorded source, so a
// run started from a dirty tree and finished from a clean one was publishable.

#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

size_t lines(const fs::path& file) {
  std::istringstream in(fs::exists(file) ? slurp(file) : std::string());
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.empty() ? 0 : 1;
  return n;
}

class ResumeSource : public Cli {
 protected:
  // A data folder that is no git checkout (links to this tree's folders), so
  // its source state is what its source.json says.
  fs::path data_;
  void SetUp() override {
    Cli::SetUp();
    data_ = dir_ / "data";
    fs::create_directories(data_);
    for (const auto& e : fs::directory_iterator(fs::path(MUDJACK_SOURCE_DIR))) {
      if (e.path().filename() != ".git") {
        fs::create_directory_symlink(e.path(), data_ / e.path().filename());
      }
    }
    ::setenv("MUDJACK_DATA_DIR", data_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("MUDJACK_DATA_DIR");
    ::unsetenv("MUDJACK_BUILD_LOG");
    Cli::TearDown();
  }
  void source(const std::string& commit, bool dirty) {
    std::ofstream(data_ / "source.json")
        << json{{"commit", commit}, {"dirty", dirty}, {"changed", dirty ? "probe/x.py" : ""}};
  }
  // A run of the durable fixture killed mid-way, then resumed: its id.
  std::string killed_then_resumed(const std::string& first, bool first_dirty,
                                  const std::string& second) {
    const auto out = dir_ / "results";
    const auto log = dir_ / "builds.txt";
    ::setenv("MUDJACK_BUILD_LOG", log.c_str(), 1);
    source(first, first_dirty);
    pid_t pid = spawn({"run", "--suite-dir", (kFixtures / "suites" / "durable").string(), "--out",
                       out.string(), "--budget-ms", "2"});
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (lines(log) < 2 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    auto list = runs(out);
    EXPECT_EQ(list.size(), 1u);
    if (list.empty()) return "";
    const auto id = list[0]["id"].get<std::string>();
    source(second, false);
    auto r = mudjack({"run", "--resume", id, "--out", out.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    return id;
  }
};

TEST_F(ResumeSource, ARunStartedDirtyAndFinishedCleanIsNotPublished) {
  const std::string commit(40, 'a');
  auto id = killed_then_resumed(commit, true, commit);
  ASSERT_FALSE(id.empty());
  const auto out = dir_ / "results";
  auto doc = json::parse(slurp(out / "runs" / id / "results.json"));
  const auto& m = doc["environment"]["machines"][0];
  EXPECT_EQ(m["source"]["dirty"], true) << "the first execution's source is kept";
  ASSERT_EQ(m["resumed"].size(), 1u) << m.dump();
  EXPECT_EQ(m["resumed"][0]["source"]["dirty"], false);
  auto r = mudjack({"report", id, "--out", out.string(), "--publish", (dir_ / "pub").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("will not publish run " + id), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dirty tree"), std::string::npos) << r.err;
}

TEST_F(ResumeSource, ARunResumedFromAnotherCommitIsNotPublished) {
  auto id = killed_then_resumed(std::string(40, 'a'), false, std::string(40, 'b'));
  ASSERT_FALSE(id.empty());
  const auto out = dir_ / "results";
  auto r = mudjack({"report", id, "--out", out.string(), "--publish", (dir_ / "pub").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("from another source (commit bbbbbbbbbbbb, started at aaaaaaaaaaaa)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
