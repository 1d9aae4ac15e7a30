#include "os/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

namespace mudjack::os {
namespace fs = std::filesystem;

namespace {

struct Stat {
  pid_t ppid = 0;
  uint64_t start_ticks = 0;
};

// /proc/<pid>/stat's parent and start time; nullopt when the process is gone.
// The command name (field 2) may hold spaces and parentheses: fields are
// counted after its last ')'.
std::optional<Stat> read_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  const auto paren = text.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(paren + 1));
  std::string field;
  Stat s;
  // Fields 3 (state) .. 22 (starttime); ppid is field 4.
  for (int index = 3; index <= 22 && rest >> field; ++index) {
    if (index == 4) s.ppid = static_cast<pid_t>(std::strtol(field.c_str(), nullptr, 10));
    if (index == 22) s.start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  }
  return s;
}

std::vector<pid_t> all_pids() {
  std::vector<pid_t> pids;
  DIR* d = opendir("/proc");
  if (!d) return pids;
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  closedir(d);
  return pids;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool write_text(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The cgroup2 mount and this process's cgroup in it: "" and *why when absent.
fs::path own_cgroup_dir(std::string* why) {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  fs::path mount_point;
  std::string mount_root;
  while (std::getline(mounts, line)) {
    // "... root mount_point options [optional fields] - fstype source ...".
    const auto dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    mount_point = point;
    mount_root = root;
    break;
  }
  if (mount_point.empty()) {
    *why = "no cgroup2 file system is mounted";
    return {};
  }
  std::ifstream groups("/proc/self/cgroup");
  while (std::getline(groups, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    std::string path = line.substr(3);
    // A mount of a subtree (root != "/") shows the cgroup below its root.
    if (mount_root != "/" && path.rfind(mount_root, 0) == 0) path = path.substr(mount_root.size());
    return mount_point / fs::path(path).relative_path();
  }
  *why = "this process has no cgroup v2 entry in /proc/self/cgroup (cgroup v1 only)";
  return {};
}

// Whether a process can join `dir`: a forked child writes "0" (itself) to
// cgroup.procs, as a spawned probe will. 0 when it can, else the errno.
int try_join(const fs::path& dir) {
  const int fd = ::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const pid_t pid = ::fork();
  if (pid == 0) _exit(::write(fd, "0", 1) == 1 ? 0 : (errno & 0x7f));
  ::close(fd);
  if (pid < 0) return errno;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
}

// Removes an emptied cgroup; its members may take a moment to leave.
void remove_cgroup(const fs::path& dir) {
  for (int i = 0; i < 200; ++i) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

fs::path fresh_cgroup_name(const fs::path& parent, const char* what) {
  static std::atomic<uint64_t> counter{0};
  return parent / ("mudjack-" + std::string(what) + "-" + std::to_string(::getpid()) + "-" +
                   std::to_string(counter.fetch_add(1)));
}

// RssShmem of /proc/<pid>/status: the shared memory the process has mapped
// and touched; 0 when gone.
int64_t rss_shmem_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("RssShmem:", 0) == 0) {
      return std::strtoll(line.c_str() + 9, nullptr, 10) * 1024;
    }
  }
  return 0;
}

// Shared memory a process holds by descriptor (a memfd, a file under
// /dev/shm) beyond what it has mapped: no resident set shows it (1.2 GB in a
// memfd passed a 300 MB limit). Each file counts once across the tree
// (`files`); what the process maps of it is already resident (RssShmem).
int64_t unmapped_shm_bytes(pid_t pid, std::set<std::pair<dev_t, ino_t>>& files) {
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = opendir(fd_dir.c_str());
  if (!d) return 0;
  int64_t held = 0;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string link = fd_dir + "/" + e->d_name;
    std::array<char, 256> target{};
    const ssize_t n = ::readlink(link.c_str(), target.data(), target.size() - 1);
    if (n <= 0) continue;
    const std::string_view t(target.data(), static_cast<size_t>(n));
    if (!t.starts_with("/memfd:") && !t.starts_with("/dev/shm/")) continue;
    struct stat st {};
    if (::stat(link.c_str(), &st) != 0) continue;  // through the link: the file itself
    if (!files.insert({st.st_dev, st.st_ino}).second) continue;
    held += static_cast<int64_t>(st.st_blocks) * 512;
  }
  closedir(d);
  return std::max<int64_t>(0, held - rss_shmem_bytes(pid));
}

}  // namespace

CgroupSupport detect_cgroup_support() {
  CgroupSupport s;
  if (const char* forced = std::getenv("MUDJACK_PROCESS_TREE");
      forced && std::string(forced) == "proc") {
    s.unavailable = "MUDJACK_PROCESS_TREE=proc asks for the /proc walk";
    return s;
  }
  const fs::path own = own_cgroup_dir(&s.unavailable);
  if (own.empty()) return s;
  const fs::path scratch = fresh_cgroup_name(own, "check");
  if (::mkdir(scratch.c_str(), 0755) != 0) {
    s.unavailable = "cannot create a cgroup under " + own.string() + ": " + strerror(errno);
    return s;
  }
  std::error_code ec;
  if (!fs::exists(scratch / "cgroup.kill", ec)) {
    s.unavailable = "cgroups have no cgroup.kill here (Linux older than 5.14)";
  } else if (const int e = try_join(scratch); e != 0) {
    s.unavailable = "a process cannot join a cgroup under " + own.string() + ": " + strerror(e);
  }
  remove_cgroup(scratch);
  if (s.unavailable.empty()) s.parent = own;
  return s;
}

int remove_stale_cgroups(const fs::path& parent) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("mudjack-", 0) != 0 || !entry.is_directory(ec)) continue;
    const auto first = name.find('-', 8);
    const auto second = first == std::string::npos ? first : name.find('-', first + 1);
    if (second == std::string::npos) continue;
    const long engine = std::strtol(name.c_str() + first + 1, nullptr, 10);
    if (engine <= 0 || engine == ::getpid() || ::kill(static_cast<pid_t>(engine), 0) == 0 ||
        errno != ESRCH) {
      continue;
    }
    std::istringstream procs(read_text(entry.path() / "cgroup.procs"));
    bool foreign = false;
    for (long pid; procs >> pid;) foreign = foreign || pid == 0;
    if (foreign) continue;
    write_text(entry.path() / "cgroup.kill", "1");
    remove_cgroup(entry.path());
    removed += fs::exists(entry.path(), ec) ? 0 : 1;
  }
  return removed;
}

const CgroupSupport& cgroup_support() {
  static const CgroupSupport support = [] {
    auto s = detect_cgroup_support();
    if (!s.parent.empty()) remove_stale_cgroups(s.parent);
    return s;
  }();
  return support;
}

std::vector<ProcessId> descendants(pid_t root) {
  const auto root_stat = read_stat(root);
  if (!root_stat) return {};
  std::multimap<pid_t, ProcessId> children;  // parent -> child
  for (pid_t pid : all_pids()) {
    if (auto s = read_stat(pid)) children.emplace(s->ppid, ProcessId{pid, s->start_ticks});
  }
  std::vector<ProcessId> out = {{root, root_stat->start_ticks}};
  for (size_t i = 0; i < out.size(); ++i) {
    auto [from, to] = children.equal_range(out[i].pid);
    for (auto it = from; it != to; ++it) out.push_back(it->second);
  }
  return out;
}

int64_t rss_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * sysconf(_SC_PAGESIZE);
}

int64_t pss_bytes(pid_t pid) {
  std::ifstream rollup("/proc/" + std::to_string(pid) + "/smaps_rollup");
  std::string line;
  while (std::getline(rollup, line)) {
    if (line.rfind("Pss:", 0) == 0) return std::strtoll(line.c_str() + 4, nullptr, 10) * 1024;
  }
  return rss_bytes(pid);
}

std::unique_ptr<ProcessTree> ProcessTree::create(bool cgroup) {
  std::unique_ptr<ProcessTree> tree(new ProcessTree());
  if (!cgroup) return tree;
  const auto& support = cgroup_support();
  if (support.parent.empty()) return tree;
  const fs::path dir = fresh_cgroup_name(support.parent, "probe");
  if (::mkdir(dir.c_str(), 0755) != 0) return tree;  // the /proc way still holds
  tree->procs_fd_ = ::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (tree->procs_fd_ < 0) {
    remove_cgroup(dir);
    return tree;
  }
  tree->cgroup_ = dir;
  return tree;
}

ProcessTree::~ProcessTree() {
  kill_all();
  if (procs_fd_ >= 0) {
    ::close(procs_fd_);
    remove_cgroup(cgroup_);
  }
}

void ProcessTree::set_root(pid_t root) {
  root_ = {root, 0};
  if (auto s = read_stat(root)) root_.start_ticks = s->start_ticks;
}

bool ProcessTree::still_same(const ProcessId& p) const {
  auto s = read_stat(p.pid);
  return s && s->start_ticks == p.start_ticks;
}

std::vector<ProcessId> ProcessTree::members() {
  std::vector<ProcessId> found;
  if (uses_cgroup()) {
    std::istringstream procs(read_text(cgroup_ / "cgroup.procs"));
    for (pid_t pid; procs >> pid;) {
      if (auto s = read_stat(pid)) found.push_back({pid, s->start_ticks});
    }
    return found;
  }
  if (root_.pid <= 0 || !still_same(root_)) return found;  // a gone root's pid may be reused
  found = descendants(root_.pid);
  // While the root lives, an orphan of its tree is reparented to it (it is a
  // child subreaper): what the walk finds is the whole tree. What kill_all
  // must reach once the root is gone is every member seen and still alive,
  // not only the last walk's: a root that has just exited (a zombie until
  // reaped) has no children left to find, its orphans already reparented
  // away, and a walk then used to forget them (a setsid'd child outlived its
  // probe under the /proc way).
  std::vector<ProcessId> remembered = found;
  for (const auto& p : seen_) {
    const bool again = std::any_of(found.begin(), found.end(), [&](const ProcessId& f) {
      return f.pid == p.pid && f.start_ticks == p.start_ticks;
    });
    if (!again && still_same(p)) remembered.push_back(p);
  }
  seen_ = std::move(remembered);
  return found;
}

int64_t ProcessTree::memory_bytes(int64_t confirm_above) {
  const auto now = members();
  int64_t rss = 0;
  int64_t shm = 0;
  std::set<std::pair<dev_t, ino_t>> files;
  for (const auto& p : now) {
    rss += rss_bytes(p.pid);
    shm += unmapped_shm_bytes(p.pid, files);
  }
  if (confirm_above <= 0 || rss + shm <= confirm_above) return rss + shm;
  int64_t pss = 0;
  for (const auto& p : now) pss += pss_bytes(p.pid);
  return pss + shm;
}

void ProcessTree::kill_all() {
  if (uses_cgroup()) {
    write_text(cgroup_ / "cgroup.kill", "1");
    return;
  }
  // Stopped processes cannot fork: stop what the walks find until a walk
  // finds nothing new, so nothing is born between the last walk and the kill.
  std::set<pid_t> stopped;
  for (int round = 0; round < 50; ++round) {
    bool fresh = false;
    for (const auto& p : members()) {
      if (stopped.insert(p.pid).second) {
        ::kill(p.pid, SIGSTOP);
        fresh = true;
      }
    }
    if (!fresh) break;
  }
  for (pid_t pid : stopped) ::kill(pid, SIGKILL);
  // Members seen by earlier walks and orphaned since (the root died first).
  for (const auto& p : seen_) {
    if (!stopped.count(p.pid) && still_same(p)) ::kill(p.pid, SIGKILL);
  }
}

}  // namespace mudjack::os
