// Hostile clients against `mudjack serve` on loopback, one attack per call,
// while a monitor measures what an honest client sees: the server's resident
// memory (/proc/PID/status) and the latency of GET /healthz and of an
// authenticated GET /v1/runs/{id}, each on a new connection every 200 ms.
//
//   serve_attacks --attack headers|slowloris|queue|resume --port P --pid PID
//                 --token T --run ID [--suite slow]
//
// headers:   5 unauthenticated connections, each sending a request line and
//            then a 200 MB header block (3 as 1 KB header lines, 2 as one line).
// slowloris: 30 unauthenticated connections sending a request head one byte
//            a second, for 15 s.
// queue:     1000 authenticated POST /v1/runs from 8 clients.
// resume:    a run cancelled after its first outcome, then 16 concurrent
//            POST {"resume": id} of it, three times over.
//
// Prints one line per attack (bench/serve_attacks.sh makes the table):
// idle and peak RSS, the probes' median and worst latency and failures
// (no answer within 5 s), and what the server answered the attacker.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Options {
  std::string attack;
  int port = 0;
  int pid = 0;
  std::string token;
  std::string run;  // a finished run the monitor asks about
  std::string suite = "slow";
};

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// A connection to 127.0.0.1:port by `deadline` (a full backlog delays it), or -1.
int connect_loopback(int port, Clock::time_point deadline) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof(err);
    if (errno != EINPROGRESS || ::poll(&p, 1, remaining_ms(deadline)) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      ::close(fd);
      return -1;
    }
  }
  return fd;
}

// Sends all of `s` by `deadline`; false when the peer closed or stalled.
bool send_all(int fd, const char* data, size_t size, Clock::time_point deadline) {
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::send(fd, data + off, size - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN) return false;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) != 1 || (p.revents & (POLLERR | POLLHUP))) {
      return false;
    }
  }
  return true;
}

// Reads until the peer closes or `deadline`; returns what came.
std::string read_all(int fd, Clock::time_point deadline) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || errno != EAGAIN) return out;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) != 1) return out;
  }
}

int status_of(const std::string& response) {
  return response.rfind("HTTP/1.", 0) == 0 && response.size() > 12 ? std::atoi(&response[9]) : 0;
}

// One request on a new connection with Connection: close; the response
// (empty when none came within timeout).
std::string request(const Options& o, const std::string& method, const std::string& path,
                    const std::string& body, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  int fd = connect_loopback(o.port, deadline);
  if (fd < 0) return "";
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!o.token.empty()) req += "Authorization: Bearer " + o.token + "\r\n";
  if (!body.empty()) {
    req +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  req += "\r\n" + body;
  std::string out = send_all(fd, req.data(), req.size(), deadline) ? read_all(fd, deadline) : "";
  ::close(fd);
  return out;
}

// A string field of the JSON body of a response ("id", "state"); "" if absent.
std::string field(const std::string& response, const std::string& name) {
  auto at = response.find("\"" + name + "\":\"");
  if (at == std::string::npos) return "";
  at += name.size() + 4;
  return response.substr(at, response.find('"', at) - at);
}

long rss_kb(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

// What an honest client saw while an attack ran.
class Monitor {
 public:
  explicit Monitor(const Options& o) : o_(o), idle_kb_(rss_kb(o.pid)) {
    threads_.emplace_back([this] { probe("/healthz", false, healthz_); });
    threads_.emplace_back([this] { probe("/v1/runs/" + o_.run, true, run_); });
    threads_.emplace_back([this] {
      while (!stop_) {
        peak_kb_ = std::max(peak_kb_.load(), rss_kb(o_.pid));
        std::this_thread::sleep_for(milliseconds(50));
      }
    });
  }
  ~Monitor() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  std::string summary() {
    stop();
    char line[256];
    std::snprintf(line, sizeof(line),
                  "rss_idle_mb=%.0f rss_peak_mb=%.0f healthz_ms=%s run_status_ms=%s",
                  static_cast<double>(idle_kb_) / 1024, static_cast<double>(peak_kb_) / 1024,
                  describe(healthz_).c_str(), describe(run_).c_str());
    return line;
  }

 private:
  struct Probe {
    std::mutex mu;
    std::vector<double> ms;
    int failed = 0;
  };
  void probe(const std::string& path, bool with_token, Probe& into) {
    Options o = o_;
    if (!with_token) o.token.clear();
    while (!stop_) {
      auto t0 = Clock::now();
      int status = status_of(request(o, "GET", path, "", milliseconds(5000)));
      double ms = ms_since(t0);
      {
        std::lock_guard lock(into.mu);
        into.ms.push_back(ms);
        if (status != 200) ++into.failed;
      }
      std::this_thread::sleep_for(milliseconds(200));
    }
  }
  static std::string describe(Probe& p) {
    std::lock_guard lock(p.mu);
    if (p.ms.empty()) return "none";
    auto v = p.ms;
    std::sort(v.begin(), v.end());
    char out[96];
    std::snprintf(out, sizeof(out), "p50:%.1f/max:%.1f/failed:%d/%zu", v[v.size() / 2], v.back(),
                  p.failed, v.size());
    return out;
  }

  const Options& o_;
  long idle_kb_;
  std::atomic<long> peak_kb_{0};
  std::atomic<bool> stop_{false};
  Probe healthz_, run_;
  std::vector<std::thread> threads_;
};

// 200 MB of header block after a request line, as 1 KB lines or as one line.
std::string header_block(const Options& o, bool one_line) {
  auto deadline = Clock::now() + std::chrono::seconds(30);
  int fd = connect_loopback(o.port, deadline);
  if (fd < 0) return "no connection";
  std::string head = "GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  bool ok = send_all(fd, head.data(), head.size(), deadline);
  std::string chunk;
  while (chunk.size() < (1U << 20)) {
    chunk += one_line ? std::string(1024, 'a') : "X-Pad: " + std::string(1015, 'a') + "\r\n";
  }
  const size_t total = 200UL << 20;
  size_t sent = 0;
  auto t0 = Clock::now();
  while (ok && sent < total && Clock::now() < deadline) {
    pollfd p{fd, POLLIN | POLLOUT, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) != 1 || (p.revents & POLLIN)) break;  // answered
    ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    ok = n > 0 || errno == EAGAIN;
    if (n > 0) sent += static_cast<size_t>(n);
  }
  // Give the server the time it needs to answer what it read.
  std::string answer = read_all(fd, Clock::now() + std::chrono::seconds(5));
  ::close(fd);
  char out[160];
  std::snprintf(out, sizeof(out), "%s: sent %zu MB in %.1f s, answer %d",
                one_line ? "line" : "lines", sent >> 20, ms_since(t0) / 1000, status_of(answer));
  return out;
}

std::string attack_headers(const Options& o) {
  std::vector<std::string> results(5);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = header_block(o, i >= 3); });
  }
  for (auto& t : threads) t.join();
  std::string out;
  for (const auto& r : results) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// 30 connections, one byte of a never-ending head per second for 15 s; how
// long the server kept each.
std::string attack_slowloris(const Options& o) {
  const std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  std::vector<double> held_s(30, 0);
  std::vector<int> answers(30, 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < held_s.size(); ++i) {
    threads.emplace_back([&, i] {
      auto t0 = Clock::now();
      auto end = t0 + std::chrono::seconds(15);
      int fd = connect_loopback(o.port, end);
      if (fd < 0) return;
      for (size_t k = 0; Clock::now() < end; ++k) {
        char byte = k < head.size() ? head[k] : 'x';
        if (::send(fd, &byte, 1, MSG_NOSIGNAL) != 1) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 1000) == 1) {  // the server answered or closed
          answers[i] = status_of(read_all(fd, Clock::now() + milliseconds(500)));
          break;
        }
      }
      held_s[i] = ms_since(t0) / 1000;
      ::close(fd);
    });
  }
  for (auto& t : threads) t.join();
  std::map<int, int> by_status;
  for (int a : answers) ++by_status[a];
  std::string statuses;
  for (const auto& [s, n] : by_status)
    statuses += " " + std::to_string(s) + "x" + std::to_string(n);
  char out[160];
  std::snprintf(out, sizeof(out), "connections held %.1f-%.1f s; answers:%s",
                *std::min_element(held_s.begin(), held_s.end()),
                *std::max_element(held_s.begin(), held_s.end()), statuses.c_str());
  return out;
}

std::string attack_queue(const Options& o) {
  std::mutex mu;
  std::map<int, int> statuses;
  std::atomic<int> next{0};
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      while (next++ < 1000) {
        auto r = request(o, "POST", "/v1/runs", R"({"suite":")" + o.suite + R"(","budget_ms":5})",
                         milliseconds(10000));
        std::lock_guard lock(mu);
        ++statuses[status_of(r)];
      }
    });
  }
  for (auto& t : threads) t.join();
  std::string out = "1000 POSTs in " + std::to_string(static_cast<int>(ms_since(t0))) + " ms:";
  for (const auto& [s, n] : statuses) out += " " + std::to_string(s) + "x" + std::to_string(n);
  return out;
}

std::string wait_state(const Options& o, const std::string& id, const std::string& want) {
  auto end = Clock::now() + std::chrono::seconds(60);
  std::string state;
  while (Clock::now() < end) {
    auto r = request(o, "GET", "/v1/runs/" + id, "", milliseconds(5000));
    state = field(r, "state");
    if (state == want || (want == "started" && r.find("\"done\":0,") == std::string::npos)) break;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return state;
}

std::string attack_resume(const Options& o) {
  auto created = request(o, "POST", "/v1/runs", R"({"suite":")" + o.suite + R"(","budget_ms":5})",
                         milliseconds(10000));
  std::string id = field(created, "id");
  if (id.empty()) return "could not start a run: " + created;
  std::map<int, int> statuses;
  std::mutex mu;
  for (int round = 0; round < 3; ++round) {
    wait_state(o, id, "started");
    request(o, "DELETE", "/v1/runs/" + id, "", milliseconds(5000));
    wait_state(o, id, "cancelled");
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&] {
        while (!go) std::this_thread::yield();
        auto r = request(o, "POST", "/v1/runs", R"({"resume":")" + id + "\"}", milliseconds(10000));
        std::lock_guard lock(mu);
        ++statuses[status_of(r)];
      });
    }
    go = true;
    for (auto& t : threads) t.join();
  }
  auto metrics = status_of(request(o, "GET", "/metrics", "", milliseconds(5000)));
  std::string out = "48 resumes of " + id + ":";
  for (const auto& [s, n] : statuses) out += " " + std::to_string(s) + "x" + std::to_string(n);
  return out + "; /metrics " + std::to_string(metrics);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    std::string v = argv[i + 1];
    if (k == "--attack") o.attack = v;
    if (k == "--port") o.port = std::atoi(v.c_str());
    if (k == "--pid") o.pid = std::atoi(v.c_str());
    if (k == "--token") o.token = v;
    if (k == "--run") o.run = v;
    if (k == "--suite") o.suite = v;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.port == 0 || o.pid == 0 || o.run.empty()) {
    std::fprintf(stderr, "usage: serve_attacks --attack A --port P --pid PID --token T --run ID\n");
    return 2;
  }
  Monitor monitor(o);
  std::this_thread::sleep_for(milliseconds(600));  // idle probes first
  std::string what;
  if (o.attack == "headers") {
    what = attack_headers(o);
  } else if (o.attack == "slowloris") {
    what = attack_slowloris(o);
  } else if (o.attack == "queue") {
    what = attack_queue(o);
  } else if (o.attack == "resume") {
    what = attack_resume(o);
  } else {
    std::fprintf(stderr, "serve_attacks: unknown attack '%s'\n", o.attack.c_str());
    return 2;
  }
  std::this_thread::sleep_for(milliseconds(1000));  // and after it
  std::printf("%s %s | %s\n", o.attack.c_str(), monitor.summary().c_str(), what.c_str());
  return 0;
}
