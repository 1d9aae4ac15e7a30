// Hostile clients against the real `mudjack serve` over loopback: oversized
// and endless request heads, slow clients, a flood of runs, a stream resumed
// past its end, concurrent resumes of one run. Each test checks what the
// attacker got and that honest clients were answered meanwhile (the numbers
// of bench/serve_attacks.sh, as assertions).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <httplib.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const std::string kBinary = MUDJACK_BINARY;
const fs::path kFixtures = MUDJACK_FIXTURES;
const std::string kToken = "attack-token-0123456789abcdef";

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

template <typename F>
bool eventually(F condition, seconds limit) {
  auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

long rss_kb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads until the peer closes, `limit` passes, or `enough` bytes came.
std::string read_for(int fd, milliseconds limit, size_t enough = SIZE_MAX) {
  std::string out;
  auto end = Clock::now() + limit;
  char buf[65536];
  while (out.size() < enough) {
    auto left = std::chrono::duration_cast<milliseconds>(end - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) != 1) break;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

int status_of(const std::string& response) {
  return response.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(response.c_str() + 9) : 0;
}

// One raw request on a new connection; the server's whole answer.
std::string raw(int port, const std::string& bytes, milliseconds limit = milliseconds(5000)) {
  int fd = connect_to(port);
  if (fd < 0) return "";
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  auto out = read_for(fd, limit);
  ::close(fd);
  return out;
}

// Sends `filler` repeatedly after `head` (up to `total` bytes) while
// reading; returns {bytes the server took, its answer}.
std::pair<size_t, std::string> flood(int port, const std::string& head, const std::string& filler,
                                     size_t total) {
  int fd = connect_to(port);
  if (fd < 0) return {0, ""};
  size_t sent = 0;
  std::string answer;
  bool ok = ::send(fd, head.data(), head.size(), MSG_NOSIGNAL) > 0;
  auto end = Clock::now() + seconds(10);
  while (ok && sent < total && Clock::now() < end) {
    pollfd p{fd, POLLIN | POLLOUT, 0};
    if (::poll(&p, 1, 1000) != 1) continue;
    if (p.revents & POLLIN) break;  // the server answered (or closed)
    ssize_t n = ::send(fd, filler.data(), filler.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) sent += static_cast<size_t>(n);
    ok = n > 0 || errno == EAGAIN;
  }
  answer = read_for(fd, milliseconds(3000));
  ::close(fd);
  return {sent, answer};
}

class ServeAttackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("mudjack-attack-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "token") << kToken << "\n";
  }
  void TearDown() override {
    for (auto pid : pids_) {
      if (kill(pid, 0) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // `mudjack serve` over the numpy fixture suites on a free port, ready.
  struct Server {
    pid_t pid = -1;
    int port = 0;
    fs::path log;
  };
  Server serve(const std::string& name, std::vector<std::string> extra = {}) {
    Server s;
    s.log = dir_ / ("serve-" + name + ".log");
    auto port_file = dir_ / ("port-" + name);
    std::vector<std::string> args = {kBinary,         "serve",
                                     "--suite-dir",   (kFixtures / "suites" / "hostile").string(),
                                     "--suite-dir",   (kFixtures / "suites" / "slow").string(),
                                     "--framework",   "numpy",
                                     "--port",        "0",
                                     "--port-file",   port_file,
                                     "--token-file",  (dir_ / "token").string(),
                                     "--out",         (dir_ / "results").string(),
                                     "--keepalive-s", "0.5"};
    args.insert(args.end(), extra.begin(), extra.end());
    s.pid = fork();
    if (s.pid == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      FILE* f = std::fopen(s.log.c_str(), "a");
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
      execv(kBinary.c_str(), argv.data());
      _exit(127);
    }
    pids_.push_back(s.pid);
    bool up = eventually(
        [&] {
          if (!fs::exists(port_file) || slurp(port_file).empty()) return false;
          s.port = std::stoi(slurp(port_file));
          auto r = client(s).Get("/readyz");
          return r && r->status == 200;
        },
        seconds(90));
    EXPECT_TRUE(up) << slurp(s.log);
    return s;
  }

  static httplib::Client client(const Server& s) {
    httplib::Client c("127.0.0.1", s.port);
    c.set_connection_timeout(seconds(5));
    c.set_read_timeout(seconds(10));
    return c;
  }
  static httplib::Headers auth() { return {{"Authorization", "Bearer " + kToken}}; }

  static httplib::Result post_run(const Server& s, const json& body) {
    return client(s).Post("/v1/runs", auth(), body.dump(), "application/json");
  }
  static json status(const Server& s, const std::string& id) {
    auto r = client(s).Get("/v1/runs/" + id, auth());
    return r && r->status == 200 ? json::parse(r->body) : json();
  }

  // Every event of a stream until it ends (the raw text).
  static std::string stream(const Server& s, const std::string& id, const std::string& after) {
    std::string text;
    auto h = auth();
    h.emplace("Last-Event-ID", after);
    client(s).Get("/v1/runs/" + id + "/events", h, [&](const char* data, size_t n) {
      text.append(data, n);
      return true;
    });
    return text;
  }

  static int wait_exit(pid_t pid, seconds limit) {
    auto end = Clock::now() + limit;
    int st = 0;
    while (Clock::now() < end) {
      if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return -1;
  }

  fs::path dir_;
  std::vector<pid_t> pids_;
};

// What an honest client sees while something else goes on: the worst
// latency of GET /healthz and of an authenticated GET, and failures.
class Honest {
 public:
  Honest(int port, std::string path) : port_(port), path_(std::move(path)) {
    thread_ = std::thread([this] {
      while (!stop_) {
        auto t0 = Clock::now();
        bool open = path_ == "/healthz";
        auto r = raw(port_,
                     "GET " + path_ + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                         (open ? "" : "Authorization: Bearer " + kToken + "\r\n") + "\r\n",
                     milliseconds(3000));
        double ms = ms_since(t0);
        std::lock_guard lock(mu_);
        worst_ms_ = std::max(worst_ms_, ms);
        ++asked_;
        if (status_of(r) != 200) ++failed_;
        std::this_thread::sleep_for(milliseconds(100));
      }
    });
  }
  ~Honest() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::string report() {
    std::lock_guard lock(mu_);
    return path_ + ": " + std::to_string(asked_) + " asked, " + std::to_string(failed_) +
           " failed, worst " + std::to_string(worst_ms_) + " ms";
  }
  double worst_ms() {
    std::lock_guard lock(mu_);
    return worst_ms_;
  }
  int failed() {
    std::lock_guard lock(mu_);
    return failed_;
  }
  int asked() {
    std::lock_guard lock(mu_);
    return asked_;
  }

 private:
  int port_;
  std::string path_;
  std::mutex mu_;
  double worst_ms_ = 0;
  int asked_ = 0;
  int failed_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(ServeAttackTest, OversizedHeaderBlocksAreRefusedEarlyWithBoundedMemory) {
  auto s = serve("headers");
  long idle_kb = rss_kb(s.pid);
  std::atomic<long> peak_kb{idle_kb};
  std::atomic<bool> done{false};
  std::thread sampler([&] {
    while (!done) {
      peak_kb = std::max(peak_kb.load(), rss_kb(s.pid));
      std::this_thread::sleep_for(milliseconds(20));
    }
  });
  Honest healthz(s.port, "/healthz");
  // Unauthenticated: 50 MB of 1 KB header lines, or one 50 MB line.
  std::string lines;
  while (lines.size() < (1U << 20)) lines += "X-Pad: " + std::string(1015, 'a') + "\r\n";
  std::vector<std::pair<size_t, std::string>> got(4);
  std::vector<std::thread> attackers;
  for (size_t i = 0; i < got.size(); ++i) {
    attackers.emplace_back([&, i] {
      got[i] = flood(s.port, "GET /v1/info HTTP/1.1\r\nHost: x\r\n",
                     i % 2 == 0 ? lines : std::string(1U << 20, 'a'), 50UL << 20);
    });
  }
  for (auto& t : attackers) t.join();
  done = true;
  sampler.join();
  healthz.stop();
  for (const auto& [sent, answer] : got) {
    EXPECT_EQ(status_of(answer), 431) << answer.substr(0, 300);
    EXPECT_NE(answer.find("\"status\":431"), std::string::npos) << answer.substr(0, 300);
    EXPECT_LT(sent, 40UL << 20) << "refused long before the block ended";
  }
  EXPECT_LT(peak_kb - idle_kb, 30 * 1024) << "peak " << peak_kb << " kB, idle " << idle_kb;
  EXPECT_EQ(healthz.failed(), 0) << healthz.report();
  EXPECT_LT(healthz.worst_ms(), 1000) << healthz.report();
  auto m = client(s).Get("/metrics", auth());
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("mudjack_http_refused_total{reason=\"line_bytes\"}"), std::string::npos)
      << m->body;
}

TEST_F(ServeAttackTest, TooManyOrTooLongHeadersAre431BeforeAuthAndBodies) {
  auto s = serve("lines");
  auto head = [](size_t lines, size_t width) {
    std::string h = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    for (size_t i = 1; i < lines; ++i) {
      h += "X-" + std::to_string(i) + ": " + std::string(width, 'v') + "\r\n";
    }
    return h + "Connection: close\r\n\r\n";
  };
  // 100 header lines pass; 101 do not.
  EXPECT_EQ(status_of(raw(s.port, head(99, 10))), 200);
  auto many = raw(s.port, head(100, 10));
  EXPECT_EQ(status_of(many), 431) << many;
  EXPECT_NE(many.find("more than 100 header lines"), std::string::npos) << many;
  // A 40 KB head in 8 KB lines: larger than the 32 KiB a head may be.
  auto wide = raw(s.port, head(6, 8000));
  EXPECT_EQ(status_of(wide), 431) << wide;
  EXPECT_NE(wide.find("request head larger than 32768 bytes"), std::string::npos) << wide;
  // Bodies: chunked is refused, an oversized Content-Length is answered at
  // once without the body being sent, a DELETE without one is not waited on.
  auto chunked = raw(s.port, "POST /v1/runs HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n");
  EXPECT_EQ(status_of(chunked), 411) << chunked;
  // A compression bomb under the body limit: 20 MB of JSON deflated to about
  // 20 KB would inflate inside the server; any encoding is refused at the head.
  std::string json = "{\"suite\":\"hostile\",\"filter\":\"" + std::string(20'000'000, 'x') + "\"}";
  uLongf packed_size = compressBound(json.size());
  std::string packed(packed_size, '\0');
  ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size,
                      reinterpret_cast<const Bytef*>(json.data()), json.size(), 9),
            Z_OK);
  packed.resize(packed_size);
  ASSERT_LT(packed.size(), 64u * 1024);
  for (const char* encoding : {"deflate", "gzip", "br"}) {
    auto bomb = raw(s.port, "POST /v1/runs HTTP/1.1\r\nAuthorization: Bearer " + kToken +
                                "\r\nContent-Encoding: " + encoding +
                                "\r\nContent-Length: " + std::to_string(packed.size()) +
                                "\r\nConnection: close\r\n\r\n" + packed);
    EXPECT_EQ(status_of(bomb), 415) << encoding << ": " << bomb.substr(0, 300);
    EXPECT_NE(bomb.find("compressed request bodies are not accepted"), std::string::npos) << bomb;
  }
  auto t0 = Clock::now();
  auto huge = raw(s.port, "POST /v1/runs HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n{");
  EXPECT_EQ(status_of(huge), 413) << huge;
  EXPECT_LT(ms_since(t0), 2000);
  t0 = Clock::now();
  auto del = raw(s.port, "DELETE /v1/runs/nope HTTP/1.1\r\nAuthorization: Bearer " + kToken +
                             "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(del), 404) << del;
  EXPECT_LT(ms_since(t0), 1000);
  // Two pipelined requests on one connection get two answers, in order.
  auto two = raw(s.port,
                 "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n"
                 "Connection: close\r\n\r\n");
  EXPECT_NE(two.find("\"alive\""), std::string::npos) << two;
  EXPECT_NE(two.find("\"ready\""), std::string::npos) << two;
  // The operator sets each limit; the refusals name the limit set.
  auto tight = serve(
      "tight", {"--max-header-lines", "10", "--max-line-bytes", "300", "--max-head-bytes", "2048"});
  EXPECT_EQ(status_of(raw(tight.port, head(9, 10))), 200);
  auto eleven = raw(tight.port, head(10, 10));
  EXPECT_NE(eleven.find("more than 10 header lines"), std::string::npos) << eleven;
  auto line = raw(tight.port, head(2, 400));
  EXPECT_NE(line.find("longer than 300 bytes"), std::string::npos) << line;
  auto block = raw(tight.port, head(9, 250));
  EXPECT_NE(block.find("request head larger than 2048 bytes"), std::string::npos) << block;
}

TEST_F(ServeAttackTest, SlowClientsHoldNoWorkerAndGet408) {
  auto s = serve("slowloris", {"--threads", "5", "--request-timeout-s", "2"});
  Honest healthz(s.port, "/healthz");
  Honest info(s.port, "/v1/info");
  // 30 clients, each sending a head a byte every 100 ms: more than the
  // server has workers.
  std::vector<int> answers(30, 0);
  std::vector<double> held_ms(30, 0);
  std::vector<std::thread> slow;
  for (size_t i = 0; i < answers.size(); ++i) {
    slow.emplace_back([&, i] {
      int fd = connect_to(s.port);
      auto t0 = Clock::now();
      std::string head = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ";
      for (size_t k = 0; ms_since(t0) < 5000; ++k) {
        char byte = k < head.size() ? head[k] : 'x';
        if (::send(fd, &byte, 1, MSG_NOSIGNAL) != 1) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) == 1) {
          answers[i] = status_of(read_for(fd, milliseconds(1000)));
          break;
        }
      }
      held_ms[i] = ms_since(t0);
      ::close(fd);
    });
  }
  for (auto& t : slow) t.join();
  healthz.stop();
  info.stop();
  for (size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i], 408) << "client " << i;
    EXPECT_LT(held_ms[i], 3500) << "client " << i;
  }
  EXPECT_GE(healthz.asked(), 10);
  EXPECT_EQ(healthz.failed(), 0) << healthz.report();
  EXPECT_LT(healthz.worst_ms(), 1000) << healthz.report();
  EXPECT_EQ(info.failed(), 0) << info.report();
  EXPECT_LT(info.worst_ms(), 1000) << info.report();
}

TEST_F(ServeAttackTest, BeyondTheQueueLimitPostsAre429WithRetryAfter) {
  auto s = serve("queue", {"--max-queued", "2"});
  json slow = {{"suite", "slow"}, {"budget_ms", 5}, {"rounds", 1}};
  auto running = post_run(s, slow);
  ASSERT_TRUE(running);
  ASSERT_EQ(running->status, 202) << running->body;
  std::vector<std::string> queued;
  for (int i = 0; i < 2; ++i) {
    auto r = post_run(s, slow);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    EXPECT_EQ(json::parse(r->body)["state"], "queued");
    queued.push_back(json::parse(r->body)["id"]);
  }
  // A flood of concurrent POSTs: every one refused, none stored.
  std::map<int, int> statuses;
  std::mutex mu;
  std::vector<std::thread> flood_threads;
  for (int t = 0; t < 4; ++t) {
    flood_threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto r = post_run(s, slow);
        std::lock_guard lock(mu);
        ++statuses[r ? r->status : 0];
        if (r && r->status == 429) {
          EXPECT_EQ(r->get_header_value("Retry-After"), "30");
          EXPECT_NE(r->body.find("the run queue is full (2 queued runs)"), std::string::npos)
              << r->body;
        }
      }
    });
  }
  for (auto& t : flood_threads) t.join();
  EXPECT_EQ(statuses, (std::map<int, int>{{429, 100}}));
  // A place freed is a place taken.
  auto del = client(s).Delete("/v1/runs/" + queued[0], auth());
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 200) << del->body;
  auto again = post_run(s, slow);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 202) << again->body;
  auto m = client(s).Get("/metrics", auth());
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("mudjack_runs_queue_limit 2\n"), std::string::npos);
  EXPECT_NE(m->body.find("route=\"/v1/runs\",code=\"429\"} 100"), std::string::npos);
  auto info = json::parse(client(s).Get("/v1/info", auth())->body);
  EXPECT_EQ(info["limits"]["max_queued_runs"], 2);
}

TEST_F(ServeAttackTest, AStreamResumedPastItsLastEventStillEnds) {
  auto s = serve("sse");
  auto r = post_run(s, {{"suite", "hostile"}, {"filter", "ok\\.add"}, {"budget_ms", 5}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = json::parse(r->body)["id"];
  auto all = stream(s, id, "0");
  ASSERT_NE(all.find("event: end"), std::string::npos) << all;
  for (const char* after : {"5", "1000", "999999999"}) {
    auto t0 = Clock::now();
    auto tail = stream(s, id, after);
    EXPECT_NE(tail.find("event: end"), std::string::npos) << after << ": " << tail;
    EXPECT_NE(tail.find("\"state\":\"complete\""), std::string::npos) << tail;
    EXPECT_LT(ms_since(t0), 2000) << after;
  }
  // A run this server does not hold (another one made it): replayed from the store.
  auto other = serve("sse-other");
  auto replay = stream(other, id, "1000");
  EXPECT_NE(replay.find("event: end"), std::string::npos) << replay;
  EXPECT_NE(replay.find("\"state\":\"complete\""), std::string::npos) << replay;
}

TEST_F(ServeAttackTest, ConcurrentResumesOfOneRunAdmitOneAndTheServerStaysUp) {
  auto s = serve("resume");
  auto r = post_run(s, {{"suite", "slow"}, {"budget_ms", 5}, {"rounds", 1}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::string id = json::parse(r->body)["id"];
  Honest run_status(s.port, "/v1/runs/" + id);
  Honest metrics(s.port, "/metrics");
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(eventually([&] { return status(s, id).value("done", 0) >= 1; }, seconds(30)));
    auto del = client(s).Delete("/v1/runs/" + id, auth());
    ASSERT_TRUE(del);
    ASSERT_TRUE(
        eventually([&] { return status(s, id).value("state", "") == "cancelled"; }, seconds(30)));
    std::map<int, int> statuses;
    std::mutex mu;
    std::atomic<bool> go{false};
    std::vector<std::thread> resumes;
    for (int t = 0; t < 12; ++t) {
      resumes.emplace_back([&] {
        while (!go) std::this_thread::yield();
        auto res = post_run(s, {{"resume", id}});
        std::lock_guard lock(mu);
        ++statuses[res ? res->status : 0];
      });
    }
    go = true;
    for (auto& t : resumes) t.join();
    EXPECT_EQ(statuses, (std::map<int, int>{{202, 1}, {409, 11}})) << "round " << round;
  }
  ASSERT_TRUE(eventually([&] { return status(s, id).value("done", 0) >= 1; }, seconds(30)));
  run_status.stop();
  metrics.stop();
  EXPECT_EQ(run_status.failed(), 0) << run_status.report();
  EXPECT_LT(run_status.worst_ms(), 1000) << run_status.report();
  EXPECT_EQ(metrics.failed(), 0) << metrics.report();
  EXPECT_LT(metrics.worst_ms(), 1000) << metrics.report();
  auto t0 = Clock::now();
  kill(s.pid, SIGTERM);
  EXPECT_EQ(wait_exit(s.pid, seconds(20)), 0) << slurp(s.log);
  EXPECT_LT(ms_since(t0), 15000);
}

}  // namespace
