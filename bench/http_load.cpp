// A small closed-loop HTTP load generator for `mudjack serve` on loopback:
// N client threads, each sending GET requests one after another for a fixed
// time, either over one kept-alive connection per thread (--mode keepalive)
// or over a new connection per request (--mode close: connect, request,
// response, close, so every request goes through the listen backlog).
//
// Latency is measured per request from before connect() (close mode) or
// before send() (keepalive mode) to the last byte of the response, so time
// spent waiting for a dropped SYN to be retransmitted counts.
//
//   http_load --port 8080 --path /metrics --token T --concurrency 64 --seconds 10 --mode close
//
// Prints one JSON line: requests, errors, requests_per_s, p50_ms, p90_ms,
// p99_ms, max_ms, and the non-200 statuses seen.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int port = 8080;
  std::string path = "/metrics";
  std::string token;
  int concurrency = 64;
  double seconds = 10;
  bool keepalive = true;
};

int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// Reads one response (Content-Length or chunked bodies); returns the status, 0 on error.
int read_response(int fd, std::string& buf) {
  buf.clear();
  char chunk[65536];
  size_t header_end = std::string::npos;
  while (header_end == std::string::npos) {
    ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return 0;
    buf.append(chunk, static_cast<size_t>(n));
    header_end = buf.find("\r\n\r\n");
  }
  int status = std::atoi(buf.c_str() + 9);
  std::string headers = buf.substr(0, header_end);
  for (auto& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t body_start = header_end + 4;
  auto cl = headers.find("content-length:");
  if (cl != std::string::npos) {
    size_t len = std::strtoull(headers.c_str() + cl + 15, nullptr, 10);
    while (buf.size() < body_start + len) {
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) return 0;
      buf.append(chunk, static_cast<size_t>(n));
    }
    return status;
  }
  if (headers.find("transfer-encoding: chunked") != std::string::npos) {
    while (buf.find("\r\n0\r\n\r\n", body_start) == std::string::npos) {
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) return 0;
      buf.append(chunk, static_cast<size_t>(n));
    }
    return status;
  }
  return status;  // no body
}

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  auto k = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") {
      o.port = std::atoi(v.c_str());
    } else if (k == "--path") {
      o.path = v;
    } else if (k == "--token") {
      o.token = v;
    } else if (k == "--concurrency") {
      o.concurrency = std::atoi(v.c_str());
    } else if (k == "--seconds") {
      o.seconds = std::atof(v.c_str());
    } else if (k == "--mode") {
      o.keepalive = v == "keepalive";
    } else {
      std::fprintf(stderr, "http_load: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::string request = "GET " + o.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!o.token.empty()) request += "Authorization: Bearer " + o.token + "\r\n";
  request += o.keepalive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";

  std::mutex mu;
  std::vector<double> latencies_ms;
  std::map<int, long> statuses;
  std::atomic<long> errors{0};
  auto start = Clock::now();
  auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  std::vector<std::thread> threads;
  for (int t = 0; t < o.concurrency; ++t) {
    threads.emplace_back([&] {
      std::vector<double> mine;
      std::map<int, long> my_statuses;
      std::string buf;
      int fd = -1;
      while (Clock::now() < end) {
        auto t0 = Clock::now();
        if (fd < 0) fd = connect_loopback(o.port);
        int status = fd >= 0 && send_all(fd, request) ? read_response(fd, buf) : 0;
        auto t1 = Clock::now();
        if (status == 0) {
          ++errors;
          if (fd >= 0) ::close(fd);
          fd = -1;
          continue;
        }
        mine.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        ++my_statuses[status];
        if (!o.keepalive || buf.find("Connection: close") != std::string::npos) {
          ::close(fd);
          fd = -1;
        }
      }
      if (fd >= 0) ::close(fd);
      std::lock_guard lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
      for (const auto& [s, n] : my_statuses) statuses[s] += n;
    });
  }
  for (auto& th : threads) th.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  auto n = latencies_ms.size();
  double p50 = percentile(latencies_ms, 0.50);
  double p90 = percentile(latencies_ms, 0.90);
  double p99 = percentile(latencies_ms, 0.99);
  double max =
      latencies_ms.empty() ? 0 : *std::max_element(latencies_ms.begin(), latencies_ms.end());
  std::string status_json;
  for (const auto& [s, c] : statuses) {
    status_json += (status_json.empty() ? "" : ",") + std::string("\"") + std::to_string(s) +
                   "\":" + std::to_string(c);
  }
  std::printf(
      "{\"path\":\"%s\",\"mode\":\"%s\",\"concurrency\":%d,\"seconds\":%.1f,\"requests\":%zu,"
      "\"errors\":%ld,\"requests_per_s\":%.0f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"max_ms\":%.3f,\"statuses\":{%s}}\n",
      o.path.c_str(), o.keepalive ? "keepalive" : "close", o.concurrency, elapsed, n, errors.load(),
      static_cast<double>(n) / elapsed, p50, p90, p99, max, status_json.c_str());
  return 0;
}
