#include "os/disturb.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

namespace mudjack::os {

std::optional<CpuTimes> parse_cpu_times(std::string_view text) {
  auto line = text.substr(0, text.find('\n'));
  if (line.substr(0, 4) != "cpu ") return std::nullopt;
  line.remove_prefix(4);
  CpuTimes t;
  // user nice system idle iowait irq softirq steal guest guest_nice; guest
  // time is already inside user and nice, so only the first eight add up.
  for (int field = 0; field < 8; ++field) {
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) break;
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc()) return std::nullopt;
    line.remove_prefix(static_cast<size_t>(end - line.data()));
    t.total += v;
    if (field == 7) t.steal = v;
  }
  return t;
}

std::optional<CpuTimes> cpu_times() {
  std::ifstream in("/proc/stat");
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  return parse_cpu_times(line);
}

std::optional<double> steal_share(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.steal < before.steal) return std::nullopt;
  return static_cast<double>(after.steal - before.steal) /
         static_cast<double>(after.total - before.total);
}

namespace {

// NVML's C API, the few calls used, resolved once.
struct Nvml {
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  using Clock = int (*)(void*, int, unsigned*);
  using Reasons = int (*)(void*, unsigned long long*);
  Handle handle = nullptr;
  Clock clock = nullptr;
  Reasons reasons = nullptr;
  bool ok = false;
};

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    auto init = reinterpret_cast<Nvml::Init>(dlsym(lib, "nvmlInit_v2"));
    n.handle = reinterpret_cast<Nvml::Handle>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    n.clock = reinterpret_cast<Nvml::Clock>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    n.reasons =
        reinterpret_cast<Nvml::Reasons>(dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (n.reasons == nullptr) {
      n.reasons =
          reinterpret_cast<Nvml::Reasons>(dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    }
    n.ok = init != nullptr && n.handle != nullptr && n.clock != nullptr && init() == 0;
  });
  return n;
}

// cuda:N is NVML's index N unless CUDA_VISIBLE_DEVICES renumbers devices;
// then the N-th entry when it is a number.
std::optional<unsigned> nvml_index(std::string_view device) {
  if (device.substr(0, 5) != "cuda:") return std::nullopt;
  unsigned n = 0;
  auto digits = device.substr(5);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return n;
  std::stringstream list(visible);
  std::string item;
  for (unsigned i = 0; std::getline(list, item, ','); ++i) {
    if (i != n) continue;
    unsigned physical = 0;
    auto [e, c] = std::from_chars(item.data(), item.data() + item.size(), physical);
    if (c != std::errc() || e != item.data() + item.size()) return std::nullopt;
    return physical;
  }
  return std::nullopt;
}

}  // namespace

std::optional<GpuClocks> gpu_clocks(std::string_view device) {
  auto index = nvml_index(device);
  const auto& n = nvml();
  if (!index || !n.ok) return std::nullopt;
  void* handle = nullptr;
  if (n.handle(*index, &handle) != 0) return std::nullopt;
  GpuClocks c;
  constexpr int kSmClock = 1;  // NVML_CLOCK_SM
  if (n.clock(handle, kSmClock, &c.sm_mhz) != 0) return std::nullopt;
  unsigned long long bits = 0;
  if (n.reasons != nullptr && n.reasons(handle, &bits) == 0) c.throttle = bits;
  return c;
}

std::vector<std::string> throttle_names(uint64_t bits) {
  static constexpr std::array<std::pair<uint64_t, const char*>, 8> kNames{{
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  }};
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames) {
    if ((bits & bit) != 0) out.emplace_back(name);
  }
  return out;
}

}  // namespace mudjack::os

namespace mudjack::os {
namespace {

// Nanoseconds of a fixed integer loop on core `cpu` (best of 3); nullopt
// when the thread cannot be pinned there.
std::optional<double> loop_ns(int cpu) {
  std::optional<double> best;
  std::thread worker([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) return;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      volatile uint64_t x = 1;
      for (int i = 0; i < 2'000'000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      const double ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      if (!best || ns < *best) best = ns;
    }
  });
  worker.join();
  return best;
}

}  // namespace

std::vector<int> own_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  return cpus;
}

std::vector<int> fastest_first(const std::vector<int>& cpus) {
  std::vector<std::pair<int, double>> timed;
  for (int cpu : cpus) {
    auto ns = loop_ns(cpu);
    if (!ns) return cpus;
    timed.emplace_back(cpu, *ns);
  }
  if (timed.empty()) return cpus;
  double best = timed.front().second;
  for (const auto& [cpu, ns] : timed) best = std::min(best, ns);
  std::stable_partition(timed.begin(), timed.end(),
                        [&](const auto& t) { return t.second <= best * 1.1; });
  std::vector<int> out;
  out.reserve(timed.size());
  for (const auto& [cpu, ns] : timed) out.push_back(cpu);
  return out;
}

}  // namespace mudjack::os
