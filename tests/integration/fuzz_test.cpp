// mudjack fuzz with the real binary and real numpy probes: a campaign finds
// the bug planted in one op of a test backend (tests/fixtures/suites/
// fuzz-planted: NumPy with `add`'s broadcast broken) and reduces it to that
// op alone; a campaign resumes; a bundle replays; bad input is one line.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kPlanted = (kFixtures / "suites" / "fuzz-planted").string();

fs::path only_campaign(const fs::path& results) {
  fs::path found;
  for (const auto& e : fs::directory_iterator(results / "fuzz")) {
    if (e.path().filename().string().rfind("fz-", 0) == 0) found = e.path();
  }
  return found;
}

TEST_F(Cli, FuzzFindsThePlantedBugAndReducesItToItsOp) {
  const auto out = dir_ / "results";
  auto r = mudjack({"fuzz", "--suite", kPlanted, "--budget", "60s", "--graphs", "60", "--batch",
                    "30", "--seed", "0", "--out", out.string()});
  ASSERT_EQ(r.code, 1) << "findings exit 1\n" << r.err;
  const fs::path dir = only_campaign(out);
  ASSERT_FALSE(dir.empty());
  const auto findings = json::parse(slurp(dir / "findings.json"));
  EXPECT_EQ(findings["graphs_generated"], 60);
  bool planted = false;
  for (const auto& f : findings["findings"]) {
    if (f["reduced_ops"] != json::array({"add"})) continue;
    planted = true;
    EXPECT_EQ(f["symptom"], "mismatch");
    EXPECT_EQ(f["backend"], "numpy-planted");
    EXPECT_EQ(f["reduced_nodes"], 1);
    EXPECT_GT(f["nodes"].get<int>(), 1) << "found in a bigger graph";
    // the reduced graph is the add alone, its operands of different shapes
    const auto g = json::parse(slurp(dir / f["bundle"].get<std::string>() / "graph.json"));
    ASSERT_EQ(g["nodes"].size(), 1u);
    EXPECT_EQ(g["nodes"][0]["op"], "add");
    EXPECT_NE(g["inputs"][0]["shape"], g["inputs"][1]["shape"]) << g.dump();
    EXPECT_TRUE(fs::exists(dir / f["bundle"].get<std::string>() / "original.json"));
  }
  EXPECT_TRUE(planted) << findings.dump(1);
  // every report format
  for (const char* name : {"findings.csv", "summary.md", "junit.xml", "report.html"}) {
    EXPECT_TRUE(fs::exists(dir / name)) << name;
  }
  EXPECT_TRUE(has(slurp(dir / "findings.csv"), "mismatch,numpy-planted,cpu,add"));
  EXPECT_TRUE(has(slurp(dir / "junit.xml"), "<failure type=\"mismatch\""));
  EXPECT_TRUE(has(slurp(dir / "report.html"), "add("));
  // the batches are ordinary runs in the store
  auto list = runs(out);
  EXPECT_EQ(list.size(), 2u);
}

TEST_F(Cli, FuzzResumesACampaignAndReplaysABundle) {
  const auto out = dir_ / "results";
  auto r = mudjack({"fuzz", "--suite", kPlanted, "--graphs", "20", "--batch", "10", "--seed", "3",
                    "--no-reduce", "--out", out.string()});
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
  const fs::path dir = only_campaign(out);
  const std::string id = dir.filename().string();
  // The stored backends folder is never followed: resumed without the
  // --suite it was started with, or with campaign.json pointing at a planted
  // folder, the campaign is refused before any of that folder's code runs.
  r = mudjack({"fuzz", "--resume", id, "--graphs", "10", "--out", out.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "resume with the --suite the campaign was started with")) << r.err;
  const fs::path evil = dir_ / "evil";
  fs::create_directories(evil);
  std::ofstream(evil / "backends.py")
      << "open(" << json((dir_ / "ran").string()).dump() << ", 'w').write('ran')\n";
  const auto stored = slurp(dir / "campaign.json");
  auto tampered = json::parse(stored);
  tampered["options"]["suite"]["dir"] = evil.string();
  std::ofstream(dir / "campaign.json") << tampered.dump();
  r = mudjack(
      {"fuzz", "--resume", id, "--suite", kPlanted, "--graphs", "10", "--out", out.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "names the backends folder " + evil.string())) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "ran")) << "the planted folder's code ran";
  std::ofstream(dir / "campaign.json") << stored;
  r = mudjack(
      {"fuzz", "--resume", id, "--suite", kPlanted, "--graphs", "10", "--out", out.string()});
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
  const auto campaign = json::parse(slurp(dir / "campaign.json"));
  EXPECT_EQ(campaign["next_graph"], 30);
  EXPECT_EQ(campaign["batches"].size(), 3u);
  EXPECT_EQ(campaign["options"]["seed"], 3) << "the resumed campaign keeps its options";

  r = mudjack({"fuzz", "--resume", "fz-nope", "--out", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown fuzz campaign 'fz-nope'")) << r.err;

  // a bundle: the planted bug written by hand as a one-node graph
  const fs::path bundle = dir_ / "bundle";
  fs::create_directories(bundle);
  std::ofstream(bundle / "graph.json") << R"({"format": "mudjack.graph/1", "dtype": "float32",
    "inputs": [{"name": "a", "shape": [3, 4], "dtype": "float32", "low": -1, "high": 1},
               {"name": "b", "shape": [1, 4], "dtype": "float32", "low": -1, "high": 1}],
    "nodes": [{"name": "c", "op": "add", "inputs": ["a", "b"], "attrs": {},
               "shape": [3, 4], "dtype": "float32"}],
    "outputs": ["c"]})";
  std::ofstream(bundle / "finding.json")
      << R"({"symptom": "mismatch", "backend": "numpy-planted", "device": "cpu", "seed": 0})";
  r = mudjack({"fuzz", "--suite", kPlanted, "--replay", bundle.string(), "--out", out.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "reproduces: mismatch on cpu")) << r.out;

  // the same graph without a broadcast: the planted bug does not show
  std::ofstream(bundle / "graph.json") << R"({"format": "mudjack.graph/1", "dtype": "float32",
    "inputs": [{"name": "a", "shape": [3, 4], "dtype": "float32", "low": -1, "high": 1},
               {"name": "b", "shape": [3, 4], "dtype": "float32", "low": -1, "high": 1}],
    "nodes": [{"name": "c", "op": "add", "inputs": ["a", "b"], "attrs": {},
               "shape": [3, 4], "dtype": "float32"}],
    "outputs": ["c"]})";
  r = mudjack({"fuzz", "--suite", kPlanted, "--replay", bundle.string(), "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "does not reproduce: pass on cpu")) << r.out;
}

// `fuzz --rejudge`: a stored campaign (three findings of the published
// 2026-11-27 CPU campaign: a raise, a real mismatch, and jax's float16 gelu
// whose reference underflows) judged again from its bundles alone: the
// underflow moves to the suspects, every report says so, the rest stays;
// exit 1 while findings remain. A bundle whose graph the reference cannot
// evaluate is one line, and nothing is rewritten.
TEST_F(Cli, FuzzRejudgesAStoredCampaign) {
  const fs::path dir = dir_ / "campaign";
  fs::copy(kFixtures / "fuzz" / "stored-campaign", dir, fs::copy_options::recursive);
  const auto out = (dir_ / "results").string();
  auto r = mudjack({"fuzz", "--rejudge", dir.string(), "--out", out});
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "3 findings before, 2 after; 1 suspects")) << r.out;
  EXPECT_TRUE(has(r.out, "suspect findings/014-mismatch-jax-cpu on jax/cpu")) << r.out;
  EXPECT_TRUE(has(r.out, "underflows float16")) << r.out;
  const auto findings = json::parse(slurp(dir / "findings.json"));
  EXPECT_EQ(findings["schema_version"], "1.1");
  ASSERT_EQ(findings["findings"].size(), 2u);
  ASSERT_EQ(findings["suspects"].size(), 1u);
  EXPECT_EQ(findings["suspects"][0]["symptom"], "suspect");
  EXPECT_EQ(findings["suspects"][0]["backend"], "jax");
  EXPECT_EQ(findings["graphs_generated"], 360) << "the summary is kept";
  EXPECT_TRUE(has(slurp(dir / "summary.md"), "## Suspects\n\n1 suspect"));
  EXPECT_TRUE(has(slurp(dir / "findings.csv"), "suspect,jax,cpu,concat gelu reduce_sum"));
  EXPECT_TRUE(has(slurp(dir / "junit.xml"), "skipped=\"1\""));
  EXPECT_TRUE(has(slurp(dir / "report.html"), "id=\"suspects\""));
  const auto bundle = json::parse(slurp(dir / "findings/014-mismatch-jax-cpu/finding.json"));
  EXPECT_TRUE(has(bundle.value("suspect", ""), "underflows float16")) << bundle.dump();
  // judged again: nothing changes
  r = mudjack({"fuzz", "--rejudge", dir.string(), "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r.out, "2 findings before, 2 after; 1 suspects")) << r.out;
  // a mismatch whose graph cannot be evaluated
  std::ofstream(dir / "findings/002-mismatch-tensorflow-cpu/graph.json") << "{not json";
  const std::string before = slurp(dir / "findings.json");
  r = mudjack({"fuzz", "--rejudge", dir.string(), "--out", out});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "cannot re-judge")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(slurp(dir / "findings.json"), before);
}

TEST_F(Cli, FuzzBadInputIsOneLine) {
  const auto out = (dir_ / "results").string();
  struct Bad {
    std::vector<std::string> args;
    std::string says;
  };
  const fs::path bundle = dir_ / "bad-bundle";
  fs::create_directories(bundle);
  std::ofstream(bundle / "finding.json")
      << R"({"symptom": "mismatch", "backend": "numpy", "device": "cpu"})";
  std::ofstream(bundle / "graph.json") << R"({"format": "mudjack.graph/1", "dtype": "float32",
    "inputs": [{"name": "a", "shape": [3], "dtype": "float32", "low": -1, "high": 1}],
    "nodes": [{"name": "c", "op": "conv3d", "inputs": ["a"], "shape": [3], "dtype": "float32"}],
    "outputs": ["c"]})";
  const fs::path garbage = dir_ / "garbage-bundle";
  fs::create_directories(garbage);
  std::ofstream(garbage / "finding.json")
      << R"({"symptom": "mismatch", "backend": "numpy", "device": "cpu"})";
  std::ofstream(garbage / "graph.json") << "{not json";
  const std::vector<Bad> cases = {
      {{"fuzz", "--seed", "abc", "--out", out}, "--seed"},
      {{"fuzz", "--seed", "-4", "--out", out}, "--seed must be between 0 and"},
      {{"fuzz", "--ops", "conv3d", "--out", out}, "unknown op 'conv3d'"},
      {{"fuzz", "--backends", "tpu", "--graphs", "1", "--out", out}, "unknown backend 'tpu'"},
      {{"fuzz", "--budget", "soon", "--out", out}, "--budget must be a duration"},
      {{"fuzz", "--solver", "cvc5", "--out", out}, "unknown solver 'cvc5'"},
      {{"fuzz", "--dtypes", "fp16", "--out", out}, "--dtypes: 'fp16'"},
      {{"fuzz", "--replay", bundle.string(), "--out", out}, "unknown op 'conv3d'"},
      {{"fuzz", "--replay", garbage.string(), "--out", out}, "graph.json: not JSON"},
      {{"fuzz", "--replay", (dir_ / "nowhere").string(), "--out", out}, "no such bundle folder"},
      {{"fuzz", "--rejudge", (dir_ / "nowhere").string(), "--out", out},
       "not a fuzz campaign folder (no findings.json)"},
      {{"fuzz", "--rejudge", garbage.string(), "--out", out}, "not a fuzz campaign folder"},
  };
  for (const auto& c : cases) {
    auto r = mudjack(c.args);
    EXPECT_EQ(r.code, 2) << c.args[1] << " " << c.args[2] << "\n" << r.err;
    EXPECT_TRUE(has(r.err, c.says)) << c.says << "\n" << r.err;
    // CLI11's own parse errors add its usual "Run with --help" line
    const auto lines = std::count(r.err.begin(), r.err.end(), '\n');
    EXPECT_EQ(lines, has(r.err, "Run with --help") ? 2 : 1) << r.err;
  }
}

}  // namespace

namespace {

// `fuzz --publish`: a campaign made from a clean tree is copied (reports and
// bundles, not its graphs); one made from a dirty tree is refused. The probe
// and the planted suite come from a git repository of their own.
TEST_F(Cli, FuzzPublishesACleanCampaignAndRefusesADirtyOne) {
  const auto tree = dir_ / "tree";
  fs::create_directories(tree / "suites");
  for (const char* part : {"probe", "envs", "schemas"}) {
    fs::copy(fs::path(MUDJACK_SOURCE_DIR) / part, tree / part, fs::copy_options::recursive);
  }
  fs::copy(kFixtures / "suites" / "fuzz-planted", tree / "suites" / "fuzz-planted");
  std::ofstream(tree / ".gitignore") << "__pycache__/\n";
  const std::string git = "cd " + quote(tree.string()) +
                          " && git init -q && git add -A && git -c user.name=t -c "
                          "user.email=t@t commit -qm fixture >/dev/null 2>&1";
  ASSERT_EQ(std::system(git.c_str()), 0);
  ::setenv("MUDJACK_DATA_DIR", tree.c_str(), 1);
  const auto out = dir_ / "results";
  const std::vector<std::string> args = {
      "fuzz",     "--suite",   (tree / "suites" / "fuzz-planted").string(),
      "--graphs", "30",        "--batch",
      "30",       "--seed",    "0",
      "--out",    out.string()};
  auto r = mudjack(args);
  ASSERT_EQ(r.code, 1) << r.err;
  const std::string clean = only_campaign(out).filename().string();
  r = mudjack({"fuzz", "--publish", clean, "--to", (dir_ / "pub").string(), "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* f :
       {"findings.json", "summary.md", "report.html", "findings.csv", "junit.xml"}) {
    EXPECT_TRUE(fs::exists(dir_ / "pub" / f)) << f;
  }
  EXPECT_TRUE(
      fs::exists(dir_ / "pub" / "findings" / "001-mismatch-numpy-planted-cpu" / "graph.json"));
  EXPECT_FALSE(fs::exists(dir_ / "pub" / "graphs")) << "the graphs stay home";
  // provenance: each batch run's source commit (the fixture tree's HEAD),
  // clean, the engine's revision and the machine's CPU
  for (const char* f : {"findings.json", "campaign.json"}) {
    std::ifstream in(dir_ / "pub" / f);
    const auto doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("provenance") && doc["provenance"].is_array()) << f;
    ASSERT_EQ(doc["provenance"].size(), 1u) << f;  // one batch, one machine
    const auto& p = doc["provenance"][0];
    EXPECT_EQ(p["source"]["dirty"], false) << f;
    EXPECT_EQ(p["source"]["commit"].get<std::string>().size(), 40u) << f;
    EXPECT_FALSE(p["mudjack_revision"].get<std::string>().empty()) << f;
    EXPECT_FALSE(p["cpu_model"].get<std::string>().empty()) << f;
    EXPECT_TRUE(p["devices"].is_array() && !p["devices"].empty()) << f;
  }

  std::ofstream(tree / "suites" / "fuzz-planted" / "numpy.py", std::ios::app) << "\n# edited\n";
  fs::remove_all(out / "fuzz" / clean);
  r = mudjack(args);
  ASSERT_EQ(r.code, 1) << r.err;
  const std::string dirty = only_campaign(out).filename().string();
  r = mudjack(
      {"fuzz", "--publish", dirty, "--to", (dir_ / "pub2").string(), "--out", out.string()});
  ::unsetenv("MUDJACK_DATA_DIR");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "cannot be published")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "pub2"));
}

}  // namespace
