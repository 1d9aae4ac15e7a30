#include "run/retention.hpp"

#include <set>

namespace mudjack::run {
namespace fs = std::filesystem;

namespace {

// Every output file a result names: its own, its reference's, its strict run's.
std::vector<std::string> output_paths(const model::CaseResult& r) {
  std::vector<std::string> paths;
  for (const auto& o : r.outputs) paths.push_back(o.path);
  for (const char* extra : {"reference", "strict"}) {
    if (!r.extra.is_object() || !r.extra.contains(extra)) continue;
    const auto& outputs = r.extra[extra].value("outputs", nlohmann::json::array());
    for (const auto& o : outputs) {
      if (o.is_object() && o.contains("path") && o["path"].is_string()) {
        paths.push_back(o["path"].get<std::string>());
      }
    }
  }
  return paths;
}

void remove(const fs::path& file, Pruned& pruned) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || !fs::remove(file, ec) || ec) return;
  ++pruned.files;
  pruned.bytes += static_cast<int64_t>(size);
}

}  // namespace

std::optional<Keep> parse_keep(std::string_view name) {
  if (name == "failing") return Keep::kFailing;
  if (name == "all") return Keep::kAll;
  if (name == "none") return Keep::kNone;
  return std::nullopt;
}

std::string_view to_string(Keep keep) {
  switch (keep) {
    case Keep::kFailing:
      return "failing";
    case Keep::kAll:
      return "all";
    case Keep::kNone:
      return "none";
  }
  return "failing";
}

int64_t disk_bytes(const fs::path& dir) {
  std::error_code ec;
  int64_t total = 0;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) total += static_cast<int64_t>(it->file_size(size_ec));
  }
  return total;
}

Pruned prune_outputs(const fs::path& run_dir, const std::vector<model::CaseResult>& results,
                     Keep keep) {
  Pruned pruned;
  const fs::path artifacts = run_dir / "artifacts";
  if (keep == Keep::kAll) return pruned;
  if (keep == Keep::kNone) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::recursive_directory_iterator it(artifacts, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    for (const auto& file : files) remove(file, pruned);
    fs::remove_all(artifacts, ec);
    return pruned;
  }
  std::set<std::string> failing;
  for (const auto& r : results) {
    if (model::is_failure(r.outcome) || r.outcome == model::Outcome::kError) {
      failing.insert(r.info.id);
    }
  }
  for (const auto& r : results) {
    if (failing.contains(r.info.id)) continue;
    for (const auto& path : output_paths(r)) {
      // Only files of this run's own folder: a results.json read back may
      // name paths of another machine.
      const auto relative = fs::path(path).lexically_relative(artifacts);
      if (relative.empty() || *relative.begin() == "..") continue;
      remove(path, pruned);
    }
  }
  return pruned;
}

}  // namespace mudjack::run
