// Unit tests for the server's pure parts: request validation, Prometheus
// text, bearer tokens, routes, and the listening socket's backlog (real
// sockets on 127.0.0.1).

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "server/metrics.hpp"
#include "server/request.hpp"
#include "server/routes.hpp"
#include "server/server.hpp"
#include "util/error.hpp"

namespace mudjack::server {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

model::CaseInfo make_case(const std::string& fw, const std::string& fn) {
  model::CaseInfo c;
  c.framework = fw;
  c.function = fn;
  c.variant = "v";
  c.id = fw + "/" + fn + "/v";
  return c;
}

Catalog catalog() {
  Catalog c;
  c.suites["paper"] = "/suites/paper";
  c.suites["small"] = "/suites/small";
  c.cases["paper"] = {make_case("numpy", "sum"), make_case("torch", "sum"),
                      make_case("torch", "argsort")};
  c.cases["small"] = {make_case("numpy", "add"), make_case("torch", "sum")};
  c.frameworks = {"numpy", "torch"};
  c.devices = {"cpu", "cuda:0"};
  return c;
}

Result<RunRequest> parse(const std::string& body) {
  return parse_run_request(body, catalog());
}

TEST(RunRequest, NoBaselineIsABoolean) {
  EXPECT_FALSE(parse(R"({"suite": "paper", "device": "cuda:0"})")->no_baseline);
  auto p = parse(R"({"suite": "paper", "device": "cuda:0", "no_baseline": true})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->no_baseline);
  auto bad = parse(R"({"suite": "paper", "no_baseline": "yes"})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "'no_baseline' must be true or false");
}

TEST(RunRequest, CpuProbesIsAnIntegerInItsRange) {
  EXPECT_FALSE(parse(R"({"suite": "paper"})")->cpu_probes.has_value());
  auto p = parse(R"({"suite": "paper", "cpu_probes": 6})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->cpu_probes, 6);
  EXPECT_FALSE(parse(R"({"suite": "paper", "cpu_probes": -1})"));
  EXPECT_FALSE(parse(R"({"suite": "paper", "cpu_probes": 2.5})"));
}

TEST(RunRequest, PolicyIsTimedOrOnce) {
  EXPECT_EQ(parse(R"({"suite": "paper"})")->policy, "");
  auto p = parse(R"({"suite": "paper", "policy": "once"})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->policy, "once");
}

TEST(RunRequest, AcceptsAFullRequest) {
  auto p = parse(R"({"suite": ["paper", "small"], "frameworks": ["torch"], "device": "cuda:0",
                    "filter": "sum", "timeout_s": 30, "budget_ms": 5, "warmup_ms": 0,
                    "min_samples": 2, "max_samples": 9, "seed": 3, "baseline": "cpu",
                    "serial": true, "params": {"matrix_size": 64, "fast": true, "dir": "/d"}})");
  ASSERT_TRUE(p) << p.error().message;
  const auto& r = *p;
  EXPECT_EQ(r.suites, (std::vector<std::string>{"paper", "small"}));
  EXPECT_EQ(r.frameworks, (std::vector<std::string>{"torch"}));
  EXPECT_EQ(r.devices, (std::vector<std::string>{"cuda:0"}));
  EXPECT_EQ(r.filter, "sum");
  EXPECT_EQ(*r.timeout_s, 30);
  EXPECT_EQ(*r.budget_ms, 5);
  EXPECT_EQ(*r.warmup_ms, 0);
  EXPECT_EQ(*r.min_samples, 2);
  EXPECT_EQ(*r.max_samples, 9);
  EXPECT_EQ(r.seed, 3);
  EXPECT_TRUE(r.serial);
  EXPECT_EQ(r.params, (json{{"matrix_size", "64"}, {"fast", "true"}, {"dir", "/d"}}))
      << "values travel as text";
  auto cases = select_cases(r, catalog());
  ASSERT_EQ(cases.size(), 1u) << "torch/sum/v is in both suites: listed once";
  EXPECT_EQ(cases[0].id, "torch/sum/v");
}

TEST(RunRequest, ResumeStandsAlone) {
  auto p = parse(R"({"resume": "20261126-011738-a3f9"})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->resume, "20261126-011738-a3f9");
  EXPECT_NE(parse(R"({"resume": "x", "suite": "paper"})").error().message.find("no other field"),
            std::string::npos);
}

TEST(RunRequest, SelectionOnlyOfferedFrameworks) {
  auto cat = catalog();
  cat.frameworks = {"torch"};
  auto p = parse_run_request(R"({"suite": "paper"})", cat);
  ASSERT_TRUE(p);
  auto cases = select_cases(*p, cat);
  ASSERT_EQ(cases.size(), 2u);
  for (const auto& c : cases) EXPECT_EQ(c.framework, "torch");
}

struct Bad {
  std::string body;
  std::string message;
};

TEST(RunRequest, RejectsEveryBadBodyWithAClearMessage) {
  std::vector<Bad> cases = {
      {"", "not valid JSON"},
      {"{", "not valid JSON"},
      {"[1]", "must be a JSON object"},
      {"{}", "'suite' is required"},
      {R"({"suite": "paper", "speed": 11})", "unknown field 'speed'"},
      {R"({"suite": "nope"})", "unknown suite 'nope'; this server has: paper, small"},
      {R"({"suite": 3})", "'suite' must be a string or an array of strings"},
      {R"({"suite": [""]})", "'suite' has an empty name"},
      {R"({"suite": "paper", "suites": ["paper"]})", "not both"},
      {R"({"suite": "paper", "framework": "caffe"})", "unknown framework 'caffe'"},
      {R"({"suite": "paper", "device": "tpu:0"})", "unknown device 'tpu:0'"},
      {R"({"suite": "paper", "filter": "(unclosed"})", "'filter' is not a valid regex"},
      {R"({"suite": "paper", "filter": 7})", "'filter' must be a string"},
      {R"({"suite": "paper", "filter": ")" + std::string(2000, 'a') + R"("})", "longer than"},
      {R"({"suite": "paper", "params": {"n": [3]}})",
       "parameter 'n' must be a string, number or boolean"},
      {R"({"suite": "paper", "params": {"1n": 3}})", "parameter name '1n' is not an identifier"},
      {R"({"suite": "paper", "params": [1]})", "'params' must be an object"},
      {R"({"suite": "paper", "timeout_s": 0})",
       "'timeout_s' must be more than 0 and at most 86400"},
      {R"({"suite": "paper", "timeout_s": "soon"})", "'timeout_s' must be a number"},
      {R"({"suite": "paper", "budget_ms": -1})", "'budget_ms' must be more than 0"},
      {R"({"suite": "paper", "warmup_ms": 1e9})", "'warmup_ms' must be at least 0"},
      {R"({"suite": "paper", "min_samples": 0})", "'min_samples' must be between"},
      {R"({"suite": "paper", "min_samples": 2.5})", "'min_samples' must be an integer"},
      {R"({"suite": "paper", "min_samples": 9, "max_samples": 3})", "must not exceed"},
      {R"({"suite": "paper", "seed": "x"})", "'seed' must be an integer"},
      {R"({"suite": "paper", "baseline": "cuda:7"})", "unknown baseline device 'cuda:7'"},
      {R"({"suite": "paper", "serial": "yes"})", "'serial' must be true or false"},
      {R"({"suite": "paper", "policy": "fast"})", "'policy' must be \"timed\" or \"once\""},
      {R"({"suite": "paper", "policy": 1})", "'policy' must be"},
      {R"({"resume": ""})", "'resume' must be a run id"},
  };
  for (const auto& c : cases) {
    auto p = parse(c.body);
    ASSERT_FALSE(p) << c.body;
    const auto& e = p.error();
    EXPECT_EQ(e.status, 400) << c.body;
    EXPECT_NE(e.message.find(c.message), std::string::npos) << c.body << " -> " << e.message;
    EXPECT_EQ(e.message.find('\n'), std::string::npos) << "one line: " << e.message;
  }
}

TEST(Metrics, RendersPrometheusTextWithEscapedLabels) {
  EXPECT_EQ(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  Metrics m;
  m.observe_request("GET", "/metrics", 200, 0.0007);
  m.observe_request("GET", "/metrics", 200, 3.0);
  m.observe_request("POST", "/v1/runs", 400, 0.002);
  m.count_outcome("numpy", "cpu", "pass");
  m.count_outcome("numpy", "cpu", "pass");
  m.count_run_accepted();
  m.count_run_finished("complete");
  Gauges g;
  g.ready = true;
  g.runs_queued = 2;
  g.device_busy = {{"cpu", true}, {"cuda:0", false}};
  auto text = m.render(g, "0.1.0", "abc\"1");
  for (const char* line : {
           "mudjack_build_info{version=\"0.1.0\",revision=\"abc\\\"1\"} 1\n",
           "mudjack_ready 1\n",
           "mudjack_runs{state=\"queued\"} 2\n",
           "mudjack_device_busy{device=\"cpu\"} 1\n",
           "mudjack_device_busy{device=\"cuda:0\"} 0\n",
           "mudjack_runs_accepted_total 1\n",
           "mudjack_runs_finished_total{state=\"complete\"} 1\n",
           "mudjack_outcomes_total{framework=\"numpy\",device=\"cpu\",outcome=\"pass\"} 2\n",
           "mudjack_http_requests_total{method=\"GET\",route=\"/metrics\",code=\"200\"} 2\n",
           "mudjack_http_requests_total{method=\"POST\",route=\"/v1/runs\",code=\"400\"} 1\n",
           "mudjack_http_request_duration_seconds_bucket{route=\"/metrics\",le=\"0.0005\"} 0\n",
           "mudjack_http_request_duration_seconds_bucket{route=\"/metrics\",le=\"0.001\"} 1\n",
           "mudjack_http_request_duration_seconds_bucket{route=\"/metrics\",le=\"2.5\"} 1\n",
           "mudjack_http_request_duration_seconds_bucket{route=\"/metrics\",le=\"+Inf\"} 2\n",
           "mudjack_http_request_duration_seconds_count{route=\"/metrics\"} 2\n",
           "# TYPE mudjack_http_request_duration_seconds histogram\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n---\n" << text;
  }
  // Every sample line is NAME{labels} VALUE or NAME VALUE; every family has HELP and TYPE.
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) continue;
    EXPECT_NE(line.find(' '), std::string::npos) << line;
    EXPECT_EQ(line.rfind("mudjack_", 0), 0u) << line;
  }
}

TEST(Auth, BearerTokensAndConstantTimeComparison) {
  EXPECT_EQ(bearer_token("Bearer abc"), "abc");
  EXPECT_EQ(bearer_token("bearer   abc"), "abc");
  EXPECT_EQ(bearer_token("Basic abc"), std::nullopt);
  EXPECT_EQ(bearer_token("Bearer "), std::nullopt);
  EXPECT_EQ(bearer_token(""), std::nullopt);
  EXPECT_TRUE(token_matches("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("0123456789abcdeF", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("0123456789abcde", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("0123456789abcdef0", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("", ""));
}

TEST(Auth, TokenFromFileOrEnvironment) {
  auto dir = fs::temp_directory_path() / ("mudjack-token-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "good") << "0123456789abcdef0123\n";
  std::ofstream(dir / "short") << "abc\n";
  EXPECT_EQ(resolve_token(dir / "good", false), "0123456789abcdef0123");
  EXPECT_THROW(resolve_token(dir / "short", false), util::FatalError);
  try {
    resolve_token(dir / "missing", false);
    FAIL();
  } catch (const util::FatalError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read token file"), std::string::npos);
  }
  ::unsetenv("MUDJACK_TOKEN");
  EXPECT_THROW(resolve_token(std::nullopt, false), util::FatalError);
  EXPECT_EQ(resolve_token(std::nullopt, true), "");
  ::setenv("MUDJACK_TOKEN", "from-the-environment", 1);
  EXPECT_EQ(resolve_token(std::nullopt, false), "from-the-environment");
  ::unsetenv("MUDJACK_TOKEN");
  fs::remove_all(dir);
}

TEST(Routes, PathsMapToBoundedPatterns) {
  EXPECT_EQ(route_of("/v1/runs"), "/v1/runs");
  EXPECT_EQ(route_of("/v1/runs/20261126-011738-a3f9"), "/v1/runs/{id}");
  EXPECT_EQ(route_of("/v1/runs/x/events"), "/v1/runs/{id}/events");
  EXPECT_EQ(route_of("/v1/runs/x/results"), "/v1/runs/{id}/results");
  EXPECT_EQ(route_of("/v1/suites/paper/cases"), "/v1/suites/{name}/cases");
  EXPECT_EQ(route_of("/etc/passwd"), "other");
  EXPECT_EQ(route_of("/metrics"), "/metrics");
  EXPECT_EQ(route_of("/v1/openapi.json"), "/v1/openapi.json");
  // A {name} is one non-empty segment; nothing matches by prefix.
  EXPECT_EQ(route_of("/v1/runs/"), "other");
  EXPECT_EQ(route_of("/v1/runs//events"), "other");
  EXPECT_EQ(route_of("/v1/runs/a/b"), "other");
  EXPECT_EQ(route_of("/v1/runs/x/events/"), "other");
  EXPECT_EQ(route_of("/metricsx"), "other");
  EXPECT_EQ(route_of(""), "other");
}

TEST(Routes, OneTableOfDistinctRowsWithOnlyProbesOpen) {
  std::set<std::pair<int, std::string>> seen;
  for (const auto& r : routes()) {
    EXPECT_TRUE(seen.emplace(static_cast<int>(r.method), std::string(r.pattern)).second)
        << r.pattern;
    EXPECT_EQ(route_of(r.pattern), r.pattern) << "a pattern is its own label";
  }
  EXPECT_TRUE(is_open_path("/healthz"));
  EXPECT_TRUE(is_open_path("/readyz"));
  EXPECT_FALSE(is_open_path("/metrics"));
  EXPECT_FALSE(is_open_path("/v1/runs/x"));
  EXPECT_FALSE(is_open_path("/healthz/x"));
}

TEST(HttpError, FromFatalConvertsOnlyFatalErrors) {
  auto ok = from_fatal([] { return 7; });
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 7);
  auto bad = from_fatal([]() -> int { throw util::FatalError("unknown parameter 'n'"); });
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().status, 400);
  EXPECT_EQ(bad.error().message, "unknown parameter 'n'");
  auto server_side = from_fatal([]() -> int { throw util::FatalError("disk full"); }, 500);
  EXPECT_EQ(server_side.error().status, 500);
  EXPECT_THROW(from_fatal([]() -> int { throw std::runtime_error("bug"); }), std::runtime_error);
}

// How many of `n` simultaneous connection attempts complete their handshake
// within `wait` against a listener nobody accepts on: the kernel queues at
// most backlog + 1 of them.
int handshakes(int port, int n, std::chrono::milliseconds wait) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(wait);
  int connected = 0;
  for (int fd : fds) {
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof(err);
    if (::poll(&p, 1, 0) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
        err == 0 && (p.revents & POLLOUT)) {
      ++connected;
    }
    ::close(fd);
  }
  return connected;
}

TEST(ListenSocket, OurBacklogQueuesABurstThatHttplibsDrops) {
  // cpp-httplib's own listener (Debian's build: listen(fd, 5)).
  httplib::Server theirs;
  int their_port = theirs.bind_to_any_port("127.0.0.1");
  ASSERT_GT(their_port, 0);
  int small = handshakes(their_port, 64, std::chrono::milliseconds(300));
  EXPECT_LE(small, 10) << "httplib's listener queued " << small << " of 64";

  int port = 0;
  int fd = listen_socket("127.0.0.1", 0, 1024, &port);
  ASSERT_GT(port, 0);
  EXPECT_EQ(handshakes(port, 64, std::chrono::milliseconds(300)), 64);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << "probes must not inherit the listener";
  ::close(fd);
}

TEST(ListenSocket, ABusyPortIsAClearError) {
  int port = 0;
  int fd = listen_socket("127.0.0.1", 0, 16, &port);
  try {
    listen_socket("127.0.0.1", port, 16, &port);
    FAIL() << "bound a port twice";
  } catch (const util::FatalError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(listen_socket("no-such-host.invalid", 0, 16, &port), util::FatalError);
  ::close(fd);
}

}  // namespace
}  // namespace mudjack::server
