#pragma once
// The sweep's side of the server API: one `mudjack serve` endpoint over
// HTTP (cpp-httplib's client), JSON requests and a server-sent-event reader.
//
// Threads: a Client is used by one thread at a time (the sweep gives each
// target its own). Calls block for at most the connect and read timeouts;
// transport failures are values (Response::error), never exceptions.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "util/sse.hpp"

namespace mudjack::fleet {

struct Response {
  int status = 0;  // 0 when no HTTP response came
  std::string body;
  std::string error;  // transport failure (refused, reset, timed out); "" when a response came
  bool transport_ok() const { return error.empty(); }
  // The server's JSON error message, else the body's first line, else the transport error.
  std::string message() const;
};

class Client {
 public:
  Client(std::string host, int port, std::string token, std::chrono::milliseconds connect_timeout,
         std::chrono::milliseconds read_timeout);

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
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds read_timeout_;
};

}  // namespace mudjack::fleet
