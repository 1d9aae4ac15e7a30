#pragma once
// Server-sent events (the text/event-stream format of the HTML standard):
// the server writes them (GET /v1/runs/{id}/events), the fleet client reads
// them. Each event is `id: N`, `event: NAME`, one `data:` line of compact
// JSON, then a blank line. Pure functions and a parser that keeps state
// between chunks; not thread-safe (one per stream). In util/ because both
// sides use it: fleet/ never includes server/.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mudjack::util {

// One event as written: `id` counts from 1 within a run, so a client that
// reconnects with Last-Event-ID: N gets the events after N.
std::string sse_event(uint64_t id, std::string_view name, const nlohmann::json& data);
// The same with `data` already compact JSON (one line, as dump_json(-1) writes).
std::string sse_event_raw(uint64_t id, std::string_view name, std::string_view data);
// A comment line that keeps idle connections (and proxies) alive.
std::string sse_comment(std::string_view text);

struct SseEvent {
  std::string id;    // "" when the event had no id field
  std::string name;  // "message" when the event had no event field
  std::string data;  // data lines joined with '\n'
};

// Feeds bytes as they arrive, in chunks of any size; returns the events that
// completed. Accepts LF, CRLF and CR line ends; ignores comments and unknown
// fields, as the standard says.
class SseParser {
 public:
  std::vector<SseEvent> feed(std::string_view bytes);
  // Bytes of an unfinished line or event held back; a stream that ends with
  // some is truncated.
  size_t pending() const { return line_.size() + (in_event_ ? 1 : 0); }

 private:
  void line(std::string_view l, std::vector<SseEvent>& out);
  std::string line_;
  bool last_was_cr_ = false;
  bool in_event_ = false;
  SseEvent event_;
  bool has_data_ = false;
};

}  // namespace mudjack::util
