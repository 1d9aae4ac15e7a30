// The accuracy oracle: errors in eps against a float64 reference, bounds,
// non-finite rules, and the oracle inside a run judging each device against
// the baseline's float64 reference with the cause of every divergence.

#include "oracle/accuracy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "oracle_run.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"

namespace mudjack {
namespace {
namespace fs = std::filesystem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

oracle::Array array(std::string descr, std::vector<double> values, bool is_complex = false) {
  oracle::Array a;
  a.descr = std::move(descr);
  a.is_complex = is_complex;
  a.shape = {static_cast<int64_t>(values.size() / (is_complex ? 2 : 1))};
  a.values = std::move(values);
  return a;
}

TEST(Accuracy, ErrorIsInEpsOfTheReferenceScale) {
  const double eps = *oracle::dtype_epsilon("float32");
  EXPECT_EQ(eps, 0x1p-23);
  EXPECT_EQ(*oracle::dtype_epsilon("torch.bfloat16"), 0x1p-7);
  EXPECT_FALSE(oracle::dtype_epsilon("int64"));
  // |1.001 - 1| / (eps * (1 + rms 1)) = 1e-3 / (2 eps)
  auto e = oracle::measure(array("<f4", {1.001, 1.0}), array("<f8", {1.0, 1.0}), eps, 100);
  EXPECT_NEAR(e.eps, 1e-3 / (2 * eps), 1);
  EXPECT_EQ(e.beyond, 1);
  EXPECT_EQ(e.count, 2);
  EXPECT_NE(e.worst.find("[0]"), std::string::npos) << e.worst;
}

// A mismatch's line shows the worst element and its reference with digits
// enough to tell them apart (not "1.06 vs reference 1.06"), and the worst
// error beside the bound it is beyond (not "beyond 6 eps; worst 6 eps").
TEST(Accuracy, TheWorstElementAndItsReferenceReadApart) {
  const double eps = *oracle::dtype_epsilon("float16");
  auto e = oracle::measure(array("<f2", {1.0625, 1}), array("<f8", {1.0615, 1}), eps, 0.5);
  EXPECT_NE(e.worst.find("[0]: 1.0625 vs reference 1.0615"), std::string::npos) << e.worst;
  // Far apart, 3 digits as before.
  auto far = oracle::measure(array("<f4", {2.5, 1}), array("<f8", {2.0, 1}), eps, 0.5);
  EXPECT_NE(far.worst.find("[0]: 2.5 vs reference 2"), std::string::npos) << far.worst;
  oracle::Error just;
  just.eps = 6.0004;
  just.beyond = 1;
  just.count = 4;
  just.worst = "[2]: 1.0625 vs reference 1.0615";
  EXPECT_EQ(oracle::describe(just, 6, "the float64 reference"),
            "1 of 4 elements beyond 6 eps of the float64 reference; worst 6.0004 eps at [2]: "
            "1.0625 vs reference 1.0615");
  just.eps = 12.345;
  EXPECT_NE(oracle::describe(just, 6, "it").find("beyond 6 eps of it; worst 12.3 eps"),
            std::string::npos);
}

// A whole model's float64 output that blew up or underflowed at random
// weights is no ground to judge a device on (model::Cause::kUnstableModel).
TEST(Accuracy, AnOutputThatBlowsUpOrUnderflowsIsUnstable) {
  const double eps = *oracle::dtype_epsilon("float32");
  auto big = oracle::measure(array("<f4", {5e11, 1}), array("<f8", {1e13, 1}), eps, 16);
  EXPECT_EQ(big.ref_peak, 1e13);
  auto why = oracle::unstable_output(big, "float32");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("blows up"), std::string::npos) << *why;
  auto tiny = oracle::measure(array("<f4", {0, 0}), array("<f8", {1e-40, -3e-41}), eps, 16);
  ASSERT_TRUE(oracle::unstable_output(tiny, "float32"));
  EXPECT_NE(oracle::unstable_output(tiny, "float32")->find("underflows"), std::string::npos);
  // float16's smallest normal is 6.1e-5: 1e-6 is below it, not below float32's.
  auto small = oracle::measure(array("<f2", {0}), array("<f8", {1e-6}), eps, 16);
  EXPECT_TRUE(oracle::unstable_output(small, "float16"));
  EXPECT_FALSE(oracle::unstable_output(small, "float32"));
  auto sane = oracle::measure(array("<f4", {2.5, 1}), array("<f8", {2.0, 1}), eps, 16);
  EXPECT_FALSE(oracle::unstable_output(sane, "float32"));
}

TEST(Accuracy, NonFiniteRules) {
  const double eps = 0x1p-10;
  // NaN where the reference is NaN, and float16 overflow where the reference
  // is beyond 65504, are right; a NaN where the reference is finite is not.
  auto ok =
      oracle::measure(array("<f2", {kNaN, kInf, -kInf}), array("<f8", {kNaN, 1e5, -7e4}), eps, 16);
  EXPECT_EQ(ok.eps, 0);
  EXPECT_EQ(ok.max_abs, 0);
  auto bad = oracle::measure(array("<f2", {kNaN, 1}), array("<f8", {1, 1}), eps, 16);
  EXPECT_TRUE(std::isinf(bad.eps));
  // ... and its absolute and relative errors are infinite too, never 0.
  EXPECT_TRUE(std::isinf(bad.max_abs));
  EXPECT_TRUE(std::isinf(bad.max_rel));
  auto sign = oracle::measure(array("<f2", {-kInf}), array("<f8", {1e5}), eps, 16);
  EXPECT_TRUE(std::isinf(sign.eps));
  // Complex per part: a NaN imaginary part must stay NaN, the real part still counts.
  auto c =
      oracle::measure(array("<c8", {1, kNaN}, true), array("<c16", {1, kNaN}, true), 0x1p-23, 16);
  EXPECT_EQ(c.eps, 0);
  auto c2 =
      oracle::measure(array("<c8", {1, 0}, true), array("<c16", {1, kNaN}, true), 0x1p-23, 16);
  EXPECT_TRUE(std::isinf(c2.eps));
  EXPECT_NE(c2.worst.find(".imag"), std::string::npos) << c2.worst;
}

TEST(Accuracy, ShapeAndKindProblemsAreInfinite) {
  auto e = oracle::measure(array("<f4", {1, 2}), array("<f8", {1}), 0x1p-23, 16);
  EXPECT_TRUE(std::isinf(e.eps));
  EXPECT_NE(e.problem.find("shape"), std::string::npos);
}

TEST(Accuracy, BoundsScaleWithReductionAndBaseline) {
  const oracle::OpClass one{1, true}, sixty_four{64, true};
  EXPECT_EQ(oracle::device_bound("float32", one, 0), oracle::kPerSqrtK);
  EXPECT_EQ(oracle::device_bound("float32", sixty_four, 0), 8 * oracle::kPerSqrtK);
  EXPECT_EQ(oracle::device_bound("float32", one, 1000), 1000 * oracle::kBaselineFactor);
  // Alone, float32 keeps the 1e-3 it replaces; float16 a few ulps.
  EXPECT_EQ(oracle::alone_bound("float32", one), 0x1p13);
  EXPECT_EQ(oracle::alone_bound("float16", one), 16);
  EXPECT_EQ(oracle::default_reduction("torch.matmul", nlohmann::json::array({64, 128})), 128);
  EXPECT_EQ(oracle::default_reduction("torch.exp", nlohmann::json::array({4096})), 1);
  // By the function's own name: gammaln is no matmul, norm.cdf no norm.
  EXPECT_EQ(oracle::default_reduction("jax.scipy.special.gammaln", nlohmann::json::array({4096})),
            1);
  EXPECT_EQ(oracle::default_reduction("jax.scipy.stats.norm.cdf", nlohmann::json::array({4096})),
            1);
  EXPECT_EQ(oracle::default_reduction("torch.Tensor.detach", nlohmann::json::array({4096})), 1);
  EXPECT_EQ(oracle::default_reduction("jax.numpy.linalg.qr", nlohmann::json::array({8, 8})), 16);
  EXPECT_EQ(oracle::default_reduction("tf.math.reduce_sum", nlohmann::json::array({1000})), 1000);
  EXPECT_EQ(oracle::default_reduction("tf.signal.idct", nlohmann::json::array({4096})), 4096);
  EXPECT_TRUE(oracle::known_dtype("torch.int64"));
  EXPECT_FALSE(oracle::known_dtype("float8_e4m3"));
}

TEST(Accuracy, WellConditionedOpsHaveNoFloor) {
  const oracle::OpClass exp{1, false}, sum{65536, false};
  EXPECT_EQ(oracle::alone_bound("float32", exp), oracle::kWellAlonePerSqrtK);
  EXPECT_EQ(oracle::alone_bound("bfloat16", exp), oracle::kWellAlonePerSqrtK);
  // Complex outputs keep the ill-conditioned rules: their parts can cancel.
  EXPECT_EQ(oracle::alone_bound("complex64", exp), 0x1p13);
  EXPECT_EQ(oracle::device_bound("complex64", exp, 0), oracle::kPerSqrtK);
  EXPECT_EQ(oracle::device_bound("float16", exp, 0.5), oracle::kWellDevicePerSqrtK);
  EXPECT_EQ(oracle::device_bound("float16", exp, 10), 10 * oracle::kBaselineFactor);
  EXPECT_EQ(oracle::alone_bound("float32", sum), 256 * oracle::kWellAlonePerSqrtK);
  // The targets (bench/plant): 8 eps alone and 4 beside a correctly rounded
  // baseline on an elementwise op; a 65,536-term float32 sum of positive
  // terms missing 0.1% of them is about 0.001 / (2 eps) = 4194 eps off.
  EXPECT_LT(oracle::alone_bound("float16", exp), 7.5);
  EXPECT_LT(oracle::device_bound("float32", exp, 0.5), 3.5);
  EXPECT_LT(oracle::alone_bound("float32", sum), 0.001 / (2 * 0x1p-23));
}

TEST(Accuracy, IllConditionedOpsAreNamedByAnyDottedPart) {
  for (const char* f : {"torch.linalg.solve", "linalg.pinv.hermitian", "polygamma.polygamma_n_0",
                        "jax.scipy.special.gammaln", "grid_sampler_2d", "jax.numpy.linalg.eigh",
                        "torch.linalg.cond", "linalg.ldl_factor", "torch.det", "jax.lax.linalg.qr",
                        "special.airy_ai", "igammac", "torch.round", "fuzz/0123abcd"}) {
    EXPECT_TRUE(oracle::ill_conditioned(f)) << f;
  }
  for (const char* f : {"torch.exp", "torch.nn.functional.relu_", "torch._weight_norm",
                        "torch.Tensor.detach", "jax.lax.cond", "torch.sum", "torch.matmul",
                        "torch.linalg.vector_norm", "nn.functional.gelu", "torch.sinc"}) {
    EXPECT_FALSE(oracle::ill_conditioned(f)) << f;
  }
  const auto solve =
      oracle::op_class("torch.linalg.solve", nlohmann::json::array({8, 8}), {}, false);
  EXPECT_EQ(solve.reduction, 16);
  EXPECT_TRUE(solve.ill_conditioned);
  EXPECT_EQ(oracle::op_class("torch.exp", nlohmann::json::array({4096}), 7, false).reduction, 7);
  // A whole model (a composition) is held to the loose bound whatever its name.
  EXPECT_FALSE(oracle::op_class("resnet18", nlohmann::json::array(), {}, false).ill_conditioned);
  EXPECT_TRUE(oracle::op_class("resnet18", nlohmann::json::array(), {}, true).ill_conditioned);
}

class AccuracyFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mudjack-accuracy-" + std::to_string(::getpid()));
    info_.id = "torch/torch.exp/float32-vec-eager";
    info_.framework = "torch";
    info_.function = "torch.exp";
    info_.variant = "float32-vec-eager";
    info_.dtype = "float32";
    info_.mode = "eager";
    store_ = testing::run_store(dir_, info_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path file(const std::string& name, const std::string& descr,
                const std::vector<double>& values) {
    auto path = dir_ / name;
    testing::write_npy(path, descr, values);
    return path;
  }

  model::CaseResult result(const std::string& device, const std::vector<double>& values,
                           const std::string& dtype = "float32") {
    const std::string descr = dtype == "int64" ? "<i8" : "<f4";
    auto path = file(device.substr(0, 3) + ".npy", descr, values);
    model::CaseResult r;
    r.run_id = "r1";
    r.info = info_;
    r.device = device;
    r.outcome = model::Outcome::kPass;
    r.outputs.push_back({path.string(), dtype, dtype, {static_cast<int64_t>(values.size())}});
    return r;
  }

  // The baseline's float64 reference, as the probe records it (protocol 1.3).
  void add_reference(model::CaseResult& r, const std::vector<double>& values) {
    auto path = file("ref.npy", "<f8", values);
    r.extra["reference"] = {{"outputs", {{{"path", path.string()}, {"dtype", "float64"}}}}};
  }
  void add_strict(model::CaseResult& r, const std::vector<double>& values) {
    auto path = file("strict.npy", "<f4", values);
    r.extra["strict"] = {{"outputs", {{{"path", path.string()}, {"dtype", "float32"}}}},
                         {"setting", "torch.backends.cudnn.allow_tf32=False"}};
  }

  fs::path dir_;
  std::unique_ptr<store::Store> store_;
  model::CaseInfo info_;
};

const std::vector<double> kTruth = {1.0, 2.0, 3.0, 4.0};

// kTruth with every element k float32 eps off in the oracle's unit
// (relative to |r| + the RMS of kTruth).
std::vector<double> off(double k) {
  const double s = std::sqrt(7.5);  // the RMS of kTruth
  std::vector<double> v;
  for (double r : kTruth) v.push_back(r + k * 0x1p-23 * (r + s));
  return v;
}

TEST_F(AccuracyFlow, TheCpuAloneIsJudgedAgainstFloat64) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", {1.0, 2.0, 3.03, 4.0});  // 1e-2 off at [2]
  add_reference(base, kTruth);
  oracle.observe(base);
  EXPECT_EQ(base.outcome, model::Outcome::kMismatch);
  EXPECT_EQ(base.numeric.cause, model::Cause::kFullPrecision);
  ASSERT_TRUE(base.numeric.error_eps);
  EXPECT_GT(*base.numeric.error_eps, 1e4);
  EXPECT_EQ(base.numeric.reference, "float64 on cpu");
  EXPECT_NE(base.numeric.message.find("float64 reference"), std::string::npos)
      << base.numeric.message;
  EXPECT_NE(base.numeric.message.find("[2]"), std::string::npos) << base.numeric.message;

  auto good = result("cpu", kTruth);
  add_reference(good, kTruth);
  supervisor::Oracle fresh(*store_, "r1", "cpu");
  fresh.observe(good);
  EXPECT_EQ(good.outcome, model::Outcome::kPass);
  EXPECT_EQ(*good.numeric.error_eps, 0);
}

TEST_F(AccuracyFlow, APlantedRelativeErrorOf1eMinus3IsCaught) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", kTruth);
  add_reference(base, kTruth);
  oracle.observe(base);
  auto dev = result("cuda:0", {1.001, 2.002, 3.003, 4.004});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kMismatch);
  EXPECT_EQ(dev.numeric.cause, model::Cause::kFullPrecision);
  EXPECT_EQ(dev.numeric.compared_with, "cpu");
  auto nan = result("cuda:0", {1.0, kNaN, 3.0, 4.0});
  oracle.observe(nan);
  EXPECT_EQ(nan.outcome, model::Outcome::kMismatch);
  EXPECT_NE(nan.numeric.message.find("non-finite"), std::string::npos) << nan.numeric.message;
}

TEST_F(AccuracyFlow, Tf32IsCaughtAndNamedWhenTheStrictRunAgrees) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", kTruth);
  add_reference(base, kTruth);
  oracle.observe(base);
  // TF32 rounds to 2^-11 relative: thousands of float32 eps.
  auto dev = result("cuda:0", {1.0 + 0x1p-11, 2.0, 3.0, 4.0 - 0x1p-9});
  add_strict(dev, kTruth);
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kMismatch);
  EXPECT_EQ(dev.numeric.cause, model::Cause::kPrecisionDefault);
  EXPECT_EQ(dev.numeric.setting, "torch.backends.cudnn.allow_tf32=False");
  EXPECT_NE(dev.numeric.message.find("agrees with"), std::string::npos);
}

TEST_F(AccuracyFlow, ABaselineFurtherFromTheReferenceIsTheBaselinesFault) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto dev = result("cuda:0", kTruth);
  oracle.observe(dev);  // lands first: judged when the baseline lands
  auto base = result("cpu", {1.0, kNaN, 3.0, 4.0});
  add_reference(base, kTruth);
  auto changed = oracle.observe(base);
  EXPECT_EQ(base.outcome, model::Outcome::kMismatch);
  EXPECT_EQ(base.numeric.cause, model::Cause::kFullPrecision);
  ASSERT_EQ(changed.size(), 1U);
  EXPECT_EQ(changed[0].outcome, model::Outcome::kMismatch);
  EXPECT_EQ(changed[0].numeric.cause, model::Cause::kBaselineWrong);
  EXPECT_NE(changed[0].numeric.message.find("further from the float64 reference"),
            std::string::npos)
      << changed[0].numeric.message;
}

TEST_F(AccuracyFlow, ADeviceAsGoodAsTheBaselinePasses) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", {1.0, 2.0, 3.0, 4.0 + 4 * 0x1p-23});
  add_reference(base, kTruth);
  oracle.observe(base);
  auto dev = result("cuda:0", {1.0 + 0x1p-23, 2.0, 3.0, 4.0});
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kPass) << dev.numeric.message;
  ASSERT_TRUE(dev.numeric.bound_eps);
  // torch.exp is well-conditioned and elementwise: kWellDevicePerSqrtK, or 4x
  // the baseline's 0.59 eps, whichever is larger.
  EXPECT_EQ(*dev.numeric.bound_eps, oracle::kWellDevicePerSqrtK);
}

// The float64 reference judges every device, also beside a baseline beyond
// its own bound (9 eps on an elementwise op whose bound is 6): a device 50x
// further off is a mismatch, not a pass by a loose comparison with the
// baseline (1e-3 for float32, which 450 eps is well inside); one within 4x
// the baseline's error passes, checked by float64. A NaN baseline lends no
// licence.
TEST_F(AccuracyFlow, ABaselineBeyondItsBoundDoesNotLetAWorseDevicePass) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", off(9));
  add_reference(base, kTruth);
  oracle.observe(base);
  EXPECT_EQ(base.outcome, model::Outcome::kMismatch);
  auto far = result("cuda:0", off(450));
  oracle.observe(far);
  EXPECT_EQ(far.outcome, model::Outcome::kMismatch) << far.numeric.message;
  EXPECT_NE(far.numeric.message.find("float64 reference"), std::string::npos)
      << far.numeric.message;
  auto near = result("cuda:0", off(20));
  oracle.observe(near);
  EXPECT_EQ(near.outcome, model::Outcome::kPass) << near.numeric.message;
  ASSERT_TRUE(near.numeric.bound_eps);
  EXPECT_NEAR(*near.numeric.bound_eps, 4 * 9, 0.5);
  EXPECT_EQ(near.numeric.reference, "float64 on cpu");
  // Beside a NaN baseline a device is held to kBaselineFactor x its alone bound.
  EXPECT_EQ(oracle::device_bound("float32", {1, false}, kNaN),
            oracle::kBaselineFactor * oracle::kBaselineFactor * oracle::kWellAlonePerSqrtK);
}

// The sensitivity targets of bench/results/plant-epyc-2cpu-oracle-before-after.md, through the
// supervisor's oracle: an elementwise float32 output 4 eps off everywhere is
// a mismatch beside a correct baseline, 8 eps off everywhere alone; the same
// errors pass for an ill-conditioned function (a solve), which keeps the
// floor.
TEST_F(AccuracyFlow, FourEpsBesideABaselineAndEightAloneAreCaughtOnElementwiseOps) {
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  auto base = result("cpu", kTruth);
  add_reference(base, kTruth);
  oracle.observe(base);
  auto dev = result("cuda:0", off(4));
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kMismatch) << *dev.numeric.error_eps;
  auto alone = result("cpu", off(8));
  add_reference(alone, kTruth);
  supervisor::Oracle fresh(*store_, "r1", "cpu");
  fresh.observe(alone);
  EXPECT_EQ(alone.outcome, model::Outcome::kMismatch) << *alone.numeric.error_eps;

  info_.function = "torch.linalg.solve";
  auto solve = result("cpu", off(8));
  add_reference(solve, kTruth);
  supervisor::Oracle third(*store_, "r1", "cpu");
  third.observe(solve);
  EXPECT_EQ(solve.outcome, model::Outcome::kPass) << solve.numeric.message;
}

TEST_F(AccuracyFlow, SixtyFourBitIntegersAreComparedExactly) {
  info_.dtype = "int64";
  supervisor::Oracle oracle(*store_, "r1", "cpu");
  // 2^53 and 2^53 + 1 are the same double.
  auto base = result("cpu", {9007199254740992.0}, "int64");
  oracle.observe(base);
  auto path = file("big.npy", "<i8", {0});
  {
    // Overwrite with 2^53 + 1 exactly.
    std::ofstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(-8, std::ios::end);
    const int64_t v = (int64_t{1} << 53) + 1;
    f.write(reinterpret_cast<const char*>(&v), sizeof v);
  }
  auto dev = result("cuda:0", {0}, "int64");
  dev.outputs[0].path = path.string();
  oracle.observe(dev);
  EXPECT_EQ(dev.outcome, model::Outcome::kMismatch);
  EXPECT_NE(dev.numeric.message.find("9007199254740993"), std::string::npos) << dev.numeric.message;
}

}  // namespace
}  // namespace mudjack
