#include "supervisor/probe_session.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "envs/envs.hpp"
#include "util/redact.hpp"
#include "util/time.hpp"

namespace mudjack::supervisor {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The last lines of a probe's stderr, secrets redacted (util/redact.hpp):
// every stderr tail a result or an error carries comes through here.
std::string last_lines(const std::string& text, size_t max_lines) {
  size_t start = text.size();
  for (size_t lines = 0; start > 0 && lines <= max_lines; ++lines) {
    auto nl = text.rfind('\n', start - 1);
    if (nl == std::string::npos) return util::redact(text);
    start = nl;
  }
  return util::redact(start < text.size() ? text.substr(start + 1) : std::string());
}

// The last non-blank line of a probe's stderr, redacted and cut: what a
// one-line error about the probe ends with.
std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return last_lines(text, 0).substr(0, 300);
}

std::string format_bytes(int64_t bytes) {
  double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.0f MiB", mib);
  return buf;
}

}  // namespace

void add_probe_environment(const std::filesystem::path& probe_dir,
                           std::map<std::string, std::string>& env) {
  std::string pythonpath = probe_dir.string();
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing) {
    pythonpath += ":" + std::string(existing);
  }
  env["PYTHONPATH"] = pythonpath;
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  env["PYTHONFAULTHANDLER"] = "1";  // a segfault leaves a Python stack in stderr
  // Probes never reach a hub: the model libraries' offline switches are on
  // (the probe also refuses any connection that is not loopback), and what
  // a model suite builds (ONNX exports, compiler caches) is kept in the build
  // cache (`mudjack cache builds`).
  for (const char* name : {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"}) {
    env.emplace(name, "1");
  }
  env.emplace("HF_HUB_DISABLE_TELEMETRY", "1");
  env.emplace("MUDJACK_BUILD_CACHE", envs::build_cache_dir().string());
}

namespace {

std::vector<std::string>& kept_names() {
  static std::vector<std::string> names;
  return names;
}

bool in_list(std::string_view name, std::string_view entry) {
  if (entry.ends_with('*')) return name.starts_with(entry.substr(0, entry.size() - 1));
  return name == entry;
}

}  // namespace

bool looks_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kSecretWords = {"TOKEN",      "SECRET", "PASSW",
                                                                   "CREDENTIAL", "KEY",    "AUTH"};
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return std::any_of(kSecretWords.begin(), kSecretWords.end(),
                     [&](std::string_view word) { return upper.find(word) != std::string::npos; });
}

std::optional<std::string> keep_probe_environment(const std::vector<std::string>& names) {
  for (const auto& n : names) {
    std::string_view bare = n;
    if (bare.ends_with('*')) bare.remove_suffix(1);
    const bool valid = !bare.empty() && std::all_of(bare.begin(), bare.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!valid) {
      return "env_keep: '" + n +
             "' is not a variable name (letters, digits, _; a trailing * for "
             "a prefix)";
    }
    if (looks_secret(bare)) {
      return "env_keep: '" + n +
             "' looks like a secret (TOKEN, SECRET, PASSW, CREDENTIAL, KEY, "
             "AUTH); a probe never inherits one";
    }
  }
  kept_names() = names;
  return std::nullopt;
}

bool probe_may_inherit(std::string_view name) {
  if (looks_secret(name)) return false;
  static constexpr std::array<std::string_view, 12> kNames = {
      "PATH", "HOME",   "USER", "LOGNAME",         "LANG",       "LANGUAGE",
      "TZ",   "TMPDIR", "TERM", "LD_LIBRARY_PATH", "PYTHONPATH", "VIRTUAL_ENV"};
  // ATEN_ and DNNL_: the CPU kernels' numerics switches (ATEN_CPU_CAPABILITY,
  // DNNL_MAX_CPU_ISA) a second numerics configuration is run with; NVSHMEM_:
  // a GPU host's safety switches (NVSHMEM_DISABLE_NVLS).
  static constexpr std::array<std::string_view, 30> kPrefixes = {
      "LC_",   "MUDJACK_", "CUDA_",         "NVIDIA_",  "CUDNN_",  "NCCL_",     "CUBLAS",  "XLA_",
      "JAX_",  "TF_",      "TORCH",         "PYTORCH_", "TRITON_", "PJRT_",     "TPU_",    "ROCM_",
      "HIP_",  "HSA_",     "OMP_",          "MKL_",     "KMP_",    "OPENBLAS_", "ONEDNN_", "DNNL_",
      "ATEN_", "HF_",      "TRANSFORMERS_", "KERAS_",   "XDG_",    "NVSHMEM_"};
  for (auto n : kNames) {
    if (name == n) return true;
  }
  for (auto p : kPrefixes) {
    if (name.starts_with(p)) return true;
  }
  return std::any_of(kept_names().begin(), kept_names().end(),
                     [&](const std::string& entry) { return in_list(name, entry); });
}

os::SpawnOptions spawn_options(const ProbeCommand& command) {
  os::SpawnOptions o;
  o.argv = {command.python.string(), "-u",         "-m",
            "mudjack_probe",         "--protocol", std::to_string(protocol::kVersion)};
  if (!command.framework.empty()) {
    o.argv.insert(o.argv.end(), {"--framework", command.framework});
  }
  if (!command.device.empty()) o.argv.insert(o.argv.end(), {"--device", command.device});
  for (const auto& d : command.suite_dirs) o.argv.insert(o.argv.end(), {"--suite-dir", d.string()});
  for (const auto& [name, value] : command.params) {
    o.argv.insert(o.argv.end(), {"--param", name + "=" + value});
  }
  o.env_set = command.env;
  add_probe_environment(command.probe_dir, o.env_set);
  o.env_keep = probe_may_inherit;
  o.cpu_affinity = command.cpu_affinity;
  o.stderr_tail_bytes = 16384;
  return o;
}

ProbeCommand tool_command(const std::filesystem::path& python) {
  ProbeCommand c;
  c.python = python;
  c.probe_dir = envs::data_dir() / "probe";
  return c;
}

std::unique_ptr<ProbeSession> ProbeSession::start(const ProbeCommand& command, const Limits& limits,
                                                  const std::atomic<bool>& interrupted,
                                                  std::string* error) {
  auto child = os::Child::spawn(spawn_options(command), error);
  if (!child) return nullptr;
  std::unique_ptr<ProbeSession> s(new ProbeSession(std::move(child), limits, interrupted));
  std::string line;
  switch (s->wait_line(line, limits.start_timeout)) {
    case Wait::kLine:
      break;
    case Wait::kTimeout:
      *error = "probe did not say hello within " +
               std::to_string(limits.start_timeout.count() / 1000) + " s";
      s->child_->kill();
      *error += "\n" + last_lines(s->child_->stderr_tail(), 20);
      return nullptr;
    case Wait::kInterrupted:
      *error = "interrupted";
      return nullptr;
    case Wait::kMemory:
      s->child_->kill();
      *error = "probe's resident memory " + format_bytes(s->peak_rss_bytes_) +
               " exceeded the probe limit of " + format_bytes(limits.memory_limit_bytes) +
               " before it said hello; probe killed\n" + last_lines(s->child_->stderr_tail(), 20);
      return nullptr;
    case Wait::kDied: {
      auto status = s->child_->kill();
      *error = "probe exited before hello (" + status.describe() + ")\n" +
               last_lines(s->child_->stderr_tail(), 20);
      return nullptr;
    }
  }
  auto hello = protocol::parse_hello(line);
  if (!hello.ok()) {
    *error = hello.error;
    s->child_->kill();
    return nullptr;
  }
  if (!hello.value->engine_fault.empty()) {
    *error = std::string(kCannotLoad) + hello.value->engine_fault;
    s->stop();
    return nullptr;
  }
  s->hello_ = std::move(*hello.value);
  return s;
}

ProbeSession::Wait ProbeSession::wait_line(std::string& line, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  auto last_poll = Clock::now();
  for (;;) {
    if (interrupted_.load()) return Wait::kInterrupted;
    auto now = Clock::now();
    // A poll returns within limits_.poll; a longer gap is time this thread
    // did not run (SIGSTOP, a paused VM): it is not the probe's to answer for.
    if (now - last_poll > limits_.poll + limits_.stall_jump) deadline += now - last_poll;
    last_poll = now;
    auto left = std::chrono::duration_cast<milliseconds>(deadline - now);
    if (left.count() <= 0) return Wait::kTimeout;
    switch (child_->read_line(line, std::min(left, limits_.poll))) {
      case os::Child::Read::kLine:
        line = util::redact(std::move(line));  // every protocol line the engine reads
        return Wait::kLine;
      case os::Child::Read::kEof:
        return Wait::kDied;
      case os::Child::Read::kTimeout:
        break;
    }
    if (limits_.memory_limit_bytes > 0 && memory_over_limit()) {
      over_memory_ = true;
      return Wait::kMemory;
    }
  }
}

// The whole tree is counted every kTreeCheck (a /proc walk reads every
// process's stat); the probe's own resident set, cheap, at every poll, so a
// probe over the limit by itself is caught as fast as before.
bool ProbeSession::memory_over_limit() {
  constexpr auto kTreeCheck = milliseconds(100);
  const int64_t limit = limits_.memory_limit_bytes;
  const auto now = Clock::now();
  if (child_->rss_bytes() <= limit && now - last_tree_check_ < kTreeCheck) return false;
  last_tree_check_ = now;
  const int64_t bytes = child_->tree_memory_bytes(limit);
  peak_rss_bytes_ = std::max(peak_rss_bytes_, bytes);
  return bytes > limit;
}

std::optional<std::vector<model::CaseInfo>> ProbeSession::list(const std::string& framework,
                                                               std::string* error,
                                                               nlohmann::json* params_read) {
  if (!child_->write_line(protocol::list_request(framework))) {
    *error = "probe closed its input";
    return std::nullopt;
  }
  std::string line;
  if (wait_line(line, limits_.start_timeout) != Wait::kLine) {
    child_->kill();
    *error = over_memory_ ? "the listing probe's resident memory " + format_bytes(peak_rss_bytes_) +
                                " exceeded the probe limit of " +
                                format_bytes(limits_.memory_limit_bytes) + "; probe killed"
                          : "probe did not answer the list request";
    *error += "\n" + last_lines(child_->stderr_tail(), 20);
    return std::nullopt;
  }
  auto cases = protocol::parse_cases(line, params_read);
  if (!cases.ok()) {
    *error = cases.error;
    return std::nullopt;
  }
  return std::move(*cases.value);
}

std::optional<protocol::Repro> ProbeSession::repro(const protocol::ReproRequest& request,
                                                   std::string* error) {
  if (!child_->write_line(protocol::repro_request(request))) {
    *error = "probe closed its input";
    return std::nullopt;
  }
  std::string line;
  if (wait_line(line, limits_.case_timeout) != Wait::kLine) {
    child_->kill();
    *error = "probe did not answer the repro request\n" + last_lines(child_->stderr_tail(), 20);
    return std::nullopt;
  }
  auto r = protocol::parse_repro(line);
  if (!r.ok()) {
    *error = r.error;
    return std::nullopt;
  }
  return std::move(*r.value);
}

std::string ProbeSession::no_reply(Wait w, std::string_view what) {
  alive_ = false;
  std::string why;
  switch (w) {
    case Wait::kLine:
      return "";
    case Wait::kInterrupted:
      child_->kill();
      return "interrupted";
    case Wait::kTimeout:
      child_->kill();
      why = "went silent during the " + std::string(what) + " request; probe killed";
      break;
    case Wait::kMemory:
      child_->kill();
      why = "grew past the probe limit of " + format_bytes(limits_.memory_limit_bytes) +
            " during the " + std::string(what) + " request; probe killed";
      break;
    case Wait::kDied:
      why = "died during the " + std::string(what) + " request (" +
            child_->wait_or_kill(milliseconds(2000)).describe() + ")";
      break;
  }
  const std::string tail = last_line(child_->stderr_tail());
  return "the probe " + why + (tail.empty() ? "" : ": " + tail);
}

std::optional<std::string> ProbeSession::ask(const std::string& request, std::string_view what,
                                             milliseconds timeout, std::string* error) {
  if (!alive_ || !child_->write_line(request)) {
    *error = no_reply(Wait::kDied, what);
    return std::nullopt;
  }
  std::string line;
  const Wait w = wait_line(line, timeout);
  if (w != Wait::kLine) {
    *error = no_reply(w, what);
    return std::nullopt;
  }
  return line;
}

std::optional<protocol::Repro> ProbeSession::repro_graph(
    const protocol::GraphScriptRequest& request, std::string* error) {
  auto line =
      ask(protocol::repro_graph_request(request), "repro_graph", limits_.case_timeout, error);
  if (!line) return std::nullopt;
  auto r = protocol::parse_repro(*line);
  if (!r.ok()) {
    *error = r.error;
    return std::nullopt;
  }
  return std::move(*r.value);
}

std::optional<nlohmann::json> ProbeSession::reference(const std::string& graph, int64_t seed,
                                                      std::string* error) {
  auto line =
      ask(protocol::reference_request(graph, seed), "reference", limits_.case_timeout, error);
  if (!line) return std::nullopt;
  auto r = protocol::parse_reference(*line, graph);
  if (!r.ok()) {
    *error = r.error;
    return std::nullopt;
  }
  return std::move(*r.value);
}

bool ProbeSession::build(const protocol::BuildRequest& request,
                         const std::function<void(const protocol::Built&)>& on_built,
                         std::string* error) {
  // Each build is cut at timeout_s by the probe itself; a probe silent for
  // longer (plus the time its workers take to start) is stuck.
  const auto silence =
      limits_.start_timeout + milliseconds(static_cast<int64_t>(request.timeout_s * 1000));
  auto line = ask(protocol::build_request(request), "build", silence, error);
  while (line) {
    auto b = protocol::parse_built(*line);
    if (!b.ok()) {
      *error = b.error;
      stop();
      return false;
    }
    if (b.value->done) return true;
    on_built(*b.value);
    const Wait w = wait_line(*line, silence);
    if (w != Wait::kLine) {
      *error = no_reply(w, "build");
      line.reset();
    }
  }
  if (interrupted_.load()) error->clear();
  return false;
}

model::CaseResult ProbeSession::died(model::CaseResult r, const std::string& why) {
  alive_ = false;
  auto status = child_->kill();
  r.outcome = model::Outcome::kCrash;
  r.error.kind = model::ErrorKind::kOther;
  r.error.message = why + " (" + status.describe() + ")";
  r.error.signal = status.signal;
  r.error.exit_code = status.exit_code;
  r.error.stderr_tail = last_lines(child_->stderr_tail(), 40);
  return r;
}

std::optional<model::CaseResult> ProbeSession::run(const model::CaseInfo& info,
                                                   const std::string& device, int64_t seed,
                                                   const protocol::Policy& policy,
                                                   const std::filesystem::path& artifact_dir,
                                                   std::string* fault) {
  model::CaseResult r;
  r.info = info;
  r.device = device;
  r.started_at = util::now_iso8601();
  auto t0 = Clock::now();
  auto finish = [&](model::CaseResult&& done) {
    done.finished_at = util::now_iso8601();
    done.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    return std::optional<model::CaseResult>(std::move(done));
  };
  peak_rss_bytes_ = 0;
  if (!child_->write_line(
          protocol::run_request(info.id, device, seed, policy, artifact_dir.string()))) {
    return finish(died(std::move(r), "probe closed its input before the case started"));
  }
  std::string line;
  switch (wait_line(line, limits_.case_timeout)) {
    case Wait::kInterrupted:
      alive_ = false;
      child_->kill();
      return std::nullopt;
    case Wait::kTimeout: {
      alive_ = false;
      auto status = child_->kill();
      (void)status;
      r.outcome = model::Outcome::kTimeout;
      r.error.kind = model::ErrorKind::kOther;
      char limit[32];
      std::snprintf(limit, sizeof(limit), "%.3g",
                    std::chrono::duration<double>(limits_.case_timeout).count());
      r.error.message = std::string("no answer within ") + limit + " s; probe killed";
      r.error.stderr_tail = last_lines(child_->stderr_tail(), 40);
      return finish(std::move(r));
    }
    case Wait::kMemory: {
      auto crashed =
          died(std::move(r), "resident memory " + format_bytes(peak_rss_bytes_) +
                                 " (the probe and the processes it started) exceeded the "
                                 "probe limit of " +
                                 format_bytes(limits_.memory_limit_bytes) + "; probe killed");
      crashed.error.kind = model::ErrorKind::kOutOfMemory;
      return finish(std::move(crashed));
    }
    case Wait::kDied: {
      child_->wait_or_kill(milliseconds(2000));
      std::string why = child_->overlong() ? "probe sent an over-long line" : "probe died mid-case";
      return finish(died(std::move(r), why));
    }
    case Wait::kLine:
      break;
  }
  child_->walk_tree();  // between cases the tree is at rest: know all of it
  auto parsed = protocol::parse_result(line, info.id);
  if (!parsed.ok()) {
    return finish(died(std::move(r), "probe broke the protocol: " + parsed.error));
  }
  auto& p = *parsed.value;
  if (!p.engine_fault.empty()) {
    *fault = p.engine_fault;
    stop();
    return std::nullopt;
  }
  r.outcome = p.outcome;
  r.error = std::move(p.error);
  r.latency = std::move(p.latency);
  r.memory = p.memory;
  r.outputs = std::move(p.outputs);
  r.extra = std::move(p.extra);
  r.work = p.work;
  r.metrics = std::move(p.metrics);
  return finish(std::move(r));
}

void ProbeSession::stop() {
  if (!alive_) return;
  alive_ = false;
  child_->walk_tree();  // the probe is idle: what it started is all there
  if (child_->write_line(protocol::shutdown_request())) {
    child_->wait_or_kill(milliseconds(5000));
  } else {
    child_->kill();
  }
}

}  // namespace mudjack::supervisor
