#include "os/process.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <thread>

extern char** environ;

namespace mudjack::os {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

ExitStatus decode(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) s.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) s.signal = WTERMSIG(status);
  return s;
}

// The four pipes of a spawn: the child's stdin, stdout and stderr, and one
// on which a child whose exec failed reports errno. All close-on-exec.
struct Pipes {
  int in[2] = {-1, -1};
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  int exec_report[2] = {-1, -1};

  bool open(std::string* error) {
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        pipe2(exec_report, O_CLOEXEC) != 0) {
      *error = std::string("pipe: ") + strerror(errno);
      close_all();
      return false;
    }
    return true;
  }
  void close_all() {
    for (int* fd :
         {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1], &exec_report[0], &exec_report[1]}) {
      close_fd(*fd);
    }
  }
};

// Everything the child needs, prepared before fork: after fork only
// async-signal-safe calls are allowed. Not movable: argv and envp point
// into the strings.
struct ExecPlan {
  std::vector<std::string> env_strings;
  std::vector<std::string> args;
  std::vector<char*> envp;
  std::vector<char*> argv;
  cpu_set_t cpus;
  bool set_affinity;
  std::string cwd;
  pid_t parent = getpid();

  explicit ExecPlan(const SpawnOptions& options)
      : args(options.argv), set_affinity(!options.cpu_affinity.empty()), cwd(options.cwd.string()) {
    for (char** e = environ; *e; ++e) {
      std::string_view kv(*e);
      auto key = std::string(kv.substr(0, kv.find('=')));
      bool drop = options.env_set.count(key) > 0 || (options.env_keep && !options.env_keep(key));
      for (const auto& u : options.env_unset) drop = drop || u == key;
      if (!drop) env_strings.emplace_back(kv);
    }
    for (const auto& [k, v] : options.env_set) {
      env_strings.push_back(k);
      env_strings.back().append("=").append(v);
    }
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    CPU_ZERO(&cpus);
    for (int c : options.cpu_affinity) CPU_SET(c, &cpus);
  }
  ExecPlan(const ExecPlan&) = delete;
  ExecPlan& operator=(const ExecPlan&) = delete;
};

// In the forked child: its own session (so its own process group, and no
// controlling terminal: a case cannot open /dev/tty and write to the user's
// terminal), its cgroup, death with its parent, default signals, the three
// pipes as 0-2 and nothing else, then exec. Async-signal-safe calls only. A
// cgroup it cannot join is reported as the negated errno.
[[noreturn]] void exec_child(const Pipes& p, const ExecPlan& plan, int cgroup_fd) {
  setsid();
  if (cgroup_fd >= 0 && write(cgroup_fd, "0", 1) != 1) {
    int e = -errno;
    (void)!write(p.exec_report[1], &e, sizeof(e));
    _exit(127);
  }
  // Orphans of the probe's tree (a double fork, a parent that died) are
  // reparented to the probe instead of init, so the /proc walk still finds
  // them while the probe lives. Kept across exec.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // A probe must not outlive its engine (a SIGKILLed engine runs no
  // destructor): the kernel kills it when the spawning thread ends. The
  // parent may have died between fork and prctl; then nobody would send the
  // signal, so check for it afterwards.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != plan.parent) _exit(127);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  dup2(p.in[0], 0);
  dup2(p.out[1], 1);
  dup2(p.err[1], 2);
  // A probe inherits nothing but its three pipes: descriptors other threads
  // opened without O_CLOEXEC (a server's accepted connections) close at exec.
  syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  if (plan.set_affinity) sched_setaffinity(0, sizeof(plan.cpus), &plan.cpus);
  if (!plan.cwd.empty() && chdir(plan.cwd.c_str()) != 0) {
    int e = errno;
    (void)!write(p.exec_report[1], &e, sizeof(e));
    _exit(127);
  }
  execvpe(plan.argv[0], plan.argv.data(), plan.envp.data());
  int e = errno;
  (void)!write(p.exec_report[1], &e, sizeof(e));
  _exit(127);
}

// In the parent: the errno a child reported when it could not exec, else 0
// (the report pipe closed at a successful exec).
int exec_errno(Pipes& p) {
  close_fd(p.exec_report[1]);
  int child_errno = 0;
  ssize_t n = read(p.exec_report[0], &child_errno, sizeof(child_errno));
  close_fd(p.exec_report[0]);
  return n == static_cast<ssize_t>(sizeof(child_errno)) ? child_errno : 0;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (signal) {
    const char* abbrev = sigabbrev_np(*signal);
    return "signal " + std::to_string(*signal) +
           (abbrev ? " (SIG" + std::string(abbrev) + ")" : "");
  }
  if (exit_code) return "exit code " + std::to_string(*exit_code);
  return "still running";
}

std::unique_ptr<Child> Child::spawn(const SpawnOptions& options, std::string* error) {
  if (options.argv.empty()) {
    *error = "empty command";
    return nullptr;
  }
  Pipes p;
  if (!p.open(error)) return nullptr;
  ExecPlan plan(options);
  auto tree = ProcessTree::create(options.cgroup);
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + strerror(errno);
    p.close_all();
    return nullptr;
  }
  if (pid == 0) exec_child(p, plan, tree->join_fd());
  // No setpgid from here: a group leader cannot setsid, so the child makes
  // its own session, and spawn() returns only once it has exec'd (below).
  tree->set_root(pid);
  close_fd(p.in[0]);
  close_fd(p.out[1]);
  close_fd(p.err[1]);
  if (int child_errno = exec_errno(p); child_errno != 0) {
    waitpid(pid, nullptr, 0);
    p.close_all();
    *error = child_errno < 0
                 ? std::string("cannot join the probe's cgroup: ") + strerror(-child_errno)
                 : "cannot run " + options.argv[0] + ": " + strerror(child_errno);
    return nullptr;
  }
  std::unique_ptr<Child> child(new Child());
  child->pid_ = pid;
  child->stdin_fd_ = p.in[1];
  child->stdout_fd_ = p.out[0];
  child->stderr_fd_ = p.err[0];
  child->err_limit_ = options.stderr_tail_bytes;
  child->tree_ = std::move(tree);
  fcntl(child->stdout_fd_, F_SETFL, O_NONBLOCK);
  fcntl(child->stderr_fd_, F_SETFL, O_NONBLOCK);
  return child;
}

Child::~Child() {
  kill();
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
}

bool Child::write_line(std::string_view line) {
  if (stdin_fd_ < 0) return false;
  std::string data(line);
  data.push_back('\n');
  size_t done = 0;
  while (done < data.size()) {
    // MSG_NOSIGNAL does not apply to pipes; SIGPIPE is ignored process-wide by main.
    ssize_t w = ::write(stdin_fd_, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

void Child::append_stderr(const char* data, size_t n) {
  err_ring_.append(data, n);
  if (err_ring_.size() > err_limit_) err_ring_.erase(0, err_ring_.size() - err_limit_);
}

void Child::drain_stderr() {
  char buf[8192];
  while (stderr_fd_ >= 0) {
    ssize_t r = ::read(stderr_fd_, buf, sizeof(buf));
    if (r > 0) {
      append_stderr(buf, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) close_fd(stderr_fd_);
    break;  // EAGAIN or EOF
  }
}

Child::Read Child::read_line(std::string& line, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto nl = out_buffer_.find('\n');
    if (nl != std::string::npos) {
      line.assign(out_buffer_, 0, nl);
      out_buffer_.erase(0, nl + 1);
      return Read::kLine;
    }
    if (out_buffer_.size() > kMaxLineBytes) {
      overlong_ = true;
      return Read::kEof;
    }
    if (stdout_fd_ < 0) {
      drain_stderr();
      return Read::kEof;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return Read::kTimeout;
    pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
    int nfds = stderr_fd_ >= 0 ? 2 : 1;
    int r = ::poll(fds, static_cast<nfds_t>(nfds), static_cast<int>(left.count()));
    if (r < 0 && errno != EINTR) return Read::kEof;
    if (r <= 0) {
      if (std::chrono::steady_clock::now() >= deadline) return Read::kTimeout;
      continue;
    }
    if (nfds == 2 && fds[1].revents) drain_stderr();
    if (fds[0].revents) {
      char buf[65536];
      ssize_t n = ::read(stdout_fd_, buf, sizeof(buf));
      if (n > 0) {
        out_buffer_.append(buf, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        close_fd(stdout_fd_);
      }
    }
  }
}

std::string Child::stderr_tail() const {
  return err_ring_;
}

int64_t Child::rss_bytes() const {
  if (status_ || pid_ <= 0) return 0;
  return os::rss_bytes(pid_);
}

int64_t Child::tree_memory_bytes(int64_t confirm_above) {
  if (status_ || pid_ <= 0) return 0;
  return tree_->memory_bytes(confirm_above);
}

std::optional<ExitStatus> Child::try_wait() {
  if (status_) return status_;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = decode(status);
    ::kill(-pid_, SIGKILL);  // leftovers of the group and tree die with their leader
    tree_->kill_all();
  }
  return status_;
}

ExitStatus Child::kill() {
  if (status_ || pid_ <= 0) return status_.value_or(ExitStatus{});
  tree_->kill_all();  // first: the /proc walk needs the leader alive to find its tree
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  status_ = decode(status);
  drain_stderr();
  return *status_;
}

void Child::walk_tree() {
  if (!status_ && !tree_->uses_cgroup()) tree_->members();
}

ExitStatus Child::wait_or_kill(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    drain_stderr();
    walk_tree();
    if (auto s = try_wait()) return *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return kill();
}

}  // namespace mudjack::os
