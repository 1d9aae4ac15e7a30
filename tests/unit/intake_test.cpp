// Unit tests of the server's front door: the request-head scanner (a pure
// function of the bytes), and the intake itself on a real loopback socket:
// limits answered before any worker, requests handed over whole, kept-alive
// and pipelined requests, the connection limit; and the workers' side: a
// response the client does not read is abandoned within the write limits.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "server/http.hpp"
#include "server/intake.hpp"
#include "server/metrics.hpp"
#include "server/server.hpp"

namespace mudjack::server {
namespace {

using State = HeadScan::State;
using std::chrono::milliseconds;

IntakeLimits small_limits() {
  IntakeLimits l;
  l.max_head_bytes = 1024;
  l.max_line_bytes = 256;
  l.max_header_lines = 5;
  l.max_body_bytes = 100;
  return l;
}

HeadScan scan_all(const std::string& bytes, const IntakeLimits& limits = small_limits()) {
  HeadScanner s(limits);
  return s.scan(bytes);
}

TEST(HeadScanner, FindsTheHeadAndTheBodyLength) {
  std::string head = "POST /v1/runs HTTP/1.1\r\nHost: x\r\ncontent-LENGTH:  12 \r\n\r\n";
  auto r = scan_all(head + "{\"suite\":1}" + "GET /next");
  ASSERT_EQ(r.state, State::kComplete) << r.reason;
  EXPECT_EQ(r.head_bytes, head.size());
  EXPECT_EQ(r.body_bytes, 12u);
  EXPECT_EQ(r.expect_bytes, 0u);
  auto get = scan_all("GET /healthz HTTP/1.1\r\n\r\n");
  ASSERT_EQ(get.state, State::kComplete);
  EXPECT_EQ(get.body_bytes, 0u);
}

TEST(HeadScanner, ResumesWhereItStoppedWhenBytesArriveOneAtATime) {
  std::string head = "GET /healthz HTTP/1.1\r\nHost: x\r\nA: b\r\n\r\n";
  HeadScanner s(small_limits());
  for (size_t i = 1; i < head.size(); ++i) {
    ASSERT_EQ(s.scan(std::string_view(head).substr(0, i)).state, State::kIncomplete) << i;
  }
  auto r = s.scan(head);
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.head_bytes, head.size());
}

TEST(HeadScanner, RefusesOversizedHeadsBeforeTheyEnd) {
  struct Case {
    std::string bytes;
    int status;
    std::string label;
  };
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 6; ++i) many += "X-" + std::to_string(i) + ": y\r\n";
  std::string big = "GET / HTTP/1.1\r\n";
  while (big.size() < 1100) big += "X-Pad: " + std::string(200, 'a') + "\r\n";
  std::vector<Case> cases = {
      {many, 431, "header_lines"},                                           // never ended
      {"GET / HTTP/1.1\r\nX: " + std::string(300, 'a'), 431, "line_bytes"},  // no newline yet
      {"GET /" + std::string(300, 'a'), 414, "line_bytes"},
      {big.substr(0, 1100), 431, "head_bytes"},
      {"POST / HTTP/1.1\r\nContent-Length: 101\r\n", 413, "body_bytes"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411, "transfer_encoding"},
      {"POST / HTTP/1.1\r\nContent-Length: 99\r\nContent-Encoding: br\r\n\r\n", 415,
       "content_encoding"},
      {"POST / HTTP/1.1\r\ncontent-encoding: GZIP\r\n", 415, "content_encoding"},
      {"POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400, "content_length"},
      {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "content_length"},
  };
  for (const auto& c : cases) {
    auto r = scan_all(c.bytes);
    ASSERT_EQ(r.state, State::kRefused) << c.label << ": " << c.bytes.substr(0, 60);
    EXPECT_EQ(r.status, c.status) << c.label;
    EXPECT_EQ(r.label, c.label);
    EXPECT_FALSE(r.reason.empty());
  }
  // The limits themselves are allowed.
  std::string five = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 5; ++i) five += "X-" + std::to_string(i) + ": y\r\n";
  EXPECT_EQ(scan_all(five + "\r\n").state, State::kComplete);
  EXPECT_EQ(scan_all("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n").state, State::kComplete);
  EXPECT_EQ(scan_all("POST / HTTP/1.1\r\nContent-Encoding: identity\r\n\r\n").state,
            State::kComplete);
}

TEST(HeadScanner, NotesExpectContinue) {
  std::string head = "POST / HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n";
  auto r = scan_all(head);
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(head.substr(r.expect_at, r.expect_bytes), "Expect: 100-continue\r\n");
}

// --- the intake on a socket ---------------------------------------------------

int listen_any(int* port) {
  return listen_socket("127.0.0.1", 0, 64, port);
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  return fd;
}

// What the peer sent until it closed or `limit` passed.
std::string read_until_closed(int fd, milliseconds limit) {
  std::string out;
  auto end = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<milliseconds>(end - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) != 1) return out;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

// An intake whose "workers" record each request and answer it with "ok".
class IntakeFixture : public ::testing::Test {
 protected:
  void start(IntakeLimits limits) {
    int fd = listen_any(&port_);
    intake_ = std::make_unique<Intake>(
        fd, limits,
        [this](ConnectionPtr c) {
          std::lock_guard lock(mu_);
          requests_.push_back(c->bytes.substr(0, c->request_bytes));
          std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
          (void)::send(c->fd, ok.data(), ok.size(), MSG_NOSIGNAL);
          intake_->give_back(std::move(c));  // the test's "worker" is the intake's thread
          cv_.notify_all();
        },
        [this](std::string_view why) {
          std::lock_guard lock(mu_);
          refused_.emplace_back(why);
        });
    intake_->start();
  }
  void TearDown() override { intake_.reset(); }

  bool wait_requests(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(5), [&] { return requests_.size() >= n; });
  }

  int port_ = 0;
  std::unique_ptr<Intake> intake_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> requests_;
  std::vector<std::string> refused_;
};

TEST_F(IntakeFixture, HandsOverWholeRequestsAndKeepsConnectionsAlive) {
  start(small_limits());
  int fd = connect_to(port_);
  // Two pipelined requests in one write, the first with a body, then an
  // Expect: 100-continue request whose body follows the 100.
  std::string first = "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
  std::string second = "GET /b HTTP/1.1\r\n\r\n";
  std::string both = first + second;
  ASSERT_EQ(::send(fd, both.data(), both.size(), 0), static_cast<ssize_t>(both.size()));
  ASSERT_TRUE(wait_requests(2));
  std::string third = "POST /c HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n";
  ASSERT_EQ(::send(fd, third.data(), third.size(), 0), static_cast<ssize_t>(third.size()));
  std::string got;
  char buf[512];
  while (got.find("100 Continue") == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    ASSERT_GT(n, 0);
    got.append(buf, static_cast<size_t>(n));
  }
  ASSERT_EQ(::send(fd, "hi", 2, 0), 2);
  ASSERT_TRUE(wait_requests(3));
  std::lock_guard lock(mu_);
  EXPECT_EQ(requests_[0], first);
  EXPECT_EQ(requests_[1], second);
  EXPECT_EQ(requests_[2], "POST /c HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
      << "the Expect line was answered and removed";
  EXPECT_EQ(intake_->open_connections(), 1u);
  ::close(fd);
}

TEST_F(IntakeFixture, RefusesWithJsonAndClosesAndTimesOutSlowHeads) {
  auto limits = small_limits();
  limits.request_timeout = milliseconds(300);
  limits.linger = milliseconds(100);
  start(limits);
  int big = connect_to(port_);
  std::string head = "GET / HTTP/1.1\r\n" + std::string(2000, 'a');
  (void)::send(big, head.data(), head.size(), MSG_NOSIGNAL);
  auto answer = read_until_closed(big, milliseconds(3000));
  EXPECT_EQ(answer.rfind("HTTP/1.1 431 ", 0), 0u) << answer;
  EXPECT_NE(answer.find("\"status\":431"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos);
  ::close(big);

  int slow = connect_to(port_);
  (void)::send(slow, "GET / HT", 8, 0);
  auto t0 = std::chrono::steady_clock::now();
  answer = read_until_closed(slow, milliseconds(3000));
  EXPECT_EQ(answer.rfind("HTTP/1.1 408 ", 0), 0u) << answer;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(2000));
  ::close(slow);
  // A connection that never sends is closed without a word.
  int idle = connect_to(port_);
  EXPECT_EQ(read_until_closed(idle, milliseconds(3000)), "");
  ::close(idle);
  std::lock_guard lock(mu_);
  EXPECT_TRUE(requests_.empty());
  EXPECT_EQ(refused_, (std::vector<std::string>{"line_bytes", "timeout"}));
}

TEST_F(IntakeFixture, DropsTheLongestWaitingConnectionWhenFull) {
  auto limits = small_limits();
  limits.max_connections = 3;
  start(limits);
  std::vector<int> waiting;
  for (int i = 0; i < 3; ++i) {
    waiting.push_back(connect_to(port_));
    (void)::send(waiting.back(), "G", 1, 0);
    std::this_thread::sleep_for(milliseconds(50));
  }
  int fresh = connect_to(port_);
  std::string get = "GET /x HTTP/1.1\r\n\r\n";
  ASSERT_EQ(::send(fresh, get.data(), get.size(), 0), static_cast<ssize_t>(get.size()));
  ASSERT_TRUE(wait_requests(1)) << "a new client gets in past idle ones";
  EXPECT_EQ(read_until_closed(waiting[0], milliseconds(1000)), "") << "the oldest was dropped";
  EXPECT_LE(intake_->open_connections(), 3u);
  for (int fd : waiting) ::close(fd);
  ::close(fresh);
  std::lock_guard lock(mu_);
  EXPECT_EQ(refused_, (std::vector<std::string>{"evicted"}));
}

// A connection accepted from a listening socket, with small socket buffers
// (the client's set before it connects, so that the window is small too)
// so that an unread response fills them soon; {client, server side}.
std::pair<int, int> connected_pair() {
  int port = 0;
  int lfd = listen_any(&port);
  int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int small = 16384;
  setsockopt(client, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  int server = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  ::close(lfd);
  setsockopt(server, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
  return {client, server};
}

// Answers GET /big with `bytes` bytes from the request in `c`.
bool answer_big(Connection& c, size_t bytes, const WriteLimits& limits) {
  Http http;
  http.Get("/big", [bytes](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(bytes, 'x'), "text/plain");
  });
  http.mark_running();
  c.bytes = "GET /big HTTP/1.1\r\nHost: x\r\n\r\n";
  c.request_bytes = c.bytes.size();
  return http.answer(c, false, limits);
}

TEST(Http, AResponseTheClientDoesNotReadIsAbandonedWithinTheWriteLimits) {
  WriteLimits limits{milliseconds(1000), 64 * 1024};
  std::atomic<size_t> open{1};
  {
    // Never read: one wait of `timeout`.
    auto [client, server] = connected_pair();
    Connection c(server, &open);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(answer_big(c, 4 << 20, limits));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(3000));
    ::close(client);
  }
  {
    // Read 4 KB every 100 ms, well under 64 KiB/s: the total wait runs out.
    auto [client, server] = connected_pair();
    std::atomic<bool> done{false};
    std::thread reader([&, fd = client] {
      char buf[4096];
      while (!done && ::recv(fd, buf, sizeof(buf), 0) > 0)
        std::this_thread::sleep_for(milliseconds(100));
    });
    Connection c(server, &open);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(answer_big(c, 4 << 20, limits));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(8000));
    done = true;
    ::shutdown(client, SHUT_RDWR);
    reader.join();
    ::close(client);
  }
  {
    // A client that reads gets all of it, and the connection stays open.
    auto [client, server] = connected_pair();
    std::string got;
    auto body_done = [&] {
      auto head = got.find("\r\n\r\n");
      return head != std::string::npos && got.size() - head - 4 >= (4U << 20);
    };
    std::thread reader([&, fd = client] {
      char buf[65536];
      ssize_t n = 0;
      while (!body_done() && (n = ::recv(fd, buf, sizeof(buf), 0)) > 0) {
        got.append(buf, static_cast<size_t>(n));
      }
    });
    Connection c(server, &open);
    EXPECT_TRUE(answer_big(c, 4 << 20, limits));
    reader.join();
    EXPECT_EQ(got.find("HTTP/1.1 200 OK\r\n"), 0u);
    EXPECT_EQ(got.size() - got.find("\r\n\r\n") - 4, 4U << 20) << "the whole body";
    ::close(client);
  }
}

TEST(Metrics, CountsRefusalsAndConnections) {
  Metrics m;
  m.count_refused("head_bytes");
  m.count_refused("head_bytes");
  Gauges g;
  g.connections_open = 7;
  g.runs_queue_limit = 64;
  auto text = m.render(g, "v", "r");
  EXPECT_NE(text.find("mudjack_http_refused_total{reason=\"head_bytes\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("mudjack_http_connections 7\n"), std::string::npos);
  EXPECT_NE(text.find("mudjack_runs_queue_limit 64\n"), std::string::npos);
}

}  // namespace
}  // namespace mudjack::server
