// Hostile values on every numeric flag of every command (cli/numbers.hpp,
// util/number.hpp): each is one line `mudjack: error: --FLAG must be ...`
// naming the flag and its range, exit 2; never a crash, a hang or exit 130.
// The list of numeric flags below is checked against each command's --help,
// so a numeric flag added later without the shared parser, or left out of the
// list, fails here. Also the attacker's other findings on the CLI and the
// Python API: a check target of 60,000 blank lines, a fuzz budget that ends
// mid-batch, a resumed campaign that names its own interpreter, a replayed
// graph with an oversized input, the temporary folder of mudjack.check().

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using namespace mjtest;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct NumericFlag {
  std::string command;  // as its --help is asked: "run", "cache prune"
  std::string flag;
};

// Every numeric flag of the CLI. Checked against --help below.
const std::vector<NumericFlag> kNumericFlags = {
    {"run", "--timeout-s"},
    {"run", "--budget-ms"},
    {"run", "--min-samples"},
    {"run", "--max-samples"},
    {"run", "--warmup-ms"},
    {"run", "--rounds"},
    {"run", "--cpu-probes"},
    {"run", "--device-probes"},
    {"run", "--memory-limit-mb"},
    {"run", "--seed"},
    {"check", "--budget-ms"},
    {"check", "--memory-limit-mb"},
    {"check", "--timeout-s"},
    {"repro", "--memory-limit-mb"},
    {"compare", "--threshold"},
    {"compare", "--alpha"},
    {"portability", "--top"},
    {"fuzz", "--budget"},
    {"fuzz", "--graphs"},
    {"fuzz", "--seed"},
    {"fuzz", "--nodes"},
    {"fuzz", "--batch"},
    {"fuzz", "--slow-ratio"},
    {"fuzz", "--timeout-s"},
    {"fuzz", "--memory-limit-mb"},
    {"cache prune", "--keep-last"},
    {"cache prune", "--older-than-days"},
    {"cache clean-builds", "--unused-days"},
    {"cache clean-builds", "--keep-gb"},
    {"cache build", "--jobs"},
    {"cache build", "--timeout-s"},
    {"cache build", "--seed"},
    {"serve", "--timeout-s"},
    {"serve", "--budget-ms"},
    {"serve", "--memory-limit-mb"},
    {"serve", "--port"},
    {"serve", "--backlog"},
    {"serve", "--threads"},
    {"serve", "--max-body-bytes"},
    {"serve", "--max-head-bytes"},
    {"serve", "--max-header-lines"},
    {"serve", "--max-line-bytes"},
    {"serve", "--max-queued"},
    {"serve", "--max-connections"},
    {"serve", "--request-timeout-s"},
    {"serve", "--drain-s"},
    {"serve", "--keepalive-s"},
    {"sweep", "--retries"},
    {"sweep", "--backoff-ms"},
    {"sweep", "--connect-timeout-s"},
    {"sweep", "--read-timeout-s"},
};

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string w; ss >> w;) out.push_back(w);
  return out;
}

class Hostile : public Cli {
 protected:
  std::string help(const std::string& command) {
    auto args = words(command);
    args.push_back("--help");
    auto r = mudjack(args);
    EXPECT_EQ(r.code, 0) << command << "\n" << r.err;
    return r.out;
  }

  // The subcommands a --help lists (CLI11: a SUBCOMMANDS: section).
  static std::vector<std::string> subcommands(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    bool in = false;
    for (std::string line; std::getline(ss, line);) {
      if (line.find("SUBCOMMANDS") != std::string::npos ||
          line.find("Subcommands") != std::string::npos) {
        in = true;
        continue;
      }
      if (!in) continue;
      if (line.empty() || line[0] != ' ') {
        in = !line.empty() && in && line.find(':') == std::string::npos;
        if (!in) continue;
      }
      auto w = words(line);
      if (!w.empty() && w[0][0] != '-') out.push_back(w[0]);
    }
    return out;
  }

  // Options whose value the help shows as a number (ours: INT, NUMBER,
  // DURATION; CLI11's own: INT, UINT, FLOAT).
  static std::set<std::string> numeric_options(const std::string& text) {
    static const std::regex kOption(R"((--[a-z0-9-]+) (INT|UINT|FLOAT|NUMBER|DURATION)\b)");
    std::set<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), kOption), end; it != end; ++it) {
      out.insert((*it)[1]);
    }
    return out;
  }

  // What a command needs before a numeric flag can be the first thing wrong.
  std::vector<std::string> prefix(const std::string& command) {
    const auto out = (dir_ / "results").string();
    if (command == "check") return {"check", (dir_ / "t.py").string() + ":f"};
    if (command == "compare") return {"compare", "a", "b"};
    if (command == "portability") return {"portability", "a.json", "--surface", "b.json"};
    if (command == "sweep") {
      std::ofstream(dir_ / "targets.toml") << "";
      return {"sweep", "--targets", (dir_ / "targets.toml").string(), "--out", out};
    }
    if (command == "cache clean-builds") return {"cache", "clean-builds", "--dry-run"};
    auto args = words(command);
    args.insert(args.end(), {"--out", out});
    if (command == "serve") args.push_back("--no-auth");
    return args;
  }
};

TEST_F(Hostile, TheListOfNumericFlagsIsEveryNumericFlagOfEveryCommand) {
  std::map<std::string, std::set<std::string>> listed;
  for (const auto& f : kNumericFlags) listed[f.command].insert(f.flag);
  std::vector<std::string> commands;
  for (const auto& c : subcommands(help(""))) {
    const auto text = help(c);
    const auto subs = subcommands(text);
    if (subs.empty()) commands.push_back(c);
    for (const auto& s : subs) commands.push_back(c + " " + s);
  }
  ASSERT_GE(commands.size(), 12u) << "the help's command list was not read";
  for (const auto& c : commands) {
    const auto shown = numeric_options(help(c));
    EXPECT_EQ(shown, listed[c]) << "mudjack " << c
                                << ": its numeric flags (--help) differ from kNumericFlags";
    listed.erase(c);
  }
  EXPECT_TRUE(listed.empty()) << "kNumericFlags names a command --help does not list: "
                              << listed.begin()->first;
}

TEST_F(Hostile, EveryNumericFlagRefusesHostileValuesWithOneLine) {
  const std::vector<std::string> hostile = {
      "", " ", "-1", "nan", "inf", "1e309", "1e-400", "0x10", "\xd9\xa3", std::string(50000, '7')};
  for (const auto& f : kNumericFlags) {
    auto values = hostile;
    if (f.flag == "--budget") values.push_back("3000000h");
    for (const auto& v : values) {
      auto args = prefix(f.command);
      args.insert(args.end(), {f.flag, v});
      const auto r = mudjack(args);
      const std::string shown = v.size() > 20 ? v.substr(0, 20) + "..." : v;
      const std::string what = "mudjack " + f.command + " " + f.flag + " '" + shown + "'";
      EXPECT_EQ(r.code, 2) << what << "\n" << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\n" << r.err;
      EXPECT_EQ(r.err.rfind("mudjack: error: " + f.flag + " must be ", 0), 0u)
          << what << "\n"
          << r.err.substr(0, 300);
      EXPECT_TRUE(has(r.err, " and at most ") || has(r.err, "between "))
          << what << ": no range in\n"
          << r.err.substr(0, 300);
      EXPECT_LT(r.err.size(), 400u) << what;
    }
  }
}

// framework_of read the target with std::regex, which recursed per character
// of a run of blank lines: 60,000 of them overflowed the stack (SIGSEGV).
TEST_F(Hostile, CheckOfAFileWithSixtyThousandBlankLinesIsNoCrash) {
  const auto target = dir_ / "blank.py";
  {
    std::ofstream f(target);
    f << "import numpy as np\n" << std::string(60000, '\n');
    f << "def f(x):\n    return x\n";
  }
  const auto r = mudjack({"check", target.string() + ":f", "--out", (dir_ / "r").string()});
  EXPECT_LT(r.code, 128) << "a signal: " << r.code << "\n" << r.err;
  // f has no f_inputs(): the one line that says so, not a crash.
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "mudjack: error: ")) << r.err;
}

fs::path only_campaign(const fs::path& results) {
  fs::path found;
  for (const auto& e : fs::directory_iterator(results / "fuzz")) {
    if (e.path().filename().string().rfind("fz-", 0) == 0) found = e.path();
  }
  return found;
}

// The budget ran out while a batch discovered its devices: discovery threw
// "interrupted" (exit 130), which is for a signal. The budget's end is the
// campaign's normal end: exit 0 (no findings), and the batch resumable.
// Then campaign.json, edited to name an interpreter, is refused on --resume
// before anything runs that interpreter.
TEST_F(Hostile, AFuzzBudgetEndingMidBatchIsTheNormalEndAndResumeRunsNoStoredInterpreter) {
  const auto out = dir_ / "results";
  auto r = mudjack({"fuzz", "--backends", "numpy", "--devices", "cpu", "--budget", "0.3s", "--seed",
                    "7", "--out", out.string()});
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code << "\n" << r.err;
  EXPECT_FALSE(has(r.err, "interrupted")) << r.err;
  EXPECT_TRUE(has(r.err, "cut short; --resume continues it")) << r.err;
  const auto campaign = only_campaign(out);
  ASSERT_FALSE(campaign.empty());
  const auto file = campaign / "campaign.json";
  auto j = nlohmann::json::parse(slurp(file));
  const auto marker = dir_ / "ran";
  const auto evil = dir_ / "python";
  std::ofstream(evil) << "#!/bin/sh\ntouch " << quote(marker.string()) << "\nexit 1\n";
  fs::permissions(evil, fs::perms::owner_all);
  j["options"]["python"] = {{"numpy", evil.string()}};
  std::ofstream(file) << j.dump(1);
  const auto id = campaign.filename().string();
  r = mudjack({"fuzz", "--resume", id, "--budget", "0.3s", "--out", out.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(has(r.err, "campaign.json names interpreters (--python numpy=" + evil.string()))
      << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "the interpreter campaign.json named was run";
  // Named again by this invocation, the same interpreter is the user's choice.
  j["options"]["python"] = nlohmann::json::object();
  j["options"]["profile"] = "../../../tmp";
  std::ofstream(file) << j.dump(1);
  r = mudjack({"fuzz", "--resume", id, "--budget", "0.3s", "--out", out.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "unknown profile '../../../tmp'")) << r.err;
  j["options"]["profile"] = "current";
  std::ofstream(file) << j.dump(1);
  r = mudjack({"fuzz", "--resume", id, "--budget", "0.3s", "--out", out.string()});
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code << "\n" << r.err;
}

// A --replay bundle whose graph has a 512 MiB input behind a one-row slice:
// refused by the graph check, before any probe materializes it.
TEST_F(Hostile, AReplayedGraphWithAnOversizedInputIsRefused) {
  const auto bundle = dir_ / "bundle";
  fs::create_directories(bundle);
  std::ofstream(bundle / "finding.json")
      << R"({"symptom": "mismatch", "backend": "numpy", "device": "cpu"})";
  std::ofstream(bundle / "graph.json") << R"({"format": "mudjack.graph/1", "dtype": "float32",
    "inputs": [{"name": "a", "shape": [8192, 16384], "dtype": "float32", "low": -1, "high": 1}],
    "nodes": [{"name": "b", "op": "slice", "inputs": ["a"], "shape": [1, 16384],
               "dtype": "float32", "attrs": {"axis": 0, "start": 0, "end": 1, "step": 1}}],
    "outputs": ["b"]})";
  const auto r = mudjack({"fuzz", "--replay", bundle.string(), "--out", (dir_ / "r").string()});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "input a: more than 4194304 elements")) << r.err;
}

// mudjack.check() left its mudjack-check-* folder (the target, the pickled
// inputs, the results) behind after every call: gone now after a check and
// after a refused one; kept, and named, with keep=True.
TEST_F(Hostile, ThePythonApiRemovesItsTemporaryFolderUnlessAskedToKeepIt) {
  auto doctor = mudjack({"doctor", "--framework", "numpy", "--json"});
  ASSERT_EQ(doctor.code, 0) << doctor.err;
  const auto python =
      nlohmann::json::parse(doctor.out)["frameworks"][0]["interpreter"].get<std::string>();
  const auto tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  const auto script = dir_ / "api.py";
  std::ofstream(script) << R"(import os
import numpy as np
import mudjack


def double(x):
    return x * 2


def folders():
    return sorted(n for n in os.listdir(os.environ["TMPDIR"]) if n.startswith("mudjack-check-"))


r = mudjack.check(double, np.ones(8, dtype=np.float32), quick=True, budget_ms=1)
assert r.ok and r.folder is None, r
assert folders() == [], folders()
try:
    mudjack.check(double, np.ones(3), np.ones(3))
except mudjack.CheckError:
    pass
else:
    raise SystemExit("two inputs for a one-argument function were accepted")
assert folders() == [], folders()
r = mudjack.check(double, np.ones(8, dtype=np.float32), quick=True, budget_ms=1, keep=True)
assert folders() == [os.path.basename(r.folder)], (folders(), r.folder)
assert os.path.exists(os.path.join(r.folder, "target.py")), r.folder
print("ok")
)";
  const fs::path repo = fs::path(MUDJACK_FIXTURES).parent_path().parent_path();
  const std::string cmd =
      "TMPDIR=" + quote(tmp.string()) + " PYTHONPATH=" + quote((repo / "python").string()) +
      " MUDJACK_BINARY=" + quote(kBinary) + " " + quote(python) + " " + quote(script.string()) +
      " > " + quote((dir_ / "api.out").string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  const auto out = slurp(dir_ / "api.out");
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(has(out, "ok")) << out;
}

// `curl -d` sends a form-encoded body, which cpp-httplib refuses past its
// compiled 8192 bytes; the 413 said the limit was 65,536 (the JSON body
// limit, which the intake enforces first). It names the limit that fired.
TEST_F(Hostile, AFormBodyOverEightKilobytesIsRefusedNamingItsOwnLimit) {
  const auto port_file = dir_ / "port";
  const pid_t pid = spawn({"serve", "--no-auth", "--port", "0", "--port-file", port_file.string(),
                           "--out", (dir_ / "results").string()});
  ASSERT_GT(pid, 0);
  int port = 0;
  for (int i = 0; i < 200 && port == 0; ++i) {
    if (fs::exists(port_file) && !slurp(port_file).empty()) port = std::stoi(slurp(port_file));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(port, 0) << slurp(dir_ / "background.txt");
  const std::string body(9000, 'x');
  httplib::Client client("127.0.0.1", port);
  auto res = client.Post("/v1/runs", body, "application/x-www-form-urlencoded");
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413) << res->body;
  EXPECT_TRUE(has(res->body, "larger than 8192 bytes")) << res->body;
  EXPECT_FALSE(has(res->body, "65536 bytes;")) << res->body;
  EXPECT_TRUE(has(res->body, "application/json")) << res->body;
}

}  // namespace
