#include "run/lease.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <utility>

#include "util/error.hpp"
#include "util/time.hpp"

namespace mudjack::run {
namespace {

// How often the watch looks at `interrupt` and the database file.
constexpr std::chrono::milliseconds kPoll{50};
constexpr std::chrono::milliseconds kFileCheckEvery{500};

std::string this_host() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return host;
}

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// "<boot id>:<start time in clock ticks since boot>" (proc(5), field 22 of
// /proc/PID/stat): with the pid, names one process of one boot. "" where
// /proc cannot tell (then the pid alone is trusted).
std::string process_start(int64_t pid) {
  const std::string stat = first_line("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  // Field 3 (state) is the first after the name; starttime is field 22.
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  if (!fields) return "";
  return first_line("/proc/sys/kernel/random/boot_id") + ":" + field;
}

bool process_alive(int64_t pid, const std::string& start) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  const std::string now = process_start(pid);
  return start.empty() || now.empty() || now == start;
}

std::string held(const std::string& run_id, const std::string& holder) {
  return "run " + run_id + " is being executed by " + holder +
         "; wait for it to end or stop it, then resume";
}

}  // namespace

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

store::Lease this_process_lease(const std::string& run_id) {
  store::Lease l;
  l.run_id = run_id;
  l.host = this_host();
  l.pid = ::getpid();
  l.process_start = process_start(l.pid);
  l.acquired_at = util::now_iso8601();
  l.heartbeat_at = l.acquired_at;
  l.heartbeat_unix_ms = unix_ms_now();
  return l;
}

bool stale(const store::Lease& lease, int64_t now_unix_ms) {
  if (now_unix_ms - lease.heartbeat_unix_ms > kLeaseTimeout.count()) return true;
  return lease.host == this_host() && !process_alive(lease.pid, lease.process_start);
}

std::string describe(const store::Lease& lease, int64_t now_unix_ms) {
  const int64_t age_s = (now_unix_ms - lease.heartbeat_unix_ms) / 1000;
  return "pid " + std::to_string(lease.pid) + " on host " + lease.host + " (since " +
         lease.acquired_at + ", last heartbeat " + std::to_string(age_s) + " s ago)";
}

std::optional<std::string> lease_holder(const store::Store& store, const std::string& run_id) {
  auto holder = store.lease(run_id);
  const int64_t now = unix_ms_now();
  if (!holder || stale(*holder, now)) return std::nullopt;
  return held(run_id, describe(*holder, now));
}

Watch::Watch(store::Store& store, const std::string& run_id, const std::atomic<bool>& interrupt,
             std::chrono::milliseconds renew_every)
    : store_(store),
      interrupt_(interrupt),
      lease_(this_process_lease(run_id)),
      renew_every_(renew_every) {
  const int64_t now = lease_.heartbeat_unix_ms;
  auto holder =
      store_.acquire_lease(lease_, [now](const store::Lease& l) { return stale(l, now); });
  if (holder) {
    throw util::FatalError(held(run_id, describe(*holder, now)));
  }
  thread_ = std::thread([this] { loop(); });
}

Watch::~Watch() {
  end();
  try {
    store_.release_lease(lease_);
  } catch (const std::exception&) {  // the database is gone or failing: the lease goes stale
  }
}

std::optional<std::string> Watch::end() {
  {
    std::lock_guard lock(mu_);
    ending_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  return why_;
}

void Watch::loop() {
  auto next_beat = std::chrono::steady_clock::now() + renew_every_;
  auto next_check = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  while (!ending_) {
    lock.unlock();
    if (interrupt_.load()) stop_.store(true);
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_check) {
      check();
      next_check = now + kFileCheckEvery;
    }
    if (now >= next_beat) {
      beat();
      next_beat = now + renew_every_;
    }
    lock.lock();
    wake_.wait_for(lock, kPoll, [this] { return ending_; });
  }
}

void Watch::beat() {
  lease_.heartbeat_at = util::now_iso8601();
  lease_.heartbeat_unix_ms = unix_ms_now();
  try {
    if (store_.renew_lease(lease_)) return;
    auto holder = store_.lease(lease_.run_id);
    fail("run " + lease_.run_id + " was taken over by " +
         (holder ? describe(*holder, lease_.heartbeat_unix_ms) : std::string("another execution")) +
         "; this execution stopped");
  } catch (const std::exception&) {  // busy or failing now: try again next beat
  }
}

void Watch::check() {
  if (store_.still_at_path()) return;
  fail("results database " + store_.path().string() + " was deleted or replaced while run " +
       lease_.run_id + " ran; its outcomes are lost (is something cleaning that folder?)");
}

void Watch::fail(std::string why) {
  {
    std::lock_guard lock(mu_);
    if (!why_) why_ = std::move(why);
  }
  stop_.store(true);
}

}  // namespace mudjack::run
