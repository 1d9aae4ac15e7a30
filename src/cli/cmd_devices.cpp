// mudjack devices: what each framework sees here.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"

namespace mudjack::cli {
namespace {

struct DevicesArgs {
  Common common;
  std::vector<std::string> frameworks;
  bool refresh = false;
};

void print_devices(const plan::Discovery& d) {
  std::printf("%-8s %-10s %-40s %10s  %-28s %s\n", "DEVICE", "VENDOR", "MODEL", "MEMORY",
              "DRIVER/RUNTIME", "FRAMEWORKS");
  for (const auto& dev : d.devices) {
    std::string fws_seen;
    for (const auto& [fw, ids] : d.devices_of) {
      if (std::find(ids.begin(), ids.end(), dev.id) != ids.end()) {
        fws_seen += (fws_seen.empty() ? "" : ",") + fw;
      }
    }
    char mem[32];
    std::snprintf(mem, sizeof(mem), "%.1f GiB", static_cast<double>(dev.memory_bytes) / (1 << 30));
    std::string driver = dev.driver_version.empty()
                             ? dev.runtime_version
                             : dev.driver_version + " / " + dev.runtime_version;
    std::printf("%-8s %-10s %-40s %10s  %-28s %s\n", dev.id.c_str(),
                dev.vendor.substr(0, 10).c_str(), dev.model.substr(0, 40).c_str(), mem,
                driver.substr(0, 28).c_str(), fws_seen.c_str());
  }
  // An accelerator the framework's build targets that is not here, and why
  // (a CUDA wheel without a driver, libtpu without chips): its devices above
  // are what remains, cpu (and xla:0, torch_xla's PJRT CPU device).
  for (const auto& [fw, h] : d.hellos) {
    for (const auto& line : h.accelerators_absent) {
      const auto colon = line.find(": ");
      if (colon == std::string::npos) {
        std::printf("%s: accelerator absent: %s\n", fw.c_str(), line.c_str());
      } else {
        std::printf("%s: %s absent: %s\n", fw.c_str(), line.substr(0, colon).c_str(),
                    line.substr(colon + 2).c_str());
      }
    }
  }
  for (const auto& [fw, rt] : d.runtimes) {
    if (!rt.unavailable.empty())
      std::printf("%s: unavailable: %s\n", fw.c_str(), rt.unavailable.c_str());
    if (!rt.engine_fault.empty())
      std::printf("%s: installed but broken here: %s\n", fw.c_str(), rt.engine_fault.c_str());
  }
}

int devices(const DevicesArgs& a) {
  auto s = settings(a.common);
  auto fws = split_commas(a.frameworks);
  plan::filter({}, fws, "");  // validates names
  auto d = plan::discover(fws, s.config.profile, s.python, interrupted(), !a.refresh);
  if (a.common.json) {
    std::cout << plan::environment_json(d).dump(2) << "\n";
  } else {
    print_devices(d);
    print_cached(d);
  }
  return 0;
}

}  // namespace

Command devices_command() {
  return {"devices", "List the devices each framework sees here, with driver and memory",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<DevicesArgs>();
            add_common(c, a->common);
            c->add_option("--framework", a->frameworks, "Only these frameworks");
            c->add_flag("--refresh", a->refresh,
                        "Start every framework's probe again instead of reading the answers "
                        "cached since nothing they depend on changed");
            return [a] { return devices(*a); };
          }};
}

}  // namespace mudjack::cli
