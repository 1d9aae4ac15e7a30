// Nothing is deleted outside what MudJack made (issue 33, Hardening II):
// `cache prune` leaves runs still in use (a live lease, a server's queue)
// and never follows a link out of a run folder, its --dry-run lists exactly
// what the real run removes; `cache clean-builds` deletes only builds it
// recognises; `fuzz --publish` follows no link on either side.
#include <unistd.h>

#include "harness.hpp"
#include "run/lease.hpp"
#include "store/store.hpp"

namespace mjtest {
namespace {

using namespace mudjack;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A run row as `mudjack run` or a server stores it, with one saved output.
void add_run(store::Store& s, const fs::path& out, const std::string& id, const std::string& state,
             const std::string& created_at) {
  model::RunInfo r;
  r.id = id;
  r.suite = "fixtures";
  r.state = state;
  r.created_at = created_at;
  r.baseline = "cpu";
  r.options = json::object();
  r.environment = json::object();
  s.create_run(r);
  write(out / "runs" / id / "artifacts" / "case" / "out.npy", std::string(1000, 'x'));
}

// A listing with its verbs made the same: what a dry run says it would do
// against what the real run says it did.
std::string as_done(std::string listing) {
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"would remove", "removed"}, {"would free", "freed"}}) {
    for (auto at = listing.find(from); at != std::string::npos; at = listing.find(from, at)) {
      listing.replace(at, from.size(), to);
    }
  }
  return listing;
}

TEST_F(Cli, PruneKeepsRunsALeaseOrAServerQueueHoldsAndDryRunListsTheRealRun) {
  const fs::path out = dir_ / "results";
  {
    auto s = store::Store::open(store::default_db_path(out));
    add_run(*s, out, "r-live", "running", "2026-01-04T00:00:00Z");
    add_run(*s, out, "r-queued", "queued", "2026-01-03T00:00:00Z");  // a server's, not started
    add_run(*s, out, "r-dead", "running", "2026-01-02T00:00:00Z");
    add_run(*s, out, "r-done", "complete", "2026-01-01T00:00:00Z");
    auto live = run::this_process_lease("r-live");  // this test process: alive, beating now
    ASSERT_FALSE(s->acquire_lease(live, [](const store::Lease&) { return false; }));
    auto dead = run::this_process_lease("r-dead");
    dead.heartbeat_unix_ms = 1;  // its executor stopped beating long ago: abandoned
    ASSERT_FALSE(s->acquire_lease(dead, [](const store::Lease&) { return false; }));
  }
  write(out / "runs" / "stranger" / "notes.txt", "not a run the store knows");

  auto dry = mudjack({"cache", "prune", "--out", out.string(), "--keep-last", "0", "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_TRUE(fs::exists(out / "runs" / "r-done")) << "a dry run removed something";
  auto real = mudjack({"cache", "prune", "--out", out.string(), "--keep-last", "0"});
  ASSERT_EQ(real.code, 0) << real.err;
  EXPECT_EQ(as_done(dry.out), real.out);
  EXPECT_TRUE(has(real.out, "removed run r-dead (2026-01-02T00:00:00Z, 1 files, 1000.0 B)"))
      << real.out;
  EXPECT_TRUE(has(real.out, "kept run r-queued: queued")) << real.out;
  EXPECT_TRUE(has(real.out, "kept run r-live: being executed now")) << real.out;
  for (const char* kept : {"r-live", "r-queued"}) {
    EXPECT_TRUE(fs::exists(out / "runs" / kept / "artifacts" / "case" / "out.npy")) << kept;
  }
  EXPECT_FALSE(fs::exists(out / "runs" / "r-dead"));
  EXPECT_FALSE(fs::exists(out / "runs" / "r-done"));
  EXPECT_TRUE(fs::exists(out / "runs" / "stranger" / "notes.txt"));
  auto s = store::Store::open_read_only(store::default_db_path(out));
  EXPECT_TRUE(s->get_run("r-queued"));
  EXPECT_TRUE(s->get_run("r-live"));
  EXPECT_FALSE(s->get_run("r-done"));
}

TEST_F(Cli, PruneNeverDeletesThroughALinkInARunFolder) {
  const fs::path out = dir_ / "results";
  const fs::path elsewhere = dir_ / "elsewhere";
  write(elsewhere / "precious.npy", std::string(5000, 'p'));
  write(elsewhere / "secret.npy", std::string(7000, 's'));
  {
    auto s = store::Store::open(store::default_db_path(out));
    add_run(*s, out, "r-linked", "complete", "2026-01-02T00:00:00Z");
    add_run(*s, out, "r-mixed", "complete", "2026-01-01T00:00:00Z");
  }
  fs::remove_all(out / "runs" / "r-linked" / "artifacts");
  fs::create_directory_symlink(elsewhere, out / "runs" / "r-linked" / "artifacts");
  fs::create_symlink(elsewhere / "secret.npy", out / "runs" / "r-mixed" / "artifacts" / "s.npy");

  auto dry =
      mudjack({"cache", "prune", "--out", out.string(), "--keep-outputs", "none", "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  auto real = mudjack({"cache", "prune", "--out", out.string(), "--keep-outputs", "none"});
  ASSERT_EQ(real.code, 0) << real.err;
  EXPECT_EQ(as_done(dry.out), real.out);
  EXPECT_TRUE(has(real.out, "removed 1 output files of run r-mixed (1000.0 B)")) << real.out;
  EXPECT_FALSE(has(real.out, "r-linked")) << real.out;
  EXPECT_FALSE(fs::exists(out / "runs" / "r-mixed" / "artifacts"));
  EXPECT_EQ(fs::file_size(elsewhere / "precious.npy"), 5000u);
  EXPECT_EQ(fs::file_size(elsewhere / "secret.npy"), 7000u);

  // Whole runs: the link goes, never what it names.
  real = mudjack({"cache", "prune", "--out", out.string(), "--keep-last", "0"});
  ASSERT_EQ(real.code, 0) << real.err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(out / "runs" / "r-linked"))) << real.out;
  EXPECT_EQ(fs::file_size(elsewhere / "precious.npy"), 5000u);
}

TEST_F(Cli, CleanBuildsDeletesOnlyBuildsMudJackMade) {
  const fs::path home = dir_ / "home";  // MUDJACK_BUILD_CACHE mis-set to someone's folder
  write(home / "projects" / "thesis.tex", "years of work");
  write(home / "jax" / "setup.py", "a jax checkout, not a compiler cache");
  write(home / "fake" / "build.json", json{{"key", "other"}, {"model", "x"}}.dump());
  write(dir_ / "outside" / "build.json", json{{"key", "linked"}}.dump());
  fs::create_directory_symlink(dir_ / "outside", home / "linked");
  ::setenv("MUDJACK_BUILD_CACHE", home.c_str(), 1);
  auto r = mudjack({"cache", "clean-builds"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* kept : {"projects/thesis.tex", "jax/setup.py", "fake/build.json"}) {
    EXPECT_TRUE(fs::exists(home / kept)) << kept << "\n" << r.out;
  }
  EXPECT_TRUE(fs::exists(dir_ / "outside" / "build.json")) << r.out;
  EXPECT_TRUE(fs::is_symlink(home / "linked")) << r.out;

  // A build of ours is removed, but not what a link in it names.
  write(home / "k1" / "build.json", json{{"key", "k1"}, {"model", "bert"}}.dump());
  write(dir_ / "kernel.so", std::string(300, 'k'));
  fs::create_symlink(dir_ / "kernel.so", home / "k1" / "model.onnx");
  r = mudjack({"cache", "clean-builds", "--model", "bert"});
  ::unsetenv("MUDJACK_BUILD_CACHE");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(home / "k1")) << r.out;
  EXPECT_EQ(fs::file_size(dir_ / "kernel.so"), 300u);
  EXPECT_TRUE(fs::exists(home / "projects" / "thesis.tex"));
}

TEST_F(Cli, FuzzPublishFollowsNoLinkOnEitherSide) {
  const fs::path out = dir_ / "results";
  store::Store::open(store::default_db_path(out));
  const fs::path campaign = out / "fuzz" / "fz-t";
  write(campaign / "campaign.json", json{{"batches", json::array()}}.dump());
  write(campaign / "findings.json", "[]\n");
  write(campaign / "findings" / "abc" / "graph.json", "{}\n");
  write(dir_ / "secret.txt", "SECRET");
  fs::create_symlink(dir_ / "secret.txt", campaign / "summary.md");
  fs::create_directory_symlink(dir_, campaign / "findings" / "evil");
  const fs::path dest = dir_ / "pub";
  write(dir_ / "victim.txt", "ORIGINAL");
  fs::create_directories(dest);
  fs::create_symlink(dir_ / "victim.txt", dest / "findings.json");

  auto r = mudjack({"fuzz", "--out", out.string(), "--publish", "fz-t", "--to", dest.string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(slurp(dir_ / "victim.txt"), "ORIGINAL");
  EXPECT_FALSE(fs::is_symlink(dest / "findings.json"));
  EXPECT_EQ(slurp(dest / "findings.json"), "[]\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dest / "summary.md"))) << "a secret copied";
  EXPECT_TRUE(has(r.err, "summary.md is a symbolic link: not published")) << r.err;
  EXPECT_TRUE(fs::exists(dest / "findings" / "abc" / "graph.json"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(dest / "findings" / "evil"))) << r.err;

  // A destination folder that is a link is refused, nothing written there.
  const fs::path dest2 = dir_ / "pub2";
  fs::create_directories(dest2);
  fs::create_directories(dir_ / "victim-dir");
  fs::create_directory_symlink(dir_ / "victim-dir", dest2 / "findings");
  r = mudjack({"fuzz", "--out", out.string(), "--publish", "fz-t", "--to", dest2.string()});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "is a symbolic link")) << r.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "victim-dir"));
  EXPECT_FALSE(fs::exists(dest2 / "findings.json")) << "refused only after writing";
}

}  // namespace
}  // namespace mjtest
