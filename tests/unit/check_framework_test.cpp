// Unit tests for `mudjack check`'s framework decision (cli/check_framework):
// the precedence over the facts the probe reports, the one-line refusals,
// and dtype suggestions by meaning (util::dtype_meaning).

#include "cli/check_framework.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"
#include "util/nearest.hpp"

namespace mudjack::cli {
namespace {

CheckFacts facts(std::set<std::string> module, std::set<std::string> imports,
                 std::set<std::string> inputs) {
  CheckFacts f;
  f.module = std::move(module);
  f.imports = std::move(imports);
  f.inputs = std::move(inputs);
  return f;
}

TEST(CheckFramework, FlagThenModuleThenGlobalsThenInputs) {
  EXPECT_EQ(decide_framework("jax", facts({"torch"}, {"torch"}, {"torch"}), "f"), "jax");
  EXPECT_EQ(decide_framework("", facts({"torch"}, {"jax"}, {"jax"}), "f"), "torch");
  // A JAX function on NumPy arrays: its globals name jax (and numpy).
  EXPECT_EQ(decide_framework("", facts({}, {"jax", "numpy"}, {"numpy"}), "f"), "jax");
  EXPECT_EQ(decide_framework("", facts({}, {"numpy"}, {"torch"}), "f"), "numpy");
  EXPECT_EQ(decide_framework("", facts({}, {}, {"torch", "numpy"}), "f"), "torch");
  EXPECT_EQ(decide_framework("", facts({}, {}, {}), "f"), "numpy") << "plain Python";
}

TEST(CheckFramework, TwoLeftAreRefusedInOneLineNamingThem) {
  // Globals name two: the inputs break the tie when they name one of them.
  EXPECT_EQ(decide_framework("", facts({}, {"jax", "torch"}, {"torch"}), "f"), "torch");
  try {
    decide_framework("", facts({}, {"jax", "torch", "numpy"}, {"numpy"}), "f");
    FAIL() << "two frameworks named, inputs of neither";
  } catch (const util::FatalError& e) {
    EXPECT_STREQ(e.what(),
                 "f names both jax and torch and its inputs do not tell which it runs on: pass "
                 "--framework jax or --framework torch");
    EXPECT_EQ(e.exit_code(), 2);
  }
  try {
    decide_framework("", facts({}, {}, {"jax", "torch"}), "g");
    FAIL() << "inputs of two frameworks";
  } catch (const util::FatalError& e) {
    EXPECT_STREQ(e.what(),
                 "g takes inputs of jax and torch: pass the one it runs on, --framework jax or "
                 "--framework torch");
  }
}

TEST(CheckFramework, FactsComeFromTheCaseTagsAndANonTensorReturnIsNamed) {
  model::CaseInfo c;
  c.tags = {"check.module::torch", "check.imports::numpy", "check.imports::torch",
            "check.inputs::numpy", "check.returns::float", "task::other"};
  const auto f = check_facts({c});
  EXPECT_EQ(f.module, (std::set<std::string>{"torch"}));
  EXPECT_EQ(f.imports, (std::set<std::string>{"numpy", "torch"}));
  EXPECT_EQ(f.inputs, (std::set<std::string>{"numpy"}));
  EXPECT_EQ(non_tensor_return(f, "total"), "total returns float; return the tensor");
  CheckFacts none;
  none.returns = {"NoneType"};
  EXPECT_EQ(non_tensor_return(none, "f"), "f returns None; return the tensor");
  EXPECT_EQ(non_tensor_return(CheckFacts{}, "f"), "");
  EXPECT_TRUE(check_facts({}).imports.empty());
}

TEST(DtypeMeaning, ShorthandsMeanTheirDtypeNotTheNearestSpelling) {
  EXPECT_EQ(util::dtype_meaning("fp16"), "float16");
  EXPECT_EQ(util::dtype_meaning("half"), "float16");
  EXPECT_EQ(util::dtype_meaning("BF16"), "bfloat16");
  EXPECT_EQ(util::dtype_meaning("fp32"), "float32");
  EXPECT_EQ(util::dtype_meaning("torch.float64"), "float64");
  EXPECT_EQ(util::dtype_meaning("double"), "float64");
  EXPECT_EQ(util::dtype_meaning("fp64"), "float64");
  EXPECT_EQ(util::dtype_meaning("long"), "int64");
  EXPECT_EQ(util::dtype_meaning("np.bool_"), "bool");
  EXPECT_FALSE(util::dtype_meaning("flaot32").has_value()) << "a typo is left to the spelling";
  EXPECT_FALSE(util::dtype_meaning("fp8").has_value());
}

}  // namespace
}  // namespace mudjack::cli
