#include "report/text.hpp"

#include <algorithm>

namespace mudjack::report {

std::pair<long, size_t> decode_utf8(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    return {b0, 1};
  }
  size_t len = 0;
  long cp = 0;
  long min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
    min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
    min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return {-1, 1};
  }
  if (i + len > s.size()) {
    return {-1, 1};
  }
  for (size_t k = 1; k < len; ++k) {
    unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) {
      return {-1, 1};
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return {-1, 1};
  }
  return {cp, len};
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto [cp, len] = decode_utf8(s, i);
    if (cp < 0) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

std::string plain(std::string_view s) {
  std::string v = valid_utf8(s);
  std::string out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    auto c = static_cast<unsigned char>(v[i]);
    if (c == 0x1b) {
      if (i + 1 < v.size() && v[i + 1] == '[') {
        i += 2;
        while (i < v.size() && !(v[i] >= 0x40 && v[i] <= 0x7e)) {
          ++i;
        }
      }
      continue;
    }
    if (c == '\t') {
      out += ' ';
    } else if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string one_line(std::string_view text, size_t max_bytes) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) {
    return {};
  }
  text.remove_prefix(start);
  std::string line = plain(text.substr(0, text.find_first_of("\r\n")));
  std::string_view s = line;
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  if (s.size() <= max_bytes) {
    return std::string(s);
  }
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return std::string(s.substr(0, cut)) + "…";
}

std::string last_line(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.remove_suffix(1);
  }
  auto nl = s.find_last_of("\r\n");
  return std::string(nl == std::string_view::npos ? s : s.substr(nl + 1));
}

const nlohmann::json& machines(const nlohmann::json& env) {
  static const nlohmann::json kNone = nlohmann::json::array();
  if (!env.is_object()) {
    return kNone;
  }
  auto it = env.find("machines");
  return it != env.end() && it->is_array() ? *it : kNone;
}

std::string device_model(const nlohmann::json& env, const std::string& id) {
  std::string label;
  std::string bare = id;
  if (auto slash = id.find('/'); slash != std::string::npos) {
    label = id.substr(0, slash);
    bare = id.substr(slash + 1);
  }
  for (const auto& m : machines(env)) {
    if (!m.is_object() || !m.contains("devices") || !m["devices"].is_array()) {
      continue;
    }
    if (!label.empty() && m.value("label", nlohmann::json()) != nlohmann::json(label)) {
      continue;
    }
    for (const auto& d : m["devices"]) {
      if (!d.is_object() || d.value("id", nlohmann::json()) != nlohmann::json(bare)) {
        continue;
      }
      auto model = d.find("model");
      if (model != d.end() && model->is_string() && !model->get<std::string>().empty()) {
        return model->get<std::string>();
      }
    }
  }
  return "";
}

std::string failure_text(const model::CaseResult& r, size_t max_bytes) {
  std::string text = one_line(r.error.message, max_bytes);
  if (text.empty() && r.outcome == model::Outcome::kMismatch) {
    text = one_line(r.numeric.message, max_bytes);
  }
  if (text.empty()) text = one_line(last_line(r.error.stderr_tail), max_bytes);
  std::string detail;
  if (r.error.signal) detail = "signal " + std::to_string(*r.error.signal);
  if (r.error.exit_code) detail = "exit code " + std::to_string(*r.error.exit_code);
  if (detail.empty()) return text;
  return text.empty() ? detail : detail + ": " + text;
}

const model::CaseResult* first_failing(const verdict::Judged& j, const model::VerdictRow& v) {
  for (const auto* ids : {&v.failing, &v.mismatching}) {
    for (const auto& id : *ids) {
      for (const auto& r : j.cases) {
        if (r.info.id == id && r.device == v.device) return &r;
      }
    }
  }
  for (const auto& r : j.cases) {
    if (r.info.framework == v.framework && r.info.function == v.function && r.device == v.device &&
        r.outcome != model::Outcome::kPass) {
      return &r;
    }
  }
  return nullptr;
}

namespace {

std::string cores_text(const nlohmann::json& cpus) {
  std::string out;
  if (!cpus.is_array()) return out;
  for (const auto& c : cpus) {
    if (!c.is_number_integer()) continue;
    out += (out.empty() ? "" : ",") + std::to_string(c.get<int64_t>());
  }
  return out;
}

std::string probe_text(const nlohmann::json& p) {
  if (!p.is_object()) return "?";
  std::string out = p.value("pinned", false)
                        ? "cores " + cores_text(p.value("cpus", nlohmann::json()))
                        : "unpinned";
  const auto threads = p.value("threads", int64_t{0});
  out += threads > 0 ? " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)")
                     : " (default threads)";
  return out;
}

}  // namespace

std::string layout_line(const nlohmann::json& machine) {
  if (!machine.is_object() || !machine.contains("layout") || !machine["layout"].is_object()) {
    return "";
  }
  const auto& layout = machine["layout"];
  auto lanes = layout.value("lanes", nlohmann::json::array());
  if (!lanes.is_array()) lanes = nlohmann::json::array();
  std::string out;
  if (lanes.size() > 1) {
    out = layout.value("parallel", false) ? "lanes side by side" : "lanes one after another";
  }
  for (const auto& lane : lanes) {
    if (!lane.is_object()) continue;
    const auto probes = lane.value("probes", nlohmann::json::array());
    if (!probes.is_array()) continue;
    out += std::string(out.empty() ? "" : "; ") + std::to_string(probes.size()) +
           (probes.size() == 1 ? " probe of " : " probes of ") +
           lane.value("device", std::string("?")) +
           (lane.value("shared", false) ? " (taking turns on it)" : "") + ":";
    for (size_t i = 0; i < probes.size(); ++i) out += (i ? ", " : " ") + probe_text(probes[i]);
  }
  return out;
}

std::string words(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

// "listed names missing: 3 (torch on cpu: 2, successor portable 2; ...)",
// or nothing when every listed name exists.
std::string listed_missing_line(const verdict::Judged& judged) {
  std::string parts;
  int total = 0;
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.listed_missing == 0) continue;
      total += tally.listed_missing;
      parts += std::string(parts.empty() ? "" : "; ") + framework + " on " + device + ": " +
               std::to_string(tally.listed_missing) + ", successor portable " +
               std::to_string(tally.successor_portable);
    }
  }
  if (total == 0) return "";
  return "listed names missing (counted unavailable, never portable): " + std::to_string(total) +
         " (" + parts + ")\n";
}

// "divergent functions by cause (the table counts full_precision): torch on
// cuda:0: 3 full_precision, 5 precision_default, 1 baseline_wrong\n", or
// nothing when no function diverged.
std::string divergence_line(const verdict::Judged& judged) {
  std::string parts;
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      std::string causes;
      for (auto c : model::kCauses) {
        auto it = tally.divergent_causes.find(c);
        if (it == tally.divergent_causes.end() || it->second == 0) continue;
        causes += std::string(causes.empty() ? "" : ", ") + std::to_string(it->second) + " " +
                  std::string(model::to_string(c));
      }
      if (!causes.empty()) {
        parts +=
            std::string(parts.empty() ? "" : "; ") + framework + " on " + device + ": " + causes;
      }
    }
  }
  if (parts.empty()) return "";
  return "divergent functions by cause (the table counts own_check and full_precision): " + parts +
         "\n";
}

namespace {

// "torch on cuda:0: 1 function (4 cases, 4 documented)".
std::string kernel_missing_part(const std::string& framework, const std::string& device,
                                const verdict::Tally& tally) {
  return framework + " on " + device + ": " + std::to_string(tally.kernel_missing_functions) +
         (tally.kernel_missing_functions == 1 ? " function (" : " functions (") +
         std::to_string(tally.kernel_missing_cases) + " cases, " +
         std::to_string(tally.kernel_missing_documented) + " documented)";
}

// "portability gaps cannot be told for 12 failing cases on cuda:0 (cpu never
// ran them: an incomplete run)\n", or "".
std::string unreached_line(const verdict::Judged& judged) {
  std::string parts;
  for (const auto& u : judged.unreached) {
    parts += std::string(parts.empty() ? "" : "; ") + u.framework + ": " + std::to_string(u.cases) +
             " failing on " + u.device + " that " + u.other + " never ran";
  }
  if (parts.empty()) return "";
  return "portability gaps not known (the other lane never reached the case): " + parts + "\n";
}

}  // namespace

// "unsupported dtypes (outside the function's domain; never failures): torch
// on cpu: 4 functions (12 cases); ...\n", "kernel missing (a failure on that
// device): torch on cuda:0: 1 function (4 cases, 4 documented)\n",
// "portability gaps (passed on another device, not here): torch on cuda:0: 3
// cases\n" and the failing cases no gap can be told for, or nothing.
std::string apart_lines(const verdict::Judged& judged) {
  std::string unsupported;
  std::string missing;
  std::string gaps;
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.unsupported_functions > 0) {
        unsupported += std::string(unsupported.empty() ? "" : "; ") + framework + " on " + device +
                       ": " + std::to_string(tally.unsupported_functions) +
                       (tally.unsupported_functions == 1 ? " function (" : " functions (") +
                       std::to_string(tally.unsupported_cases) + " cases)";
      }
      if (tally.kernel_missing_functions > 0) {
        missing += std::string(missing.empty() ? "" : "; ") +
                   kernel_missing_part(framework, device, tally);
      }
      if (tally.gaps > 0) {
        gaps += std::string(gaps.empty() ? "" : "; ") + framework + " on " + device + ": " +
                std::to_string(tally.gaps) + (tally.gaps == 1 ? " case" : " cases");
      }
    }
  }
  std::string out;
  if (!unsupported.empty()) {
    out +=
        "unsupported dtypes (outside the function's domain; never failures): " + unsupported + "\n";
  }
  if (!missing.empty()) out += "kernel_missing (a failure on that device): " + missing + "\n";
  if (!gaps.empty()) out += "portability gaps (passed on another device, not here): " + gaps + "\n";
  return out + unreached_line(judged);
}

std::string claims_lines(const verdict::Judged& judged) {
  const auto example = [](const std::vector<const verdict::ClaimRow*>& rows) {
    if (rows.empty()) return std::string();
    return " (e.g. " + rows.front()->function + " " + rows.front()->dtype + ")";
  };
  std::string out;
  for (const auto& [framework, by_device] : verdict::tally(judged.claims)) {
    for (const auto& [device, t] : by_device) {
      out += "claimed vs actual, " + framework + " on " + device + ": " + std::to_string(t.agrees) +
             " agree, " + std::to_string(t.claimed_failing.size()) + " claimed but failing" +
             example(t.claimed_failing) + ", " + std::to_string(t.unclaimed_working.size()) +
             " working but unclaimed" + example(t.unclaimed_working) + "\n";
    }
  }
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : valid_utf8(s)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdown_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (std::string_view("\\`*_[]<>|~#").find(c) != std::string_view::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

}  // namespace mudjack::report
