#include "fleet/client.hpp"

#include <httplib.h>

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

Response from(const httplib::Result& r) {
  Response out;
  if (!r) {
    out.error = describe(r.error());
    return out;
  }
  out.status = r->status;
  out.body = r->body;
  return out;
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
               std::chrono::milliseconds connect_timeout, std::chrono::milliseconds read_timeout)
    : host_(std::move(host)),
      port_(port),
      token_(std::move(token)),
      connect_timeout_(connect_timeout),
      read_timeout_(read_timeout) {}

Response Client::get(const std::string& path) const {
  httplib::Client c(host_, port_);
  configure(c, connect_timeout_, read_timeout_);
  return from(c.Get(path, headers_for(token_)));
}

Response Client::post_json(const std::string& path, const nlohmann::json& body) const {
  httplib::Client c(host_, port_);
  configure(c, connect_timeout_, read_timeout_);
  return from(c.Post(path, headers_for(token_), body.dump(), "application/json"));
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
        for (const auto& e : parser.feed(std::string_view(data, n))) {
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
  if (!result && !stopped_by_us) out.error = describe(result.error());
  return out;
}

}  // namespace mudjack::fleet
