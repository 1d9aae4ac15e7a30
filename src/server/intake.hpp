#pragma once
// The server's front door: accepts connections and reads each request —
// head and body — completely, under limits and a deadline, before any HTTP
// worker, any auth check or any handler sees it.
//
// Why: cpp-httplib 0.11 (Debian's shared build, so its compile-time limits
// cannot be changed) reads a request head on a worker thread with no limit on
// the number of header lines and no deadline for the head as a whole (its
// read timeout is per read). An unauthenticated client could grow the
// server's memory without bound (a 200 MB header block) or hold every worker
// by sending a head a byte a second (slowloris), /healthz included.
//
// How: one thread polls the listening socket and every connection waiting
// for its next request. A connection's bytes are scanned as they arrive
// (HeadScanner, a pure function of the bytes); a request whose head grows
// past max_head_bytes, max_line_bytes or max_header_lines, whose
// Content-Length exceeds max_body_bytes, that uses Transfer-Encoding, or that
// has not fully arrived within request_timeout is answered here (431, 414,
// 413, 411, 400, 408) with a JSON error and the connection closed after a
// short linger that discards what the client still sends. A request that
// arrived whole goes to `ready` (the worker pool); the worker answers it from
// memory, never waiting on the client, and gives the connection back for
// its next request (keep-alive costs no worker). At most max_connections
// connections are open at once; past that the one that has waited longest for
// its request is dropped for a new one.
//
// Memory: at most max_connections × (max_head_bytes + max_body_bytes) of
// request bytes, whatever clients send.
//
// Threads: the intake's thread runs the poll loop and calls `ready`; any
// thread may call give_back() and stop_accepting(); stop() joins the thread.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace mudjack::server {

struct IntakeLimits {
  size_t max_head_bytes = size_t{32} * 1024;  // request line, header lines and the blank line
  // One line: cpp-httplib 0.11's compiled CPPHTTPLIB_HEADER_MAX_LENGTH and
  // CPPHTTPLIB_REQUEST_URI_MAX_LENGTH; longer ones it would refuse as malformed.
  size_t max_line_bytes = 8192;
  size_t max_header_lines = 100;
  size_t max_body_bytes = size_t{64} * 1024;
  // From the first byte of a request (or the accept) to its last byte.
  std::chrono::milliseconds request_timeout{10000};
  // A kept-alive connection waiting for its next request.
  std::chrono::milliseconds idle_timeout{5000};
  // After a refusal: the client's further bytes are read and dropped for this
  // long, so that it reads the refusal instead of a reset.
  std::chrono::milliseconds linger{1000};
  size_t max_connections = 512;
};

// What the bytes at the front of a connection say about its request.
struct HeadScan {
  enum class State { kIncomplete, kComplete, kRefused };
  State state = State::kIncomplete;
  size_t head_bytes = 0;  // kComplete: the request line through the blank line
  size_t body_bytes = 0;  // kComplete: its Content-Length, 0 without one
  // kComplete: where an `Expect: 100-continue` line is (the intake answers it
  // and removes the line); expect_bytes 0 without one.
  size_t expect_at = 0;
  size_t expect_bytes = 0;
  int status = 0;      // kRefused: 400, 411, 413, 414 or 431
  std::string reason;  // kRefused: one line for the JSON error
  std::string label;   // kRefused: the metrics label (head_bytes, header_lines, ...)
};

// Scans one request head incrementally: call scan() with the bytes received
// so far (the same prefix, growing); it resumes where it stopped, so a head
// that arrives a byte at a time costs linear time. Pure: no I/O.
class HeadScanner {
 public:
  explicit HeadScanner(const IntakeLimits& limits) : limits_(limits) {}
  const HeadScan& scan(std::string_view bytes);
  void reset() { *this = HeadScanner(limits_); }

 private:
  // One complete line [start, end) including its "\n"; false when it ended the head.
  bool take_line(std::string_view line, size_t start);
  void header(std::string_view line, size_t start);
  void refuse(int status, std::string reason, std::string label);

  IntakeLimits limits_;
  HeadScan result_;
  size_t line_start_ = 0;  // where the line being read starts
  size_t lines_ = 0;       // complete lines so far, the request line included
  std::optional<uint64_t> content_length_;
};

// A client connection and the bytes it sent that no worker has answered yet.
// Closing: the destructor closes the socket.
struct Connection {
  Connection(int fd_in, std::atomic<size_t>* open_count) : fd(fd_in), open_(open_count) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd = -1;
  std::string bytes;         // the request at the front, maybe part of the next
  size_t request_bytes = 0;  // when handed to a worker: head + body of the front request
  size_t served = 0;         // requests answered on this connection

 private:
  std::atomic<size_t>* open_;
};

using ConnectionPtr = std::unique_ptr<Connection>;

// Why the intake refused or dropped connections, counted for /metrics by label.
using RefusalCounter = std::function<void(std::string_view label)>;

class Intake {
 public:
  // Takes ownership of the listening socket. `ready` runs on the intake's
  // thread with each connection whose front request arrived whole; it must
  // not block.
  Intake(int listen_fd, IntakeLimits limits, std::function<void(ConnectionPtr)> ready,
         RefusalCounter refused);
  ~Intake();  // stop()
  Intake(const Intake&) = delete;
  Intake& operator=(const Intake&) = delete;

  void start();
  // A worker answered the front request: drop its bytes and wait for the next.
  void give_back(ConnectionPtr c);
  // Closes the listening socket; connections already open are still served.
  void stop_accepting();
  bool accepting() const { return accepting_.load(); }
  // Closes every connection the intake holds and ends its thread; later
  // give_back()s close theirs.
  void stop();
  // Connections open now: held here, waiting for a worker or being answered.
  size_t open_connections() const { return open_.load(); }

 private:
  struct Held;
  using Clock = std::chrono::steady_clock;

  void loop();
  int poll_timeout_ms(Clock::time_point now) const;
  void accept_new(Clock::time_point now);
  bool make_room();
  void adopt_returned(Clock::time_point now);
  void on_readable(Held& h, Clock::time_point now);
  void advance(Held& h, Clock::time_point now);
  void refuse(Held& h, int status, const std::string& reason, std::string_view label,
              Clock::time_point now);
  void expire(Clock::time_point now);
  void wake();

  int listen_fd_;
  int wake_fd_;
  const IntakeLimits limits_;
  std::function<void(ConnectionPtr)> ready_;
  RefusalCounter refused_;

  std::atomic<size_t> open_{0};
  std::atomic<bool> accepting_{true};
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<Held>> held_;  // the intake's thread only
  Clock::time_point accept_paused_until_{};  // the intake's thread only

  std::mutex inbox_mu_;
  std::vector<ConnectionPtr> inbox_;  // given back, not yet adopted
  bool stopped_ = false;              // guarded by inbox_mu_
  std::thread thread_;
};

}  // namespace mudjack::server
