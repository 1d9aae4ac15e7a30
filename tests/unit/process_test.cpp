#include "os/process.hpp"
#include "../proc.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

namespace mudjack::os {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<Child> sh(const std::string& script, std::string* error) {
  SpawnOptions o;
  o.argv = {"sh", "-c", script};
  o.env_set["MUDJACK_TEST_VAR"] = "set-by-test";
  return Child::spawn(o, error);
}

TEST(Process, ReadsLinesAndKeepsTheStderrTail) {
  std::string error;
  auto c =
      sh("echo one; printf 'tw'; sleep 0.1; echo o; echo oops >&2; echo $MUDJACK_TEST_VAR", &error);
  ASSERT_TRUE(c) << error;
  std::string line;
  ASSERT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kLine);
  EXPECT_EQ(line, "one");
  ASSERT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kLine);
  EXPECT_EQ(line, "two") << "a line written in pieces arrives whole";
  ASSERT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kLine);
  EXPECT_EQ(line, "set-by-test");
  EXPECT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kEof);
  EXPECT_NE(c->stderr_tail().find("oops"), std::string::npos);
  auto status = c->wait_or_kill(milliseconds(5000));
  EXPECT_EQ(status.exit_code, 0);
}

TEST(Process, TimesOutWithoutKilling) {
  std::string error;
  auto c = sh("sleep 10", &error);
  ASSERT_TRUE(c) << error;
  std::string line;
  EXPECT_EQ(c->read_line(line, milliseconds(100)), Child::Read::kTimeout);
  EXPECT_FALSE(c->try_wait().has_value());
  EXPECT_GT(c->rss_bytes(), 0);
  auto status = c->kill();
  EXPECT_EQ(status.signal, SIGKILL);
  EXPECT_EQ(status.describe(), "signal 9 (SIGKILL)");
  EXPECT_EQ(c->rss_bytes(), 0);
}

TEST(Process, KillReachesTheWholeProcessGroup) {
  std::string error;
  auto c = sh("sleep 30 & echo $!; wait", &error);
  ASSERT_TRUE(c) << error;
  std::string line;
  ASSERT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kLine);
  pid_t grandchild = std::stoi(line);
  c->kill();
  for (int i = 0; i < 100 && ::kill(grandchild, 0) == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_NE(::kill(grandchild, 0), 0) << "a probe's children die with it";
}

using mjtest_proc::running;

TEST(Process, AChildDiesWithTheProcessThatSpawnedItEvenOnSigkill) {
  // An engine killed with SIGKILL runs no destructor; its probe, busy in a
  // hung case, must not run on as an orphan.
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    ::close(report[0]);
    std::string error;
    auto c = sh("while :; do :; done", &error);  // a busy, hung probe
    pid_t pid = c ? c->pid() : -1;
    (void)!::write(report[1], &pid, sizeof(pid));
    ::pause();
    _exit(0);
  }
  ::close(report[1]);
  pid_t probe = -1;
  ASSERT_EQ(::read(report[0], &probe, sizeof(probe)), static_cast<ssize_t>(sizeof(probe)));
  ::close(report[0]);
  ASSERT_GT(probe, 0);
  EXPECT_TRUE(running(probe));
  ::kill(engine, SIGKILL);
  ::waitpid(engine, nullptr, 0);
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (running(probe) && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_FALSE(running(probe)) << "the orphaned probe " << probe << " still runs";
  if (running(probe)) ::kill(probe, SIGKILL);
}

TEST(Process, AChildInheritsOnlyItsThreePipes) {
  // A descriptor another thread opened without O_CLOEXEC (a server's
  // accepted connection) must not leak into a probe.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  int leaky[2] = {::dup2(pipe_fds[0], 200), ::dup2(pipe_fds[1], 201)};
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ASSERT_EQ(leaky[0], 200);
  std::string error;
  auto c = sh("ls /proc/self/fd", &error);
  ASSERT_TRUE(c) << error;
  std::vector<std::string> fds;
  std::string line;
  while (c->read_line(line, milliseconds(5000)) == Child::Read::kLine) fds.push_back(line);
  c->wait_or_kill(milliseconds(5000));
  ::close(leaky[0]);
  ::close(leaky[1]);
  // 0, 1, 2 and the directory ls itself reads.
  EXPECT_EQ(fds.size(), 4u) << "inherited: " << ::testing::PrintToString(fds);
  for (int fd : leaky) {
    EXPECT_EQ(std::count(fds.begin(), fds.end(), std::to_string(fd)), 0) << fd;
  }
}

TEST(Process, ReportsExitCodesAndSignals) {
  std::string error;
  auto c = sh("exit 3", &error);
  ASSERT_TRUE(c) << error;
  auto status = c->wait_or_kill(milliseconds(5000));
  EXPECT_EQ(status.exit_code, 3);
  EXPECT_EQ(status.describe(), "exit code 3");
  c = sh("kill -SEGV $$", &error);
  ASSERT_TRUE(c) << error;
  status = c->wait_or_kill(milliseconds(5000));
  EXPECT_EQ(status.signal, SIGSEGV);
  EXPECT_EQ(status.describe(), "signal 11 (SIGSEGV)");
}

TEST(Process, WritesLinesToStdin) {
  std::string error;
  auto c = sh("read a; echo got:$a", &error);
  ASSERT_TRUE(c) << error;
  ASSERT_TRUE(c->write_line("ping"));
  std::string line;
  ASSERT_EQ(c->read_line(line, milliseconds(5000)), Child::Read::kLine);
  EXPECT_EQ(line, "got:ping");
}

TEST(Process, AMissingProgramIsAnErrorValue) {
  SpawnOptions o;
  o.argv = {"/nonexistent/python"};
  std::string error;
  EXPECT_EQ(Child::spawn(o, &error), nullptr);
  EXPECT_EQ(error, "cannot run /nonexistent/python: No such file or directory");
  o.argv = {};
  EXPECT_EQ(Child::spawn(o, &error), nullptr);
}

}  // namespace
}  // namespace mudjack::os
