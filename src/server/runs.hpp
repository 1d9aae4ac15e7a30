#pragma once
// The runs a server holds: accepted requests become runs in the same SQLite
// store `mudjack run` writes (so `mudjack runs` / `report` / `run --resume`
// work on them), queued so that each device serves one run at a time, each
// run executed by the supervisor on a thread of its own, its progress kept as
// a numbered event log that event streams follow.
//
// Threads: every public method may be called from any thread (HTTP workers);
// one mutex guards the records, one condition variable wakes event readers.
// Run threads call into the supervisor and the store without that mutex,
// except to append events. shutdown() blocks until every run thread ended.
//
// States (API): queued -> running -> complete | incomplete | cancelled |
// failed. In the store, a cancelled run is `incomplete` (its unreached pairs
// run on resume) and a queued one is `queued`.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "run/lifecycle.hpp"
#include "server/metrics.hpp"
#include "server/request.hpp"
#include "store/store.hpp"

namespace mudjack::server {

// Server-wide defaults and places, fixed at start-up by `mudjack serve`: the
// operator's run options (a request's fields override them) and where
// reports go and how runs are judged.
struct RunDefaults : run::RunOptions {
  std::filesystem::path results_dir;                 // reports go to <results_dir>/runs/<id>/
  std::optional<std::filesystem::path> intolerable;  // thresholds file for verdicts

  run::Place place() const { return {results_dir, intolerable}; }
};

struct Event {
  uint64_t id = 0;   // 1, 2, ... within a run
  std::string name;  // state | outcome | progress | end
  std::string data;  // compact JSON
};

// What POST /v1/runs and DELETE answer: an HTTP status and a JSON body.
struct Reply {
  int status = 200;
  nlohmann::json body;
  int retry_after_s = 0;  // > 0: answered with a Retry-After header (429)
};

// Retry-After of a 429 (the run queue is full): about the time a short run
// takes to leave the queue.
inline constexpr int kQueueFullRetryAfterS = 30;

class RunManager {
 public:
  // At most `max_queued` runs wait in the queue (running ones aside).
  RunManager(store::Store& store, Catalog catalog, plan::Discovery discovery, RunDefaults defaults,
             Metrics& metrics, size_t max_queued = 64);
  ~RunManager();  // shutdown(0) if not done
  RunManager(const RunManager&) = delete;
  RunManager& operator=(const RunManager&) = delete;

  // 202 {id, state, planned, ...}; 400 no cases / no device; 404 resume of
  // an unknown run; 409 resume of an active or complete run, or of one
  // another request is resuming; 429 (retry_after_s set) when max_queued
  // runs wait already; 503 draining.
  Reply submit(const RunRequest& request);
  // 200 status; 404 unknown (neither here nor in the store).
  Reply status(const std::string& run_id) const;
  // 200 cancelled (queued) / 202 cancelling (running); 409 already
  // finished; 404 unknown.
  Reply cancel(const std::string& run_id);

  // The events after `after_id`, waiting up to `wait` for one to come.
  // `ended`: the run is final and every event was returned; the batch of an
  // ended run always closes with its `end` event, even when `after_id` is at
  // or past it (a client that resumes after the end still learns it). `known`: false
  // for an id neither here nor in the store. Runs not held in memory (made
  // by another process, or before a restart) replay from the store.
  struct Batch {
    bool known = true;
    bool ended = false;
    std::vector<Event> events;
  };
  Batch events_after(const std::string& run_id, uint64_t after_id,
                     std::chrono::milliseconds wait) const;

  // A stored run rendered with report::render (format checked by the
  // caller); nullopt for an unknown run. Final runs are rendered once and
  // cached.
  std::optional<std::shared_ptr<const std::string>> results(const std::string& run_id,
                                                            const std::string& format);

  // SIGTERM: refuse new runs, cancel queued ones, give running ones up to
  // `grace` to finish, then interrupt them; returns once every run thread
  // has stored its outcomes and reports.
  void shutdown(std::chrono::milliseconds grace);
  bool draining() const { return draining_.load(); }

  Gauges gauges() const;
  size_t max_queued() const { return max_queued_; }
  void event_stream_opened() { ++streams_; }
  void event_stream_closed() { --streams_; }
  size_t event_streams() const { return streams_.load(); }

  const Catalog& catalog() const { return catalog_; }
  const plan::Discovery& discovery() const { return discovery_; }
  // plan::environment_json for /v1/info, computed at most every 30 s: it
  // asks git twice (the source state), and a flood of /v1/info must not be
  // a flood of git (150 requests once kept the machine busy 47 s).
  nlohmann::json environment() const;

 private:
  enum class State { kQueued, kRunning, kComplete, kIncomplete, kCancelled, kFailed };
  struct Record;

  static const char* name(State s);
  static bool final(State s) { return s != State::kQueued && s != State::kRunning; }
  // A place in the queue, held from the request's check to its admit (or
  // refusal), so that concurrent POSTs cannot overfill it.
  class Slot;
  std::optional<Slot> reserve_slot();  // takes mu_; nullopt: the queue is full
  Reply submit_new(const RunRequest& request, Slot& slot);
  Reply submit_resume(const std::string& run_id, Slot& slot);
  Reply admit(const std::shared_ptr<Record>& rec, Slot& slot);  // takes mu_
  std::shared_ptr<Record> record_of(run::Prepared prepared) const;
  std::vector<model::CaseInfo> cases_for(const RunRequest& request) const;  // FatalError
  run::RunOptions options_for(const RunRequest& request) const;
  void schedule();                                   // caller holds mu_
  void execute(const std::shared_ptr<Record>& rec);  // on the run's thread
  void emit(Record& rec, const std::string& name, const nlohmann::json& data);  // holds mu_
  void finish(Record& rec, State state, const std::string& error);              // holds mu_
  nlohmann::json status_json(const Record& rec) const;                          // holds mu_
  void evict_finished();                                                        // holds mu_

  store::Store& store_;
  const Catalog catalog_;
  const plan::Discovery discovery_;
  const RunDefaults defaults_;
  Metrics& metrics_;

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::map<std::string, std::shared_ptr<Record>> records_;
  std::vector<std::string> queue_;  // queued run ids, oldest first
  std::set<std::string> busy_;      // devices a running run holds
  const size_t max_queued_;
  size_t reserved_ = 0;             // queue places held by requests being admitted
  std::set<std::string> resuming_;  // runs a request is reopening now
  std::vector<std::thread> threads_;
  std::atomic<bool> draining_{false};
  mutable std::mutex environment_mu_;
  mutable nlohmann::json environment_;
  mutable std::chrono::steady_clock::time_point environment_at_{};
  std::atomic<size_t> streams_{0};
  bool shut_down_ = false;

  std::mutex cache_mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const std::string>> cache_;
};

}  // namespace mudjack::server
