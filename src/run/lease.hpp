#pragma once
// Run ownership: at most one execution of a run at a time, whoever starts it
// (`mudjack run --resume` twice, a resume of a run still running, a server
// resuming a run the CLI executes), across processes and hosts that share a
// results folder. An execution holds the run's lease in the store
// (store::Lease: host, pid, process start, heartbeat); run::execute takes it
// through a Watch, renews it while the supervisor runs and drops it at the end.
//
// A lease is stale, and may be taken over, when its owner is on this host and
// its process is gone (or its pid now belongs to a later process), or when
// its heartbeat is older than kLeaseTimeout (an owner on another host, or a
// stopped one). An owner whose lease was taken over stops at its next renewal.
//
// Threads: every function may be called from any thread; a Watch owns one
// thread of its own. Errors: a refusal is a value (lease_holder) or, from
// Watch's constructor, util::FatalError naming the holder in one line.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "store/store.hpp"

namespace mudjack::run {

inline constexpr std::chrono::milliseconds kLeaseRenewEvery{10'000};
// 12 missed renewals: far beyond a busy machine's scheduling delays.
inline constexpr std::chrono::milliseconds kLeaseTimeout{120'000};

// Milliseconds since the Unix epoch, the clock leases are stamped with.
int64_t unix_ms_now();

// A lease of `run_id` owned by this process, stamped now.
store::Lease this_process_lease(const std::string& run_id);

// Whether `lease` may be taken over at `now_unix_ms` (see above).
bool stale(const store::Lease& lease, int64_t now_unix_ms);

// "pid 1234 on host build-7 (since 2026-01-02T03:04:05Z, last heartbeat 3 s ago)".
std::string describe(const store::Lease& lease, int64_t now_unix_ms);

// One line when another live execution holds `run_id`'s lease ("run X is
// being executed by pid ... on host ...; ..."); nullopt when the run is free
// or its lease stale. A check, not a reservation: the Watch's acquisition
// is the one that counts. The server answers it 409, the CLI exits 2.
std::optional<std::string> lease_holder(const store::Store& store, const std::string& run_id);

// One execution's guard. The constructor takes the lease (FatalError naming
// the holder when a live one has it); a thread then renews it every
// kLeaseRenewEvery, checks every half second that the store's file is still
// there (store::Store::still_at_path), and raises stop() when `interrupt` is
// set or either check fails. The destructor ends the thread and releases the
// lease (if still ours). `store` and `interrupt` must outlive the Watch.
// `renew_every` is kLeaseRenewEvery but in tests.
class Watch {
 public:
  Watch(store::Store& store, const std::string& run_id, const std::atomic<bool>& interrupt,
        std::chrono::milliseconds renew_every = kLeaseRenewEvery);
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  // What the supervisor polls instead of `interrupt`.
  const std::atomic<bool>& stop() const { return stop_; }
  // Ends the thread; why this execution's outcomes cannot be trusted (the
  // lease was taken over, the database deleted), if so. One line.
  std::optional<std::string> end();

 private:
  void loop();
  void beat();   // renews the lease; on thread_ only
  void check();  // the database still there; on thread_ only
  void fail(std::string why);

  store::Store& store_;
  const std::atomic<bool>& interrupt_;
  store::Lease lease_;
  const std::chrono::milliseconds renew_every_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  bool ending_ = false;             // guarded by mu_
  std::optional<std::string> why_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace mudjack::run
