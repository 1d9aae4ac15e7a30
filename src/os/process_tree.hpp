#pragma once
// A probe's whole process tree: the probe and every process it started,
// also those that left its process group (setsid) or were orphaned (a
// double fork). What the memory limit counts and what dies with the probe.
//
// Two ways to know the members, chosen once per engine:
//  - cgroup v2: each probe runs in a cgroup of its own, a child of the
//    engine's cgroup (`mudjack-probe-<engine pid>-<n>`). Membership is the
//    kernel's (nobody escapes by reparenting), and cgroup.kill ends every
//    member at once, also those forking at that moment. Needs cgroup2
//    mounted, the engine's cgroup writable (delegation, or root) and
//    cgroup.kill (Linux 5.14). No controller is needed: memory is counted
//    per member below, not by memory.current (which needs the memory
//    controller delegated, impossible in a cgroup that holds the engine
//    itself, and which charges reclaimable page cache).
//  - /proc: the members are the root's descendants by parent pid (every
//    /proc/<pid>/stat read). The probe is made a child subreaper, so an
//    orphan of its tree is reparented to it and stays visible while it
//    lives; members seen earlier are remembered (pid and start time), so
//    those orphaned when the probe itself died are still killed.
// MUDJACK_PROCESS_TREE=proc forces the /proc way (tests, and machines where
// the cgroup way misbehaves).
//
// Memory: the sum of the members' resident sets (cheap: /proc/<pid>/statm).
// That sum counts pages shared between members (a fork's copy-on-write
// pages, shared libraries) once per member, so a sum over a limit is
// confirmed with proportional set sizes (/proc/<pid>/smaps_rollup: shared
// pages split between their users) before it is believed. Shared memory a
// member holds by descriptor (a memfd, an open file under /dev/shm) and has
// not mapped is added: no resident set shows it. A /dev/shm file no process
// holds open is nobody's (docs/deploy.md, limits).

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace mudjack::os {

struct CgroupSupport {
  std::filesystem::path parent;  // the engine's cgroup folder; empty when unavailable
  std::string unavailable;       // why not, one line; empty when available
};
// Looks now (a scratch child cgroup made and removed); honours
// MUDJACK_PROCESS_TREE=proc.
CgroupSupport detect_cgroup_support();
// detect_cgroup_support(), once per engine; then remove_stale_cgroups.
const CgroupSupport& cgroup_support();
// The cgroups under `parent` of engines that died without removing them
// (SIGKILL runs no destructor): what is left in them (a probe's setsid'd
// children, which PR_SET_PDEATHSIG does not reach) is killed and the folder
// removed. Only where the engine its name holds is gone and every member is
// visible in this pid namespace (another's show as pid 0): never another
// container's probes. Returns how many were removed.
int remove_stale_cgroups(const std::filesystem::path& parent);

struct ProcessId {
  pid_t pid = 0;
  uint64_t start_ticks = 0;  // /proc/<pid>/stat field 22: tells a reused pid apart
};
// `root` and its descendants by parent pid, root first; empty when root is gone.
std::vector<ProcessId> descendants(pid_t root);
// Resident set of one process (statm), 0 when it is gone.
int64_t rss_bytes(pid_t pid);
// Proportional set size (smaps_rollup Pss), else rss_bytes; 0 when gone.
int64_t pss_bytes(pid_t pid);

class ProcessTree {
 public:
  // A tree for a process about to be spawned, with its own cgroup when
  // `cgroup` is true and cgroup_support() allows. Never fails: without a
  // cgroup it uses /proc.
  static std::unique_ptr<ProcessTree> create(bool cgroup = true);
  ~ProcessTree();  // kills what is left and removes the cgroup
  ProcessTree(const ProcessTree&) = delete;
  ProcessTree& operator=(const ProcessTree&) = delete;

  bool uses_cgroup() const { return procs_fd_ >= 0; }
  // The cgroup's cgroup.procs, open for writing; the spawned child writes
  // "0" to it before exec to join. -1 without a cgroup.
  int join_fd() const { return procs_fd_; }
  // The spawned process, once forked (its start time guards against a reused pid).
  void set_root(pid_t root);

  // The living members (remembered for kill_all in the /proc way).
  std::vector<ProcessId> members();
  // The tree's resident bytes: the sum of resident sets, or, when that sum
  // is above `confirm_above` (> 0), the sum of proportional set sizes.
  int64_t memory_bytes(int64_t confirm_above);
  // SIGKILL to every member: cgroup.kill, else stop every member found by
  // walks until none is new, then kill them and the remembered ones still
  // alive. The caller reaps the root.
  void kill_all();

 private:
  ProcessTree() = default;
  bool still_same(const ProcessId& p) const;

  ProcessId root_;
  std::filesystem::path cgroup_;  // empty: the /proc way
  int procs_fd_ = -1;
  std::vector<ProcessId> seen_;  // the /proc way: the last walk's members
};

}  // namespace mudjack::os
