#pragma once
// What disturbs timings, read by the engine around each case (docs/design.md,
// "timing class"): CPU time the hypervisor stole (/proc/stat) and the GPU's
// SM clock and clock-throttle reasons (NVML, loaded at run time from the
// driver's libnvidia-ml.so.1 where it exists; absent, nothing is recorded).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mudjack::os {

// The machine's CPU time counters (the first line of /proc/stat), in ticks.
struct CpuTimes {
  uint64_t total = 0;
  uint64_t steal = 0;
};
std::optional<CpuTimes> cpu_times();
// Parses the text of /proc/stat; nullopt when its first line is not "cpu ...".
std::optional<CpuTimes> parse_cpu_times(std::string_view proc_stat);
// The share of CPU time stolen between two readings; nullopt when no time passed.
std::optional<double> steal_share(const CpuTimes& before, const CpuTimes& after);

struct GpuClocks {
  unsigned sm_mhz = 0;
  uint64_t throttle = 0;  // NVML clock-event reason bits
};
// The SM clock and throttle reasons of device `cuda:N` now; nullopt without
// NVML or for a device that is not `cuda:N`.
std::optional<GpuClocks> gpu_clocks(std::string_view device);
// The names of the reasons set in `bits` (NVML's nvmlClocksEventReason*),
// without gpu_idle, which only says no kernel was running at that instant.
std::vector<std::string> throttle_names(uint64_t bits);

}  // namespace mudjack::os

namespace mudjack::os {

// The cores this process may run on (its affinity mask), in ascending
// order; empty when the mask cannot be read.
std::vector<int> own_cpus();

// The cores in `cpus` ordered for the threads that time cases: the fast
// ones (within 10% of the fastest on a fixed integer loop, timed on each
// core) first, then the rest, each group in the given order. Cloud vCPUs of
// one machine can differ in speed by half; a lane whose calling thread sits
// on a fast core in one run and a slow one in the next disagrees with
// itself. The order is the given one when a core cannot be measured.
std::vector<int> fastest_first(const std::vector<int>& cpus);

}  // namespace mudjack::os
