#include "supervisor/standalone.hpp"

#include <deque>

#include "os/process.hpp"
#include "supervisor/probe_session.hpp"
#include "util/redact.hpp"

namespace mudjack::supervisor {
namespace {

using Clock = std::chrono::steady_clock;

// The kept lines, oldest first, joined by "; " and cut to the last 600 bytes.
std::string joined(const std::deque<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "; ") + l;
  if (out.size() > 600) out = "..." + out.substr(out.size() - 597);
  return util::redact(out);
}

}  // namespace

StandaloneRun run_standalone(const std::filesystem::path& python,
                             const std::filesystem::path& script, std::chrono::seconds timeout) {
  StandaloneRun r;
  os::SpawnOptions o;
  o.argv = {python.string(), script.string()};
  o.env_unset = {"PYTHONPATH"};
  o.env_keep = probe_may_inherit;
  o.cwd = script.parent_path();
  o.stderr_tail_bytes = 4096;
  std::string error;
  auto child = os::Child::spawn(o, &error);
  if (!child) {
    r.ended = "did not start: " + error;
    return r;
  }
  constexpr size_t kKept = 8;
  std::deque<std::string> lines;
  std::string line;
  const auto until = Clock::now() + timeout;
  while (Clock::now() < until) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (child->read_line(line, left) != os::Child::Read::kLine) break;
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    lines.push_back(line.substr(start));
    if (lines.size() > kKept) lines.pop_front();
  }
  const auto status = child->wait_or_kill(std::chrono::seconds(10));
  r.exit_code = status.exit_code;
  r.ended = status.describe();
  r.output = joined(lines);
  return r;
}

}  // namespace mudjack::supervisor
