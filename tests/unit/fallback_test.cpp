// Host fallback and recompilation read from probe facts (verdict/fallback.hpp).
#include "verdict/fallback.hpp"

#include <gtest/gtest.h>

namespace mudjack::verdict {
namespace {

model::CaseResult result(const std::string& device, const char* extra) {
  model::CaseResult r;
  r.info.framework = "torch";
  r.info.function = "torch.nonzero";
  r.device = device;
  r.outcome = model::Outcome::kPass;
  r.extra = nlohmann::json::parse(extra);
  return r;
}

// Fixture: what torch_xla 2.9's counters read for torch.nonzero on PJRT CPU.
constexpr const char* kNonzero =
    R"({"xla": {"counters": {"xla::add": 1, "aten::nonzero": 3, "MarkStep": 2,
        "aten::_local_scalar_dense": 0}, "compiles": 2, "compile_ns": 39917234,
        "cold_compiles": 1, "warm_compiles": 1}})";

TEST(Fallback, AtenCountersAreHostOps) {
  auto f = case_fallback(result("xla:0", kNonzero));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->kind, "host_ops");
  EXPECT_EQ(f->ops, (std::map<std::string, int>{{"aten::nonzero", 3}}));
  EXPECT_EQ(describe(*f), "aten::nonzero\u00d73");
  EXPECT_EQ(warm_compiles(result("xla:0", kNonzero)), 1);
}

TEST(Fallback, LoweredOpsOnlyIsNone) {
  auto r = result("xla:0", R"({"xla": {"counters": {"xla::add": 4}, "warm_compiles": 0}})");
  EXPECT_FALSE(case_fallback(r).has_value());
  EXPECT_TRUE(fallback_rows({r}).empty());
}

TEST(Fallback, SoftPlacementAndElsewhere) {
  auto tf = result("cuda:0", R"({"fallback": true})");
  EXPECT_EQ(case_fallback(tf)->kind, "soft_placement");
  auto jax = result("tpu:0", R"({"output_device": "cpu"})");
  jax.outcome = model::Outcome::kFail;
  jax.error.kind = model::ErrorKind::kDeviceError;
  EXPECT_EQ(describe(*case_fallback(jax)), "elsewhere (cpu)");
  auto same = result("lab/tpu:0", R"({"output_device": "tpu:0"})");
  same.outcome = model::Outcome::kFail;
  same.error.kind = model::ErrorKind::kDeviceError;
  EXPECT_FALSE(case_fallback(same).has_value());
}

TEST(Fallback, RowsSumOpsPerFunctionAndDevice) {
  auto rows =
      fallback_rows({result("xla:0", kNonzero), result("xla:0", kNonzero), result("cpu", R"({})")});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cases, 2);
  EXPECT_EQ(rows[0].recompiling, 2);
  EXPECT_EQ(rows[0].ops.at("aten::nonzero"), 6);
  EXPECT_EQ(rows[0].kinds, std::vector<std::string>{"host_ops"});
}

}  // namespace
}  // namespace mudjack::verdict
