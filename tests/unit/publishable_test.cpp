// run::unpublishable: a run is evidence only when every machine's source
// tree and the engine that ran it were clean. The engine's revision stamp
// ("…-dirty") counts too: the 2026-11-29 H200 runs recorded a clean source
// but an engine stamped 55f2e03-dirty, and --publish took them.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run/lifecycle.hpp"

namespace mudjack {
namespace {

model::RunInfo run_with(const std::string& revision) {
  model::RunInfo run;
  run.id = "r1";
  nlohmann::json machine = {
      {"host", "h"},
      {"mudjack_revision", revision},
      {"source", {{"from", "git"}, {"commit", "c11e0ba"}, {"dirty", false}, {"changed", nullptr}}}};
  run.environment = {{"machines", nlohmann::json::array({machine})}};
  return run;
}

TEST(Publishable, AnEngineBuiltFromADirtyTreeIsRefusedACleanOneIsNot) {
  EXPECT_EQ(run::unpublishable(run_with("c11e0ba")), std::nullopt);
  auto why = run::unpublishable(run_with("55f2e03-dirty"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("engine was built from a dirty tree (revision 55f2e03-dirty)"),
            std::string::npos)
      << *why;
}

}  // namespace
}  // namespace mudjack
