#include "fleet/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleet/client.hpp"
#include "fleet/merge.hpp"
#include "fleet/targets.hpp"
#include "report/json.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"
#include "store/store.hpp"
#include "util/error.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

namespace mudjack::fleet {
namespace fs = std::filesystem;
using nlohmann::json;

std::chrono::milliseconds backoff_delay(const SweepOptions& o, int attempt) {
  auto delay = o.backoff;
  for (int i = 0; i < attempt && delay < o.backoff_max; ++i) delay *= 2;
  return std::min(delay, o.backoff_max);
}

namespace {

constexpr const char* kStateFile = "sweep.json";

struct TargetState {
  Target target;
  std::string token;
  std::string status = "pending";  // pending | running | complete | failed | interrupted
  std::string run_id;
  std::string suite;         // as the target named the run
  std::string remote_state;  // the run's final state on the target
  std::string error;
  size_t outcomes = 0;  // outcome events kept in events.jsonl
  size_t planned = 0;
  bool partial = false;  // results.json rebuilt from events, not fetched
};

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool retryable(const Response& r) {
  return !r.oversized && (!r.transport_ok() || r.status >= 500 || r.status == 429);
}

// A run id a target gave: it goes into URLs and onto the terminal, so only
// 1-128 of A-Za-z0-9 . _ - (what `mudjack serve` makes), not "." or "..".
bool plain_id(const json& id) {
  if (!id.is_string()) return false;
  const auto& text = id.get_ref<const std::string&>();
  if (text.empty() || text.size() > 128 || text == "." || text == "..") return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// Text a target sent (error messages), fit for one line of a terminal: its
// control characters shown as \xHH.
std::string printable(const std::string& text) {
  std::string out;
  char buf[8];
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b != 0x7F) {
      out.push_back(c);
    } else {
      std::snprintf(buf, sizeof(buf), "\\x%02X", static_cast<unsigned>(b));
      out += buf;
    }
  }
  return out;
}

// How following a run's event stream ended.
struct StreamEnd {
  enum class Kind { kEnded, kInterrupted, kLost };
  Kind kind = Kind::kEnded;
  std::string detail;  // kEnded: the run's final state; kLost: why
};

// What one target's event stream has delivered so far.
struct EventLog {
  std::set<std::pair<std::string, std::string>> seen;  // (case id, device) kept
  std::ofstream file;                                  // events.jsonl, appended
  uint64_t after = 0;                                  // the last event id read
  std::string end_state;                               // set by the end event
  size_t kept = 0;  // outcomes appended by this follow: a replay adds none
};

class Sweep {
 public:
  Sweep(const SweepOptions& o, const std::atomic<bool>& interrupted)
      : o_(o), interrupted_(interrupted) {}

  int run();

 private:
  fs::path dir(const TargetState& t) const { return o_.out / "targets" / t.target.label; }
  void save();
  // run()'s steps.
  json prepare_out();
  TargetState initial_state(Target target, const json& previous) const;
  size_t follow_all();
  std::vector<Source> sources() const;
  std::string merge_and_report(const std::vector<Source>& sources);
  int print_summary(const std::string& merged_id) const;
  // follow()'s steps, each false (or nullopt) once it has set the target's status.
  void follow(TargetState& t);
  std::optional<json> fetch_info(TargetState& t, const Client& client);
  bool reconnect(TargetState& t, const Client& client);
  std::set<std::pair<std::string, std::string>> kept_outcomes(TargetState& t);
  bool start_run(TargetState& t, const Client& client);
  StreamEnd stream(TargetState& t, const Client& client, EventLog& log);
  bool take_event(TargetState& t, EventLog& log, const util::SseEvent& e);
  std::pair<std::string, bool> stream_failure(const TargetState& t, const Response& r) const;
  void fetch_results(TargetState& t, const Client& client, const std::string& end_state,
                     const json& info);

  bool sleep_backoff(int attempt, std::optional<int> retry_after_s = std::nullopt);
  Response with_retries(const std::function<Response()>& call);
  void keep_partial(TargetState& t, const json& info);
  void fail(TargetState& t, const std::string& error);
  void set(TargetState& t, const std::string& status);

  const SweepOptions& o_;
  const std::atomic<bool>& interrupted_;
  std::mutex mu_;
  std::vector<TargetState> states_;
  std::string merged_run_;  // the last merge, as sweep.json records it
};

void Sweep::save() {
  // Callers hold mu_.
  json targets = json::object();
  for (const auto& s : states_) {
    targets[s.target.label] = {{"url", s.target.url},
                               {"chip", s.target.chip},
                               {"framework", s.target.framework},
                               {"image", s.target.image},
                               {"status", s.status},
                               {"run_id", s.run_id},
                               {"suite", s.suite},
                               {"remote_state", s.remote_state},
                               {"error", s.error},
                               {"outcomes", s.outcomes},
                               {"planned", s.planned},
                               {"partial", s.partial}};
  }
  json doc = {{"schema_version", "1.0"},
              {"targets_file", fs::absolute(o_.targets_file).string()},
              {"updated_at", util::now_iso8601()},
              {"merged_run", merged_run_},
              {"targets", targets}};
  report::write_file_atomically(o_.out / kStateFile, util::dump_json(doc, 1) + "\n");
}

void Sweep::set(TargetState& t, const std::string& status) {
  std::lock_guard lock(mu_);
  t.status = status;
  save();
}

void Sweep::fail(TargetState& t, const std::string& error) {
  std::lock_guard lock(mu_);
  t.status = "failed";
  t.error = printable(error);
  save();
}

bool Sweep::sleep_backoff(int attempt, std::optional<int> retry_after_s) {
  auto delay = backoff_delay(o_, attempt);
  // A busy server (429, 503) says when to ask again: never sooner.
  if (retry_after_s) delay = std::max(delay, std::chrono::milliseconds(*retry_after_s * 1000LL));
  auto end = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < end) {
    if (interrupted_.load()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !interrupted_.load();
}

Response Sweep::with_retries(const std::function<Response()>& call) {
  Response r;
  for (int attempt = 0;; ++attempt) {
    r = call();
    if (!retryable(r) || attempt >= o_.retries || !sleep_backoff(attempt, r.retry_after_s)) {
      return r;
    }
  }
}

// What a target finished, from the outcome events it sent, as a results.json.
void Sweep::keep_partial(TargetState& t, const json& info) {
  json cases = json::array();
  std::ifstream f(dir(t) / "events.jsonl");
  std::string line;
  while (std::getline(f, line)) {
    auto e = json::parse(line, nullptr, false);
    if (e.is_object() && e.contains("case")) cases.push_back(e["case"]);
  }
  if (cases.empty()) return;
  json doc = {{"schema_version", std::string(model::kSchemaVersion)},
              {"run",
               {{"id", t.run_id},
                {"suite", t.suite},
                {"state", "incomplete"},
                {"created_at", ""},
                {"finished_at", ""},
                {"baseline", t.target.request.value("baseline", "cpu")},
                {"options", t.target.request}}},
              {"environment", info.value("environment", json::object())},
              {"cases", cases},
              {"verdicts", json::array()}};
  report::from_json(doc, "events of " + t.target.label);  // same checks as a fetched file
  report::write_file_atomically(dir(t) / "results.json", util::dump_json(doc, 1) + "\n");
  std::lock_guard lock(mu_);
  t.partial = true;
  save();
}

// GET /v1/info, kept as info.json (the target's provenance).
std::optional<json> Sweep::fetch_info(TargetState& t, const Client& client) {
  auto r = with_retries([&] { return client.get("/v1/info"); });
  if (interrupted_.load()) {
    set(t, "interrupted");
    return std::nullopt;
  }
  if (r.status != 200 || r.oversized) {
    fail(t, (r.oversized       ? ""
             : r.status == 401 ? "token rejected: "
                               : "unreachable: ") +
                r.message());
    return std::nullopt;
  }
  json info = json::parse(r.body, nullptr, false);
  if (!info.is_object()) {
    fail(t, "GET /v1/info did not return a JSON object");
    return std::nullopt;
  }
  report::write_file_atomically(dir(t) / "info.json", util::dump_json(info, 1) + "\n");
  return info;
}

// --resume: what does the target say of our run? A run it lost (a new
// container) is started again; one that stopped short is resumed there.
bool Sweep::reconnect(TargetState& t, const Client& client) {
  auto st = with_retries([&] { return client.get("/v1/runs/" + t.run_id); });
  auto doc = json::parse(st.body, nullptr, false);
  std::string state = doc.is_object() ? doc.value("state", "") : "";
  {
    std::lock_guard lock(mu_);  // save() reads these from other threads
    if (st.status == 200) t.suite = doc.value("suite", t.suite);
    if (st.status == 404) t.run_id.clear();
  }
  if (st.status == 404) return true;
  if (st.status != 200) {
    fail(t, "cannot read run " + t.run_id + ": " + st.message());
    return false;
  }
  if (state == "incomplete" || state == "cancelled" || state == "failed") {
    auto r = with_retries([&] { return client.post_json("/v1/runs", {{"resume", t.run_id}}); });
    if (r.status != 202) {
      fail(t, "cannot resume run " + t.run_id + ": " + r.message());
      return false;
    }
  }
  return true;
}

// Outcomes already kept, so a replay (a resumed run's new event log, a
// restarted target replaying its store) adds none twice. Event ids count
// per execution on the target, so the stream is read from its start.
std::set<std::pair<std::string, std::string>> Sweep::kept_outcomes(TargetState& t) {
  std::set<std::pair<std::string, std::string>> seen;
  if (t.run_id.empty()) return seen;
  std::ifstream f(dir(t) / "events.jsonl");
  std::string line;
  while (std::getline(f, line)) {
    auto e = json::parse(line, nullptr, false);
    if (e.is_object() && e.contains("case")) {
      seen.emplace(e["case"].value("id", ""), e["case"].value("device", ""));
    }
  }
  std::lock_guard lock(mu_);
  t.outcomes = seen.size();
  return seen;
}

// POST /v1/runs with the target's request, from a clean slate.
bool Sweep::start_run(TargetState& t, const Client& client) {
  std::error_code ec;
  fs::remove(dir(t) / "events.jsonl", ec);
  fs::remove(dir(t) / "results.json", ec);
  auto r = with_retries([&] { return client.post_json("/v1/runs", t.target.request); });
  if (interrupted_.load()) {
    set(t, "interrupted");
    return false;
  }
  if (r.status != 202) {
    fail(t, "target refused the run: " + r.message());
    return false;
  }
  auto doc = json::parse(r.body, nullptr, false);
  if (!doc.is_object() || !plain_id(doc.value("id", json()))) {
    fail(t, "target answered POST /v1/runs without a usable run id");
    return false;
  }
  std::lock_guard lock(mu_);
  t.run_id = doc["id"].get<std::string>();
  t.suite = doc["suite"].is_string() ? doc["suite"].get<std::string>() : "";
  t.planned = doc["planned"].is_number_unsigned() ? doc["planned"].get<size_t>() : 0;
  t.outcomes = 0;
  t.partial = false;
  t.status = "running";
  save();
  return true;
}

// One event of the stream: a new outcome is appended to events.jsonl; the
// end event stops the stream (false).
bool Sweep::take_event(TargetState& t, EventLog& log, const util::SseEvent& e) {
  auto data = json::parse(e.data, nullptr, false);
  uint64_t id = std::strtoull(e.id.c_str(), nullptr, 10);
  if (id > log.after) log.after = id;
  if (e.name == "outcome" && data.is_object() && data.contains("case")) {
    if (!log.seen.emplace(data["case"].value("id", ""), data["case"].value("device", "")).second) {
      return true;
    }
    log.file << util::dump_json({{"id", id}, {"case", data["case"]}}, -1) << "\n";
    log.file.flush();
    ++log.kept;
    std::lock_guard lock(mu_);
    ++t.outcomes;
    t.planned = data.value("planned", t.planned);
  } else if (e.name == "end") {
    log.end_state = data.is_object() ? data.value("state", "failed") : "failed";
    return false;
  }
  return true;
}

// Why a stream stopped short, and whether retrying is pointless.
std::pair<std::string, bool> Sweep::stream_failure(const TargetState& t, const Response& r) const {
  if (r.oversized) return {r.error, true};
  if (r.status == 404) return {"the target no longer knows run " + t.run_id, true};
  if (r.transport_ok() && r.status != 200 && !retryable(r)) return {r.message(), true};
  if (!r.transport_ok()) return {r.error, false};
  return {r.status == 200 ? "event stream closed before the end" : r.message(), false};
}

// Follows the run's events to its end, reconnecting with backoff. Only a
// stream that brought a new outcome resets the count of failures: a target
// that replays what was already kept, or sends nothing but keep-alives and
// progress, then drops the connection, is given up after --retries.
StreamEnd Sweep::stream(TargetState& t, const Client& client, EventLog& log) {
  int failures = 0;
  while (log.end_state.empty()) {
    const size_t kept_before = log.kept;
    auto r = client.follow_events(
        t.run_id, log.after, [&](const util::SseEvent& e) { return take_event(t, log, e); },
        interrupted_);
    if (interrupted_.load()) return {StreamEnd::Kind::kInterrupted, ""};
    if (!log.end_state.empty()) break;
    if (log.kept > kept_before) failures = 0;
    auto [error, hopeless] = stream_failure(t, r);
    if (hopeless) failures = o_.retries + 1;
    if (++failures > o_.retries || !sleep_backoff(failures - 1)) {
      if (interrupted_.load()) return {StreamEnd::Kind::kInterrupted, ""};
      return {StreamEnd::Kind::kLost, error};
    }
  }
  return {StreamEnd::Kind::kEnded, log.end_state};
}

// The ended run's results as results.json; what the events kept when they
// cannot be had.
void Sweep::fetch_results(TargetState& t, const Client& client, const std::string& end_state,
                          const json& info) {
  {
    std::lock_guard lock(mu_);
    t.remote_state = end_state;
  }
  auto res =
      with_retries([&] { return client.get("/v1/runs/" + t.run_id + "/results?format=json"); });
  if (res.status != 200) {
    fail(t, "cannot fetch results: " + res.message() + "; kept " + std::to_string(t.outcomes) +
                " outcomes from events");
    keep_partial(t, info);
    return;
  }
  try {
    report::from_json(json::parse(res.body), "results of " + t.target.label);
  } catch (const std::exception& e) {
    fail(t, std::string("target sent unreadable results: ") + e.what());
    keep_partial(t, info);
    return;
  }
  report::write_file_atomically(dir(t) / "results.json", res.body);
  if (end_state == "complete") return set(t, "complete");
  fail(t, "the run ended " + end_state + " on the target; its finished outcomes are kept");
}

void Sweep::follow(TargetState& t) {
  Client client(t.target.host, t.target.port, t.token, o_.connect_timeout, o_.read_timeout,
                o_.max_reply_bytes, o_.max_event_bytes);
  fs::create_directories(dir(t));
  auto info = fetch_info(t, client);
  if (!info) return;
  if (!t.run_id.empty() && !reconnect(t, client)) return;
  EventLog log;
  log.seen = kept_outcomes(t);
  if (t.run_id.empty()) {
    if (!start_run(t, client)) return;
  } else {
    set(t, "running");
  }
  log.file.open(dir(t) / "events.jsonl", std::ios::app);
  auto end = stream(t, client, log);
  switch (end.kind) {
    case StreamEnd::Kind::kInterrupted:
      return set(t, "interrupted");
    case StreamEnd::Kind::kLost: {
      std::lock_guard lock(mu_);
      t.remote_state = "unknown";
    }
      fail(t, "lost the target mid-run (" + end.detail + "); kept " + std::to_string(t.outcomes) +
                  " finished outcomes");
      return keep_partial(t, *info);
    case StreamEnd::Kind::kEnded:
      return fetch_results(t, client, end.detail, *info);
  }
}

// Creates --out; with --resume, the previous sweep.json (else null).
json Sweep::prepare_out() {
  std::error_code ec;
  fs::create_directories(o_.out, ec);
  if (ec || !fs::is_directory(o_.out)) {
    throw util::FatalError("cannot create sweep folder " + o_.out.string());
  }
  bool exists = fs::exists(o_.out / kStateFile);
  if (!o_.resume) {
    if (exists) {
      throw util::FatalError(o_.out.string() +
                             " already holds a sweep; pass --resume to continue it or choose "
                             "another --out");
    }
    return nullptr;
  }
  if (!exists) {
    throw util::FatalError("no sweep to resume in " + o_.out.string() + " (no " + kStateFile + ")");
  }
  json previous = json::parse(read_text(o_.out / kStateFile), nullptr, false);
  if (!previous.is_object() || !previous.contains("targets")) {
    throw util::FatalError((o_.out / kStateFile).string() + " is not a sweep state file");
  }
  merged_run_ = previous.value("merged_run", "");
  return previous;
}

// The target's token, and what the previous sweep knew of it.
TargetState Sweep::initial_state(Target target, const json& previous) const {
  TargetState s;
  if (target.token_file) {
    std::ifstream f(*target.token_file);
    if (!f) {
      throw util::FatalError("target '" + target.label + "': cannot read token file " +
                             target.token_file->string());
    }
    std::getline(f, s.token);
    while (!s.token.empty() && (s.token.back() == '\r' || s.token.back() == ' '))
      s.token.pop_back();
  } else if (const char* env = std::getenv("MUDJACK_TOKEN")) {
    s.token = env;
  }
  if (previous.is_object()) {
    auto p = previous["targets"].value(target.label, json::object());
    s.run_id = p.value("run_id", "");
    s.suite = p.value("suite", "");
    s.status = p.value("status", "pending");
    s.remote_state = p.value("remote_state", "");
    s.outcomes = p.value("outcomes", size_t{0});
    s.planned = p.value("planned", size_t{0});
    s.partial = p.value("partial", false);
    s.error = p.value("error", "");
  }
  s.target = std::move(target);
  return s;
}

// Follows every target not already done, each on a thread; returns how many.
size_t Sweep::follow_all() {
  // Chosen and reset before any thread starts: a running thread's save()
  // reads every target's state under mu_.
  std::vector<TargetState*> todo;
  for (auto& s : states_) {
    if (s.status == "complete" && fs::exists(dir(s) / "results.json")) continue;  // resume: done
    s.error.clear();
    todo.push_back(&s);
  }
  std::vector<std::thread> threads;
  for (TargetState* target : todo) {
    threads.emplace_back([this, &s = *target] {
      try {
        follow(s);
      } catch (const std::exception& e) {  // a file of ours could not be written
        fail(s, e.what());
      }
    });
  }
  for (auto& th : threads) th.join();
  return threads.size();
}

// Every target's results.json, its machines labelled with the target.
std::vector<Source> Sweep::sources() const {
  std::vector<Source> out;
  for (const auto& s : states_) {
    auto file = dir(s) / "results.json";
    if (!fs::exists(file)) continue;
    auto results = report::load_json(file);
    // Each machine's provenance names the target it came from.
    for (auto& m : results.run.environment["machines"]) {
      m["target"] = {{"label", s.target.label}, {"url", s.target.url},
                     {"chip", s.target.chip},   {"framework", s.target.framework},
                     {"image", s.target.image}, {"status", s.status},
                     {"run_id", s.run_id}};
    }
    out.push_back(Source{s.target.label, s.target.url, std::move(results)});
  }
  return out;
}

// The merged run: stored, judged and reported in the sweep folder (one
// store, one cross-chip report). Returns its id.
std::string Sweep::merge_and_report(const std::vector<Source>& sources) {
  auto merged = merge(sources, util::now_iso8601());
  auto store = store::Store::open(store::default_db_path(o_.out));
  // The id hashes the sources: a run already there is this very merge
  // (a --resume that found nothing new).
  if (!store->get_run(merged.run.id)) fleet::save(*store, merged);
  auto judged = run::publish(merged.run, merged.cases, {o_.out, o_.intolerable});
  {
    std::lock_guard lock(mu_);
    merged_run_ = merged.run.id;
    save();
  }
  if (o_.json) std::cout << report::render("json", judged) << "\n";
  return merged.run.id;
}

// The table of targets (unless --json) and the exit status.
int Sweep::print_summary(const std::string& merged_id) const {
  bool all_complete = true;
  if (!o_.json) {
    std::printf("\nsweep of %zu targets", states_.size());
    if (!merged_id.empty()) {
      std::printf(" -> merged run %s; reports in %s/runs/%s/", merged_id.c_str(), o_.out.c_str(),
                  merged_id.c_str());
    }
    std::printf("\n%-20s %-10s %-22s %9s  %s\n", "TARGET", "STATUS", "RUN", "OUTCOMES", "NOTE");
  }
  for (const auto& s : states_) {
    all_complete = all_complete && s.status == "complete";
    if (o_.json) continue;
    std::string outcomes = std::to_string(s.outcomes) + "/" + std::to_string(s.planned);
    std::printf("%-20s %-10s %-22s %9s  %s\n", s.target.label.c_str(), s.status.c_str(),
                s.run_id.c_str(), outcomes.c_str(), s.error.c_str());
  }
  for (const auto& s : states_) {
    if (s.status != "complete") {
      std::fprintf(stderr, "mudjack: target %s failed: %s\n", s.target.label.c_str(),
                   s.error.c_str());
    }
  }
  return all_complete ? 0 : 1;
}

int Sweep::run() {
  auto targets = load_targets(o_.targets_file);
  json previous = prepare_out();
  for (auto& target : targets) states_.push_back(initial_state(std::move(target), previous));
  {
    std::lock_guard lock(mu_);
    save();
  }
  size_t followed = follow_all();
  if (interrupted_.load()) {
    std::fprintf(stderr,
                 "mudjack: sweep interrupted; the targets' runs go on. Continue with: mudjack "
                 "sweep --targets %s --out %s --resume\n",
                 o_.targets_file.c_str(), o_.out.c_str());
    return 130;
  }
  std::string merged_id;
  auto all = sources();
  if (followed == 0 && !merged_run_.empty() &&
      fs::exists(o_.out / "runs" / merged_run_ / "results.json")) {
    merged_id = merged_run_;  // --resume of a finished sweep: nothing new to merge
    if (o_.json) std::cout << read_text(o_.out / "runs" / merged_id / "results.json");
  } else if (!all.empty()) {
    merged_id = merge_and_report(all);
  }
  return print_summary(merged_id);
}

}  // namespace

int sweep(const SweepOptions& options, const std::atomic<bool>& interrupted) {
  Sweep s(options, interrupted);
  return s.run();
}

}  // namespace mudjack::fleet
