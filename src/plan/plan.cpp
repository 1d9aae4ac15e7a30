#include "plan/plan.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include "envs/source.hpp"
#include "plan/case_filter.hpp"
#include "util/error.hpp"
#include "util/sha256.hpp"
#include "util/version.hpp"

namespace mudjack::plan {
namespace fs = std::filesystem;

std::vector<std::string> known_suites() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(envs::data_dir() / "suites", ec)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

SuiteRef resolve_suite(const std::string& name) {
  auto names = known_suites();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw util::FatalError("unknown suite '" + name + "'; known suites: " + known +
                           " (or --suite-dir DIR for your own)");
  }
  return {name, envs::data_dir() / "suites" / name};
}

SuiteRef suite_from_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw util::FatalError("suite folder " + dir.string() + " does not exist");
  }
  auto canonical = fs::canonical(dir, ec);
  return {canonical.filename().string(), canonical};
}

nlohmann::json suites_to_json(const std::vector<SuiteRef>& suites) {
  auto out = nlohmann::json::array();
  for (const auto& ref : suites) out.push_back({{"name", ref.name}, {"dir", ref.dir.string()}});
  return out;
}

std::vector<SuiteRef> suites_from_json(const nlohmann::json& j) {
  std::vector<SuiteRef> out;
  if (!j.is_array()) return out;
  for (const auto& ref : j) {
    if (ref.is_object()) out.push_back({ref.value("name", ""), ref.value("dir", "")});
  }
  return out;
}

std::vector<model::CaseInfo> list_cases(const std::vector<SuiteRef>& suites,
                                        const envs::Interpreter& python, const Params& params,
                                        nlohmann::json* params_read, int64_t memory_limit_bytes) {
  if (python.python.empty()) throw util::FatalError(python.missing_reason);
  supervisor::ProbeCommand command;
  command.python = python.python;
  command.probe_dir = envs::data_dir() / "probe";
  for (const auto& s : suites) command.suite_dirs.push_back(s.dir);
  command.params = params;
  std::atomic<bool> never{false};
  supervisor::ProbeSession::Limits limits;
  limits.start_timeout = std::chrono::milliseconds(60'000);
  limits.memory_limit_bytes = memory_limit_bytes;
  std::string error;
  auto session = supervisor::ProbeSession::start(command, limits, never, &error);
  if (!session) throw util::FatalError("cannot list cases: " + error.substr(0, error.find('\n')));
  nlohmann::json read;
  auto cases = session->list("", &error, &read);
  session->stop();
  if (!cases && session->over_memory()) {
    throw util::FatalError("cannot list cases: " + error.substr(0, error.find('\n')) +
                           " (--memory-limit-mb, run.memory_limit_mb in mudjack.toml)");
  }
  if (!cases) throw util::FatalError("malformed suite: " + error.substr(0, error.find('\n')));
  if (params_read) *params_read = std::move(read);
  return *cases;
}

std::vector<model::CaseInfo> filter(const std::vector<model::CaseInfo>& cases,
                                    const std::vector<std::string>& frameworks,
                                    const std::string& regex) {
  for (const auto& fw : frameworks) {
    if (std::find(envs::kFrameworks.begin(), envs::kFrameworks.end(), fw) ==
        envs::kFrameworks.end()) {
      throw util::FatalError("unknown framework '" + fw + "'; known: " + envs::framework_names());
    }
  }
  if (auto why = filter_error(regex)) {
    throw util::FatalError("bad --filter regex: " + *why);  // RE2 quotes the bad part
  }
  const CaseFilter wanted(regex);
  std::vector<model::CaseInfo> out;
  for (const auto& c : cases) {
    if (!frameworks.empty() &&
        std::find(frameworks.begin(), frameworks.end(), c.framework) == frameworks.end()) {
      continue;
    }
    if (!wanted.matches(c.id)) continue;
    out.push_back(c);
  }
  return out;
}

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int64_t mtime_ns(const fs::path& path) {
  std::error_code ec;
  auto t = fs::last_write_time(path, ec);
  return ec ? -1
            : std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

fs::path discovery_file(const std::string& framework, const std::string& key) {
  return envs::cache_dir() / "discovery" / (framework + "-" + key.substr(0, 24) + ".json");
}

// The hello cached under `key`, when younger than kDiscoveryTtl and whole.
std::optional<protocol::Hello> cached_hello(const std::string& framework, const std::string& key) {
  const auto path = discovery_file(framework, key);
  std::error_code ec;
  const auto written = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  const auto age = fs::file_time_type::clock::now() - written;
  if (age < std::chrono::seconds(0) || age > kDiscoveryTtl) return std::nullopt;
  auto parsed = protocol::parse_hello(read_all(path));
  if (!parsed.ok() || parsed.value->framework != framework) return std::nullopt;
  return parsed.value;
}

// Written whole or not at all (a temporary file renamed); a cache that
// cannot be written is no error: the next command asks the probe again.
void keep_hello(const std::string& framework, const std::string& key,
                const protocol::Hello& hello) {
  if (!hello.unavailable.empty() || !hello.engine_fault.empty() || !hello.raw.is_object()) return;
  const auto path = discovery_file(framework, key);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const auto tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << hello.raw.dump();
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::optional<std::string> discovery_key(const std::string& framework, const fs::path& python) {
  // <venv>/bin/python: the environment's own folder holds pyvenv.cfg.
  const fs::path root = python.parent_path().parent_path();
  const std::string cfg = read_all(root / "pyvenv.cfg");
  if (cfg.empty()) return std::nullopt;
  std::string lowered = cfg;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::erase(lowered, ' ');
  if (lowered.find("include-system-site-packages=true") != std::string::npos) return std::nullopt;
  std::string text = framework + "\n" + python.string() + "\n" + std::string(util::revision()) +
                     "\n" + std::to_string(protocol::kMinorVersion) + "\n" + cfg + "\n" +
                     std::to_string(mtime_ns(python)) + "\n";
  std::error_code ec;
  std::vector<std::string> sites;
  for (const auto& lib : {root / "lib", root / "lib64"}) {
    for (const auto& entry : fs::directory_iterator(lib, ec)) {
      const auto site = entry.path() / "site-packages";
      if (fs::is_directory(site, ec)) {
        sites.push_back(site.string() + "=" + std::to_string(mtime_ns(site)));
      }
    }
  }
  std::sort(sites.begin(), sites.end());
  for (const auto& s : sites) text += s + "\n";
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "TPU_VISIBLE_CHIPS",
        "JAX_PLATFORMS", "XLA_FLAGS", "PJRT_DEVICE", "NVIDIA_VISIBLE_DEVICES"}) {
    const char* v = std::getenv(name);
    text += std::string(name) + "=" + (v ? v : "<unset>") + "\n";
  }
  std::vector<std::string> nodes;  // accelerators come and go with their device nodes
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("nvidia") || name == "kfd" || name.starts_with("accel") ||
        name.starts_with("vfio")) {
      nodes.push_back(name);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  for (const auto& n : nodes) text += n + ",";
  text += "\n" + read_all("/proc/sys/kernel/random/boot_id");
  return util::sha256_hex(text);
}

Discovery discover(const std::vector<std::string>& frameworks, const std::string& profile,
                   const std::map<std::string, std::string>& python_overrides,
                   const std::atomic<bool>& interrupted, bool cache) {
  Discovery d;
  std::vector<std::string> fws = frameworks.empty() ? envs::kFrameworks : frameworks;
  struct Found {
    supervisor::FrameworkRuntime runtime;
    std::optional<protocol::Hello> hello;
    std::string fatal;  // a probe we must not talk to: another protocol version
  };
  std::vector<Found> found(fws.size());
  std::vector<std::thread> threads;
  auto probe_dir = envs::data_dir() / "probe";
  for (size_t i = 0; i < fws.size(); ++i) {
    auto interp = envs::resolve(fws[i], profile, python_overrides);
    found[i].runtime.framework = fws[i];
    found[i].runtime.python = interp.python;
    found[i].runtime.unavailable = interp.missing_reason;
    if (interp.python.empty()) continue;
    const auto key = cache ? discovery_key(fws[i], interp.python) : std::nullopt;
    if (key) {
      if (auto hello = cached_hello(fws[i], *key)) {
        found[i].hello = std::move(hello);
        d.cached.push_back(fws[i]);
        continue;
      }
    }
    threads.emplace_back([&, i, probe_dir, key] {
      supervisor::ProbeCommand command;
      command.python = found[i].runtime.python;
      command.probe_dir = probe_dir;
      command.framework = fws[i];
      command.env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false";
      command.env["TF_FORCE_GPU_ALLOW_GROWTH"] = "true";
      supervisor::ProbeSession::Limits limits;
      std::string error;
      auto session = supervisor::ProbeSession::start(command, limits, interrupted, &error);
      if (!session && error.find("speaks protocol") != std::string::npos) {
        found[i].fatal = fws[i] + " probe " + found[i].runtime.python.string() + ": " +
                         error.substr(0, error.find('\n'));
        return;
      }
      if (!session && error.starts_with(supervisor::kCannotLoad)) {
        found[i].runtime.engine_fault = error.substr(0, error.find('\n'));
        return;
      }
      if (!session) {
        found[i].runtime.unavailable =
            fws[i] + " probe failed to start: " + error.substr(0, error.find('\n'));
        return;
      }
      found[i].hello = session->hello();
      if (!session->hello().unavailable.empty()) {
        found[i].runtime.unavailable = session->hello().unavailable;
      }
      session->stop();
      if (key) keep_hello(fws[i], *key, session->hello());
    });
  }
  for (auto& t : threads) t.join();
  if (interrupted.load()) throw util::FatalError("interrupted", 130);
  for (const auto& f : found) {
    if (!f.fatal.empty()) throw util::FatalError(f.fatal);
  }
  for (auto& f : found) {
    const auto& fw = f.runtime.framework;
    if (!f.runtime.unavailable.empty()) f.runtime.python.clear();
    if (f.hello) {
      for (const auto& dev : f.hello->devices) {
        d.devices_of[fw].push_back(dev.id);
        if (std::none_of(d.devices.begin(), d.devices.end(),
                         [&](const model::DeviceInfo& x) { return x.id == dev.id; })) {
          d.devices.push_back(dev);
        }
      }
      d.hellos[fw] = *f.hello;
    }
    d.runtimes[fw] = f.runtime;
  }
  return d;
}

namespace {

std::string read_first_line(const std::string& path, const std::string& prefix) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(prefix, 0) == 0) {
      auto colon = line.find(':');
      auto v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

}  // namespace

nlohmann::json environment_json(const Discovery& d) {
  using nlohmann::json;
  json m;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  utsname u{};
  uname(&u);
  m["host"] = host;
  m["os"] = std::string(u.sysname) + " " + u.release;
  m["arch"] = u.machine;
  m["cpu_model"] = read_first_line("/proc/cpuinfo", "model name");
  m["memory_total"] = read_first_line("/proc/meminfo", "MemTotal");
  m["mudjack_version"] = util::version();
  m["mudjack_revision"] = util::revision();
  m["source"] = envs::to_json(envs::source_state(envs::data_dir()));
  m["frameworks"] = json::object();
  for (const auto& [fw, rt] : d.runtimes) {
    json f{{"python_executable", rt.python.string()}};
    if (auto h = d.hellos.find(fw); h != d.hellos.end()) {
      f["version"] = h->second.framework_version;
      f["python"] = h->second.python;
      f["probe_version"] = h->second.probe_version;
      f["devices"] = json::array();
      for (const auto& dev : h->second.devices) f["devices"].push_back(dev.id);
      // Why the accelerators its build targets are not among them (1.10).
      if (!h->second.accelerators_absent.empty())
        f["accelerators_absent"] = h->second.accelerators_absent;
    }
    if (!rt.unavailable.empty()) f["unavailable"] = rt.unavailable;
    if (!rt.engine_fault.empty()) f["engine_fault"] = rt.engine_fault;
    m["frameworks"][fw] = f;
  }
  m["devices"] = json::array();
  for (const auto& dev : d.devices) m["devices"].push_back(dev.raw);
  return json{{"machines", json::array({m})}};
}

std::vector<std::pair<std::string, std::string>> pairs(const std::vector<model::CaseInfo>& cases,
                                                       const Discovery& discovery,
                                                       const std::vector<std::string>& devices) {
  std::vector<std::string> all;
  for (const auto& dev : discovery.devices) all.push_back(dev.id);
  if (all.empty()) all.push_back("cpu");
  for (const auto& want : devices) {
    if (std::find(all.begin(), all.end(), want) == all.end()) {
      std::string here;
      for (const auto& a : all) {
        if (!here.empty()) here += ", ";
        here += a;
      }
      throw util::FatalError("no framework sees device '" + want + "'; devices here: " + here);
    }
  }
  auto selected = [&](const std::string& id) {
    return devices.empty() || std::find(devices.begin(), devices.end(), id) != devices.end();
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : cases) {
    auto it = discovery.devices_of.find(c.framework);
    const auto& seen = it != discovery.devices_of.end() ? it->second : all;
    for (const auto& dev : seen) {
      if (selected(dev)) out.emplace_back(c.id, dev);
    }
  }
  return out;
}

}  // namespace mudjack::plan
