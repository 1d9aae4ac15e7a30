// Unit tests for deletes that stay inside MudJack's own folders (issue 33):
// which stored runs prune must leave (run::in_use), removal that follows no
// link (run::remove_tree, run::prune_outputs) with dry runs that count the
// same, and report files written never through a planted link
// (report::write_file_atomically).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "report/write.hpp"
#include "run/lease.hpp"
#include "run/retention.hpp"
#include "store/store.hpp"

namespace mudjack {
namespace {

namespace fs = std::filesystem;

class Deletes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mudjack-deletes-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

  fs::path dir_;
};

model::RunInfo stored(const std::string& id, const std::string& state) {
  model::RunInfo r;
  r.id = id;
  r.suite = "fixtures";
  r.state = state;
  r.created_at = "2026-01-01T00:00:00Z";
  r.options = nlohmann::json::object();
  r.environment = nlohmann::json::object();
  return r;
}

TEST_F(Deletes, RunsInUseAreLiveLeasesAndQueuedOrRunningRunsWithoutAStaleLease) {
  auto s = store::Store::open(dir_ / "mudjack.db");
  const auto never_stale = [](const store::Lease&) { return false; };
  for (const auto& [id, state] :
       std::vector<std::pair<std::string, std::string>>{{"live", "complete"},
                                                        {"queued", "queued"},
                                                        {"starting", "running"},
                                                        {"abandoned", "running"},
                                                        {"abandoned-queued", "queued"},
                                                        {"done", "complete"},
                                                        {"stopped", "incomplete"}}) {
    s->create_run(stored(id, state));
  }
  ASSERT_FALSE(s->acquire_lease(run::this_process_lease("live"), never_stale));
  for (const char* id : {"abandoned", "abandoned-queued"}) {
    auto old = run::this_process_lease(id);
    old.heartbeat_unix_ms = 1;
    ASSERT_FALSE(s->acquire_lease(old, never_stale));
  }
  const auto why = [&](const std::string& id) { return run::in_use(*s, *s->get_run(id)); };
  ASSERT_TRUE(why("live"));
  EXPECT_NE(why("live")->find("live lease"), std::string::npos) << *why("live");
  ASSERT_TRUE(why("queued"));
  EXPECT_NE(why("queued")->find("queued"), std::string::npos) << *why("queued");
  EXPECT_TRUE(why("starting"));
  EXPECT_FALSE(why("abandoned"));
  EXPECT_FALSE(why("abandoned-queued"));
  EXPECT_FALSE(why("done"));
  EXPECT_FALSE(why("stopped"));
}

TEST_F(Deletes, RemoveTreeFollowsNoLinkAndItsDryRunCountsTheSame) {
  write(dir_ / "outside" / "big.npy", std::string(4096, 'o'));
  const fs::path run = dir_ / "run";
  write(run / "artifacts" / "a" / "x.npy", std::string(100, 'x'));
  write(run / "results.json", std::string(20, 'j'));
  fs::create_directory_symlink(dir_ / "outside", run / "artifacts" / "linked-dir");
  fs::create_symlink(dir_ / "outside" / "big.npy", run / "artifacts" / "a" / "linked.npy");
  EXPECT_EQ(run::disk_bytes(run), 120);
  const auto dry = run::remove_tree(run, true);
  EXPECT_EQ(dry, (run::Pruned{2, 120}));
  EXPECT_TRUE(fs::exists(run / "results.json"));
  EXPECT_EQ(run::remove_tree(run, false), dry);
  EXPECT_FALSE(fs::exists(fs::symlink_status(run)));
  EXPECT_EQ(fs::file_size(dir_ / "outside" / "big.npy"), 4096u);
}

TEST_F(Deletes, PruneOutputsLeavesALinkedArtifactsFolderAndWhatItNames) {
  write(dir_ / "outside" / "keep.npy", std::string(512, 'k'));
  const fs::path run = dir_ / "runs" / "r1";
  fs::create_directories(run);
  fs::create_directory_symlink(dir_ / "outside", run / "artifacts");
  model::CaseResult passed;
  passed.info.id = "c1";
  passed.outcome = model::Outcome::kPass;
  passed.outputs.push_back({(run / "artifacts" / "keep.npy").string(), "float32", "float32", {}});
  for (auto keep : {run::Keep::kNone, run::Keep::kFailing}) {
    EXPECT_EQ(run::prune_outputs(run, {passed}, keep, true), run::Pruned{});
    EXPECT_EQ(run::prune_outputs(run, {passed}, keep, false), run::Pruned{});
  }
  EXPECT_EQ(fs::file_size(dir_ / "outside" / "keep.npy"), 512u);
  EXPECT_TRUE(fs::is_symlink(run / "artifacts"));

  // A real folder: a passing case's output goes, by a path that leaves the
  // folder (..) or passes through a link never.
  fs::remove(run / "artifacts");
  write(run / "artifacts" / "c1.npy", std::string(64, 'c'));
  fs::create_directory_symlink(dir_ / "outside", run / "artifacts" / "via");
  passed.outputs = {{(run / "artifacts" / "c1.npy").string(), "float32", "float32", {}},
                    {(run / "artifacts" / "via" / "keep.npy").string(), "float32", "float32", {}},
                    {(run / "artifacts" / ".." / ".." / ".." / "outside" / "keep.npy").string(),
                     "float32",
                     "float32",
                     {}}};
  EXPECT_EQ(run::prune_outputs(run, {passed}, run::Keep::kFailing, true), (run::Pruned{1, 64}));
  EXPECT_EQ(run::prune_outputs(run, {passed}, run::Keep::kFailing, false), (run::Pruned{1, 64}));
  EXPECT_FALSE(fs::exists(run / "artifacts" / "c1.npy"));
  EXPECT_EQ(fs::file_size(dir_ / "outside" / "keep.npy"), 512u);
}

TEST_F(Deletes, ReportFilesAreNeverWrittenThroughAPlantedLink) {
  const fs::path file = dir_ / "pub" / "summary.md";
  write(dir_ / "victim.txt", "ORIGINAL");
  write(dir_ / "other.txt", "OTHER");
  fs::create_directories(file.parent_path());
  // The temporary name report --publish uses, planted beforehand.
  fs::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  fs::create_symlink(dir_ / "victim.txt", tmp);
  fs::create_symlink(dir_ / "other.txt", file);  // and the final name
  report::write_file_atomically(file, "# new summary\n");
  EXPECT_EQ(read(dir_ / "victim.txt"), "ORIGINAL");
  EXPECT_EQ(read(dir_ / "other.txt"), "OTHER");
  EXPECT_FALSE(fs::is_symlink(file));
  EXPECT_EQ(read(file), "# new summary\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(tmp)));
}

}  // namespace
}  // namespace mudjack
