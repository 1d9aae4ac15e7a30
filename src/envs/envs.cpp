#include "envs/envs.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "util/error.hpp"
#include "util/sha256.hpp"

namespace mudjack::envs {
namespace fs = std::filesystem;

std::string profile_names() {
  std::string out;
  for (const auto& p : kProfiles) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string framework_names() {
  std::string out;
  for (const auto& fw : kFrameworks) out += (out.empty() ? "" : ", ") + fw;
  return out;
}

namespace {

std::string getenv_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool is_data_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / "probe" / "mudjack_probe", ec);
}

bool executable(const fs::path& p) {
  return ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

fs::path data_dir() {
  if (auto env = getenv_or("MUDJACK_DATA_DIR", ""); !env.empty()) {
    if (!is_data_dir(env)) {
      throw util::FatalError("MUDJACK_DATA_DIR=" + env + " has no probe/mudjack_probe folder");
    }
    return env;
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& candidate :
       {fs::path(MUDJACK_SOURCE_DIR), exe.parent_path().parent_path() / "share" / "mudjack",
        exe.parent_path().parent_path()}) {
    if (is_data_dir(candidate)) return candidate;
  }
  throw util::FatalError(
      "cannot find MudJack's data folder (probe/, suites/); set MUDJACK_DATA_DIR");
}

fs::path cache_dir() {
  if (auto env = getenv_or("MUDJACK_CACHE_DIR", ""); !env.empty()) return env;
  if (auto xdg = getenv_or("XDG_CACHE_HOME", ""); !xdg.empty()) return fs::path(xdg) / "mudjack";
  return fs::path(getenv_or("HOME", "/tmp")) / ".cache" / "mudjack";
}

fs::path build_cache_dir() {
  if (auto env = getenv_or("MUDJACK_BUILD_CACHE", ""); !env.empty()) return env;
  return cache_dir() / "builds";
}

fs::path env_dir(const std::string& framework, const std::string& profile) {
  auto pins = data_dir() / "envs" / profile / (framework + ".txt");
  auto digest = util::sha256_file_hex(pins);
  if (!digest) return {};
  return cache_dir() / "envs" / (framework + "-" + profile + "-" + digest->substr(0, 16));
}

Interpreter resolve(const std::string& framework, const std::string& profile,
                    const std::map<std::string, std::string>& overrides) {
  Interpreter in;
  if (auto it = overrides.find(framework); it != overrides.end()) {
    in.python = it->second;
    in.source = "override";
    if (!executable(in.python)) {
      throw util::FatalError("python for " + framework + " is not an executable: " + it->second);
    }
    return in;
  }
  auto dir = env_dir(framework, profile);
  if (dir.empty()) {
    in.missing_reason = "no pin file envs/" + profile + "/" + framework + ".txt";
    return in;
  }
  std::error_code ec;
  if (fs::exists(dir / ".mudjack-complete", ec) && executable(dir / "bin" / "python")) {
    in.python = dir / "bin" / "python";
    in.source = "environment cache";
    return in;
  }
  in.missing_reason = "no " + framework + " environment for profile " + profile + " at " +
                      dir.string() + " (run scripts/install.sh, or pass --python " + framework +
                      "=PATH)";
  return in;
}

Interpreter listing_interpreter(const std::string& profile,
                                const std::map<std::string, std::string>& overrides) {
  for (const auto& fw : kFrameworks) {
    auto in = resolve(fw, profile, overrides);
    if (!in.python.empty()) return in;
  }
  for (const auto& dir : {"/usr/local/bin", "/usr/bin"}) {
    if (executable(fs::path(dir) / "python3")) {
      return {fs::path(dir) / "python3", "PATH", ""};
    }
  }
  return {{}, "", "no Python interpreter found to list cases (need python3)"};
}

}  // namespace mudjack::envs
