#include "server/http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mudjack::server {
namespace {

using Clock = std::chrono::steady_clock;

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                : ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  } else {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  }
  ip = text;
}

// One request as cpp-httplib reads it: the bytes the intake received (then
// end of stream, so a body without Content-Length is empty rather than a
// wait), and the socket for the response, under WriteLimits.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(Connection& c, const WriteLimits& limits) : c_(c), limits_(limits) {}

  bool is_readable() const override { return read_ < c_.request_bytes; }

  bool is_writable() const override {
    pollfd p{c_.fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(limits_.timeout.count())) != 1) return false;
    if ((p.revents & (POLLERR | POLLHUP)) != 0) return false;
    char byte = 0;
    // 0: the client closed its side (a pipelined byte or EAGAIN: still there).
    return ::recv(c_.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
  }

  ssize_t read(char* ptr, size_t size) override {
    size_t n = std::min(size, c_.request_bytes - read_);
    std::memcpy(ptr, c_.bytes.data() + read_, n);
    read_ += n;
    return static_cast<ssize_t>(n);
  }

  using httplib::Stream::write;
  ssize_t write(const char* ptr, size_t size) override {
    for (;;) {
      ssize_t n = ::send(c_.fd, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) {
        sent_ += static_cast<size_t>(n);
        return n;
      }
      if (errno == EINTR) continue;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait_writable()) return -1;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(c_.fd, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(c_.fd, false, ip, port);
  }
  socket_t socket() const override { return c_.fd; }

 private:
  // Waits for room in the send buffer within what WriteLimits leave.
  bool wait_writable() {
    auto budget = limits_.timeout + std::chrono::milliseconds(
                                        sent_ * 1000 / std::max<size_t>(limits_.bytes_per_s, 1));
    auto left = std::min(limits_.timeout, budget - blocked_);
    if (left <= std::chrono::milliseconds(0)) return false;
    pollfd p{c_.fd, POLLOUT, 0};
    auto t0 = Clock::now();
    int rc = ::poll(&p, 1, static_cast<int>(left.count()));
    blocked_ += std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    return rc == 1 && (p.revents & (POLLERR | POLLHUP)) == 0;
  }

  Connection& c_;
  const WriteLimits& limits_;
  size_t read_ = 0;
  size_t sent_ = 0;
  std::chrono::milliseconds blocked_{0};
};

}  // namespace

bool Http::answer(Connection& c, bool close_after, const WriteLimits& limits) {
  ConnectionStream stream(c, limits);
  bool closed = false;
  bool ok = process_request(stream, close_after, closed, nullptr);
  return ok && !closed && !close_after;
}

Workers::Workers(size_t threads, Work work) : work_(std::move(work)) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

Workers::~Workers() {
  stop();
}

void Workers::submit(ConnectionPtr c) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;  // c closes here
    queue_.push_back(std::move(c));
  }
  cv_.notify_one();
}

void Workers::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void Workers::run() {
  for (;;) {
    ConnectionPtr c;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to answer
      c = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      work_(std::move(c));
    } catch (const std::exception&) {  // c closed as the exception left: nothing to answer with
    }
  }
}

}  // namespace mudjack::server
