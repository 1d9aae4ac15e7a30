#pragma once
// The state of the source tree a run is made from: the probe and the suites
// are read from envs::data_dir() when cases run, so a run's answers depend on
// that tree as it is then, not as it was when the binary was built. Recorded
// in every run's environment (machines[].source) so that `report --publish`
// can refuse a run made from uncommitted code.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mudjack::envs {

struct SourceState {
  std::string commit;         // HEAD's full hash; empty when unknown
  std::optional<bool> dirty;  // nullopt when unknown
  std::string changed;        // dirty: the first changed path
  std::string why_unknown;    // one line, when commit or dirty is unknown
  std::string from;           // "git", or the source.json it was read from
};

// Asks git (on PATH) about `dir`: HEAD, and whether a tracked file differs
// from it or an untracked file lies under probe/, suites/, src/ or envs/
// (what a run reads or is built from); each git call is given 10 s. Where
// `dir` is no git checkout or git cannot run, `dir`/source.json is read
// instead when present (unknown, with the reason, when it is malformed):
// {"commit", "dirty", "changed"}, written by
// deploy/images/build.sh from the tree an image was built from (an image has
// no .git and no git). Unknown, with the reason, otherwise.
SourceState source_state(const std::filesystem::path& dir);

// {commit, dirty, changed, why_unknown}: null for what is unknown.
nlohmann::json to_json(const SourceState& s);

// A one-line reason why results made from this source must not be
// published (dirty, or unknown); nullopt when they may. `source` is the
// stored JSON (to_json), or null for a run stored before it was recorded.
std::optional<std::string> unpublishable(const nlohmann::json& source);

}  // namespace mudjack::envs
