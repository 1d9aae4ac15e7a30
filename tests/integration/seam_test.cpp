// The one seam between engine and probe (issue 35): the requests that
// replaced the engine's side doors into Python, through
// supervisor::ProbeSession and real numpy probes — a build streaming a line
// per case, a fuzz finding's script written through the one writer of
// standalone scripts (src/repro/) and run on its own, a graph's float64
// reference — and a probe that dies during each request, reported in one
// line.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "envs/envs.hpp"
#include "harness.hpp"
#include "repro/repro.hpp"
#include "supervisor/probe_session.hpp"
#include "supervisor/standalone.hpp"

namespace {

namespace fs = std::filesystem;
namespace sv = mudjack::supervisor;
namespace protocol = mudjack::protocol;
using mjtest::kFixtures;

fs::path numpy_python() {
  return mudjack::envs::resolve("numpy", "current", {}).python;
}

fs::path first_graph() {
  std::vector<fs::path> all;
  for (const auto& e : fs::directory_iterator(kFixtures / "fuzz" / "graphs")) {
    if (e.path().extension() == ".json") all.push_back(e.path());
  }
  std::sort(all.begin(), all.end());
  return all.at(0);
}

std::unique_ptr<sv::ProbeSession> start(sv::ProbeCommand cmd) {
  static const std::atomic<bool> kNever{false};
  std::string error;
  auto s = sv::ProbeSession::start(cmd, {}, kNever, &error);
  EXPECT_NE(s, nullptr) << error;
  return s;
}

class Seam : public ::testing::Test {
 protected:
  void SetUp() override {
    if (numpy_python().empty()) GTEST_SKIP() << "no numpy environment (scripts/install.sh)";
    dir_ = fs::temp_directory_path() / ("mudjack-seam-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Seam, BuildStreamsALinePerCaseThenDone) {
  auto cmd = sv::tool_command(numpy_python());
  cmd.framework = "numpy";
  cmd.device = "cpu";
  cmd.suite_dirs = {kFixtures / "suites" / "faults"};
  cmd.env["MUDJACK_BUILD_CACHE"] = (dir_ / "builds").string();
  auto probe = start(cmd);
  ASSERT_NE(probe, nullptr);
  protocol::BuildRequest req;
  req.cases = {"numpy/faults.twin a b/float32-default-eager",
               "numpy/faults.twin a_b/float32-default-eager", "numpy/no such case"};
  req.jobs = 2;
  req.timeout_s = 60;
  std::map<std::string, std::string> seen;
  std::string error;
  const bool done = probe->build(
      req, [&](const protocol::Built& b) { seen[b.case_id] = b.status + " " + b.message; }, &error);
  probe->stop();
  ASSERT_TRUE(done) << error;
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.at(req.cases[0]), "built ");
  EXPECT_EQ(seen.at(req.cases[1]), "built ");
  EXPECT_EQ(seen.at(req.cases[2]), "unknown no such case");
}

TEST_F(Seam, AFindingsScriptIsWrittenThroughTheOneWriterAndRunsOnItsOwn) {
  protocol::GraphScriptRequest req;
  req.graph = first_graph().string();
  req.backend = "numpy";
  req.device = "cpu";
  req.seed = 3;
  std::string why;
  const std::string script = mudjack::repro::write_graph(numpy_python(), req, &why);
  ASSERT_FALSE(script.empty()) << why;
  EXPECT_NE(script.find("reproduce(parse_graph(GRAPH_JSON), 'numpy', 'cpu', 3, 'mismatch'"),
            std::string::npos);
  std::ofstream(dir_ / "repro.py") << script;
  // numpy against its own float64 reference: the symptom does not show (exit 0)
  const auto ran = sv::run_standalone(numpy_python(), dir_ / "repro.py", std::chrono::seconds(120));
  EXPECT_EQ(ran.exit_code, 0) << ran.ended << ": " << ran.output;
  EXPECT_NE(ran.output.find("every output agrees with the reference"), std::string::npos)
      << ran.output;

  req.graph = (dir_ / "missing.json").string();
  EXPECT_TRUE(mudjack::repro::write_graph(numpy_python(), req, &why).empty());
  EXPECT_EQ(why.rfind("no script: " + req.graph + ": cannot be read", 0), 0u) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST_F(Seam, AReferenceIsMagnitudesPerOutput) {
  auto probe = start(sv::tool_command(numpy_python()));
  ASSERT_NE(probe, nullptr);
  std::string error;
  const auto graph = first_graph().string();
  auto reply = probe->reference(graph, 0, &error);
  ASSERT_TRUE(reply) << error;
  EXPECT_EQ(reply->value("graph", ""), graph);
  ASSERT_TRUE(reply->contains("outputs")) << reply->dump();
  EXPECT_FALSE(reply->at("outputs").empty());
  EXPECT_GE(reply->at("outputs").at(0).value("rms", -1.0), 0.0);
  auto bad = probe->reference((dir_ / "missing.json").string(), 0, &error);
  ASSERT_TRUE(bad) << error;
  EXPECT_NE(bad->value("error", "").find("cannot be read"), std::string::npos) << bad->dump();
  probe->stop();
}

TEST_F(Seam, AProbeThatDiesDuringARequestIsOneLine) {
  const auto dying = sv::tool_command(kFixtures / "bin" / "dies-mid-request");
  const auto check = [](const std::string& error, const std::string& request) {
    EXPECT_EQ(error.rfind("the probe died during the " + request + " request (", 0), 0u) << error;
    EXPECT_NE(error.find("dying on purpose mid-request"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  };
  std::string error;
  auto a = start(dying);
  ASSERT_NE(a, nullptr);
  protocol::BuildRequest build;
  build.cases = {"x"};
  EXPECT_FALSE(a->build(
      build, [](const protocol::Built&) {}, &error));
  check(error, "build");
  auto b = start(dying);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->reference("g.json", 0, &error));
  check(error, "reference");
  auto c = start(dying);
  ASSERT_NE(c, nullptr);
  protocol::GraphScriptRequest script;
  script.graph = "g.json";
  script.backend = "numpy";
  EXPECT_FALSE(c->repro_graph(script, &error));
  check(error, "repro_graph");
}

}  // namespace
