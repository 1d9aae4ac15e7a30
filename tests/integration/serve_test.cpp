// Integration tests of `mudjack serve` and `mudjack sweep`: the real binary,
// real probes (numpy and torch environments from scripts/install.sh), real
// sockets on 127.0.0.1 only (ports the kernel picks), the fixture suites.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>
#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>

#include "store/store.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const std::string kBinary = MUDJACK_BINARY;
const fs::path kFixtures = MUDJACK_FIXTURES;
const std::string kToken = "test-token-0123456789abcdef";

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Exit {
  int code = -1;
  std::string out;
  std::string err;
};

// A child process of the mudjack binary with its output in a file.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<std::string> argv_s = {kBinary};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    FILE* f = std::fopen(log.c_str(), "a");
    dup2(fileno(f), 1);
    dup2(fileno(f), 2);
    execv(kBinary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid, seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

template <typename F>
bool eventually(F condition, seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return false;
}

class ServeTest : public ::testing::Test {
 protected:
  struct Server {
    pid_t pid = -1;
    int port = 0;
    fs::path out;
    fs::path log;
  };

  void SetUp() override {
    auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("mudjack-serve-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "token") << kToken << "\n";
  }
  void TearDown() override {
    for (auto& s : servers_) {
      if (s.pid > 0 && kill(s.pid, 0) == 0) {
        kill(s.pid, SIGKILL);
        waitpid(s.pid, nullptr, 0);
      }
    }
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Starts `mudjack serve` on a free port; waits until /readyz says ready.
  Server& serve(const std::string& name, std::vector<std::string> extra) {
    Server s;
    s.out = dir_ / ("results-" + name);
    s.log = dir_ / ("serve-" + name + ".log");
    auto port_file = dir_ / ("port-" + name);
    std::vector<std::string> args = {"serve",
                                     "--port",
                                     "0",
                                     "--port-file",
                                     port_file,
                                     "--token-file",
                                     (dir_ / "token").string(),
                                     "--out",
                                     s.out.string(),
                                     "--keepalive-s",
                                     "0.5"};
    args.insert(args.end(), extra.begin(), extra.end());
    s.pid = spawn(args, s.log);
    servers_.push_back(s);
    auto& ref = servers_.back();
    bool up = eventually(
        [&] {
          if (!fs::exists(port_file)) return false;
          ref.port = std::stoi(slurp(port_file));
          auto r = client(ref).Get("/readyz");
          return r && r->status == 200;
        },
        seconds(90));
    EXPECT_TRUE(up) << slurp(ref.log);
    return ref;
  }

  Server& numpy_fixtures(const std::string& name) {
    return serve(name, {"--suite-dir", (kFixtures / "suites" / "hostile").string(), "--suite-dir",
                        (kFixtures / "suites" / "slow").string(), "--framework", "numpy"});
  }

  static httplib::Client client(const Server& s) {
    httplib::Client c("127.0.0.1", s.port);
    c.set_connection_timeout(seconds(5));
    c.set_read_timeout(seconds(30));
    return c;
  }
  static httplib::Headers auth(const std::string& token = kToken) {
    return {{"Authorization", "Bearer " + token}};
  }

  static json get_json(const Server& s, const std::string& path, int expect = 200) {
    auto r = client(s).Get(path, auth());
    EXPECT_TRUE(r) << path;
    if (!r) return json();
    EXPECT_EQ(r->status, expect) << path << ": " << r->body;
    return json::parse(r->body, nullptr, false);
  }

  static json start_run(const Server& s, const json& body) {
    auto r = client(s).Post("/v1/runs", auth(), body.dump(), "application/json");
    EXPECT_TRUE(r);
    if (!r) return json();
    EXPECT_EQ(r->status, 202) << r->body;
    return json::parse(r->body, nullptr, false);
  }

  // Reads the event stream until `end` (or the connection closes).
  static std::vector<std::pair<std::string, json>> events(const Server& s, const std::string& id,
                                                          const std::string& after = "0") {
    std::vector<std::pair<std::string, json>> out;
    std::string buffer;
    auto h = auth();
    h.emplace("Last-Event-ID", after);
    client(s).Get("/v1/runs/" + id + "/events", h, [&](const char* data, size_t n) {
      buffer.append(data, n);
      size_t pos;
      while ((pos = buffer.find("\n\n")) != std::string::npos) {
        auto block = buffer.substr(0, pos);
        buffer.erase(0, pos + 2);
        std::smatch m;
        std::regex re("event: (\\w+)\ndata: (.*)");
        if (std::regex_search(block, m, re)) out.emplace_back(m[1], json::parse(m[2].str()));
      }
      return true;
    });
    return out;
  }

  Exit mudjack(const std::vector<std::string>& args) {
    auto log = dir_ / "cmd.log";
    auto err = dir_ / "cmd.err";
    std::string cmd = "'" + kBinary + "'";
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " >'" + log.string() + "' 2>'" + err.string() + "' </dev/null";
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(log), slurp(err)};
  }

  static double metric(const Server& s, const std::string& prefix) {
    auto r = client(s).Get("/metrics", auth());
    if (!r || r->status != 200) return -1;
    double total = 0;
    std::istringstream in(r->body);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(prefix, 0) == 0) total += std::stod(line.substr(line.rfind(' ') + 1));
    }
    return total;
  }

  fs::path dir_;
  std::deque<Server> servers_;
};

TEST_F(ServeTest, BadRequestsGetClearJsonErrorsAndTheServerKeepsServing) {
  auto& s = numpy_fixtures("api");
  auto c = client(s);
  // Open endpoints.
  for (const char* path : {"/healthz", "/readyz"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
  }
  struct Case {
    std::string method, path, body, token;
    int status;
    std::string message;
  };
  std::string big(70 * 1024, 'x');
  std::vector<Case> cases = {
      {"GET", "/v1/info", "", "", 401, "missing bearer token"},
      {"GET", "/metrics", "", "", 401, "missing bearer token"},
      {"POST", "/v1/runs", R"({"suite":"hostile"})", "", 401, "missing bearer token"},
      {"GET", "/v1/suites", "", "wrong-token-0123456789", 401, "invalid bearer token"},
      {"POST", "/v1/runs", "{\"suite\": ", kToken, 400, "not valid JSON"},
      {"POST", "/v1/runs", R"({"suite":"paper"})", kToken, 400, "unknown suite 'paper'"},
      {"POST", "/v1/runs", R"({"suite":"hostile","cmd":"rm -rf /"})", kToken, 400,
       "unknown field 'cmd'"},
      {"POST", "/v1/runs", R"({"suite":"hostile","filter":"nothing-matches"})", kToken, 400,
       "no cases match"},
      {"POST", "/v1/runs", R"({"suite":"hostile","device":"cuda:0"})", kToken, 400,
       "unknown device 'cuda:0'"},
      {"POST", "/v1/runs", big, kToken, 413, "larger than 65536 bytes"},
      {"POST", "/v1/runs", R"({"resume":"20990101-000000-0000"})", kToken, 404, "unknown run"},
      {"GET", "/v1/runs/no-such-run", "", kToken, 404, "unknown run 'no-such-run'"},
      {"GET", "/v1/runs/no-such-run/results", "", kToken, 404, "unknown run"},
      {"GET", "/v1/runs/no-such-run/events", "", kToken, 404, "unknown run"},
      {"DELETE", "/v1/runs/no-such-run", "", kToken, 404, "unknown run"},
      {"GET", "/v1/suites/nope/cases", "", kToken, 404, "unknown suite 'nope'"},
      {"GET", "/v1/nothing", "", kToken, 404, "no such endpoint: GET /v1/nothing"},
  };
  for (const auto& k : cases) {
    httplib::Headers h;
    if (!k.token.empty()) h = auth(k.token);
    httplib::Result r = k.method == "GET"    ? c.Get(k.path, h)
                        : k.method == "POST" ? c.Post(k.path, h, k.body, "application/json")
                                             : c.Delete(k.path, h);
    ASSERT_TRUE(r) << k.method << " " << k.path << ": no answer";
    EXPECT_EQ(r->status, k.status) << k.method << " " << k.path << ": " << r->body;
    auto doc = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << k.path << ": not JSON: " << r->body;
    EXPECT_NE(doc.value("error", "").find(k.message), std::string::npos)
        << k.method << " " << k.path << ": " << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
    if (k.status == 401) {
      EXPECT_TRUE(r->has_header("WWW-Authenticate"));
    }
  }
  // Run parameters reach the listing: a name no suite reads is refused.
  auto param = c.Post("/v1/runs", auth(), R"({"suite":"hostile","params":{"no_such_knob":3}})",
                      "application/json");
  ASSERT_TRUE(param);
  EXPECT_EQ(param->status, 400) << param->body;
  EXPECT_NE(param->body.find("no_such_knob"), std::string::npos) << param->body;
  // A real run afterwards: the server is still serving.
  auto run = start_run(s, {{"suite", "hostile"}, {"filter", "ok\\.add"}, {"budget_ms", 5}});
  auto ev = events(s, run["id"]);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().first, "end");
  EXPECT_EQ(ev.back().second["state"], "complete");
  auto bad_format =
      c.Get("/v1/runs/" + run["id"].get<std::string>() + "/results?format=pdf", auth());
  ASSERT_TRUE(bad_format);
  EXPECT_EQ(bad_format->status, 400);
  EXPECT_NE(bad_format->body.find("unknown format 'pdf'"), std::string::npos);

  // The OpenAPI document served is the one in the repo, and names every route.
  auto served = get_json(s, "/v1/openapi.json");
  auto repo = json::parse(slurp(fs::path(MUDJACK_SOURCE_DIR) / "schemas" / "openapi.json"));
  EXPECT_EQ(served, repo);
  for (const char* path : {"/healthz", "/readyz", "/metrics", "/v1/info", "/v1/suites",
                           "/v1/suites/{name}/cases", "/v1/runs", "/v1/runs/{id}",
                           "/v1/runs/{id}/results", "/v1/runs/{id}/events", "/v1/openapi.json"}) {
    EXPECT_TRUE(served["paths"].contains(path)) << path;
  }
  // Metrics count what happened, by bounded route.
  EXPECT_GE(
      metric(s, "mudjack_http_requests_total{method=\"GET\",route=\"/v1/runs/{id}\",code=\"404\"}"),
      1);
  EXPECT_GE(
      metric(s, "mudjack_http_requests_total{method=\"POST\",route=\"/v1/runs\",code=\"401\"}"), 1);
  EXPECT_EQ(
      metric(s, "mudjack_outcomes_total{framework=\"numpy\",device=\"cpu\",outcome=\"pass\"}"), 1);
  auto info = get_json(s, "/v1/info");
  EXPECT_EQ(info["service"], "mudjack");
  EXPECT_EQ(info["devices"][0]["id"], "cpu");
  EXPECT_TRUE(info["frameworks"]["numpy"]["available"].get<bool>());
  auto suites = get_json(s, "/v1/suites");
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(suites[0]["name"], "hostile");
  EXPECT_EQ(suites[0]["cases"], 10);
}

TEST_F(ServeTest, RunsQueuePerDeviceStreamEventsAndShareTheStore) {
  auto& s = numpy_fixtures("queue");
  auto first = start_run(s, {{"suite", "slow"}, {"budget_ms", 5}, {"rounds", 1}});
  auto second = start_run(s, {{"suite", "hostile"}, {"filter", "ok\\."}, {"budget_ms", 5}});
  EXPECT_EQ(first["state"], "running");
  EXPECT_EQ(second["state"], "queued") << "one run per device: cpu is busy";
  EXPECT_EQ(second["queue_position"], 0);

  auto ev = events(s, second["id"]);
  ASSERT_GE(ev.size(), 4u);
  EXPECT_EQ(ev.front().second["state"], "queued");
  EXPECT_EQ(ev[1].second["state"], "running");
  std::set<std::string> outcome_cases;
  for (const auto& [name, data] : ev) {
    if (name == "outcome") outcome_cases.insert(data["case"]["id"].get<std::string>());
  }
  EXPECT_EQ(outcome_cases.size(), 2u);
  EXPECT_EQ(ev.back().first, "end");
  // The second started only after the first ended.
  auto one = get_json(s, "/v1/runs/" + first["id"].get<std::string>());
  auto two = get_json(s, "/v1/runs/" + second["id"].get<std::string>());
  EXPECT_EQ(one["state"], "complete");
  EXPECT_EQ(one["done"], 8);
  EXPECT_GE(two["started_at"].get<std::string>(), one["finished_at"].get<std::string>());

  // Resuming a stream after event 2 gives the rest, nothing twice.
  auto tail = events(s, second["id"], "2");
  EXPECT_EQ(tail.size(), ev.size() - 2);

  // Every view, and the same store `mudjack runs` and `report` read.
  for (const char* format : {"json", "csv", "junit", "md", "html"}) {
    auto r = client(s).Get(
        "/v1/runs/" + second["id"].get<std::string>() + "/results?format=" + format, auth());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << format;
    auto expected = std::string(format) == "md" || std::string(format) == "html"
                        ? second["id"].get<std::string>()
                        : "ok.add";
    EXPECT_NE(r->body.find(expected), std::string::npos) << format;
  }
  auto doc = get_json(s, "/v1/runs/" + second["id"].get<std::string>() + "/results");
  EXPECT_EQ(doc["cases"].size(), 2u);
  EXPECT_EQ(doc["run"]["state"], "complete");
  auto runs = mudjack({"runs", "--out", s.out.string(), "--json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out).size(), 2u);
  auto report = mudjack({"report", second["id"], "--out", s.out.string(), "--format", "csv"});
  EXPECT_EQ(report.code, 0) << report.err;
  EXPECT_TRUE(fs::exists(s.out / "runs" / first["id"].get<std::string>() / "results.json"));
}

// /v1/info describes the machine, the source tree's state among it (two git
// commands): asked 20 more times after the first, git runs no more (the answer is kept
// 30 s). Before, every request ran git twice, and 150 requests kept the
// machine busy 47 s.
TEST_F(ServeTest, InfoDoesNotRunGitPerRequest) {
  const auto bin = dir_ / "bin";
  const auto calls = dir_ / "git-calls";
  fs::create_directories(bin);
  std::ofstream(bin / "git") << "#!/bin/sh\necho \"$*\" >> '" << calls.string()
                             << "'\nexec /usr/bin/git \"$@\"\n";
  fs::permissions(bin / "git", fs::perms::owner_all);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  ::setenv("PATH", (bin.string() + ":" + path).c_str(), 1);
  auto& s = numpy_fixtures("info");
  ::setenv("PATH", path.c_str(), 1);
  auto count = [&] {
    std::ifstream in(calls);
    size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  };
  EXPECT_TRUE(get_json(s, "/v1/info").contains("environment"));
  const size_t first = count();
  ASSERT_GE(first, 1u) << "git did not run through the wrapper: the test would prove nothing";
  for (int i = 0; i < 20; ++i) {
    auto info = get_json(s, "/v1/info");
    EXPECT_TRUE(info.contains("environment")) << info.dump();
  }
  EXPECT_EQ(count(), first) << slurp(calls);
}

TEST_F(ServeTest, CancelKeepsFinishedOutcomesAndResumeFinishesTheRun) {
  auto& s = numpy_fixtures("cancel");
  auto run = start_run(s, {{"suite", "slow"}, {"budget_ms", 5}, {"rounds", 1}});
  auto queued = start_run(s, {{"suite", "slow"}, {"budget_ms", 5}, {"rounds", 1}});
  std::string id = run["id"];
  // Cancel the queued one at once.
  auto del = client(s).Delete("/v1/runs/" + queued["id"].get<std::string>(), auth());
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 200) << del->body;
  EXPECT_EQ(json::parse(del->body)["state"], "cancelled");

  ASSERT_TRUE(eventually([&] { return get_json(s, "/v1/runs/" + id)["done"] >= 2; }, seconds(60)));
  del = client(s).Delete("/v1/runs/" + id, auth());
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 202) << del->body;
  auto ev = events(s, id);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().first, "end");
  EXPECT_EQ(ev.back().second["state"], "cancelled");
  auto status = get_json(s, "/v1/runs/" + id);
  size_t kept = status["done"];
  EXPECT_GE(kept, 2u);
  EXPECT_LT(kept, 8u);
  auto again = client(s).Delete("/v1/runs/" + id, auth());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409) << again->body;

  auto before = get_json(s, "/v1/runs/" + id + "/results");
  std::map<std::string, std::string> started;
  for (const auto& c : before["cases"]) started[c["id"]] = c["started_at"];
  auto resumed =
      client(s).Post("/v1/runs", auth(), json{{"resume", id}}.dump(), "application/json");
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->status, 202) << resumed->body;
  ev = events(s, id, "0");
  EXPECT_EQ(ev.back().second["state"], "complete");
  // The resumed run's counts hold every outcome, the first execution's too.
  auto done = get_json(s, "/v1/runs/" + id);
  EXPECT_EQ(done["done"], 8) << done.dump();
  size_t counted = 0;
  for (const auto& [outcome, n] : done["counts"].items()) counted += n.get<size_t>();
  EXPECT_EQ(counted, 8u) << done.dump();
  auto after = get_json(s, "/v1/runs/" + id + "/results");
  ASSERT_EQ(after["cases"].size(), 8u);
  for (const auto& c : after["cases"]) {
    auto it = started.find(c["id"]);
    if (it != started.end()) {
      EXPECT_EQ(c["started_at"], it->second) << "finished case ran again";
    }
  }
  auto complete =
      client(s).Post("/v1/runs", auth(), json{{"resume", id}}.dump(), "application/json");
  ASSERT_TRUE(complete);
  EXPECT_EQ(complete->status, 409);
}

TEST_F(ServeTest, SigtermStopsAcceptingCancelsAndKeepsEveryFinishedOutcome) {
  auto& s = numpy_fixtures("sigterm");
  auto run = start_run(s, {{"suite", "slow"}, {"budget_ms", 5}, {"rounds", 1}});
  std::string id = run["id"];
  std::vector<std::pair<std::string, json>> ev;
  std::thread follower([&] { ev = events(s, id); });
  ASSERT_TRUE(eventually([&] { return get_json(s, "/v1/runs/" + id)["done"] >= 2; }, seconds(60)));
  kill(s.pid, SIGTERM);
  EXPECT_EQ(wait_exit(s.pid, seconds(30)), 0) << slurp(s.log);
  follower.join();
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().first, "end") << "the stream got its end before the server left";
  EXPECT_EQ(ev.back().second["state"], "cancelled");
  auto c = client(s);
  EXPECT_FALSE(c.Get("/healthz")) << "still accepting after SIGTERM";
  size_t streamed = 0;
  for (const auto& [name, data] : ev) streamed += name == "outcome";
  auto runs = mudjack({"runs", "--out", s.out.string(), "--json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  auto list = json::parse(runs.out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["state"], "incomplete");
  EXPECT_EQ(list[0]["results"].get<size_t>(), streamed) << "every streamed outcome is stored";
  EXPECT_GE(streamed, 2u);
  // And the CLI can finish what the server started.
  auto resume = mudjack({"run", "--resume", id, "--out", s.out.string()});
  EXPECT_EQ(resume.code, 0) << resume.err;
  EXPECT_NE(slurp(s.log).find("draining"), std::string::npos);
}

TEST_F(ServeTest, RunParametersReachTheListingAndTheProbe) {
  auto& s = serve("params", {"--suite", "capability", "--framework", "numpy"});
  auto run = start_run(s, {{"suite", "capability"},
                           {"filter", "^numpy/jit/"},
                           {"params", {{"jit_size", 1000}}},
                           {"budget_ms", 5}});
  EXPECT_EQ(run["planned"], 1) << "the grid follows the parameter: one size";
  auto ev = events(s, run["id"]);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().second["state"], "complete");
  auto doc = get_json(s, "/v1/runs/" + run["id"].get<std::string>() + "/results");
  ASSERT_EQ(doc["cases"].size(), 1u);
  EXPECT_EQ(doc["cases"][0]["id"], "numpy/jit/float32-1000-eager");
  EXPECT_EQ(doc["cases"][0]["outcome"], "pass");
  EXPECT_EQ(doc["run"]["options"]["params"], (json{{"jit_size", "1000"}}));
}

// The threat model of docs/deploy.md, one "cannot" at a time: a token holder
// cannot name a path in a parameter, cannot resume a run whose parameters
// name one, and cannot read the token through a probe.
TEST_F(ServeTest, ATokenHolderCannotNamePathsNorReadTheTokenThroughAProbe) {
  const auto out = dir_ / "results-threat";
  // A run stored by another command, with a path in a parameter, left unfinished.
  auto cli = mudjack({"run", "--suite", "capability", "--framework", "numpy", "--filter",
                      "^numpy/jit/", "--param", "jit_size=1000", "--param",
                      "data_dir=" + dir_.string(), "--budget-ms", "5", "--out", out.string()});
  ASSERT_EQ(cli.code, 0) << cli.err;
  const auto listed =
      json::parse(mudjack({"runs", "--out", out.string(), "--json"}).out, nullptr, false);
  ASSERT_TRUE(listed.is_array() && listed.size() == 1) << listed.dump();
  const std::string stored_id = listed[0]["id"];
  mudjack::store::Store::open(out / "mudjack.db")
      ->set_run_state(stored_id, "incomplete", "2026-01-01T00:00:00.000Z");
  ::setenv("MUDJACK_TOKEN", kToken.c_str(), 1);
  ::setenv("MUDJACK_LEAK_FILE", (dir_ / "token").c_str(), 1);
  auto& s = serve("threat", {"--suite", "capability", "--suite-dir",
                             (kFixtures / "suites" / "leak").string(), "--framework", "numpy"});
  ::unsetenv("MUDJACK_TOKEN");
  ::unsetenv("MUDJACK_LEAK_FILE");
  auto c = client(s);
  for (const auto& [body, status, message] : std::vector<std::tuple<std::string, int, std::string>>{
           {R"({"suite":"capability","params":{"data_dir":"/etc"}})", 400,
            "parameter 'data_dir' names a file or folder on the server"},
           {R"({"suite":"check","params":{"target":"/tmp/x.py:f"}})", 400, "unknown suite 'check'"},
           {R"({"suite":"fuzz","params":{"graphs":"/tmp"}})", 400, "unknown suite 'fuzz'"},
           {R"({"resume":")" + stored_id + R"("})", 409,
            "names a path in its parameter 'data_dir'"}}) {
    auto r = c.Post("/v1/runs", auth(), body, "application/json");
    ASSERT_TRUE(r) << body;
    EXPECT_EQ(r->status, status) << body << ": " << r->body;
    EXPECT_NE(r->body.find(message), std::string::npos) << body << ": " << r->body;
  }
  auto run = start_run(s, {{"suite", "leak"}, {"budget_ms", 5}});
  auto ev = events(s, run["id"]);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().second["state"], "complete");
  const std::string id = run["id"];
  for (const std::string format : {"json", "csv", "junit", "md", "html"}) {
    auto r = c.Get("/v1/runs/" + id + "/results?format=" + format, auth());
    ASSERT_TRUE(r) << format;
    EXPECT_EQ(r->body.find(kToken), std::string::npos) << format << " leaks the token";
  }
  const auto doc = get_json(s, "/v1/runs/" + id + "/results");
  ASSERT_EQ(doc["cases"].size(), 1u);
  const std::string message = doc["cases"][0]["error"].dump();
  EXPECT_NE(message.find("env=None"), std::string::npos) << "a probe's environment holds the token";
  EXPECT_NE(message.find("file=[redacted]"), std::string::npos) << message;
  for (const auto& entry : fs::recursive_directory_iterator(s.out / "runs" / id)) {
    if (entry.is_regular_file() && entry.path().extension() != ".gz") {
      EXPECT_EQ(slurp(entry.path()).find(kToken), std::string::npos) << entry.path();
    }
  }
}

TEST_F(ServeTest, StartupProblemsAreOneLineAndExitTwo) {
  auto hostile = (kFixtures / "suites" / "hostile").string();
  std::ofstream(dir_ / "short") << "abc\n";
  auto& s = numpy_fixtures("busy");
  struct Bad {
    std::vector<std::string> args;
    std::string message;
  };
  ::unsetenv("MUDJACK_TOKEN");
  std::vector<Bad> cases = {
      {{"serve", "--suite-dir", hostile, "--port", "0"}, "no API token"},
      {{"serve", "--suite-dir", hostile, "--token-file", (dir_ / "short").string()},
       "shorter than 16 characters"},
      {{"serve", "--suite-dir", hostile, "--token-file", (dir_ / "none").string()},
       "cannot read token file"},
      {{"serve", "--suite-dir", hostile, "--token-file", (dir_ / "token").string(), "--port",
        std::to_string(s.port), "--out", (dir_ / "x").string()},
       "cannot listen on 127.0.0.1:" + std::to_string(s.port)},
      {{"serve", "--suite", "no-such-suite", "--token-file", (dir_ / "token").string()},
       "unknown suite 'no-such-suite'"},
      {{"serve", "--framework", "caffe", "--token-file", (dir_ / "token").string()},
       "unknown framework 'caffe'"},
  };
  for (const auto& c : cases) {
    auto r = mudjack(c.args);
    EXPECT_EQ(r.code, 2) << c.message << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("mudjack: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Suites that run whatever a path parameter names are never offered with
  // a path a request could set (docs/deploy.md, "What a token holder can
  // do"). Suites are listed once the socket is bound (readiness), so the
  // error is the last line after the one that says where it listened.
  for (const auto& [suite, param] : {std::pair{"check", "target"}, std::pair{"fuzz", "graphs"}}) {
    auto r = mudjack({"serve", "--suite", suite, "--framework", "numpy", "--port", "0",
                      "--token-file", (dir_ / "token").string(), "--out", (dir_ / "x").string()});
    EXPECT_EQ(r.code, 2) << r.err;
    const auto last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
    EXPECT_EQ(last, std::string("mudjack: error: suite '") + suite +
                        "' runs only what its parameter '" + param +
                        "' names, and a server never takes a path from a request; set " + param +
                        " in mudjack.toml's [params] to offer it\n")
        << r.err;
  }
}

// ---- sweep -------------------------------------------------------------------

class SweepTest : public ServeTest {
 protected:
  fs::path targets(const std::string& toml) {
    auto p = dir_ / "targets.toml";
    std::ofstream(p) << toml;
    return p;
  }
  static std::string target(const std::string& label, const Server& s, const std::string& run) {
    return "[[target]]\nlabel = \"" + label +
           "\"\nurl = \"http://127.0.0.1:" + std::to_string(s.port) +
           "\"\ntoken_file = \"token\"\nchip = \"cpu-amd64\"\n" + run;
  }
};

TEST_F(SweepTest, ServersOfDifferentFrameworksOneKilledMidRunNothingFinishedIsLost) {
  auto& numpy = numpy_fixtures("numpy");
  auto& slow = numpy_fixtures("slow");
  auto& torch = serve("torch", {"--suite", "paper", "--framework", "torch"});
  auto file = targets(
      "[run]\nbudget_ms = 5\nrounds = 1\n\n" +
      target("numpy-box", numpy,
             "framework = \"numpy\"\n[target.run]\nsuite = \"hostile\"\nfilter = \"ok\\\\.\"\n") +
      target("torch-box", torch,
             "framework = \"torch\"\n[target.run]\nsuite = \"paper\"\n"
             "filter = \"torch.argsort/float32-(small|large)-eager\"\n") +
      target("doomed", slow, "[target.run]\nsuite = \"slow\"\n"));
  auto out = dir_ / "sweep";
  pid_t sweep = spawn({"sweep", "--targets", file.string(), "--out", out.string(), "--retries", "2",
                       "--backoff-ms", "100"},
                      dir_ / "sweep.log");
  // Kill the slow target once it has finished two cases.
  ASSERT_TRUE(eventually(
      [&] {
        return metric(
                   slow,
                   "mudjack_outcomes_total{framework=\"numpy\",device=\"cpu\",outcome=\"pass\"}") >=
               2;
      },
      seconds(60)))
      << slurp(dir_ / "sweep.log");
  kill(slow.pid, SIGKILL);
  waitpid(slow.pid, nullptr, 0);
  EXPECT_EQ(wait_exit(sweep, seconds(180)), 1) << slurp(dir_ / "sweep.log");
  auto log = slurp(dir_ / "sweep.log");
  EXPECT_NE(log.find("mudjack: target doomed failed: lost the target mid-run"), std::string::npos)
      << log;

  auto state = json::parse(slurp(out / "sweep.json"));
  EXPECT_EQ(state["targets"]["numpy-box"]["status"], "complete") << state.dump(1);
  EXPECT_EQ(state["targets"]["torch-box"]["status"], "complete") << state.dump(1);
  EXPECT_EQ(state["targets"]["doomed"]["status"], "failed");
  EXPECT_TRUE(state["targets"]["doomed"]["partial"].get<bool>());
  size_t kept = state["targets"]["doomed"]["outcomes"];
  EXPECT_GE(kept, 2u);

  // One store, one cross-chip run: every target's devices apart, the dead
  // one's finished outcomes included.
  auto runs = mudjack({"runs", "--out", out.string(), "--json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  auto list = json::parse(runs.out);
  ASSERT_EQ(list.size(), 1u);
  auto merged_id = list[0]["id"].get<std::string>();
  auto merged = json::parse(slurp(out / "runs" / merged_id / "results.json"));
  std::map<std::string, size_t> per_device;
  for (const auto& c : merged["cases"]) ++per_device[c["device"].get<std::string>()];
  EXPECT_EQ(per_device["numpy-box/cpu"], 2u);
  EXPECT_EQ(per_device["torch-box/cpu"], 2u);
  EXPECT_EQ(per_device["doomed/cpu"], kept);
  EXPECT_EQ(merged["run"]["state"], "incomplete");
  for (const auto& c : merged["cases"]) {
    if (c["framework"] == "torch") {
      EXPECT_EQ(c["outcome"], "pass") << c["id"];
    }
  }
  EXPECT_TRUE(fs::exists(out / "runs" / merged_id / "summary.md"));
  auto md = mudjack({"report", merged_id, "--out", out.string(), "--format", "md"});
  EXPECT_EQ(md.code, 0);
  EXPECT_NE(md.out.find("doomed/cpu"), std::string::npos);
}

TEST_F(SweepTest, InterruptedSweepResumesWithoutRepeatingOrLosingOutcomes) {
  auto& slow = numpy_fixtures("slow");
  auto file =
      targets("[run]\nsuite = \"slow\"\nbudget_ms = 5\nrounds = 1\n\n" + target("box", slow, ""));
  auto out = dir_ / "sweep";
  pid_t sweep =
      spawn({"sweep", "--targets", file.string(), "--out", out.string()}, dir_ / "sweep.log");
  ASSERT_TRUE(eventually(
      [&] {
        std::ifstream f(out / "targets" / "box" / "events.jsonl");
        return std::count(std::istreambuf_iterator<char>(f), {}, '\n') >= 2;
      },
      seconds(60)));
  kill(sweep, SIGINT);
  EXPECT_EQ(wait_exit(sweep, seconds(30)), 130) << slurp(dir_ / "sweep.log");
  EXPECT_NE(slurp(dir_ / "sweep.log").find("--resume"), std::string::npos);

  auto again = mudjack({"sweep", "--targets", file.string(), "--out", out.string()});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("already holds a sweep"), std::string::npos) << again.err;

  auto r = mudjack({"sweep", "--targets", file.string(), "--out", out.string(), "--resume"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  std::ifstream f(out / "targets" / "box" / "events.jsonl");
  std::set<std::string> ids;
  std::string line;
  size_t lines = 0;
  while (std::getline(f, line)) {
    ++lines;
    ids.insert(json::parse(line)["case"]["id"].get<std::string>());
  }
  EXPECT_EQ(lines, 8u) << "each outcome once";
  EXPECT_EQ(ids.size(), 8u);
  auto state = json::parse(slurp(out / "sweep.json"));
  EXPECT_EQ(state["targets"]["box"]["status"], "complete");
  auto results = json::parse(slurp(out / "targets" / "box" / "results.json"));
  EXPECT_EQ(results["cases"].size(), 8u);

  // Resuming a finished sweep touches nothing remote and exits 0.
  r = mudjack({"sweep", "--targets", file.string(), "--out", out.string(), "--resume"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto runs = mudjack({"runs", "--out", out.string(), "--json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out).size(), 1u) << "one merged run, not one per resume";
}

TEST_F(SweepTest, ARunCancelledOnTheTargetIsResumedThereByResume) {
  auto& slow = numpy_fixtures("slow");
  auto file =
      targets("[run]\nsuite = \"slow\"\nbudget_ms = 5\nrounds = 1\n\n" + target("box", slow, ""));
  auto out = dir_ / "sweep";
  pid_t sweep =
      spawn({"sweep", "--targets", file.string(), "--out", out.string()}, dir_ / "sweep.log");
  std::string run_id;
  ASSERT_TRUE(eventually(
      [&] {
        auto state = json::parse(slurp(out / "sweep.json"), nullptr, false);
        if (!state.is_object()) return false;
        run_id = state["targets"]["box"].value("run_id", "");
        return !run_id.empty() && get_json(slow, "/v1/runs/" + run_id)["done"] >= 2;
      },
      seconds(60)));
  auto del = client(slow).Delete("/v1/runs/" + run_id, auth());
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 202);
  EXPECT_EQ(wait_exit(sweep, seconds(60)), 1) << slurp(dir_ / "sweep.log");
  EXPECT_NE(slurp(dir_ / "sweep.log").find("the run ended cancelled on the target"),
            std::string::npos)
      << slurp(dir_ / "sweep.log");
  auto partial = json::parse(slurp(out / "targets" / "box" / "results.json"));
  size_t kept = partial["cases"].size();
  EXPECT_GE(kept, 2u);
  EXPECT_LT(kept, 8u);

  auto r = mudjack({"sweep", "--targets", file.string(), "--out", out.string(), "--resume"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  auto state = json::parse(slurp(out / "sweep.json"));
  EXPECT_EQ(state["targets"]["box"]["status"], "complete");
  EXPECT_EQ(state["targets"]["box"]["run_id"], run_id) << "the same run, resumed on the target";
  EXPECT_EQ(state["targets"]["box"]["outcomes"], 8);
  auto results = json::parse(slurp(out / "targets" / "box" / "results.json"));
  ASSERT_EQ(results["cases"].size(), 8u);
  std::map<std::string, std::string> started;
  for (const auto& c : partial["cases"]) started[c["id"]] = c["started_at"];
  for (const auto& c : results["cases"]) {
    auto it = started.find(c["id"]);
    if (it != started.end()) {
      EXPECT_EQ(c["started_at"], it->second) << "a finished case ran again";
    }
  }
}

TEST_F(SweepTest, WrongTokensAndBadFilesAreClearFailures) {
  auto& s = numpy_fixtures("auth");
  std::ofstream(dir_ / "wrong") << "wrong-token-0123456789\n";
  auto file =
      targets("[run]\nsuite = \"hostile\"\nfilter = \"ok\\\\.add\"\nbudget_ms = 5\n\n" +
              target("good", s, "") + "[[target]]\nlabel = \"bad\"\nurl = \"http://127.0.0.1:" +
              std::to_string(s.port) + "\"\ntoken_file = \"wrong\"\n");
  auto r = mudjack({"sweep", "--targets", file.string(), "--out", (dir_ / "o1").string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("target bad failed: token rejected: invalid bearer token"),
            std::string::npos)
      << r.err;
  auto state = json::parse(slurp(dir_ / "o1" / "sweep.json"));
  EXPECT_EQ(state["targets"]["good"]["status"], "complete");

  std::ofstream(dir_ / "broken.toml") << "[[target]]\nlabel = \"a\"\nurl = \"ftp://x\"\n";
  r = mudjack(
      {"sweep", "--targets", (dir_ / "broken.toml").string(), "--out", (dir_ / "o2").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not an http://HOST[:PORT] URL"), std::string::npos) << r.err;
  r = mudjack({"sweep", "--targets", file.string(), "--out", (dir_ / "o3").string(), "--resume"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no sweep to resume"), std::string::npos) << r.err;
  // A target nobody listens on fails after its retries; the others still complete.
  auto dead = targets("[run]\nsuite = \"hostile\"\nfilter = \"ok\\\\.add\"\nbudget_ms = 5\n\n" +
                      target("good", s, "") +
                      "[[target]]\nlabel = \"nobody\"\nurl = \"http://127.0.0.1:1\"\n");
  r = mudjack({"sweep", "--targets", dead.string(), "--out", (dir_ / "o4").string(), "--retries",
               "1", "--backoff-ms", "50"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("target nobody failed: unreachable: cannot connect"), std::string::npos)
      << r.err;
}

}  // namespace
