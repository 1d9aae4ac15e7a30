#include "cli/common.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "envs/envs.hpp"
#include "run/options.hpp"
#include "supervisor/probe_session.hpp"
#include "util/error.hpp"
#include "verdict/intolerable.hpp"

namespace mudjack::cli {
namespace fs = std::filesystem;

std::atomic<bool>& interrupted() {
  static std::atomic<bool> flag{false};
  return flag;
}

void add_common(CLI::App* app, Common& c) {
  app->add_option("--config", c.config, "Settings file (default ./mudjack.toml if present)");
  app->add_option("--out", c.out, "Results folder (default ./mudjack-results)");
  app->add_option("--profile", c.profile,
                  "Pinned framework versions: current | paper-2023 | latest");
  app->add_option("--python", c.python, "Interpreter for a framework: FRAMEWORK=PATH (repeatable)");
  app->add_flag("--json", c.json, "Machine-readable output on stdout");
  app->add_option("--env-keep", c.env_keep,
                  "A variable probes inherit besides the built-in list: NAME, or PREFIX* "
                  "(repeatable; never a secret-looking name; adds to [probe] env_keep)");
}

void add_intolerable(CLI::App* app, Common& c) {
  app->add_option("--intolerable", c.intolerable,
                  "Latency thresholds file (default ./intolerable.toml if present, else 10x)");
}

namespace {

void check_profile(const std::string& profile) {
  if (std::find(envs::kProfiles.begin(), envs::kProfiles.end(), profile) == envs::kProfiles.end()) {
    throw util::FatalError("unknown profile '" + profile + "'; known: " + envs::profile_names());
  }
}

void add_python(std::map<std::string, std::string>& python, const std::string& kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
    throw util::FatalError("--python expects FRAMEWORK=PATH, got '" + kv + "'");
  }
  auto fw = kv.substr(0, eq);
  if (std::find(envs::kFrameworks.begin(), envs::kFrameworks.end(), fw) ==
      envs::kFrameworks.end()) {
    throw util::FatalError("unknown framework '" + fw +
                           "' in --python; known: " + envs::framework_names());
  }
  python[fw] = kv.substr(eq + 1);
}

void ensure_writable(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw util::FatalError("results folder " + dir.string() +
                           " cannot be created: " + (ec ? ec.message() : "not a folder"));
  }
  // Created new (O_EXCL) and never through a link planted at its name: a
  // leftover or a link is unlinked as itself and the creation tried again.
  auto probe = dir / (".mudjack-write-test-" + std::to_string(::getpid()));
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(probe.c_str(), kFlags, 0600);
  if (fd < 0 && errno == EEXIST && ::unlink(probe.c_str()) == 0)
    fd = ::open(probe.c_str(), kFlags, 0600);
  if (fd < 0) throw util::FatalError("results folder " + dir.string() + " is not writable");
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

Settings settings(const Common& c) {
  Settings s;
  s.config = load_config(c.config ? std::optional<fs::path>(*c.config) : std::nullopt);
  if (!c.profile.empty()) {
    check_profile(c.profile);
    s.config.profile = c.profile;
  }
  s.results_dir = c.out.empty() ? s.config.results_dir : fs::path(c.out);
  s.python = s.config.python;
  for (const auto& kv : c.python) add_python(s.python, kv);
  auto keep = s.config.env_keep;
  keep.insert(keep.end(), c.env_keep.begin(), c.env_keep.end());
  if (auto why = supervisor::keep_probe_environment(keep)) throw util::FatalError(*why);
  return s;
}

int64_t memory_limit_bytes_of(const Settings& s, std::optional<double> flag_mb) {
  const auto mb = flag_mb ? flag_mb : s.config.memory_limit_mb;
  return run::memory_limit_or_default(mb ? run::mb_to_bytes(*mb) : 0);
}

std::optional<fs::path> intolerable_path(const Common& c) {
  return c.intolerable ? std::optional<fs::path>(*c.intolerable) : std::nullopt;
}

void check_intolerable(const Common& c) {
  verdict::thresholds_for(intolerable_path(c), verdict::Options{});
}

void print_cached(const plan::Discovery& d) {
  if (d.cached.empty()) return;
  std::string names;
  for (const auto& fw : d.cached) names += (names.empty() ? "" : ", ") + fw;
  std::printf(
      "(cached answers: %s; nothing they depend on changed since their probes last started. "
      "--refresh asks again)\n",
      names.c_str());
}

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ',')) {
      if (!part.empty()) out.push_back(part);
    }
  }
  return out;
}

std::unique_ptr<store::Store> open_store(const fs::path& results_dir) {
  ensure_writable(results_dir);
  return store::Store::open(store::default_db_path(results_dir));
}

std::unique_ptr<store::Store> open_existing_store(const fs::path& results_dir,
                                                  const std::string& context) {
  auto db = store::default_db_path(results_dir);
  if (!fs::exists(db)) {
    throw util::FatalError(context + "no results database at " + db.string());
  }
  return store::Store::open_read_only(db);
}

std::string resolve_run_id(store::Store& store, const std::string& id, const fs::path& dir) {
  if (id == "latest") {
    auto runs = store.list_runs();
    if (runs.empty()) throw util::FatalError("no runs in " + dir.string());
    return runs.front().id;
  }
  if (!store.get_run(id)) {
    throw util::FatalError("unknown run '" + id + "' in " + dir.string() + " (see: mudjack runs)");
  }
  return id;
}

std::string size_text(int64_t bytes) {
  const char* unit = "B";
  double value = static_cast<double>(bytes);
  for (const char* next : {"KiB", "MiB", "GiB", "TiB"}) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", value, unit);
  return buf;
}

std::string& invocation() {
  static std::string line;
  return line;
}

std::string shell_word(std::string_view word) {
  const auto safe = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), safe)) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return out + "'";
}

void add_selection(CLI::App* app, Selection& sel) {
  app->add_option("--param", sel.params,
                  "Case parameter NAME=VALUE, e.g. matrix_size=4096 (repeatable; overrides "
                  "[params] in mudjack.toml)");
  app->add_option("--suite", sel.suites, "Suite name (default paper; repeatable)");
  app->add_option("--suite-dir", sel.suite_dirs,
                  "A folder of your own case files (docs/suite-format.md)")
      ->check(CLI::ExistingDirectory);
  app->add_option("--framework", sel.frameworks,
                  envs::framework_names() + " (repeatable or comma list)");
  app->add_option("--filter", sel.filter, "Only case ids matching this regular expression");
  app->add_option("--dtype", sel.fields.dtypes,
                  "Only cases of these dtypes, exactly (float16 never matches bfloat16; repeatable "
                  "or comma list)")
      ->delimiter(',');
  app->add_option("--mode", sel.fields.modes,
                  "Only cases of these modes: eager, compiled; a model's stages amp, onnxruntime, "
                  "train (repeatable or comma list)")
      ->delimiter(',');
  app->add_option("--labels", sel.fields.labels,
                  "Only cases with every one of these labels, key::value with globs in the value "
                  "(task::Computer_Vision; repeatable or comma list)")
      ->delimiter(',');
  app->add_option("--function", sel.fields.functions,
                  "Only these functions; shell globs such as 'torch.nn.*' (repeatable or comma "
                  "list)")
      ->delimiter(',');
}

std::string narrowing(const Selection& sel, size_t selected, size_t listed) {
  if (selected == listed) return "";
  std::string how;
  const auto add = [&how](const std::string& flag, const std::vector<std::string>& values) {
    for (const auto& v : values) how += (how.empty() ? "" : " ") + flag + " " + v;
  };
  add("--framework", split_commas(sel.frameworks));
  if (!sel.filter.empty()) add("--filter", {sel.filter});
  add("--dtype", sel.fields.dtypes);
  add("--mode", sel.fields.modes);
  add("--function", sel.fields.functions);
  add("--labels", sel.fields.labels);
  return how + (how.empty() ? "" : ": ") + std::to_string(selected) + " of " +
         std::to_string(listed) + " cases";
}

std::vector<plan::SuiteRef> suites_of(const Selection& sel) {
  std::vector<plan::SuiteRef> refs;
  auto names = sel.suites;
  if (names.empty() && sel.suite_dirs.empty()) names.push_back("paper");
  for (const auto& n : names) refs.push_back(plan::resolve_suite(n));
  for (const auto& d : sel.suite_dirs) refs.push_back(plan::suite_from_dir(d));
  for (size_t i = 0; i < refs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (refs[i].dir == refs[j].dir || fs::equivalent(refs[i].dir, refs[j].dir, ec)) {
        throw util::FatalError("suite '" + refs[i].name + "' is selected twice (" +
                               refs[i].dir.string() + ")");
      }
    }
  }
  return refs;
}

plan::Params params_of(const Selection& sel, const Settings& s) {
  plan::Params params = s.config.params;
  for (const auto& [name, value] : plan::parse_params(sel.params)) params[name] = value;
  return params;
}

namespace {

// mudjack.toml's [params] is one file for every run, so it may hold
// parameters of suites this run does not select: a name is refused (a typo,
// as a --param no selected suite reads) only when neither the selected suites
// (`read`) nor any other suite MudJack ships reads it. docs/config.md says so.
void check_config_params(const Settings& s, const std::vector<plan::SuiteRef>& selected,
                         const nlohmann::json& read, const envs::Interpreter& python) {
  plan::Params unread;
  for (const auto& [name, value] : s.config.params) {
    if (!read.is_object() || !read.contains(name)) unread[name] = value;
  }
  if (unread.empty()) return;
  std::vector<plan::SuiteRef> others;
  for (const auto& name : plan::known_suites()) {
    auto ref = plan::resolve_suite(name);
    const bool chosen = std::any_of(selected.begin(), selected.end(),
                                    [&](const plan::SuiteRef& r) { return r.dir == ref.dir; });
    if (!chosen) others.push_back(ref);
  }
  nlohmann::json others_read = nlohmann::json::object();
  if (!others.empty()) plan::list_cases(others, python, {}, &others_read);
  std::string unknown;
  for (const auto& [name, value] : unread) {
    if (!others_read.contains(name)) unknown += (unknown.empty() ? "'" : ", '") + name + "'";
  }
  if (unknown.empty()) return;
  throw util::FatalError(s.config.source.string() + ": no suite reads [params] " + unknown +
                         "; the selected suites read: " + plan::describe_read(read));
}

}  // namespace

std::vector<model::CaseInfo> selected_cases(const Selection& sel, const Settings& s, size_t* listed,
                                            int64_t memory_limit_bytes) {
  auto refs = suites_of(sel);
  const auto python = envs::listing_interpreter(s.config.profile, s.python);
  if (memory_limit_bytes <= 0) memory_limit_bytes = memory_limit_bytes_of(s, std::nullopt);
  nlohmann::json read;
  auto cases = plan::list_cases(refs, python, params_of(sel, s), &read, memory_limit_bytes);
  plan::check_params(plan::parse_params(sel.params), read);
  check_config_params(s, refs, read, python);
  if (listed != nullptr) *listed = cases.size();
  return plan::select(plan::filter(cases, split_commas(sel.frameworks), sel.filter), sel.fields);
}

Loaded load_run_or_file(const std::string& what, const Settings& s) {
  Loaded out;
  std::error_code ec;
  const bool looks_like_file =
      what.find('/') != std::string::npos || (what.size() > 5 && what.ends_with(".json"));
  if (looks_like_file && !fs::exists(what, ec)) {
    throw util::FatalError("cannot read " + what + ": no such file");
  }
  if (fs::is_regular_file(what, ec)) {
    out.results = report::load_json(what);
    out.origin = what;
    return out;
  }
  auto store =
      open_existing_store(s.results_dir, "'" + what + "' is neither a results.json nor a run: ");
  auto id = resolve_run_id(*store, what, s.results_dir);
  out.results.schema_version = std::string(model::kResultsSchemaVersion);
  out.results.run = *store->get_run(id);
  out.results.cases = store->results(id);
  out.origin = "run " + id;
  return out;
}

}  // namespace mudjack::cli
