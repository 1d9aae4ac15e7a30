// Unit tests for the held results of cases whose timing rounds are under
// way (Store::hold, schema 1.5): kept as each round lands, replaced by the
// final result in one commit, read back in plan order, forgotten with their
// run, and added to a 1.4 database without touching its runs.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "store/store.hpp"

namespace mudjack::store {
namespace {

namespace fs = std::filesystem;

class StoreHeldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("mudjack_store_held_test_" + std::to_string(::getpid()) +
                                        "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path db() const { return default_db_path(dir_ / "results"); }

  static model::RunInfo run(const std::string& id) {
    model::RunInfo r;
    r.id = id;
    r.suite = "paper";
    r.state = "running";
    r.created_at = "2026-01-01T00:00:00Z";
    r.baseline = "cpu";
    return r;
  }

  // Case `name` of framework numpy after `rounds` rounds of one sample each.
  static model::CaseResult result(const std::string& run_id, const std::string& name, int rounds) {
    model::CaseResult r;
    r.run_id = run_id;
    r.info.framework = "numpy";
    r.info.function = name;
    r.info.id = "numpy/" + name;
    r.device = "cpu";
    r.outcome = model::Outcome::kPass;
    r.outputs = {{"artifacts/cpu/" + name + ".npy", "float32", "float32", {4}}};
    model::Timing t;
    t.bound = "host_bound";
    for (int i = 1; i <= rounds; ++i) {
      r.latency.samples_ns.push_back(100.0 * i + 0.125);
      t.rounds_ns.push_back(100.0 * i + 0.125);
    }
    r.latency.timing = t;
    r.started_at = "2026-01-01T00:00:01Z";
    r.wall_s = 0.5 * rounds;
    return r;
  }

  fs::path dir_;
};

TEST_F(StoreHeldTest, EachRoundIsKeptAndTheFinalResultReplacesIt) {
  auto store = Store::open(db());
  store->create_run(run("r1"));
  auto a = result("r1", "a", 1);
  auto b = result("r1", "b", 1);
  store->add_plan("r1", {a.info, b.info}, {{b.info.id, "cpu"}, {a.info.id, "cpu"}});
  store->hold(a, 1);
  store->hold(b, 1);
  a = result("r1", "a", 2);
  store->hold(a, 2);  // replaces round 1's row
  auto held = store->held("r1");
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].result.info.id, b.info.id);  // plan order
  EXPECT_EQ(held[0].rounds, 1);
  EXPECT_EQ(held[1].result.info.id, a.info.id);
  EXPECT_EQ(held[1].rounds, 2);
  EXPECT_EQ(held[1].result.latency.samples_ns, a.latency.samples_ns);
  EXPECT_EQ(held[1].result.latency.timing->rounds_ns, a.latency.timing->rounds_ns);
  EXPECT_EQ(held[1].result.outputs.size(), 1u);
  EXPECT_EQ(held[1].result.wall_s, a.wall_s);
  // Held is not stored: both pairs still run on --resume, and count as no result.
  EXPECT_EQ(store->remaining("r1").size(), 2u);
  EXPECT_EQ(store->counts("r1").results, 0u);
  EXPECT_TRUE(store->results("r1").empty());

  store->record(result("r1", "a", 3));
  held = store->held("r1");
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].result.info.id, b.info.id);
  EXPECT_EQ(store->results("r1").size(), 1u);
  // Reopened (a resumed run), the held row is still there.
  store.reset();
  store = Store::open(db());
  EXPECT_EQ(store->held("r1").size(), 1u);
  store->delete_run("r1");
  EXPECT_TRUE(store->held("r1").empty());
}

TEST_F(StoreHeldTest, AOneFourDatabaseGetsTheHeldTableAndKeepsItsRuns) {
  std::vector<Migration> up_to_1_4 = migrations();
  while (up_to_1_4.back().version != "1.4") up_to_1_4.pop_back();
  {
    auto old = Store::open(db(), up_to_1_4);
    ASSERT_EQ(old->schema_version(), "1.4");
    old->create_run(run("r1"));
    const auto a = result("r1", "a", 3);
    old->add_plan("r1", {a.info}, {{a.info.id, "cpu"}});
  }
  auto store = Store::open(db());
  EXPECT_EQ(store->schema_version(), model::kSchemaVersion);
  EXPECT_EQ(store->plan("r1").size(), 1u);
  EXPECT_TRUE(store->held("r1").empty());
  store->hold(result("r1", "a", 1), 1);
  EXPECT_EQ(store->held("r1").size(), 1u);
  store->record(result("r1", "a", 3));
  EXPECT_TRUE(store->held("r1").empty());
  store->hold(result("r1", "b", 1), 1);
  auto reader = Store::open_read_only(db());
  EXPECT_EQ(reader->held("r1").size(), 1u);
}

}  // namespace
}  // namespace mudjack::store
