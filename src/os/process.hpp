#pragma once
// A child process with line-oriented pipes: the seam between the supervisor
// and the operating system. One thread owns a Child; nothing here is shared.
//
// The child runs in its own session, so in its own process group (kill()
// also reaches whatever it started: torch.compile workers, XLA helpers)
// without a controlling terminal (nothing it runs writes to the user's
// terminal through /dev/tty), and in a
// ProcessTree (os/process_tree.hpp: its own cgroup, else a /proc walk) so
// that kill() and the memory count also reach what left the group (setsid,
// a double fork). It is killed
// (SIGKILL, PR_SET_PDEATHSIG) when the thread that spawned it ends, the
// whole engine included, even by SIGKILL: a Child must not outlive the
// thread that spawned it. Every way a Child ends (kill, the leader's exit
// seen by try_wait or wait_or_kill, the destructor) kills its group and its
// tree. Its stderr is
// drained into a bounded ring on every read, so a chatty framework can never
// block on a full pipe, and the tail is kept for crash reports.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "os/process_tree.hpp"

namespace mudjack::os {

struct SpawnOptions {
  std::vector<std::string> argv;               // argv[0] is looked up on PATH
  std::map<std::string, std::string> env_set;  // added to / replacing the parent's environment
  std::vector<std::string> env_unset;
  // When set, only the parent's variables it keeps are inherited (env_set is
  // added regardless). Called before fork, on the spawning thread.
  std::function<bool(std::string_view name)> env_keep;
  std::filesystem::path cwd;      // empty: inherit
  std::vector<int> cpu_affinity;  // empty: inherit
  size_t stderr_tail_bytes = 8192;
  // false: the tree is known by the /proc walk even where a cgroup can be
  // made (os/process_tree.hpp; tests of that way).
  bool cgroup = true;
};

struct ExitStatus {
  std::optional<int> exit_code;  // set when the child exited
  std::optional<int> signal;     // set when a signal killed it
  std::string describe() const;  // "exit code 3", "signal 11 (SIGSEGV)"
};

class Child {
 public:
  enum class Read { kLine, kTimeout, kEof };

  // Starts the child. Returns nullptr and sets *error when it cannot start
  // (no such program, fork failure); never throws.
  static std::unique_ptr<Child> spawn(const SpawnOptions& options, std::string* error);

  ~Child();  // kills and reaps the group if still running
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }

  // Writes one line (a newline is appended). False when the child's stdin is closed.
  bool write_line(std::string_view line);

  // Waits up to `timeout` for one complete stdout line (without its newline).
  // Lines longer than max_line_bytes are an error reported as kEof with
  // overlong() true. Drains stderr meanwhile.
  Read read_line(std::string& line, std::chrono::milliseconds timeout);
  bool overlong() const { return overlong_; }

  std::string stderr_tail() const;
  // Resident set size of the child alone, 0 if it is gone.
  int64_t rss_bytes() const;
  // Resident bytes of the child and every process it started (its tree),
  // shared pages split once the sum of resident sets is above
  // `confirm_above` (ProcessTree::memory_bytes); 0 if it is gone.
  int64_t tree_memory_bytes(int64_t confirm_above);
  // Walks the tree now (the /proc way knows it only through a living
  // leader): before the leader may exit by itself (a shutdown request), so
  // what it leaves behind is still killed. Nothing to do for a cgroup.
  void walk_tree();
  // Whether the tree is a cgroup (else a /proc walk).
  bool tree_in_cgroup() const { return tree_->uses_cgroup(); }

  // SIGKILL to the whole tree and process group, then reap. Idempotent.
  ExitStatus kill();
  // Non-blocking reap; nullopt while it runs.
  std::optional<ExitStatus> try_wait();
  // Waits up to `timeout` for the child to exit by itself, then kills it.
  ExitStatus wait_or_kill(std::chrono::milliseconds timeout);

  static constexpr size_t kMaxLineBytes = 64 << 20;

 private:
  Child() = default;
  void drain_stderr();
  void append_stderr(const char* data, size_t n);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string out_buffer_;
  std::string err_ring_;
  size_t err_limit_ = 8192;
  bool overlong_ = false;
  std::optional<ExitStatus> status_;
  std::unique_ptr<ProcessTree> tree_;
};

}  // namespace mudjack::os
