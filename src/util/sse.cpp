#include "util/sse.hpp"

#include "util/json.hpp"

namespace mudjack::util {

std::string sse_event(uint64_t id, std::string_view name, const nlohmann::json& data) {
  std::string out = "id: " + std::to_string(id) + "\nevent: ";
  out.append(name);
  // Compact JSON has no raw newlines (they are escaped in strings), so one
  // data line carries the whole document.
  out += "\ndata: " + dump_json(data, -1) + "\n\n";
  return out;
}

std::string sse_event_raw(uint64_t id, std::string_view name, std::string_view data) {
  std::string out = "id: " + std::to_string(id) + "\nevent: ";
  out.append(name);
  out += "\ndata: ";
  out.append(data);
  out += "\n\n";
  return out;
}

std::string sse_comment(std::string_view text) {
  std::string out = ": ";
  out.append(text);
  out += "\n\n";
  return out;
}

std::vector<SseEvent> SseParser::feed(std::string_view bytes) {
  std::vector<SseEvent> out;
  for (char c : bytes) {
    if (c == '\n' && last_was_cr_) {  // the LF of a CRLF: the line already ended
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      line(line_, out);
      line_.clear();
    } else {
      line_ += c;
    }
  }
  return out;
}

void SseParser::line(std::string_view l, std::vector<SseEvent>& out) {
  if (l.empty()) {  // dispatch
    if (has_data_) {
      if (event_.name.empty()) event_.name = "message";
      out.push_back(std::move(event_));
    }
    event_ = SseEvent{};
    has_data_ = false;
    in_event_ = false;
    return;
  }
  in_event_ = true;
  if (l.front() == ':') return;  // comment
  auto colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view value =
      colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    event_.name = std::string(value);
  } else if (field == "id") {
    event_.id = std::string(value);
  }
}

}  // namespace mudjack::util
