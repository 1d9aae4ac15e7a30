#include "server/intake.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "util/json.hpp"

namespace mudjack::server {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

const char* status_text(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Error";
  }
}

// A complete response that closes the connection: {"error", "status"}.
std::string refusal(int status, const std::string& reason) {
  auto body = util::dump_json({{"error", reason}, {"status", status}}, -1) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

// Best effort, never blocking: the socket's send buffer is empty when the
// intake answers, and a small answer fits.
void send_now(int fd, std::string_view data) {
  (void)::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

// --- HeadScanner --------------------------------------------------------------

void HeadScanner::refuse(int status, std::string reason, std::string label) {
  result_.state = HeadScan::State::kRefused;
  result_.status = status;
  result_.reason = std::move(reason);
  result_.label = std::move(label);
}

void HeadScanner::header(std::string_view line, size_t start) {
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return;  // cpp-httplib skips it too
  auto name = trim(line.substr(0, colon));
  auto value = trim(line.substr(colon + 1));
  if (iequals(name, "Transfer-Encoding")) {
    refuse(411, "request bodies must be sent with Content-Length, not Transfer-Encoding",
           "transfer_encoding");
  } else if (iequals(name, "Content-Length")) {
    bool digits =
        !value.empty() && value.size() <= 18 &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
    uint64_t n = digits ? std::strtoull(std::string(value).c_str(), nullptr, 10) : 0;
    if (!digits || (content_length_ && *content_length_ != n)) {
      refuse(400, "malformed Content-Length", "content_length");
    } else if (n > limits_.max_body_bytes) {
      refuse(413, "request body larger than " + std::to_string(limits_.max_body_bytes) + " bytes",
             "body_bytes");
    }
    content_length_ = n;
  } else if (iequals(name, "Content-Encoding") && !iequals(value, "identity")) {
    // cpp-httplib would inflate gzip or br without a limit after the
    // Content-Length check: 799 bytes of br were a 1 GB request.
    refuse(415,
           "compressed request bodies are not accepted (Content-Encoding: " +
               std::string(value.substr(0, 40)) + "); send the JSON as is",
           "content_encoding");
  } else if (iequals(name, "Expect") && iequals(value, "100-continue")) {
    result_.expect_at = start;
    result_.expect_bytes = line.size();
  }
}

bool HeadScanner::take_line(std::string_view line, size_t start) {
  const bool request_line = lines_ == 0;
  ++lines_;
  if (line.size() > limits_.max_line_bytes) {
    if (request_line) {
      refuse(414, "request line longer than " + std::to_string(limits_.max_line_bytes) + " bytes",
             "line_bytes");
    } else {
      refuse(431,
             "a header line is longer than " + std::to_string(limits_.max_line_bytes) + " bytes",
             "line_bytes");
    }
    return true;
  }
  if (request_line) return true;
  if (line == "\r\n") return false;
  if (lines_ - 1 > limits_.max_header_lines) {
    refuse(431, "more than " + std::to_string(limits_.max_header_lines) + " header lines",
           "header_lines");
    return true;
  }
  header(line, start);
  return true;
}

const HeadScan& HeadScanner::scan(std::string_view bytes) {
  while (result_.state == HeadScan::State::kIncomplete) {
    auto nl = bytes.find('\n', line_start_);
    if (nl == std::string_view::npos) break;
    auto line = bytes.substr(line_start_, nl + 1 - line_start_);
    size_t start = line_start_;
    line_start_ = nl + 1;
    if (!take_line(line, start)) {
      result_.state = HeadScan::State::kComplete;
      result_.head_bytes = line_start_;
      result_.body_bytes = content_length_.value_or(0);
    }
  }
  if (result_.state == HeadScan::State::kRefused) return result_;
  if (result_.state == HeadScan::State::kIncomplete) {
    if (bytes.size() - line_start_ > limits_.max_line_bytes) {
      take_line(bytes.substr(line_start_), line_start_);  // refuses it as too long
      return result_;
    }
  }
  size_t head = result_.state == HeadScan::State::kComplete ? result_.head_bytes : bytes.size();
  if (head > limits_.max_head_bytes) {
    refuse(431, "request head larger than " + std::to_string(limits_.max_head_bytes) + " bytes",
           "head_bytes");
  }
  return result_;
}

// --- Connection ---------------------------------------------------------------

Connection::~Connection() {
  if (fd >= 0) ::close(fd);
  if (open_ != nullptr) --*open_;
}

// --- Intake -------------------------------------------------------------------

struct Intake::Held {
  Held(ConnectionPtr c_in, const IntakeLimits& limits) : c(std::move(c_in)), scanner(limits) {}
  ConnectionPtr c;
  HeadScanner scanner;
  bool lingering = false;      // refused: discarding input until the deadline
  bool continued = false;      // 100 Continue sent for the front request
  bool started = false;        // a byte of the front request arrived
  Clock::time_point since;     // waiting since (for eviction)
  Clock::time_point deadline;  // of the front request, idleness or linger
};

Intake::Intake(int listen_fd, IntakeLimits limits, std::function<void(ConnectionPtr)> ready,
               RefusalCounter refused)
    : listen_fd_(listen_fd),
      wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      limits_(limits),
      ready_(std::move(ready)),
      refused_(std::move(refused)) {
  if (wake_fd_ < 0) std::abort();  // invariant: an eventfd is always available at start-up
  ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
}

Intake::~Intake() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::close(wake_fd_);
}

void Intake::start() {
  thread_ = std::thread([this] { loop(); });
}

void Intake::wake() {
  uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof(one));
}

void Intake::give_back(ConnectionPtr c) {
  c->bytes.erase(0, c->request_bytes);
  c->request_bytes = 0;
  ++c->served;
  {
    std::lock_guard lock(inbox_mu_);
    if (stopped_) return;  // c closes here
    inbox_.push_back(std::move(c));
  }
  wake();
}

void Intake::stop_accepting() {
  accepting_.store(false);
  wake();
}

void Intake::stop() {
  {
    std::lock_guard lock(inbox_mu_);
    stopped_ = true;
    inbox_.clear();
  }
  stopping_.store(true);
  wake();
  if (thread_.joinable()) thread_.join();
  held_.clear();
}

void Intake::loop() {
  std::vector<pollfd> fds;
  while (!stopping_.load()) {
    auto now = Clock::now();
    if (!accepting_.load() && listen_fd_ >= 0) {
      ::close(listen_fd_);
      listen_fd_ = -1;
    }
    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    const bool listening = listen_fd_ >= 0 && now >= accept_paused_until_ &&
                           (open_.load() < limits_.max_connections || !held_.empty());
    fds.push_back({listening ? listen_fd_ : -1, POLLIN, 0});
    for (const auto& h : held_) fds.push_back({h->c->fd, POLLIN, 0});
    int n = ::poll(fds.data(), fds.size(), poll_timeout_ms(now));
    if (n < 0) {
      for (auto& p : fds) p.revents = 0;  // EINTR, or ENOMEM: look again
    }
    now = Clock::now();
    // The held connections polled are held_[0, polled): later ones are new.
    const size_t polled = fds.size() - 2;
    for (size_t i = 0; n > 0 && i < polled; ++i) {
      if (fds[i + 2].revents != 0) on_readable(*held_[i], now);
    }
    if (fds[0].revents != 0) {
      uint64_t count = 0;
      (void)::read(wake_fd_, &count, sizeof(count));
    }
    adopt_returned(now);
    if (fds[1].revents != 0) accept_new(now);
    expire(now);
  }
}

int Intake::poll_timeout_ms(Clock::time_point now) const {
  auto next = now + std::chrono::seconds(1);
  for (const auto& h : held_) next = std::min(next, h->deadline);
  // Full with nothing to drop: look again soon for connections that closed.
  if (open_.load() >= limits_.max_connections)
    next = std::min(next, now + std::chrono::milliseconds(50));
  if (accept_paused_until_ > now) next = std::min(next, accept_paused_until_);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
  return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 1000));
}

// Drops the connection that has waited longest for its request, lingering
// ones first; false when every open connection is with a worker.
bool Intake::make_room() {
  Held* oldest = nullptr;
  for (const auto& h : held_) {
    if (oldest == nullptr || (h->lingering && !oldest->lingering) ||
        (h->lingering == oldest->lingering && h->since < oldest->since)) {
      oldest = h.get();
    }
  }
  if (oldest == nullptr) return false;
  if (!oldest->lingering) refused_("evicted");
  oldest->c.reset();
  std::erase_if(held_, [](const std::unique_ptr<Held>& h) { return !h->c; });
  return true;
}

void Intake::accept_new(Clock::time_point now) {
  for (int i = 0; i < 64; ++i) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // EAGAIN: none left. Out of descriptors or memory: the connection
      // stays in the backlog, and polling would report it at once again.
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
        accept_paused_until_ = now + std::chrono::milliseconds(100);
      }
      return;
    }
    auto c = std::make_unique<Connection>(fd, &open_);
    // Full: room for the new one, or (every other one is with a worker) not.
    if (++open_ > limits_.max_connections && !make_room()) return;
    auto h = std::make_unique<Held>(std::move(c), limits_);
    h->since = now;
    h->deadline = now + limits_.request_timeout;
    held_.push_back(std::move(h));
  }
}

void Intake::adopt_returned(Clock::time_point now) {
  std::vector<ConnectionPtr> back;
  {
    std::lock_guard lock(inbox_mu_);
    back.swap(inbox_);
  }
  for (auto& c : back) {
    auto h = std::make_unique<Held>(std::move(c), limits_);
    h->since = now;
    h->deadline = now + limits_.idle_timeout;
    h->started = !h->c->bytes.empty();
    if (h->started) h->deadline = now + limits_.request_timeout;
    auto* raw = h.get();
    held_.push_back(std::move(h));
    advance(*raw, now);  // a pipelined request may be there already
  }
  std::erase_if(held_, [](const std::unique_ptr<Held>& h) { return !h->c; });
}

void Intake::on_readable(Held& h, Clock::time_point now) {
  if (!h.c) return;
  char buf[16384];
  if (h.lingering) {
    ssize_t n = ::recv(h.c->fd, buf, sizeof(buf), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) h.c.reset();
    return;
  }
  const auto& scan = h.scanner.scan(h.c->bytes);
  size_t want =
      scan.state == HeadScan::State::kComplete
          ? scan.head_bytes + scan.body_bytes - h.c->bytes.size()
          : limits_.max_head_bytes + 1 - std::min(h.c->bytes.size(), limits_.max_head_bytes);
  ssize_t n = ::recv(h.c->fd, buf, std::min(sizeof(buf), std::max<size_t>(want, 1)), 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    h.c.reset();  // the client left (or reset): nothing to answer
    return;
  }
  if (n < 0) return;
  if (!h.started) {
    h.started = true;
    // A new connection's deadline runs from its accept; a kept-alive one's
    // from the first byte of its next request.
    if (h.c->served > 0) h.deadline = now + limits_.request_timeout;
  }
  h.c->bytes.append(buf, static_cast<size_t>(n));
  advance(h, now);
}

// Acts on what the front request's bytes say: refuse, wait, or hand over.
void Intake::advance(Held& h, Clock::time_point now) {
  if (!h.c || !h.started) return;
  const auto& scan = h.scanner.scan(h.c->bytes);
  if (scan.state == HeadScan::State::kRefused) {
    refuse(h, scan.status, scan.reason, scan.label, now);
    return;
  }
  if (scan.state == HeadScan::State::kIncomplete) return;
  size_t total = scan.head_bytes + scan.body_bytes;
  if (h.c->bytes.size() < total) {
    if (scan.expect_bytes > 0 && !h.continued) {
      send_now(h.c->fd, "HTTP/1.1 100 Continue\r\n\r\n");
      h.continued = true;
    }
    return;
  }
  // Answered here (or the body came anyway): the worker must not answer it again.
  if (scan.expect_bytes > 0) h.c->bytes.erase(scan.expect_at, scan.expect_bytes);
  h.c->request_bytes = total - scan.expect_bytes;
  ready_(std::move(h.c));
}

void Intake::refuse(Held& h, int status, const std::string& reason, std::string_view label,
                    Clock::time_point now) {
  refused_(label);
  send_now(h.c->fd, refusal(status, reason));
  ::shutdown(h.c->fd, SHUT_WR);
  h.c->bytes.clear();
  h.c->bytes.shrink_to_fit();
  h.lingering = true;
  h.deadline = now + limits_.linger;
}

void Intake::expire(Clock::time_point now) {
  for (auto& h : held_) {
    if (!h->c || h->deadline > now) continue;
    if (h->lingering || !h->started) {
      h->c.reset();  // lingered enough, or idle: close without a word
    } else {
      refuse(
          *h, 408,
          "request not received within " + std::to_string(limits_.request_timeout.count()) + " ms",
          "timeout", now);
    }
  }
  std::erase_if(held_, [](const std::unique_ptr<Held>& h) { return !h->c; });
}

}  // namespace mudjack::server
