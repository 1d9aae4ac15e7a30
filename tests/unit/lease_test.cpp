// Unit tests for run ownership (run/lease.hpp): when a lease is stale, the
// refusal's wording, and the Watch that holds a lease while a run executes
// (exclusive, released at the end, stopping when the database goes away).

#include "run/lease.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace mudjack::run {
namespace {

namespace fs = std::filesystem;

// The pid of a process that has exited and been reaped.
int64_t dead_pid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(Lease, ThisProcessIsLiveAndNamed) {
  auto mine = this_process_lease("r1");
  EXPECT_EQ(mine.pid, ::getpid());
  EXPECT_FALSE(mine.host.empty());
  EXPECT_FALSE(mine.process_start.empty()) << "read from /proc";
  EXPECT_FALSE(stale(mine, unix_ms_now()));
  auto text = describe(mine, mine.heartbeat_unix_ms + 3000);
  EXPECT_NE(text.find("pid " + std::to_string(::getpid()) + " on host " + mine.host),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("last heartbeat 3 s ago"), std::string::npos) << text;
}

TEST(Lease, StaleWhenTheOwnerIsGoneOrSilent) {
  const int64_t now = unix_ms_now();
  auto gone = this_process_lease("r1");
  gone.pid = dead_pid();
  EXPECT_TRUE(stale(gone, now)) << "owner process gone on this host";

  auto reused = this_process_lease("r1");
  reused.process_start = "another-boot:1";
  EXPECT_TRUE(stale(reused, now)) << "the pid now names a later process";

  auto silent = this_process_lease("r1");
  silent.heartbeat_unix_ms = now - kLeaseTimeout.count() - 1;
  EXPECT_TRUE(stale(silent, now)) << "heartbeat older than the timeout";

  auto elsewhere = this_process_lease("r1");
  elsewhere.host = "some-other-host";
  elsewhere.pid = dead_pid();
  EXPECT_FALSE(stale(elsewhere, now)) << "another host's pid says nothing here";
  EXPECT_TRUE(stale(elsewhere, elsewhere.heartbeat_unix_ms + kLeaseTimeout.count() + 1));
}

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mudjack_lease_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    store_ = store::Store::open(store::default_db_path(dir_));
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::unique_ptr<store::Store> store_;
  std::atomic<bool> interrupt_{false};
};

TEST_F(WatchTest, ASecondExecutionIsRefusedNamingTheFirst) {
  std::optional<Watch> first;
  first.emplace(*store_, "r1", interrupt_);
  auto holder = lease_holder(*store_, "r1");
  ASSERT_TRUE(holder.has_value());
  EXPECT_NE(holder->find("run r1 is being executed by pid " + std::to_string(::getpid())),
            std::string::npos)
      << *holder;
  try {
    Watch second(*store_, "r1", interrupt_);
    ADD_FAILURE() << "a second execution took the lease";
  } catch (const util::FatalError& e) {
    EXPECT_EQ(std::string(e.what()), *holder);
  }
  EXPECT_FALSE(lease_holder(*store_, "r2").has_value()) << "other runs are free";
  EXPECT_FALSE(first->end().has_value());
  first.reset();
  EXPECT_FALSE(store_->lease("r1").has_value()) << "released at the end";
  Watch again(*store_, "r1", interrupt_);
}

TEST_F(WatchTest, AStaleLeaseIsTakenOver) {
  auto old = this_process_lease("r1");
  old.pid = dead_pid();
  ASSERT_FALSE(store_->acquire_lease(old, [](const store::Lease&) { return false; }));
  EXPECT_FALSE(lease_holder(*store_, "r1").has_value()) << "a dead owner holds nothing";
  Watch watch(*store_, "r1", interrupt_);
  EXPECT_EQ(store_->lease("r1")->pid, ::getpid());
}

TEST_F(WatchTest, ForwardsTheInterrupt) {
  Watch watch(*store_, "r1", interrupt_);
  EXPECT_FALSE(watch.stop().load());
  interrupt_ = true;
  for (int i = 0; i < 100 && !watch.stop().load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(watch.stop().load());
  EXPECT_FALSE(watch.end().has_value()) << "an interrupt is no failure";
}

TEST_F(WatchTest, StopsWhenTheDatabaseIsDeleted) {
  Watch watch(*store_, "r1", interrupt_);
  fs::remove_all(dir_);
  for (int i = 0; i < 150 && !watch.stop().load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(watch.stop().load());
  auto why = watch.end();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("was deleted or replaced while run r1 ran"), std::string::npos) << *why;
}

TEST_F(WatchTest, StopsWhenItsLeaseIsTakenOver) {
  Watch watch(*store_, "r1", interrupt_, std::chrono::milliseconds(50));
  auto thief = this_process_lease("r1");
  thief.host = "thief-host";
  ASSERT_FALSE(store_->acquire_lease(thief, [](const store::Lease&) { return true; }));
  for (int i = 0; i < 150 && !watch.stop().load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(watch.stop().load());
  auto why = watch.end();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("run r1 was taken over by pid"), std::string::npos) << *why;
  EXPECT_NE(why->find("on host thief-host"), std::string::npos) << *why;
}

}  // namespace
}  // namespace mudjack::run
