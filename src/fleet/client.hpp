#pragma once
// The sweep's side of the server API: one `mudjack serve` endpoint over
// HTTP (cpp-httplib's client), JSON requests and a server-sent-event reader.
//
// Threads: a Client is used by one thread at a time (the sweep gives each
// target its own). Calls block for at most the connect and read timeouts;
// transport failures are values (Response::error), never exceptions.
//
// Reads are bounded: a reply larger than max_reply_bytes (announced by its
// Content-Length, or counted as it arrives), or one event of a stream larger
// than max_event_bytes, is refused (Response::oversized) and the connection
// dropped, so a broken or hostile server cannot make the sweep buffer
// gigabytes.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "util/sse.hpp"

namespace mudjack::fleet {

struct Response {
  int status = 0;  // 0 when no HTTP response came
  std::string body;
  std::string error;  // transport failure (refused, reset, timed out); "" when a response came
  // The reply (or one event) was over its size limit; `error` says which.
  // Asking again would only fetch it again: not worth a retry.
  bool oversized = false;
  // A 429's or 503's Retry-After in seconds (delta-seconds form only; an
  // HTTP date or garbage is ignored), capped at kMaxRetryAfterS.
  std::optional<int> retry_after_s;
  bool transport_ok() const { return error.empty(); }
  // The server's JSON error message, else the body's first line, else the transport error.
  std::string message() const;
};

// The longest Retry-After a client honours: a server asking for more is
// asked again after this long.
inline constexpr int kMaxRetryAfterS = 60;

// Default bounds of a reply (results of a large run are tens of MB) and of
// one event (an outcome with its samples is tens of kB).
inline constexpr size_t kMaxReplyBytes = size_t{256} << 20;
inline constexpr size_t kMaxEventBytes = size_t{16} << 20;

class Client {
 public:
  Client(std::string host, int port, std::string token, std::chrono::milliseconds connect_timeout,
         std::chrono::milliseconds read_timeout, size_t max_reply_bytes = kMaxReplyBytes,
         size_t max_event_bytes = kMaxEventBytes);

  Response get(const std::string& path) const;
  Response post_json(const std::string& path, const nlohmann::json& body) const;

  // Follows GET /v1/runs/{run_id}/events after event `after`, calling
  // on_event for each event until it returns false, the stream ends, or
  // `stop` is set (checked whenever bytes arrive, keep-alives included).
  // The Response carries the status and, for a non-200 answer, its body.
  Response follow_events(const std::string& run_id, uint64_t after,
                         const std::function<bool(const util::SseEvent&)>& on_event,
                         const std::atomic<bool>& stop) const;

 private:
  std::string host_;
  int port_;
  std::string token_;
  Response send(const std::string& method, const std::string& path,
                const std::string& json_body) const;

  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds read_timeout_;
  size_t max_reply_bytes_;
  size_t max_event_bytes_;
};

}  // namespace mudjack::fleet
