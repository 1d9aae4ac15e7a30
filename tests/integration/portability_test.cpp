// mudjack portability on the fixture corpus and surface
// (tests/fixtures/portability/make.py): every view through the real
// binary, and the inputs it refuses with one line and exit 2.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace mjtest;
using nlohmann::json;

namespace {

// A fixture file (a function: kFixtures is itself initialised at start-up).
std::string fixture(const char* name) {
  return (kFixtures / "portability" / name).string();
}

std::vector<std::string> args(const std::vector<std::string>& extra) {
  std::vector<std::string> a = {
      "portability",           fixture("corpus.json"), fixture("corpus-rerun.json"), "--surface",
      fixture("surface.json"), "--manifest",           fixture("manifest.json")};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST_F(Cli, PortabilityWeighsTheFixtureCorpusPerDevice) {
  auto r = mudjack(args({}));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 models, 33 aten calls of 11 ops (3.0% of calls unmapped)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cuda:0  float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aten.relu  failing  4 calls in 1 models"), std::string::npos) << r.out;

  r = mudjack(args({"--format", "json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["models"], 4);
  EXPECT_EQ(doc["blind"]["fail"], 1);
  ASSERT_EQ(doc["views"].size(), 4u);  // (cpu, cuda:0) x (float16, float32)
  EXPECT_EQ(doc["views"][1]["device"], "cpu");
  EXPECT_EQ(doc["views"][1]["dtype"], "float32");
  EXPECT_EQ(doc["views"][1]["calls_by_status"]["portable"], 24);
  EXPECT_EQ(doc["views"][1]["confusion"]["risk"]["not_fine"], 1);
  EXPECT_EQ(doc["views"][3]["top"][0]["op"], "aten.relu");
  EXPECT_EQ(doc["views"][3]["confusion"]["fail"]["not_fine"], 1);
  EXPECT_EQ(doc["corpus"].size(), 2u);
  EXPECT_EQ(doc["surface"]["run_id"], "20261130-000000-surf");
  // --json is the JSON view too.
  EXPECT_EQ(json::parse(mudjack(args({"--json"})).out)["calls"], 33);

  r = mudjack(args({"--format", "md", "--device", "cuda:0"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("## Portability weighted by use"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("### cuda:0 float16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("### cuda:0 float32"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("### cpu float32"), std::string::npos) << r.out;

  r = mudjack(args({"--format", "html"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("<svg class=\"chart\" data-chart=\"stacked\""), std::string::npos);
}

TEST_F(Cli, PortabilityRefusesInputsItCannotJoin) {
  // The corpus as the surface: no opinfo case.
  auto r = mudjack({"portability", fixture("corpus.json"), "--surface", fixture("corpus.json"),
                    "--manifest", fixture("manifest.json")});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is not an opinfo run"), std::string::npos) << r.err;
  // The surface as the corpus: no model with a histogram.
  r = mudjack({"portability", fixture("surface.json"), "--surface", fixture("surface.json"),
               "--manifest", fixture("manifest.json")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("no model with an eager aten operator histogram"), std::string::npos)
      << r.err;
  // A device the surface lacks; an unknown format.
  r = mudjack(args({"--device", "xla:0"}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("no opinfo cases on device 'xla:0'"), std::string::npos) << r.err;
  r = mudjack(args({"--format", "csv"}));
  EXPECT_EQ(r.code, 2) << r.err;
  // A manifest from before aten_name was recorded.
  const auto old = dir_ / "old-manifest.json";
  std::ofstream(old) << R"({"torch": "2.11", "ops": [{"name": "add", "variant": ""}]})";
  r = mudjack({"portability", fixture("corpus.json"), "--surface", fixture("surface.json"),
               "--manifest", old.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--names-only"), std::string::npos) << r.err;
}

}  // namespace
