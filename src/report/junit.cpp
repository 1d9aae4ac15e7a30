#include "report/junit.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "report/text.hpp"

namespace mudjack::report {
namespace {

std::string seconds(double s) {
  if (!std::isfinite(s) || s < 0) {
    s = 0;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

// Shortest text that reads back as the same double.
std::string number(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string attr(std::string_view s) {
  return xml_escape(s, true);
}
std::string text(std::string_view s) {
  return xml_escape(s, false);
}

// Not attempted here through no one's fault (model.hpp): unavailable, skip.
bool is_skipped(model::Outcome o) {
  return model::props(o).judged && !model::props(o).attempted;
}

std::string first_line(std::string_view s) {
  auto nl = s.find_first_of("\r\n");
  return std::string(s.substr(0, nl));
}

// The one-line summary in failure/@message.
std::string failure_message(const model::CaseResult& r) {
  std::string msg;
  if (r.error.kind != model::ErrorKind::kNone) {
    msg = std::string(model::to_string(r.error.kind));
  }
  const auto append = [&msg](std::string_view part) {
    if (part.empty()) {
      return;
    }
    if (!msg.empty()) {
      msg += ": ";
    }
    msg += part;
  };
  if (r.error.signal) {
    append("signal " + std::to_string(*r.error.signal));
  }
  if (r.error.exit_code) {
    append("exit code " + std::to_string(*r.error.exit_code));
  }
  append(first_line(r.error.message));
  if (r.outcome == model::Outcome::kMismatch) {
    append(first_line(r.numeric.message));
  }
  if (msg.empty()) {
    msg = std::string(model::to_string(r.outcome));
  }
  return msg;
}

// The full detail in the failure element's text.
std::string failure_body(const model::CaseResult& r) {
  std::string body;
  const auto line = [&body](std::string_view label, std::string_view value) {
    if (value.empty()) {
      return;
    }
    body += label;
    body += value;
    if (value.back() != '\n') {
      body += '\n';
    }
  };
  line("case: ", r.info.id);
  line("device: ", r.device);
  line("outcome: ", model::to_string(r.outcome));
  line("error kind: ", model::to_string(r.error.kind));
  line("message: ", r.error.message);
  if (r.error.signal) {
    line("signal: ", std::to_string(*r.error.signal));
  }
  if (r.error.exit_code) {
    line("exit code: ", std::to_string(*r.error.exit_code));
  }
  if (r.outcome == model::Outcome::kMismatch || !r.numeric.message.empty()) {
    line("compared with: ", r.numeric.compared_with);
    if (r.numeric.max_abs_err) {
      line("max abs err: ", number(*r.numeric.max_abs_err));
    }
    if (r.numeric.max_rel_err) {
      line("max rel err: ", number(*r.numeric.max_rel_err));
    }
    line("numeric: ", r.numeric.message);
  }
  line("traceback:\n", r.error.traceback);
  line("stderr tail:\n", r.error.stderr_tail);
  return body;
}

std::string classname(const model::CaseInfo& info) {
  std::string prefix = info.framework + ".";
  if (info.function.compare(0, prefix.size(), prefix) == 0) {
    return info.function;
  }
  return prefix + info.function;
}

struct Suite {
  std::string name;
  std::vector<const model::CaseResult*> cases;
  int failures = 0;
  int errors = 0;  // the suite's own mistakes (outcome error)
  int skipped = 0;
  double time_s = 0;
};

}  // namespace

std::string xml_escape(std::string_view s, bool attribute) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto [cp, len] = decode_utf8(s, i);
    i += len;
    switch (cp) {
      case -1:
        out += "\xEF\xBF\xBD";  // U+FFFD
        continue;
      case '&':
        out += "&amp;";
        continue;
      case '<':
        out += "&lt;";
        continue;
      case '>':
        out += "&gt;";
        continue;
      case '"':
        out += "&quot;";
        continue;
      case '\'':
        out += "&apos;";
        continue;
      case '\t':
      case '\n':
      case '\r':
        if (attribute) {
          out += "&#" + std::to_string(cp) + ";";
        } else {
          out += static_cast<char>(cp);
        }
        continue;
      case 0xFFFE:
      case 0xFFFF: {
        char buf[12];
        std::snprintf(buf, sizeof buf, "\\u%04lX", cp);
        out += buf;
        continue;
      }
      default:
        break;
    }
    if (cp < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02lx", cp);
      out += buf;
      continue;
    }
    out.append(s.substr(i - len, len));
  }
  return out;
}

std::string to_junit(const model::RunInfo& run, const std::vector<model::CaseResult>& cases) {
  std::vector<Suite> suites;
  std::map<std::string, size_t> index;
  for (const auto& r : cases) {
    std::string name = r.info.framework + "@" + r.device;
    auto [it, fresh] = index.try_emplace(name, suites.size());
    if (fresh) {
      suites.push_back(Suite{name, {}, 0, 0, 0, 0});
    }
    Suite& suite = suites[it->second];
    suite.cases.push_back(&r);
    if (model::props(r.outcome).failure) {
      ++suite.failures;
    }
    if (is_skipped(r.outcome)) {
      ++suite.skipped;
    }
    if (r.outcome == model::Outcome::kError) {
      ++suite.errors;
    }
    if (std::isfinite(r.wall_s) && r.wall_s > 0) {
      suite.time_s += r.wall_s;
    }
  }
  int tests = 0;
  int failures = 0;
  int errors = 0;
  int skipped = 0;
  double time_s = 0;
  for (const auto& suite : suites) {
    tests += static_cast<int>(suite.cases.size());
    failures += suite.failures;
    errors += suite.errors;
    skipped += suite.skipped;
    time_s += suite.time_s;
  }

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"" + attr("mudjack " + run.id) + "\" tests=\"" + std::to_string(tests) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
         "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" + seconds(time_s) + "\">\n";
  for (const auto& suite : suites) {
    out += "  <testsuite name=\"" + attr(suite.name) + "\" tests=\"" +
           std::to_string(suite.cases.size()) + "\" failures=\"" + std::to_string(suite.failures) +
           "\" errors=\"" + std::to_string(suite.errors) + "\" skipped=\"" +
           std::to_string(suite.skipped) + "\" time=\"" + seconds(suite.time_s) + "\"";
    if (!suite.cases.empty() && !suite.cases.front()->started_at.empty()) {
      out += " timestamp=\"" + attr(suite.cases.front()->started_at) + "\"";
    }
    out += ">\n";
    out += "    <properties>\n";
    out += "      <property name=\"run_id\" value=\"" + attr(run.id) + "\"/>\n";
    out += "      <property name=\"suite\" value=\"" + attr(run.suite) + "\"/>\n";
    out += "      <property name=\"baseline\" value=\"" + attr(run.baseline) + "\"/>\n";
    out += "    </properties>\n";
    for (const auto* r : suite.cases) {
      out += "    <testcase classname=\"" + attr(classname(r->info)) + "\" name=\"" +
             attr(r->info.variant.empty() ? r->info.id : r->info.variant) + "\" time=\"" +
             seconds(r->wall_s) + "\"";
      if (model::props(r->outcome).failure) {
        out += ">\n      <failure type=\"" + attr(model::to_string(r->outcome)) + "\" message=\"" +
               attr(failure_message(*r)) + "\">" + text(failure_body(*r)) +
               "</failure>\n    </testcase>\n";
      } else if (r->outcome == model::Outcome::kError) {  // the suite's code, not the framework
        out += ">\n      <error type=\"suite\" message=\"" + attr(failure_message(*r)) + "\">" +
               text(failure_body(*r)) + "</error>\n    </testcase>\n";
      } else if (is_skipped(r->outcome)) {
        std::string reason(model::to_string(r->outcome));
        if (!r->error.message.empty()) {
          reason += ": " + r->error.message;
        }
        out += ">\n      <skipped message=\"" + attr(reason) + "\"/>\n    </testcase>\n";
      } else {
        out += "/>\n";
      }
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace mudjack::report
