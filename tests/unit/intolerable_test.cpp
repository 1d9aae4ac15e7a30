#include "verdict/intolerable.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/error.hpp"

namespace mudjack::verdict {
namespace {
namespace fs = std::filesystem;

class Intolerable : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    auto p = fs::temp_directory_path() / ("mudjack-intolerable-" + std::to_string(::getpid()) +
                                          "-" + std::to_string(n_++) + ".toml");
    std::ofstream(p) << text;
    files_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (const auto& f : files_) fs::remove(f);
  }
  std::string error_of(const std::string& text) {
    try {
      load_intolerable(write(text), Options{});
    } catch (const util::FatalError& e) {
      return e.what();
    }
    return "";
  }
  int n_ = 0;
  std::vector<fs::path> files_;
};

TEST_F(Intolerable, ReadsDefaultFunctionsAndPairsAndPicksTheMostSpecific) {
  auto o = load_intolerable(write(R"(
default = 8
[functions]
"torch.nn.Transformer" = 20.0
[[pairs]]
baseline = "cpu"
device = "cuda:0"
ratio = 30
[[pairs]]
baseline = "cpu"
device = "cuda:0"
function = "torch.nn.Transformer"
ratio = 40
)"),
                            Options{});
  EXPECT_EQ(o.threshold("torch.sum", "cuda:1"), 8.0);
  EXPECT_EQ(o.threshold("torch.nn.Transformer", "cuda:1"), 20.0);
  EXPECT_EQ(o.threshold("torch.sum", "cuda:0"), 30.0);
  EXPECT_EQ(o.threshold("torch.nn.Transformer", "cuda:0"), 40.0);
  Options other_baseline;
  other_baseline.baseline = "cuda:0";
  auto p = load_intolerable(files_.back(), other_baseline);
  EXPECT_EQ(p.threshold("torch.sum", "cuda:0"), 8.0) << "pairs name their baseline";
}

TEST_F(Intolerable, TheShippedFileIsValid) {
  auto o = load_intolerable(fs::path(MUDJACK_SOURCE_DIR) / "intolerable.toml", Options{});
  EXPECT_EQ(o.intolerable_ratio, 10.0);
}

TEST_F(Intolerable, BadEntriesGetClearErrors) {
  EXPECT_NE(error_of("default = \"ten\"").find("default must be a number"), std::string::npos);
  EXPECT_NE(error_of("default = 0.5").find("default must be greater than 1"), std::string::npos);
  EXPECT_NE(error_of("speed = 3").find("unknown key 'speed'"), std::string::npos);
  EXPECT_NE(error_of("[functions]\n\"torch.sum\" = -2")
                .find("functions.\"torch.sum\" must be greater than 1"),
            std::string::npos);
  EXPECT_NE(error_of("[[pairs]]\nbaseline = \"cpu\"\nratio = 3").find("pairs[0] needs device"),
            std::string::npos);
  EXPECT_NE(
      error_of("[[pairs]]\nbaseline = \"cpu\"\ndevice = \"cuda:0\"").find("pairs[0] needs ratio"),
      std::string::npos);
  EXPECT_NE(error_of("[[pairs]]\nbaseline = \"cpu\"\ndevice = \"cuda:0\"\nratio = 3\nfast = true")
                .find("unknown key 'fast' in pairs[0]"),
            std::string::npos);
  EXPECT_NE(error_of("default = \n").find("line 1"), std::string::npos);
  EXPECT_NE(error_of("pairs = 3").find("pairs must be an array"), std::string::npos);
  try {
    load_intolerable("/nonexistent/intolerable.toml", Options{});
    FAIL();
  } catch (const util::FatalError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/intolerable.toml: no such file");
  }
}

}  // namespace
}  // namespace mudjack::verdict
