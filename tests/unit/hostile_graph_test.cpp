// A replayed fuzz graph is a file anyone may write (`mudjack fuzz --replay`):
// gen::check caps every input as it caps every node, and no size count wraps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gen/graph.hpp"

namespace mudjack::gen {
namespace {

using nlohmann::json;

// One input of `shape`, sliced to its first row along axis 0.
std::optional<std::string> check_sliced(const json& shape, int64_t step = 1) {
  json out_shape = shape;
  out_shape[0] = 1;
  const json j = {
      {"format", kGraphFormat},
      {"dtype", "float32"},
      {"inputs",
       {{{"name", "a"}, {"shape", shape}, {"dtype", "float32"}, {"low", -1}, {"high", 1}}}},
      {"nodes",
       {{{"name", "b"},
         {"op", "slice"},
         {"inputs", {"a"}},
         {"attrs", {{"axis", 0}, {"start", 0}, {"end", 1}, {"step", step}}},
         {"shape", out_shape},
         {"dtype", "float32"}}}},
      {"outputs", {"b"}}};
  Graph g = from_json(j);
  return check(g);
}

TEST(HostileGraph, ASmallGraphPasses) {
  EXPECT_EQ(check_sliced({4, 8}), std::nullopt);
}

// 8192 x 16384 float32: a 512 MiB input behind a one-row output passed.
TEST(HostileGraph, AnInputOverTheElementCapIsRefused) {
  const auto why = check_sliced({8192, 16384});
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "input a: more than 4194304 elements");
}

// 2^20 * 2^20 * 2^20 * 2^4 = 2^64 elements wrapped to 0, under every cap.
TEST(HostileGraph, AnElementCountThatOverflowsIsRefused) {
  EXPECT_EQ(numel({1 << 20, 1 << 20, 1 << 20, 16}), INT64_MAX);
  EXPECT_EQ(numel({1 << 20, 1 << 20, 1 << 20, 16, 1, 1}), INT64_MAX);
  EXPECT_EQ(numel({3, 5}), 15);
  const auto why = check_sliced({1 << 20, 1 << 20, 1 << 20, 1 << 20, 16, 1});
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "input a: more than 4194304 elements");
}

// An attribute far beyond any shape (here INT64_MAX, whose arithmetic in
// infer() overflowed) is refused by name.
TEST(HostileGraph, AnAttributeOutOfRangeIsRefused) {
  const auto why = check_sliced({4, 8}, INT64_MAX);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("attribute 'step' must be between"), std::string::npos) << *why;
}

}  // namespace
}  // namespace mudjack::gen
