#include "envs/source.hpp"

#include <chrono>
#include <fstream>
#include <vector>

#include "os/process.hpp"

namespace mudjack::envs {
namespace {

struct GitOutput {
  std::vector<std::string> lines;
  std::string error;  // non-empty: git failed
};

GitOutput git(const std::filesystem::path& dir, std::vector<std::string> args) {
  using namespace std::chrono;
  GitOutput out;
  os::SpawnOptions opts;
  opts.argv = {"git", "-C", dir.string()};
  opts.argv.insert(opts.argv.end(), args.begin(), args.end());
  opts.env_set["GIT_OPTIONAL_LOCKS"] = "0";  // a status must not write the index
  std::string error;
  auto child = os::Child::spawn(opts, &error);
  if (!child) {
    out.error = "git cannot run: " + error;
    return out;
  }
  const auto deadline = steady_clock::now() + seconds(10);
  std::string line;
  while (steady_clock::now() < deadline) {
    auto left = duration_cast<milliseconds>(deadline - steady_clock::now());
    auto r = child->read_line(line, std::max(left, milliseconds(1)));
    if (r == os::Child::Read::kLine) {
      out.lines.push_back(line);
    } else if (r == os::Child::Read::kEof) {
      break;
    }
  }
  auto status = child->wait_or_kill(milliseconds(1000));
  if (status.exit_code != 0) {
    auto tail = child->stderr_tail();
    tail = tail.substr(0, tail.find('\n'));
    out.error = "git " + args.front() + " in " + dir.string() + " ended with " + status.describe() +
                (tail.empty() ? "" : ": " + tail);
  }
  return out;
}

bool counts_untracked(const std::string& path) {
  for (const char* top : {"probe/", "suites/", "src/", "envs/"}) {
    if (path.rfind(top, 0) == 0) return true;
  }
  return false;
}

SourceState recorded_source_state(const std::filesystem::path& file) {
  SourceState s;
  s.from = file.string();
  std::ifstream in(file);
  if (!in) {
    s.why_unknown = "cannot read " + file.string();
    return s;
  }
  const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  const bool ok = doc.is_object() && doc.contains("commit") && doc["commit"].is_string() &&
                  doc["commit"].get<std::string>().size() == 40 && doc.contains("dirty") &&
                  doc["dirty"].is_boolean();
  if (!ok && doc.is_object() && doc.contains("why_unknown") && doc["why_unknown"].is_string()) {
    s.why_unknown = doc["why_unknown"].get<std::string>() + " (" + file.string() + ")";
    return s;
  }
  if (!ok) {
    s.why_unknown = file.string() + " is not {\"commit\": <40 hex>, \"dirty\": true|false, ...}";
    return s;
  }
  s.commit = doc["commit"].get<std::string>();
  s.dirty = doc["dirty"].get<bool>();
  if (doc.contains("changed") && doc["changed"].is_string()) s.changed = doc["changed"];
  return s;
}

}  // namespace

SourceState source_state(const std::filesystem::path& dir) {
  SourceState s;
  s.from = "git";
  auto head = git(dir, {"rev-parse", "HEAD"});
  if (!head.error.empty() || head.lines.empty()) {
    std::error_code ec;
    if (std::filesystem::exists(dir / "source.json", ec))
      return recorded_source_state(dir / "source.json");
    s.why_unknown = head.error.empty() ? "git rev-parse printed nothing" : head.error;
    return s;
  }
  s.commit = head.lines.front();
  auto status = git(dir, {"status", "--porcelain=v1", "--untracked-files=all"});
  if (!status.error.empty()) {
    s.why_unknown = status.error;
    return s;
  }
  s.dirty = false;
  for (const auto& l : status.lines) {
    if (l.size() < 4) continue;
    const std::string path = l.substr(3);
    if (l.rfind("??", 0) == 0 && !counts_untracked(path)) continue;
    s.dirty = true;
    s.changed = path;
    break;
  }
  return s;
}

nlohmann::json to_json(const SourceState& s) {
  using nlohmann::json;
  return {{"commit", s.commit.empty() ? json(nullptr) : json(s.commit)},
          {"dirty", s.dirty ? json(*s.dirty) : json(nullptr)},
          {"changed", s.changed.empty() ? json(nullptr) : json(s.changed)},
          {"why_unknown", s.why_unknown.empty() ? json(nullptr) : json(s.why_unknown)},
          {"from", s.from.empty() ? json(nullptr) : json(s.from)}};
}

std::optional<std::string> unpublishable(const nlohmann::json& source) {
  if (!source.is_object()) {
    return std::string("it records no source state (made before MudJack recorded it)");
  }
  const auto dirty = source.find("dirty");
  if (dirty == source.end() || !dirty->is_boolean()) {
    const auto why = source.value("why_unknown", nlohmann::json(nullptr));
    return "its source tree's state is unknown" +
           (why.is_string() ? ": " + why.get<std::string>() : std::string());
  }
  if (dirty->get<bool>()) {
    const auto changed = source.value("changed", nlohmann::json(nullptr));
    return "it was made from a dirty tree" +
           (changed.is_string()
                ? " (" + changed.get<std::string>() + " differs from " +
                      source.value("commit", std::string("HEAD")).substr(0, 12) + ")"
                : std::string()) +
           ": commit, then run again";
  }
  return std::nullopt;
}

}  // namespace mudjack::envs
