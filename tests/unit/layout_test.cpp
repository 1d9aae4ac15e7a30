// Where a run's lanes and probes sit on the host's cores
// (supervisor::lay_out): a pure function of the cores, the devices and
// --cpu-probes, tested with exact core sets.

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "report/text.hpp"
#include "supervisor/supervisor.hpp"

namespace mudjack::supervisor {
namespace {

std::vector<int> cores(int n) {
  std::vector<int> c(static_cast<size_t>(n));
  std::iota(c.begin(), c.end(), 0);
  return c;
}

std::vector<std::vector<int>> cpu_sets(const Layout& layout) {
  std::vector<std::vector<int>> out;
  for (const auto& p : layout.probes.at("cpu")) out.push_back(p.cpus);
  return out;
}

std::vector<size_t> cpu_threads(const Layout& layout) {
  std::vector<size_t> out;
  for (const auto& p : layout.probes.at("cpu")) out.push_back(p.threads);
  return out;
}

std::vector<size_t> per_framework(const std::vector<size_t>& firsts, size_t kinds) {
  std::vector<size_t> n(kinds, 0);
  for (size_t f : firsts) ++n.at(f);
  return n;
}

// A shared lane's probes start on the frameworks in proportion to their
// cases: the H200 paper run's JAX (2,130 cases on cuda:0) and torch (1,388)
// get four and two of six, not three each.
TEST(Layout, SharedLaneProbesStartOnFrameworksByTheirShareOfCases) {
  EXPECT_EQ(first_frameworks({2130, 1388}, 6), (std::vector<size_t>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(per_framework(first_frameworks({10, 10}, 6), 2), (std::vector<size_t>{3, 3}));
  EXPECT_EQ(per_framework(first_frameworks({1, 1000}, 6), 2), (std::vector<size_t>{1, 5}));
  EXPECT_EQ(per_framework(first_frameworks({0, 0}, 2), 2), (std::vector<size_t>{1, 1}));
  EXPECT_EQ(first_frameworks({5}, 3), (std::vector<size_t>{0, 0, 0}));
  // Fewer probes than frameworks: one each, in the lane's order.
  EXPECT_EQ(first_frameworks({1, 500, 1000}, 2), (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(first_frameworks({}, 4).empty());
  EXPECT_TRUE(first_frameworks({3, 4}, 0).empty());
}

TEST(Layout, DefaultProbesAreOnePerTwoCoresAtLeastOne) {
  EXPECT_EQ(default_cpu_probes(0), 1u);
  EXPECT_EQ(default_cpu_probes(1), 1u);
  EXPECT_EQ(default_cpu_probes(2), 1u);
  EXPECT_EQ(default_cpu_probes(3), 1u);
  EXPECT_EQ(default_cpu_probes(12), 6u);
  EXPECT_EQ(default_cpu_probes(13), 6u);
}

// 16 cores and one GPU: the GPU lane keeps its 4 fastest, the other 12 are
// six cpu probes of 2 cores with 2 threads each.
TEST(Layout, SixteenCoresAndOneGpuGiveSixCpuProbesOfTwoCores) {
  auto l = lay_out(cores(16), {"cpu", "cuda:0"}, 0, true);
  EXPECT_TRUE(l.parallel);
  ASSERT_EQ(l.probes.at("cuda:0").size(), 1u);
  EXPECT_EQ(l.probes.at("cuda:0")[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(l.probes.at("cuda:0")[0].threads, 0u);
  EXPECT_EQ(cpu_sets(l),
            (std::vector<std::vector<int>>{{4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(cpu_threads(l), (std::vector<size_t>{2, 2, 2, 2, 2, 2}));
}

TEST(Layout, AskedProbesSplitTheCoresLargestFirst) {
  auto l = lay_out(cores(16), {"cpu", "cuda:0"}, 5, true);
  EXPECT_EQ(cpu_sets(l),
            (std::vector<std::vector<int>>{{4, 5, 6}, {7, 8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(cpu_threads(l), (std::vector<size_t>{3, 3, 2, 2, 2}));
  // More probes than cores: one core each.
  l = lay_out(cores(4), {"cpu"}, 9, true);
  EXPECT_EQ(cpu_sets(l), (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(cpu_threads(l), (std::vector<size_t>{1, 1, 1, 1}));
}

// Two cores, cpu alone: one probe on every core, unpinned and with the
// framework's own threads (the behaviour before --cpu-probes); asked for
// two, one core each.
TEST(Layout, TwoCoresRunOneUnpinnedProbeUnlessTwoAreAsked) {
  auto l = lay_out(cores(2), {"cpu"}, 0, true);
  EXPECT_FALSE(l.parallel);
  EXPECT_EQ(cpu_sets(l), (std::vector<std::vector<int>>{{}}));
  EXPECT_EQ(cpu_threads(l), (std::vector<size_t>{0}));
  l = lay_out(cores(2), {"cpu"}, 2, true);
  EXPECT_EQ(cpu_sets(l), (std::vector<std::vector<int>>{{0}, {1}}));
  EXPECT_EQ(cpu_threads(l), (std::vector<size_t>{1, 1}));
}

// Too few cores for side-by-side lanes (or --serial): the lanes run in
// turn, the accelerator lane unpinned, the cpu lane's probes on every core.
TEST(Layout, LanesInTurnGiveTheCpuLaneEveryCore) {
  auto l = lay_out(cores(2), {"cpu", "cuda:0"}, 0, true);
  EXPECT_FALSE(l.parallel);
  EXPECT_TRUE(l.probes.at("cuda:0")[0].cpus.empty());
  EXPECT_EQ(cpu_sets(l), (std::vector<std::vector<int>>{{}}));
  l = lay_out(cores(8), {"cpu", "cuda:0"}, 0, false);
  EXPECT_FALSE(l.parallel);
  EXPECT_TRUE(l.probes.at("cuda:0")[0].cpus.empty());
  EXPECT_EQ(cpu_sets(l), (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
}

// The cores come fastest first: the order given is kept, so accelerator
// lanes get the fastest and each probe's calling thread its set's first.
TEST(Layout, CoresAreTakenInTheGivenOrder) {
  auto l = lay_out({7, 3, 5, 1, 0, 2, 4, 6}, {"cpu", "cuda:0", "cuda:1"}, 2, true);
  EXPECT_TRUE(l.parallel);
  EXPECT_EQ(l.probes.at("cuda:0")[0].cpus, (std::vector<int>{7, 3}));
  EXPECT_EQ(l.probes.at("cuda:1")[0].cpus, (std::vector<int>{5, 1}));
  EXPECT_EQ(cpu_sets(l), (std::vector<std::vector<int>>{{0, 2}, {4, 6}}));
  EXPECT_EQ(l.host_cpus.front(), 7);
}

// An accelerator lane of two frameworks beside the cpu lane: three probes
// per framework, one core each (6 of 16 cores: 3/8), the device shared
// (they take turns), the cpu lane five probes on the other ten; asked for
// two, half of the lane's 4 cores each; asked for one, or of one
// framework, one probe on all four, not shared.
TEST(Layout, AGpuLaneOfTwoFrameworksGetsThreeProbesEachOnASharedDevice) {
  const std::map<std::string, size_t> two{{"cpu", 2}, {"cuda:0", 2}};
  auto l = lay_out(cores(16), {"cpu", "cuda:0"}, 0, true, 0, two);
  ASSERT_EQ(l.probes.at("cuda:0").size(), 6u);
  EXPECT_EQ(l.probes.at("cuda:0")[5].cpus, (std::vector<int>{5}));
  EXPECT_EQ(cpu_sets(l).front(), (std::vector<int>{6, 7}));
  EXPECT_EQ(cpu_sets(l).size(), 5u);
  // Asked for more than 3/8 of the host: no more than that.
  l = lay_out(cores(16), {"cpu", "cuda:0"}, 0, true, 9, two);
  EXPECT_EQ(l.probes.at("cuda:0").size(), 6u);
  // 8 cores: the lane keeps its 4, one probe per core.
  l = lay_out(cores(8), {"cpu", "cuda:0"}, 0, true, 0, two);
  EXPECT_EQ(l.probes.at("cuda:0").size(), 4u);
  l = lay_out(cores(16), {"cpu", "cuda:0"}, 0, true, 2, two);
  ASSERT_EQ(l.probes.at("cuda:0").size(), 2u);
  EXPECT_EQ(l.probes.at("cuda:0")[0].cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(l.probes.at("cuda:0")[1].cpus, (std::vector<int>{2, 3}));
  EXPECT_TRUE(l.shared.contains("cuda:0"));
  EXPECT_EQ(cpu_sets(l).front(), (std::vector<int>{4, 5}));
  EXPECT_EQ(l.to_json()["lanes"][1]["shared"], true);
  l = lay_out(cores(16), {"cpu", "cuda:0"}, 0, true, 1, two);
  ASSERT_EQ(l.probes.at("cuda:0").size(), 1u);
  EXPECT_FALSE(l.shared.contains("cuda:0"));
  l = lay_out(cores(16), {"cpu", "cuda:0"}, 0, true, 0, {{"cuda:0", 1}});
  ASSERT_EQ(l.probes.at("cuda:0").size(), 1u);
  EXPECT_EQ(l.probes.at("cuda:0")[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  // Lanes in turn: one unpinned probe, whatever was asked.
  l = lay_out(cores(2), {"cpu", "cuda:0"}, 0, true, 0, two);
  ASSERT_EQ(l.probes.at("cuda:0").size(), 1u);
  EXPECT_TRUE(l.shared.empty());
  // The report says where they ran and that they take turns.
  nlohmann::json machine{
      {"layout", lay_out(cores(16), {"cpu", "cuda:0"}, 0, true, 0, two).to_json()}};
  EXPECT_NE(report::layout_line(machine).find("6 probes of cuda:0 (taking turns on it): cores 0"),
            std::string::npos)
      << report::layout_line(machine);
}

TEST(Layout, RecordedFormListsEveryProbe) {
  auto l = lay_out(cores(2), {"cpu"}, 2, true);
  auto j = l.to_json();
  EXPECT_EQ(j["parallel"], false);
  ASSERT_EQ(j["lanes"].size(), 1u);
  EXPECT_EQ(j["lanes"][0]["device"], "cpu");
  EXPECT_EQ(j["lanes"][0]["probes"][1]["cpus"], nlohmann::json::array({1}));
  EXPECT_EQ(j["lanes"][0]["probes"][1]["pinned"], true);
  EXPECT_EQ(j["lanes"][0]["probes"][1]["threads"], 1);
  // An unpinned probe lists the host's cores.
  j = lay_out(cores(2), {"cpu"}, 1, true).to_json();
  EXPECT_EQ(j["lanes"][0]["probes"][0]["cpus"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(j["lanes"][0]["probes"][0]["pinned"], false);
  EXPECT_EQ(j["lanes"][0]["probes"][0]["threads"], 0);
}

}  // namespace
}  // namespace mudjack::supervisor
