// The numeric oracle inside a run: whichever of the device's and the
// baseline's outputs lands second triggers the comparison, and a pass that
// differs beyond tolerance becomes a mismatch with the change recorded.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "oracle_run.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"

namespace mudjack::supervisor {
namespace {
namespace fs = std::filesystem;

class OracleFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mudjack-oracle-" + std::to_string(::getpid()));
    info_.id = "torch/torch.sum/float32-vec-eager";
    info_.framework = "torch";
    info_.function = "torch.sum";
    info_.variant = "float32-vec-eager";
    info_.dtype = "float32";
    info_.mode = "eager";
    store_ = testing::run_store(dir_, info_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  model::CaseResult result(const std::string& device, const std::vector<float>& values) {
    auto path = dir_ / (device.substr(0, 3) + ".npy");
    testing::write_npy(path, "<f4", std::vector<double>(values.begin(), values.end()));
    model::CaseResult r;
    r.run_id = "r1";
    r.info = info_;
    r.device = device;
    r.outcome = model::Outcome::kPass;
    r.outputs.push_back(
        {path.string(), "float32", "float32", {static_cast<int64_t>(values.size())}});
    return r;
  }

  fs::path dir_;
  std::unique_ptr<store::Store> store_;
  model::CaseInfo info_;
};

TEST_F(OracleFlow, DeviceLandingAfterBaselineIsComparedAtOnce) {
  Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", {1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(oracle.observe(base).empty());
  auto dev = result("cuda:0", {1.0f, 2.0f, 3.5f});
  EXPECT_TRUE(oracle.observe(dev).empty());
  EXPECT_EQ(dev.outcome, model::Outcome::kMismatch);
  EXPECT_EQ(dev.numeric.compared_with, "cpu");
  EXPECT_DOUBLE_EQ(*dev.numeric.max_abs_err, 0.5);
  EXPECT_NE(dev.error.message.find("1 of 3"), std::string::npos) << dev.error.message;
}

TEST_F(OracleFlow, BaselineLandingLaterTurnsAStoredPassIntoMismatch) {
  Oracle oracle(*store_, "r1", "cpu");
  auto dev = result("cuda:0", {1.0f, 2.0f, 3.5f});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kPass) << "no baseline yet: nothing to compare";
  store_->record(dev);
  auto base = result("cpu", {1.0f, 2.0f, 3.0f});
  auto changed = oracle.observe(base);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].device, "cuda:0");
  EXPECT_EQ(changed[0].outcome, model::Outcome::kMismatch);
}

TEST_F(OracleFlow, WithinToleranceStaysPassButIsAnnotated) {
  Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", {1.0f, 2.0f, 3.0f});
  oracle.observe(base);
  auto dev = result("cuda:0", {1.0f, 2.0f, 3.000001f});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kPass);
  EXPECT_EQ(dev.numeric.compared_with, "cpu");
  EXPECT_GT(*dev.numeric.max_abs_err, 0.0);
}

TEST_F(OracleFlow, ACaseToleranceOverridesTheDtypeDefault) {
  info_.rtol = 0.5;
  Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", {1.0f, 2.0f, 3.0f});
  oracle.observe(base);
  auto dev = result("cuda:0", {1.0f, 2.0f, 3.5f});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kPass);
}

TEST_F(OracleFlow, FailedBaselineMeansNoComparison) {
  Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", {1.0f});
  base.outcome = model::Outcome::kFail;
  oracle.observe(base);
  auto dev = result("cuda:0", {7.0f});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kPass);
  EXPECT_TRUE(dev.numeric.compared_with.empty());
}

TEST_F(OracleFlow, ResumeSeedsTheIndexFromStoredResults) {
  auto base = result("cpu", {1.0f, 2.0f});
  store_->record(base);
  Oracle oracle(*store_, "r1", "cpu");
  oracle.load(store_->results("r1"));
  auto dev = result("cuda:0", {1.0f, 9.0f});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kMismatch);
}

}  // namespace
}  // namespace mudjack::supervisor
