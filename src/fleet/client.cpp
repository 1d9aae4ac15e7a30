#include "fleet/client.hpp"

#include <httplib.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace mudjack::fleet {
namespace {

void configure(httplib::Client& c, std::chrono::milliseconds connect,
               std::chrono::milliseconds read) {
  c.set_connection_timeout(connect);
  c.set_read_timeout(read);
  c.set_write_timeout(read);
  c.set_keep_alive(false);
}

httplib::Headers headers_for(const std::string& token) {
  httplib::Headers h = {{"Accept", "application/json"}};
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  return h;
}

std::string describe(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::ConnectionTimeout:
      return "connection timed out";
    case httplib::Error::Read:
      return "connection lost while reading (or no data within the read timeout)";
    case httplib::Error::Write:
      return "connection lost while writing";
    default:
      return "HTTP client error: " + httplib::to_string(e);
  }
}

std::string mib(size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// The Content-Length a response announces, when it announces one.
std::optional<uint64_t> content_length(const httplib::Response& res) {
  if (!res.has_header("Content-Length")) return std::nullopt;
  const auto text = res.get_header_value("Content-Length");
  char* end = nullptr;
  const auto n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return std::nullopt;
  return n;
}

// Retry-After as delta-seconds ("5"), capped; nullopt for an absent,
// negative, non-numeric or date-form value.
std::optional<int> retry_after(const httplib::Response& res) {
  if (!res.has_header("Retry-After")) return std::nullopt;
  const auto text = res.get_header_value("Retry-After");
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::min(std::stoi(text), kMaxRetryAfterS);
}

}  // namespace

std::string Response::message() const {
  if (!error.empty()) return error;
  auto doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_string()) {
    return doc["error"].get<std::string>();
  }
  auto line = body.substr(0, body.find('\n'));
  return "HTTP " + std::to_string(status) + (line.empty() ? "" : ": " + line.substr(0, 200));
}

Client::Client(std::string host, int port, std::string token,
               std::chrono::milliseconds connect_timeout, std::chrono::milliseconds read_timeout,
               size_t max_reply_bytes, size_t max_event_bytes)
    : host_(std::move(host)),
      port_(port),
      token_(std::move(token)),
      connect_timeout_(connect_timeout),
      read_timeout_(read_timeout),
      max_reply_bytes_(max_reply_bytes),
      max_event_bytes_(max_event_bytes) {}

// One request whose reply is read into memory up to max_reply_bytes_.
Response Client::send(const std::string& method, const std::string& path,
                      const std::string& json_body) const {
  httplib::Client c(host_, port_);
  configure(c, connect_timeout_, read_timeout_);
  httplib::Request req;
  req.method = method;
  req.path = path;
  req.headers = headers_for(token_);
  if (method == "POST") {
    req.body = json_body;
    req.headers.emplace("Content-Type", "application/json");
  }
  Response out;
  req.response_handler = [&](const httplib::Response& res) {
    out.status = res.status;
    out.retry_after_s = retry_after(res);
    auto announced = content_length(res);
    out.oversized = announced && *announced > max_reply_bytes_;
    return !out.oversized;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    out.oversized = out.body.size() + n > max_reply_bytes_;
    if (!out.oversized) out.body.append(data, n);
    return !out.oversized;
  };
  auto result = c.send(req);
  if (out.oversized) {
    out.body.clear();
    out.body.shrink_to_fit();
    out.error = method + " " + path + ": reply larger than " + mib(max_reply_bytes_) + "; refused";
  } else if (!result) {
    out.status = 0;
    out.body.clear();
    out.error = describe(result.error());
  }
  return out;
}

Response Client::get(const std::string& path) const {
  return send("GET", path, "");
}

Response Client::post_json(const std::string& path, const nlohmann::json& body) const {
  return send("POST", path, body.dump());
}

Response Client::follow_events(const std::string& run_id, uint64_t after,
                               const std::function<bool(const util::SseEvent&)>& on_event,
                               const std::atomic<bool>& stop) const {
  httplib::Client c(host_, port_);
  configure(c, connect_timeout_, read_timeout_);
  auto headers = headers_for(token_);
  headers.erase("Accept");
  headers.emplace("Accept", "text/event-stream");
  headers.emplace("Last-Event-ID", std::to_string(after));
  util::SseParser parser;
  Response out;
  bool stopped_by_us = false;
  size_t unfinished = 0;  // bytes fed since the parser last held nothing back
  auto result = c.Get(
      "/v1/runs/" + run_id + "/events", headers,
      [&](const httplib::Response& res) {
        out.status = res.status;
        return true;
      },
      [&](const char* data, size_t n) {
        if (out.status != 200) {  // an error body: keep it for the message
          out.body.append(data, n);
          return out.body.size() < 65536;
        }
        auto events = parser.feed(std::string_view(data, n));
        unfinished = parser.pending() == 0 ? 0 : (events.empty() ? unfinished + n : n);
        if (unfinished > max_event_bytes_) {
          out.oversized = true;
          return false;
        }
        for (const auto& e : events) {
          if (!on_event(e)) {
            stopped_by_us = true;
            return false;
          }
        }
        if (stop.load()) {
          stopped_by_us = true;
          return false;
        }
        return true;
      });
  if (out.oversized) {
    out.error =
        "an event of run " + run_id + " is larger than " + mib(max_event_bytes_) + "; refused";
  } else if (!result && !stopped_by_us) {
    out.error = describe(result.error());
  }
  return out;
}

}  // namespace mudjack::fleet
