// The `paper` catalogue stays whole: every name the paper printed has cases,
// every case id is unique, and ids change only on purpose (the golden list
// suites/paper/case-ids.txt is what reports and history key on).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

const fs::path kSuite = fs::path(MUDJACK_SOURCE_DIR) / "suites" / "paper";

std::vector<std::string> lines(const fs::path& p) {
  std::ifstream f(p);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

nlohmann::json listing() {
  auto out =
      fs::temp_directory_path() / ("mudjack-catalogue-" + std::to_string(::getpid()) + ".json");
  // A bare interpreter: listing must not need any framework.
  std::string cmd = std::string(MUDJACK_BINARY) +
                    " list --suite paper --json --python numpy=/usr/bin/python3 > " + out.string();
  int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
  std::ifstream f(out);
  auto j = nlohmann::json::parse(f);
  fs::remove(out);
  return j;
}

class Catalogue : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cases_ = new nlohmann::json(listing()); }
  static void TearDownTestSuite() { delete cases_; }
  static nlohmann::json* cases_;
};
nlohmann::json* Catalogue::cases_ = nullptr;

TEST_F(Catalogue, EveryListedNameHasCases) {
  std::map<std::string, std::set<std::string>> functions;
  for (const auto& c : *cases_) functions[c["framework"]].insert(c["function"].get<std::string>());
  const std::map<std::string, std::pair<std::string, size_t>> lists = {
      {"torch", {"paper_torch.txt", 43}},
      {"jax", {"paper_jax.txt", 61}},
      {"tensorflow", {"paper_tensorflow.txt", 51}},
  };
  size_t total = 0;
  for (const auto& [framework, list] : lists) {
    auto names = lines(kSuite / "catalog" / list.first);
    EXPECT_EQ(names.size(), list.second) << list.first;
    for (const auto& name : names) {
      EXPECT_TRUE(functions[framework].count(name)) << framework << " has no case for " << name;
      ++total;
    }
  }
  EXPECT_EQ(total, 155u);
}

TEST_F(Catalogue, CaseIdsAreUniqueWellFormedAndTagged) {
  std::set<std::string> ids;
  for (const auto& c : *cases_) {
    auto id = c["id"].get<std::string>();
    EXPECT_TRUE(ids.insert(id).second) << "duplicate " << id;
    EXPECT_EQ(id, c["framework"].get<std::string>() + "/" + c["function"].get<std::string>() + "/" +
                      c["variant"].get<std::string>());
    for (const char* tag : {"dtype", "mode", "shape"}) {
      EXPECT_FALSE(c[tag].get<std::string>().empty()) << id << " lacks " << tag;
    }
  }
}

TEST_F(Catalogue, CaseIdsMatchTheGoldenList) {
  auto golden_list = lines(kSuite / "case-ids.txt");
  std::set<std::string> golden(golden_list.begin(), golden_list.end());
  std::set<std::string> now;
  for (const auto& c : *cases_) now.insert(c["id"].get<std::string>());
  std::ostringstream removed, added;
  for (const auto& id : golden) {
    if (!now.count(id)) removed << "  " << id << "\n";
  }
  for (const auto& id : now) {
    if (!golden.count(id)) added << "  " << id << "\n";
  }
  EXPECT_TRUE(removed.str().empty())
      << "case ids vanished (renamed or removed: history keyed on them breaks):\n"
      << removed.str();
  EXPECT_TRUE(added.str().empty())
      << "new case ids: if intended, regenerate suites/paper/case-ids.txt "
         "(scripts/update-case-ids.sh):\n"
      << added.str();
}

}  // namespace
