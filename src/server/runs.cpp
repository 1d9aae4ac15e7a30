#include "server/runs.hpp"

#include <algorithm>
#include <utility>

#include "envs/envs.hpp"
#include "report/json.hpp"
#include "report/write.hpp"
#include "run/lease.hpp"
#include "run/options.hpp"
#include "server/http_error.hpp"
#include "util/error.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

namespace mudjack::server {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Final runs kept in memory (their event logs); older ones replay from the store.
constexpr size_t kFinalRecordsKept = 32;
// Rendered reports cached for final runs.
constexpr size_t kCachedReports = 64;

}  // namespace

struct RunManager::Record {
  std::string id;
  run::Prepared run;  // the stored run and the pairs this execution runs
  std::set<std::string> devices;
  std::set<std::string> frameworks;
  State state = State::kQueued;
  size_t done = 0;  // pairs with an outcome
  std::map<std::string, size_t> counts;
  std::string error;
  std::string started_at, finished_at;
  bool cancel_requested = false;
  std::atomic<bool> interrupt{false};
  std::vector<Event> events;
  std::thread thread;

  // The manager joins a record's thread before dropping it; a record whose
  // last owner is its own thread (it ended after eviction) lets it go.
  ~Record() {
    if (thread.joinable()) thread.detach();
  }
};

const char* RunManager::name(State s) {
  switch (s) {
    case State::kQueued:
      return "queued";
    case State::kRunning:
      return "running";
    case State::kComplete:
      return "complete";
    case State::kIncomplete:
      return "incomplete";
    case State::kCancelled:
      return "cancelled";
    case State::kFailed:
      return "failed";
  }
  return "failed";
}

RunManager::RunManager(store::Store& store, Catalog catalog, plan::Discovery discovery,
                       RunDefaults defaults, Metrics& metrics, size_t max_queued)
    : store_(store),
      catalog_(std::move(catalog)),
      discovery_(std::move(discovery)),
      defaults_(std::move(defaults)),
      metrics_(metrics),
      max_queued_(max_queued) {}

class RunManager::Slot {
 public:
  explicit Slot(RunManager& m) : m_(&m) {}
  Slot(Slot&& other) noexcept : m_(std::exchange(other.m_, nullptr)) {}
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  Slot& operator=(Slot&&) = delete;
  ~Slot() {
    if (m_ == nullptr) return;
    std::lock_guard lock(m_->mu_);
    --m_->reserved_;
  }
  // The run took its place in the queue; the caller holds mu_.
  void taken() {
    --m_->reserved_;
    m_ = nullptr;
  }

 private:
  RunManager* m_;
};

std::optional<RunManager::Slot> RunManager::reserve_slot() {
  std::lock_guard lock(mu_);
  if (queue_.size() + reserved_ >= max_queued_) return std::nullopt;
  ++reserved_;
  return Slot(*this);
}

RunManager::~RunManager() {
  shutdown(std::chrono::milliseconds(0));
}

Reply RunManager::submit(const RunRequest& request) {
  if (draining_.load()) {
    return {503, {{"error", "server is shutting down; no new runs"}}};
  }
  auto slot = reserve_slot();
  if (!slot) {
    return {429,
            {{"error", "the run queue is full (" + std::to_string(max_queued_) +
                           " queued runs); retry later"}},
            kQueueFullRetryAfterS};
  }
  if (!request.resume.empty()) {
    // The store failing (disk full, I/O error) is the server's problem: 500.
    auto reply = from_fatal([&] { return submit_resume(request.resume, *slot); }, 500);
    if (!reply) return {500, {{"error", "cannot store the run: " + reply.error().message}}};
    return *reply;
  }
  return submit_new(request, *slot);
}

run::RunOptions RunManager::options_for(const RunRequest& request) const {
  run::RunOptions o = defaults_;
  for (const auto& [name, value] : request.params.items())
    o.params[name] = value.get<std::string>();
  o.suites.clear();
  for (const auto& suite : request.suites) o.suites.push_back({suite, catalog_.suites.at(suite)});
  o.frameworks = request.frameworks;
  o.devices = request.devices;
  o.filter = request.filter;
  o.baseline = request.baseline;
  o.timeout_s = request.timeout_s.value_or(defaults_.timeout_s);
  o.budget_ms = request.budget_ms.value_or(defaults_.budget_ms);
  o.warmup_ms = request.warmup_ms.value_or(defaults_.warmup_ms);
  o.min_samples = request.min_samples.value_or(defaults_.min_samples);
  o.rounds = request.rounds.value_or(defaults_.rounds);
  o.cpu_probes = request.cpu_probes.value_or(defaults_.cpu_probes);
  o.max_samples = request.max_samples.value_or(std::max(defaults_.max_samples, o.min_samples));
  o.seed = request.seed;
  o.policy = request.policy;
  o.serial = request.serial;
  o.no_baseline = request.no_baseline;
  o.via = "serve";
  return o;
}

std::vector<model::CaseInfo> RunManager::cases_for(const RunRequest& request) const {
  if (request.params.empty()) return select_cases(request, catalog_);
  // Case grids may depend on parameters: list the suites again with them.
  const auto options = options_for(request);
  nlohmann::json read;
  auto listed =
      plan::list_cases(options.suites, envs::listing_interpreter(options.profile, options.python),
                       options.params, &read, run::memory_limit_of(options));
  plan::check_params(plan::params_from_json(request.params), read);
  Catalog with_params = catalog_;
  with_params.cases.clear();
  with_params.cases[request.suites.front()] = std::move(listed);
  RunRequest one = request;
  one.suites = {request.suites.front()};
  return select_cases(one, with_params);
}

std::shared_ptr<RunManager::Record> RunManager::record_of(run::Prepared prepared) const {
  auto rec = std::make_shared<Record>();
  rec->id = prepared.info.id;
  rec->done = prepared.done;
  // A resumed run's counts start from the outcomes it already stored, as
  // `done` does (before, they counted only this execution's).
  if (prepared.done > 0) {
    for (const auto& r : store_.results(prepared.info.id)) {
      ++rec->counts[std::string(model::to_string(r.outcome))];
    }
  }
  for (const auto& [info, device] : prepared.work) {
    rec->devices.insert(device);
    rec->frameworks.insert(info.framework);
  }
  rec->run = std::move(prepared);
  return rec;
}

namespace {

Reply reply_of(const HttpError& e) {
  return {e.status, {{"error", e.message}}};
}

std::string no_cases_message(const RunRequest& request, const Catalog& catalog) {
  std::string what = "no cases match: suites ";
  for (const auto& x : request.suites) what += x + " ";
  what += "frameworks ";
  for (const auto& x : request.frameworks.empty() ? catalog.frameworks : request.frameworks) {
    what += x + " ";
  }
  return what + "filter '" + request.filter + "'";
}

}  // namespace

Reply RunManager::submit_new(const RunRequest& request, Slot& slot) {
  // Lower layers refuse bad input by throwing; here that is the client's 400.
  auto cases = from_fatal([&] { return cases_for(request); });
  if (!cases) return reply_of(cases.error());
  if (cases->empty()) return {400, {{"error", no_cases_message(request, catalog_)}}};
  const auto options = options_for(request);
  if (auto why = run::invalid(options)) return {400, {{"error", *why}}};
  auto pairs = from_fatal([&] { return plan::pairs(*cases, discovery_, request.devices); });
  if (!pairs) return reply_of(pairs.error());
  if (pairs->empty()) {
    return {400, {{"error", "nothing to run: no selected device for these cases"}}};
  }
  // What create() throws now is the store failing: the server's 500.
  auto created =
      from_fatal([&] { return run::create(store_, options, *cases, discovery_, "queued"); }, 500);
  if (!created) return {500, {{"error", "cannot store the run: " + created.error().message}}};
  return admit(record_of(std::move(*created)), slot);
}

Reply RunManager::submit_resume(const std::string& run_id, Slot& slot) {
  {
    std::lock_guard lock(mu_);
    auto it = records_.find(run_id);
    if (it != records_.end() && !final(it->second->state)) {
      return {409, {{"error", "run '" + run_id + "' is already " + name(it->second->state)}}};
    }
    // One request reopens a run at a time: a second one would write the
    // store's plan and state under the first's feet.
    if (!resuming_.insert(run_id).second) {
      return {409, {{"error", "run '" + run_id + "' is being resumed by another request"}}};
    }
  }
  struct Resuming {
    RunManager& m;
    const std::string& id;
    ~Resuming() {
      std::lock_guard lock(m.mu_);
      m.resuming_.erase(id);
    }
  } resuming{*this, run_id};
  auto stored = store_.get_run(run_id);
  if (!stored) return {404, {{"error", "unknown run '" + run_id + "'"}}};
  if (stored->state == "complete") {
    return {409, {{"error", "run '" + run_id + "' is complete; nothing to resume"}}};
  }
  // Only runs made from this server's own suites: a run stored by another
  // command may name any folder.
  for (const auto& s : stored->options.value("suites", json::array())) {
    auto name_it = catalog_.suites.find(s.value("name", ""));
    if (name_it == catalog_.suites.end() || name_it->second.string() != s.value("dir", "")) {
      return {409, {{"error", "run '" + run_id + "' was not made from this server's suites"}}};
    }
  }
  // Nor one whose parameters name a path the operator did not set: resuming
  // it would read or run what another command named.
  const auto stored_params = stored->options.value("params", json::object());
  for (const auto& [param, value] : stored_params.items()) {
    const auto own = defaults_.params.find(param);
    if (names_path(catalog_, param) && (own == defaults_.params.end() || !value.is_string() ||
                                        value.get<std::string>() != own->second)) {
      return {409,
              {{"error", "run '" + run_id + "' names a path in its parameter '" + param +
                             "'; this server resumes only runs whose paths its operator set"}}};
    }
  }
  // Another process (a `mudjack run --resume`) executing it owns it.
  if (auto holder = run::lease_holder(store_, run_id)) return {409, {{"error", *holder}}};
  auto prepared = run::reopen(store_, run_id);
  run::resume(store_, prepared, discovery_, "queued");
  return admit(record_of(std::move(prepared)), slot);
}

Reply RunManager::admit(const std::shared_ptr<Record>& rec, Slot& slot) {
  std::thread previous;  // a resumed run's last execution, joined outside the lock
  Reply reply;
  {
    std::lock_guard lock(mu_);
    if (draining_.load()) {
      store_.set_run_state(rec->id, "incomplete", util::now_iso8601());
      return {503, {{"error", "server is shutting down; no new runs"}}};
    }
    if (auto old = records_.find(rec->id); old != records_.end()) {
      // Two resumes of one run raced past submit_resume's check: one wins.
      if (!final(old->second->state)) {
        return {409, {{"error", "run '" + rec->id + "' is already " + name(old->second->state)}}};
      }
      // A final record's thread has left finish() and never takes mu_ again.
      previous = std::move(old->second->thread);
    }
    evict_finished();
    records_[rec->id] = rec;
    {
      std::lock_guard cache_lock(cache_mu_);  // a resumed run's reports change
      for (auto it = cache_.begin(); it != cache_.end();) {
        it = it->first.first == rec->id ? cache_.erase(it) : std::next(it);
      }
    }
    queue_.push_back(rec->id);
    slot.taken();
    metrics_.count_run_accepted();
    emit(*rec, "state", {{"state", "queued"}, {"done", rec->done}, {"planned", rec->run.planned}});
    schedule();
    reply = {202, status_json(*rec)};
  }
  if (previous.joinable()) previous.join();
  return reply;
}

void RunManager::schedule() {
  std::set<std::string> blocked = busy_;
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto rec = records_.at(*it);
    bool free = std::none_of(rec->devices.begin(), rec->devices.end(),
                             [&](const std::string& d) { return blocked.count(d) > 0; });
    // A waiting run holds its devices against later ones, so none starves.
    blocked.insert(rec->devices.begin(), rec->devices.end());
    if (!free) {
      ++it;
      continue;
    }
    busy_.insert(rec->devices.begin(), rec->devices.end());
    rec->state = State::kRunning;
    rec->started_at = util::now_iso8601();
    emit(*rec, "state", {{"state", "running"}, {"done", rec->done}, {"planned", rec->run.planned}});
    rec->thread = std::thread([this, rec] { execute(rec); });
    it = queue_.erase(it);
  }
}

void RunManager::emit(Record& rec, const std::string& event_name, const json& data) {
  rec.events.push_back(Event{rec.events.size() + 1, event_name, util::dump_json(data, -1)});
  changed_.notify_all();
}

void RunManager::execute(const std::shared_ptr<Record>& rec) {
  State final_state = State::kFailed;
  std::string error;
  try {
    const auto on_result = [&](const model::CaseResult& r) {
      metrics_.count_outcome(r.info.framework, r.device, model::to_string(r.outcome));
      std::lock_guard lock(mu_);
      ++rec->done;
      ++rec->counts[std::string(model::to_string(r.outcome))];
      const size_t planned = rec->run.planned;
      emit(*rec, "outcome",
           {{"done", rec->done}, {"planned", planned}, {"case", report::case_to_json(r)}});
      emit(*rec, "progress", {{"done", rec->done}, {"planned", planned}});
    };
    std::string fault;  // the machine failed: the run stops incomplete, resumable
    const bool completed = run::execute(store_, rec->run, discovery_, defaults_.place(), on_result,
                                        rec->interrupt, &fault);
    if (!fault.empty()) error = "machine fault: " + fault;
    run::finish(store_, rec->id, completed, defaults_.place());
    if (completed) {
      final_state = State::kComplete;
    } else {
      std::lock_guard lock(mu_);
      final_state = rec->cancel_requested ? State::kCancelled : State::kIncomplete;
    }
  } catch (const std::exception& e) {  // the store or a report could not be written
    error = e.what();
    try {
      // A run another execution took over keeps the state its owner writes.
      if (!run::lease_holder(store_, rec->id)) {
        store_.set_run_state(rec->id, "incomplete", util::now_iso8601());
      }
    } catch (const std::exception&) {  // nothing more to keep
    }
  }
  std::lock_guard lock(mu_);
  for (const auto& d : rec->devices) busy_.erase(d);
  finish(*rec, final_state, error);
  schedule();
}

void RunManager::finish(Record& rec, State state, const std::string& error) {
  rec.state = state;
  rec.error = error;
  rec.finished_at = util::now_iso8601();
  metrics_.count_run_finished(name(state));
  json end = {{"state", name(state)}, {"done", rec.done}, {"planned", rec.run.planned}};
  if (!error.empty()) end["error"] = error;
  emit(rec, "end", end);
}

Reply RunManager::cancel(const std::string& run_id) {
  std::unique_lock lock(mu_);
  auto it = records_.find(run_id);
  if (it == records_.end()) {
    lock.unlock();
    auto run = store_.get_run(run_id);
    if (!run) return {404, {{"error", "unknown run '" + run_id + "'"}}};
    return {409, {{"error", "run '" + run_id + "' is not active here (state " + run->state + ")"}}};
  }
  auto& rec = *it->second;
  if (final(rec.state)) {
    return {409, {{"error", "run '" + run_id + "' already finished (" + name(rec.state) + ")"}}};
  }
  rec.cancel_requested = true;
  if (rec.state == State::kQueued) {
    queue_.erase(std::remove(queue_.begin(), queue_.end(), run_id), queue_.end());
    store_.set_run_state(run_id, "incomplete", util::now_iso8601());
    finish(rec, State::kCancelled, "");
    schedule();  // a later run may have waited behind this one
    return {200, status_json(rec)};
  }
  rec.interrupt.store(true);
  auto body = status_json(rec);
  body["state"] = "cancelling";
  return {202, body};
}

json RunManager::status_json(const Record& rec) const {
  json j = {{"id", rec.id},
            {"state", name(rec.state)},
            {"suite", rec.run.info.suite},
            {"created_at", rec.run.info.created_at},
            {"started_at", rec.started_at},
            {"finished_at", rec.finished_at},
            {"planned", rec.run.planned},
            {"done", rec.done},
            {"counts", rec.counts},
            {"devices", rec.devices},
            {"frameworks", rec.frameworks},
            {"links",
             {{"self", "/v1/runs/" + rec.id},
              {"events", "/v1/runs/" + rec.id + "/events"},
              {"results", "/v1/runs/" + rec.id + "/results"}}}};
  if (rec.state == State::kQueued) {
    auto pos = std::find(queue_.begin(), queue_.end(), rec.id);
    j["queue_position"] = pos - queue_.begin();
  }
  if (!rec.error.empty()) j["error"] = rec.error;
  return j;
}

Reply RunManager::status(const std::string& run_id) const {
  {
    std::lock_guard lock(mu_);
    auto it = records_.find(run_id);
    if (it != records_.end()) return {200, status_json(*it->second)};
  }
  auto run = store_.get_run(run_id);
  if (!run) return {404, {{"error", "unknown run '" + run_id + "'"}}};
  auto results = store_.results(run_id);
  std::map<std::string, size_t> counts;
  for (const auto& r : results) ++counts[std::string(model::to_string(r.outcome))];
  // A run stored as running or queued that no thread here holds was left
  // by a process that died: it is incomplete until resumed.
  std::string state = run->state == "complete" ? "complete" : "incomplete";
  return {200,
          {{"id", run->id},
           {"state", state},
           {"suite", run->suite},
           {"created_at", run->created_at},
           {"started_at", ""},
           {"finished_at", run->finished_at},
           {"planned", store_.plan(run_id).size()},
           {"done", results.size()},
           {"counts", counts},
           {"links",
            {{"self", "/v1/runs/" + run->id},
             {"events", "/v1/runs/" + run->id + "/events"},
             {"results", "/v1/runs/" + run->id + "/results"}}}}};
}

RunManager::Batch RunManager::events_after(const std::string& run_id, uint64_t after_id,
                                           std::chrono::milliseconds wait) const {
  Batch batch;
  {
    std::unique_lock lock(mu_);
    auto it = records_.find(run_id);
    if (it != records_.end()) {
      auto rec = it->second;  // keeps the record alive across the wait
      auto pending = [&] { return rec->events.size() > after_id; };
      changed_.wait_for(lock, wait, pending);
      for (size_t i = after_id; i < rec->events.size(); ++i) batch.events.push_back(rec->events[i]);
      // A final run's last event is its end: sent again to a client that
      // asked for events after it.
      batch.ended = final(rec->state);
      if (batch.ended && batch.events.empty()) batch.events.push_back(rec->events.back());
      return batch;
    }
  }
  // Not held here: replay the stored outcomes, then the end.
  auto run = store_.get_run(run_id);
  if (!run) {
    batch.known = false;
    return batch;
  }
  auto results = store_.results(run_id);
  auto planned = store_.plan(run_id).size();
  uint64_t id = 0;
  size_t done = 0;
  for (const auto& r : results) {
    ++done;
    if (++id > after_id) {
      batch.events.push_back(
          {id, "outcome",
           util::dump_json(
               {{"done", done}, {"planned", planned}, {"case", report::case_to_json(r)}}, -1)});
    }
  }
  // The end, whatever after_id says (see events_after in runs.hpp).
  std::string state = run->state == "complete" ? "complete" : "incomplete";
  batch.events.push_back(
      {++id, "end", util::dump_json({{"state", state}, {"done", done}, {"planned", planned}}, -1)});
  batch.ended = true;
  return batch;
}

std::optional<std::shared_ptr<const std::string>> RunManager::results(const std::string& run_id,
                                                                      const std::string& format) {
  bool cacheable = false;
  const Record* holder = nullptr;  // the record at the start: a resume replaces it
  auto still_final = [&] {
    auto it = records_.find(run_id);
    return it == records_.end() ? holder == nullptr
                                : it->second.get() == holder && final(it->second->state);
  };
  {
    std::lock_guard lock(mu_);
    auto it = records_.find(run_id);
    if (it != records_.end()) holder = it->second.get();
    cacheable = still_final();
  }
  if (cacheable) {
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find({run_id, format});
    if (it != cache_.end()) return it->second;
  }
  auto run = store_.get_run(run_id);
  if (!run) return std::nullopt;
  auto text = std::make_shared<const std::string>(
      report::render(format, run::judge(*run, store_.results(run_id), defaults_.intolerable)));
  // A run another process still writes is never cached (state running/queued).
  if (cacheable && (run->state == "complete" || run->state == "incomplete")) {
    std::lock_guard lock(mu_);
    if (!still_final()) return text;
    std::lock_guard cache_lock(cache_mu_);
    if (cache_.size() >= kCachedReports) cache_.erase(cache_.begin());
    cache_[{run_id, format}] = text;
  }
  return text;
}

void RunManager::evict_finished() {
  std::vector<std::string> final_ids;
  for (const auto& [id, rec] : records_) {
    if (final(rec->state)) final_ids.push_back(id);
  }
  // Run ids sort by time: drop the oldest final records beyond the limit.
  for (size_t i = 0; i + kFinalRecordsKept < final_ids.size(); ++i) {
    auto rec = records_.at(final_ids[i]);
    if (rec->thread.joinable()) rec->thread.join();  // it only returns after finish()
    records_.erase(final_ids[i]);
  }
}

void RunManager::shutdown(std::chrono::milliseconds grace) {
  std::vector<std::shared_ptr<Record>> all;
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return;
    draining_.store(true);
    for (const auto& id : queue_) {
      auto& rec = *records_.at(id);
      rec.cancel_requested = true;
      store_.set_run_state(id, "incomplete", util::now_iso8601());
      finish(rec, State::kCancelled, "");
    }
    queue_.clear();
    for (const auto& [id, rec] : records_) all.push_back(rec);
  }
  {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, grace, [&] {
      return std::all_of(all.begin(), all.end(),
                         [](const std::shared_ptr<Record>& r) { return final(r->state); });
    });
    for (const auto& rec : all) {
      if (!final(rec->state)) {
        rec->cancel_requested = true;
        rec->interrupt.store(true);
      }
    }
  }
  for (const auto& rec : all) {
    if (rec->thread.joinable()) rec->thread.join();
  }
  std::lock_guard lock(mu_);
  shut_down_ = true;
  changed_.notify_all();
}

nlohmann::json RunManager::environment() const {
  constexpr auto kFresh = std::chrono::seconds(30);
  std::lock_guard lock(environment_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (environment_.is_null() || now - environment_at_ > kFresh) {
    environment_ = plan::environment_json(discovery_);
    environment_at_ = now;
  }
  return environment_;
}

Gauges RunManager::gauges() const {
  Gauges g;
  std::lock_guard lock(mu_);
  g.draining = draining_.load();
  g.runs_queued = queue_.size();
  g.runs_queue_limit = max_queued_;
  for (const auto& [id, rec] : records_) {
    if (rec->state == State::kRunning) ++g.runs_running;
  }
  for (const auto& d : catalog_.devices) g.device_busy[d] = busy_.count(d) > 0;
  g.event_streams = streams_.load();
  return g;
}

}  // namespace mudjack::server
