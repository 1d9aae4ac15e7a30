// Unit tests for the sweep's targets file (TOML and JSON, and every bad
// input a user can write) and its retry backoff.

#include "fleet/targets.hpp"

#include <gtest/gtest.h>

#include "fleet/sweep.hpp"
#include "util/error.hpp"

namespace mudjack::fleet {
namespace {

using nlohmann::json;

TEST(Targets, TomlWithDefaultsOverridesAndLabels) {
  auto targets = parse_targets(R"(
[run]
suite = "paper"
filter = "argsort"
budget_ms = 5

[[target]]
label = "h100-torch"
url = "http://10.0.0.7:8080/"
token_file = "h100.token"
chip = "nvidia-h100"
framework = "torch"
image = "mudjack:torch-cuda"
[target.run]
devices = ["cuda:0"]
filter = "sum"

[[target]]
label = "cpu"
url = "http://[::1]"
token_file = "/abs/token"
)",
                               "toml", "/etc/mudjack", "targets.toml");
  ASSERT_EQ(targets.size(), 2u);
  const auto& a = targets[0];
  EXPECT_EQ(a.label, "h100-torch");
  EXPECT_EQ(a.url, "http://10.0.0.7:8080");
  EXPECT_EQ(a.host, "10.0.0.7");
  EXPECT_EQ(a.port, 8080);
  EXPECT_EQ(*a.token_file, "/etc/mudjack/h100.token");
  EXPECT_EQ(a.chip, "nvidia-h100");
  EXPECT_EQ(a.image, "mudjack:torch-cuda");
  EXPECT_EQ(a.request["suite"], "paper");
  EXPECT_EQ(a.request["filter"], "sum") << "the target's own run table wins";
  EXPECT_EQ(a.request["budget_ms"], 5);
  EXPECT_EQ(a.request["devices"], json::array({"cuda:0"}));
  EXPECT_EQ(a.request["frameworks"], json::array({"torch"})) << "framework label selects";
  const auto& b = targets[1];
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 80);
  EXPECT_EQ(*b.token_file, "/abs/token");
  EXPECT_FALSE(b.request.contains("frameworks"));
}

TEST(Targets, JsonHasTheSameShape) {
  auto targets = parse_targets(
      R"({"run": {"suite": "hostile"},
          "targets": [{"label": "a", "url": "http://127.0.0.1:9000", "framework": "numpy",
                       "run": {"frameworks": ["numpy", "torch"]}}]})",
      "json", "/tmp", "t.json");
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].port, 9000);
  EXPECT_EQ(targets[0].request["frameworks"], json::array({"numpy", "torch"}))
      << "an explicit framework list is not overridden by the label";
}

struct Bad {
  std::string text;
  std::string format;
  std::string message;
};

TEST(Targets, EveryBadInputIsOneClearError) {
  const std::string ok = "[[target]]\nlabel = \"a\"\nurl = \"http://h:1\"\n";
  std::vector<Bad> cases = {
      {"[run\nsuite=", "toml", "targets.toml: line 1"},
      {"{", "json", "not valid JSON"},
      {"[1]", "json", "must be a table/object"},
      {"[run]\nsuite = \"paper\"\n", "toml", "no targets"},
      {"colour = 1\n" + ok, "toml", "unknown key 'colour'"},
      {"[run]\nsuite=\"p\"\n[[target]]\nurl = \"http://h:1\"\n", "toml", "target 1 has no 'label'"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"a\"\n", "toml", "target 'a' has no 'url'"},
      {"[run]\nsuite=\"p\"\n" + ok + ok, "toml", "two targets are labelled 'a'"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"../x\"\nurl = \"http://h:1\"\n", "toml",
       "a label is 1-64 of"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"a\"\nurl = \"https://h:1\"\n", "toml",
       "https is not supported"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"a\"\nurl = \"ftp://h\"\n", "toml",
       "is not an http://HOST[:PORT] URL"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"a\"\nurl = \"http://h:99999\"\n", "toml",
       "out of range"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"a\"\nurl = \"http://h/path\"\n", "toml",
       "is not an http://HOST[:PORT] URL"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = \"a\"\nurl = \"http://h:1\"\ncolour = 2\n", "toml",
       "target 1: unknown key 'colour'"},
      {"[run]\nsuite=\"p\"\n[[target]]\nlabel = 5\nurl = \"http://h:1\"\n", "toml",
       "label must be a non-empty string"},
      {ok, "toml", "no suite to run"},
      {"[run]\nsuite=\"p\"\nresume=\"x\"\n" + ok, "toml", "'resume' is not for targets files"},
      {R"({"run": 3, "targets": [{"label": "a", "url": "http://h:1"}]})", "json",
       "'run' must be a table/object"},
      {R"({"run": {"suite": "p"}, "targets": [{"label": "a", "url": "http://h:1", "run": []}]})",
       "json", "target 'a'.run must be a table/object"},
      {R"({"run": {"suite": "p"}, "target": []})", "json", "unknown key 'target'"},
  };
  for (const auto& c : cases) {
    try {
      parse_targets(c.text, c.format, "/tmp", c.format == "json" ? "t.json" : "targets.toml");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const util::FatalError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(c.message), std::string::npos) << c.text << "\n-> " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
    }
  }
  EXPECT_THROW(load_targets("/nonexistent/targets.toml"), util::FatalError);
}

TEST(Targets, LabelsThatAreNotPlainFolderNamesAreRefused) {
  // A label names targets/<label>/: "." and ".." would be the sweep folder
  // or its parent; separators and control characters are never names.
  for (const std::string label : {".", "..", "a/b", "../x", "a\\\\b", "a\\nb", "a\\u001b[2Jb",
                                  "a\\tb", " a", "", "\\u00e9"}) {
    const std::string text = R"({"run": {"suite": "p"}, "targets": [{"label": ")" + label +
                             R"(", "url": "http://h:1"}]})";
    try {
      parse_targets(text, "json", "/tmp", "t.json");
      ADD_FAILURE() << "accepted label: " << text;
    } catch (const util::FatalError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(label.empty() ? "non-empty string" : "a label is 1-64 of"),
                std::string::npos)
          << text << "\n-> " << what;
      EXPECT_NE(what.find("t.json: target 1"), std::string::npos) << "named by position: " << what;
      for (char c : what) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << what;
    }
  }
  for (const std::string label : {"a.b", "...", "h100_torch-2", ".hidden"}) {
    const std::string text = R"({"run": {"suite": "p"}, "targets": [{"label": ")" + label +
                             R"(", "url": "http://h:1"}]})";
    EXPECT_EQ(parse_targets(text, "json", "/tmp", "t.json").at(0).label, label);
  }
}

TEST(Sweep, BackoffDoublesUpToTheCap) {
  SweepOptions o;
  o.backoff = std::chrono::milliseconds(100);
  o.backoff_max = std::chrono::milliseconds(1000);
  EXPECT_EQ(backoff_delay(o, 0).count(), 100);
  EXPECT_EQ(backoff_delay(o, 1).count(), 200);
  EXPECT_EQ(backoff_delay(o, 3).count(), 800);
  EXPECT_EQ(backoff_delay(o, 4).count(), 1000);
  EXPECT_EQ(backoff_delay(o, 60).count(), 1000) << "no overflow on long outages";
}

}  // namespace
}  // namespace mudjack::fleet
