// A Child's process tree (os/process_tree.hpp) under both ways of knowing it:
// the /proc walk, always, and a cgroup where this machine lets the engine
// make one. Where it does not, the cgroup cases assert that detection says
// why and that the child fell back to the walk, then check the same
// behaviour through the walk.
#include "os/process_tree.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "../proc.hpp"
#include "os/process.hpp"

namespace mudjack::os {
namespace {

using std::chrono::milliseconds;

bool ends(pid_t pid) {
  for (int i = 0; i < 150 && mjtest_proc::running(pid); ++i) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  return !mjtest_proc::running(pid);
}

class Tree : public ::testing::TestWithParam<bool> {
 protected:
  // `sh -c script` with a tree known by a cgroup (GetParam()) or the walk.
  std::unique_ptr<Child> sh(const std::string& script) {
    SpawnOptions o;
    o.argv = {"sh", "-c", script};
    o.cgroup = GetParam();
    std::string error;
    auto c = Child::spawn(o, &error);
    EXPECT_TRUE(c) << error;
    if (c && GetParam()) {
      const auto& support = cgroup_support();
      EXPECT_EQ(c->tree_in_cgroup(), support.unavailable.empty()) << support.unavailable;
    }
    if (c && !GetParam()) {
      EXPECT_FALSE(c->tree_in_cgroup());
    }
    return c;
  }

  // The pids a script printed, one per line.
  std::vector<pid_t> read_pids(Child& c, size_t n) {
    std::vector<pid_t> pids;
    std::string line;
    while (pids.size() < n && c.read_line(line, milliseconds(5000)) == Child::Read::kLine) {
      pids.push_back(std::stoi(line));
    }
    return pids;
  }
};

TEST(CgroupSupport, IsDetectedOrSaysWhyNot) {
  const auto support = detect_cgroup_support();
  if (support.unavailable.empty()) {
    EXPECT_TRUE(std::filesystem::is_directory(support.parent)) << support.parent;
    EXPECT_TRUE(std::filesystem::exists(support.parent / "cgroup.procs")) << support.parent;
  } else {
    EXPECT_TRUE(support.parent.empty());
    std::cout << "cgroup way unavailable here: " << support.unavailable << "\n";
  }
  ::setenv("MUDJACK_PROCESS_TREE", "proc", 1);
  const auto forced = detect_cgroup_support();
  ::unsetenv("MUDJACK_PROCESS_TREE");
  EXPECT_TRUE(forced.parent.empty());
  EXPECT_EQ(forced.unavailable, "MUDJACK_PROCESS_TREE=proc asks for the /proc walk");
}

TEST(Descendants, FindsAChildThatLeftTheSession) {
  SpawnOptions o;
  o.argv = {"sh", "-c", "setsid sleep 30 & echo $!; wait"};
  o.cgroup = false;
  std::string error;
  auto c = Child::spawn(o, &error);
  ASSERT_TRUE(c) << error;
  std::string line;
  ASSERT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kLine);
  const pid_t sleeper = std::stoi(line);
  const auto found = descendants(c->pid());
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().pid, c->pid());
  EXPECT_TRUE(std::any_of(found.begin(), found.end(),
                          [&](const ProcessId& p) { return p.pid == sleeper; }));
  EXPECT_TRUE(descendants(-5).empty());
}

TEST_P(Tree, MemoryCountsAGrandchildInItsOwnSession) {
  // The shell stays small; the Python it started (its own session) makes
  // 120 MiB resident.
  auto c =
      sh("setsid python3 -c \"import time; b = b'x' * (120 << 20); print('ready', flush=True); "
         "time.sleep(30)\" & wait");
  ASSERT_TRUE(c);
  std::string line;
  ASSERT_EQ(c->read_line(line, milliseconds(10000)), Child::Read::kLine);
  EXPECT_EQ(line, "ready");
  EXPECT_LT(c->rss_bytes(), 20 << 20) << "the shell itself";
  EXPECT_GT(c->tree_memory_bytes(0), 120 << 20) << "resident sets of the tree";
  EXPECT_GT(c->tree_memory_bytes(1), 120 << 20) << "proportional sets, confirming a sum over 1";
  c->kill();
  EXPECT_EQ(c->tree_memory_bytes(0), 0);
}

TEST_P(Tree, KillReachesASetsidChildAndAnOrphan) {
  // `setsid sleep`: another session and process group. `(sleep &)`: a
  // double fork whose parent exits at once, so the sleeper is an orphan.
  auto c = sh("setsid sleep 30 & echo $!; (sleep 30 & echo $!); wait");
  ASSERT_TRUE(c);
  auto pids = read_pids(*c, 2);
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_TRUE(mjtest_proc::running(pid)) << pid;
  c->kill();
  for (pid_t pid : pids) EXPECT_TRUE(ends(pid)) << pid << " outlived the kill";
}

TEST_P(Tree, ALeaderThatDiesLeavesNoSetsidChildBehind) {
  // The leader exits by itself (a crash); its setsid'd child, orphaned at
  // that moment, dies when the leader is reaped. The /proc walk knows it
  // from the walk before (a probe's memory polls walk the tree).
  auto c = sh("setsid sleep 30 & echo $!; read x; exit 5");
  ASSERT_TRUE(c);
  auto pids = read_pids(*c, 1);
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_GT(c->tree_memory_bytes(0), 0);
  ASSERT_TRUE(c->write_line("go"));
  std::optional<ExitStatus> status;
  for (int i = 0; i < 250 && !(status = c->try_wait()); ++i) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 5);
  EXPECT_TRUE(ends(pids[0])) << pids[0] << " outlived its parent";
}

TEST(CgroupSupport, AKilledEnginesLeftoversAreKilledByTheNextEngine) {
  // An engine killed with SIGKILL: its probe dies (PR_SET_PDEATHSIG), the
  // probe's setsid'd child does not. The next engine empties the dead
  // engine's cgroup. Without a cgroup there is no such remedy: detection
  // must then say why.
  const auto& support = cgroup_support();
  if (support.parent.empty()) {
    EXPECT_FALSE(support.unavailable.empty());
    return;
  }
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    ::close(report[0]);
    SpawnOptions o;
    o.argv = {"sh", "-c", "setsid sleep 30 & echo $!; wait"};
    std::string error;
    auto c = Child::spawn(o, &error);
    std::string line;
    pid_t sleeper =
        c && c->read_line(line, milliseconds(5000)) == Child::Read::kLine ? std::stoi(line) : -1;
    (void)!::write(report[1], &sleeper, sizeof(sleeper));
    ::pause();
    _exit(0);
  }
  ::close(report[1]);
  pid_t sleeper = -1;
  ASSERT_EQ(::read(report[0], &sleeper, sizeof(sleeper)), static_cast<ssize_t>(sizeof(sleeper)));
  ::close(report[0]);
  ASSERT_GT(sleeper, 0);
  ::kill(engine, SIGKILL);
  ::waitpid(engine, nullptr, 0);
  std::this_thread::sleep_for(milliseconds(100));
  // Another engine starting meanwhile (a test run in parallel: every first
  // cgroup_support() sweeps) may be the next engine that kills it; otherwise
  // this sweep must, for nothing else reaches a setsid child of a killed engine.
  if (mjtest_proc::running(sleeper)) {
    EXPECT_GE(remove_stale_cgroups(support.parent), 1);
  }
  EXPECT_TRUE(ends(sleeper));
  if (mjtest_proc::running(sleeper)) ::kill(sleeper, SIGKILL);
}

INSTANTIATE_TEST_SUITE_P(Ways, Tree, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Cgroup" : "ProcWalk"; });

}  // namespace
}  // namespace mudjack::os
