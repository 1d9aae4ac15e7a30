// envs::source_state and envs::unpublishable: a real git repository in a
// temporary folder, clean, then dirty, then not a repository at all.

#include "envs/source.hpp"
#include "run/lifecycle.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mudjack::envs {
namespace {

namespace fs = std::filesystem;

class Source : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mudjack-source-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "suites");
  }
  void TearDown() override { fs::remove_all(dir_); }
  int sh(const std::string& cmd) {
    return std::system(("cd '" + dir_.string() + "' && " + cmd + " >/dev/null 2>&1").c_str());
  }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  fs::path dir_;
};

TEST_F(Source, CleanThenDirtyThenUnknown) {
  write("suites/a.py", "x = 1\n");
  ASSERT_EQ(sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm a"),
            0);
  auto clean = source_state(dir_);
  EXPECT_EQ(clean.commit.size(), 40u);
  ASSERT_TRUE(clean.dirty.has_value());
  EXPECT_FALSE(*clean.dirty);
  EXPECT_EQ(unpublishable(to_json(clean)), std::nullopt);

  // An untracked file outside what a run reads does not count.
  write("notes.txt", "scratch\n");
  EXPECT_FALSE(*source_state(dir_).dirty);
  // An untracked suite file does.
  write("suites/b.py", "y = 2\n");
  auto untracked = source_state(dir_);
  EXPECT_TRUE(*untracked.dirty);
  EXPECT_EQ(untracked.changed, "suites/b.py");
  fs::remove(dir_ / "suites/b.py");
  // So does a change to a tracked file.
  write("suites/a.py", "x = 3\n");
  auto dirty = source_state(dir_);
  EXPECT_TRUE(*dirty.dirty);
  auto why = unpublishable(to_json(dirty));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("dirty tree (suites/a.py differs from " + dirty.commit.substr(0, 12)),
            std::string::npos)
      << *why;

  fs::remove_all(dir_ / ".git");
  auto unknown = source_state(dir_);
  EXPECT_TRUE(unknown.commit.empty());
  EXPECT_FALSE(unknown.dirty.has_value());
  EXPECT_FALSE(unknown.why_unknown.empty());
  ASSERT_TRUE(unpublishable(to_json(unknown)).has_value());
  EXPECT_EQ(unpublishable(to_json(unknown))->rfind("its source tree's state is unknown: git", 0),
            0u);
  EXPECT_EQ(*unpublishable(nlohmann::json()),
            "it records no source state (made before MudJack recorded it)");
}

// An image has no .git: the source.json its build wrote beside the suites
// says which tree it came from, and a clean one may be published.
TEST_F(Source, AnImageReadsTheStateItsBuildRecorded) {
  const std::string commit(40, 'a');
  write("source.json", R"({"commit": ")" + commit + R"(", "dirty": false, "changed": null})");
  auto clean = source_state(dir_);
  EXPECT_EQ(clean.commit, commit);
  ASSERT_TRUE(clean.dirty.has_value());
  EXPECT_FALSE(*clean.dirty);
  EXPECT_EQ(clean.from, (dir_ / "source.json").string());
  EXPECT_EQ(to_json(clean)["from"], (dir_ / "source.json").string());
  EXPECT_EQ(unpublishable(to_json(clean)), std::nullopt);

  write("source.json", R"({"commit": ")" + commit +
                           R"(", "dirty": true, "changed": "probe/mudjack_probe/api.py"})");
  auto dirty = source_state(dir_);
  ASSERT_TRUE(unpublishable(to_json(dirty)).has_value());
  EXPECT_NE(unpublishable(to_json(dirty))->find("probe/mudjack_probe/api.py differs"),
            std::string::npos);

  const std::vector<std::string> malformed = {"{", R"({"commit": "abc", "dirty": false})",
                                              R"({"commit": ")" + commit + R"("})"};
  for (const auto& bad : malformed) {
    write("source.json", bad);
    auto unknown = source_state(dir_);
    EXPECT_FALSE(unknown.dirty.has_value()) << bad;
    EXPECT_NE(unknown.why_unknown.find("source.json is not"), std::string::npos) << bad;
    EXPECT_TRUE(unpublishable(to_json(unknown)).has_value());
  }
}

// What a published case keeps of its samples (run::compact_samples): all of
// them up to the limit, else quantile points; 4 significant digits.
TEST(Publish, SamplesAreKeptUpToTheLimitElseAsQuantiles) {
  EXPECT_EQ(run::compact_samples({123456.0, 2.0}, 32), (std::vector<double>{123500.0, 2.0}));
  std::vector<double> many;
  for (int i = 0; i < 101; ++i) many.push_back(1000 + i);
  auto kept = run::compact_samples(many, 4);
  ASSERT_EQ(kept.size(), 4u);
  // (i + 0.5) / 4 of 100 steps: 12.5, 37.5, 62.5, 87.5 -> 1012.5 ... rounded.
  EXPECT_EQ(kept, (std::vector<double>{1013.0, 1038.0, 1063.0, 1088.0}));
  EXPECT_TRUE(run::compact_samples({}, 32).empty());
}

}  // namespace
}  // namespace mudjack::envs
