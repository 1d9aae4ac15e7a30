// mudjack doctor: what each framework environment sees here, what is
// missing, and the command that installs it.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.hpp"
#include "envs/envs.hpp"

namespace mudjack::cli {
namespace {

struct DoctorArgs {
  Common common;
  std::vector<std::string> frameworks;
  bool refresh = false;
};

// The command that builds `framework`'s environment for `profile`.
std::string install_command(const std::string& framework, const std::string& profile) {
  std::string cmd = "MUDJACK_FRAMEWORKS=" + framework;
  if (profile != "current") cmd += " MUDJACK_PROFILE=" + profile;
  return cmd + " " + (envs::data_dir() / "scripts" / "install.sh").string();
}

struct Row {
  std::string framework;
  bool ready = false;
  std::string version;
  std::string python_version;
  std::string interpreter;
  std::vector<std::string> devices;
  std::vector<std::string> accelerators_absent;  // "<kind>: <reason>" (protocol 1.10)
  std::string missing;                           // why not ready
  std::string fix;                               // the command that makes it ready
};

std::vector<Row> rows_of(const plan::Discovery& d, const Settings& s) {
  std::vector<Row> rows;
  for (const auto& [fw, rt] : d.runtimes) {
    Row row;
    row.framework = fw;
    row.interpreter = rt.python.string();
    if (auto it = d.hellos.find(fw); it != d.hellos.end()) {
      row.version = it->second.framework_version;
      row.python_version = it->second.python;
      row.accelerators_absent = it->second.accelerators_absent;
    }
    if (auto it = d.devices_of.find(fw); it != d.devices_of.end()) row.devices = it->second;
    row.ready = rt.unavailable.empty() && rt.engine_fault.empty() && !rt.python.empty();
    row.missing = rt.engine_fault.empty() ? rt.unavailable : rt.engine_fault;
    if (!row.ready) {
      row.fix = s.python.contains(fw) ? "check --python " + fw + "=" + s.python.at(fw)
                                      : install_command(fw, s.config.profile);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

void print_text(const std::vector<Row>& rows, const plan::Discovery& d, const Settings& s) {
  std::printf("profile %s; probes and suites from %s; environments cached in %s\n\n",
              s.config.profile.c_str(), envs::data_dir().c_str(),
              (envs::cache_dir() / "envs").c_str());
  std::printf("%-11s %-8s %-14s %-8s %s\n", "FRAMEWORK", "STATUS", "VERSION", "PYTHON", "DEVICES");
  for (const auto& r : rows) {
    std::printf("%-11s %-8s %-14s %-8s %s\n", r.framework.c_str(), r.ready ? "ready" : "missing",
                r.version.empty() ? "-" : r.version.c_str(),
                r.python_version.empty() ? "-" : r.python_version.c_str(),
                r.devices.empty() ? "-" : joined(r.devices).c_str());
    if (!r.interpreter.empty()) std::printf("            interpreter: %s\n", r.interpreter.c_str());
    for (const auto& line : r.accelerators_absent)
      std::printf("            absent: %s\n", line.c_str());
    if (!r.ready) {
      std::printf("            missing: %s\n            install: %s\n", r.missing.c_str(),
                  r.fix.c_str());
    }
  }
  std::printf("\n%-8s %-40s %-12s %s\n", "DEVICE", "MODEL", "MEMORY", "DRIVER / RUNTIME");
  for (const auto& dev : d.devices) {
    char mem[32];
    std::snprintf(mem, sizeof(mem), "%.1f GiB", static_cast<double>(dev.memory_bytes) / (1 << 30));
    std::printf("%-8s %-40s %-12s %s%s%s\n", dev.id.c_str(), dev.model.substr(0, 40).c_str(), mem,
                dev.driver_version.c_str(), dev.driver_version.empty() ? "" : " / ",
                dev.runtime_version.c_str());
  }
}

// torch on XLA devices (a TPU, or xla:0 through PJRT on this CPU) needs the
// `xla` profile's environment, which the default install leaves out: said
// once, with the command, when torch is checked and sees no XLA device.
std::optional<std::string> xla_hint(const std::vector<Row>& rows, const std::string& profile) {
  for (const auto& r : rows) {
    if (r.framework != "torch") continue;
    for (const auto& dev : r.devices) {
      if (dev.starts_with("xla:") || dev.starts_with("tpu:")) return std::nullopt;
    }
    return "torch on XLA devices (TPU, or xla:0 on this CPU through PJRT): " +
           install_command("torch", "xla") + ", then run with --profile xla" +
           (profile == "xla" ? "" : " (this is profile " + profile + ")");
  }
  return std::nullopt;
}

int doctor(const DoctorArgs& a) {
  auto s = settings(a.common);
  auto fws = split_commas(a.frameworks);
  plan::filter({}, fws, "");  // validates names
  auto d = plan::discover(fws, s.config.profile, s.python, interrupted(), !a.refresh);
  const auto rows = rows_of(d, s);
  size_t ready = 0;
  for (const auto& r : rows) ready += r.ready ? 1 : 0;
  if (a.common.json) {
    nlohmann::json out = {{"profile", s.config.profile}, {"frameworks", nlohmann::json::array()}};
    for (const auto& r : rows) {
      out["frameworks"].push_back({{"framework", r.framework},
                                   {"ready", r.ready},
                                   {"version", r.version},
                                   {"python", r.python_version},
                                   {"interpreter", r.interpreter},
                                   {"devices", r.devices},
                                   {"accelerators_absent", r.accelerators_absent},
                                   {"missing", r.missing},
                                   {"install", r.fix}});
    }
    out["environment"] = plan::environment_json(d);
    std::cout << out.dump(2) << "\n";
  } else {
    print_text(rows, d, s);
    print_cached(d);
    std::printf("\n%zu of %zu frameworks ready\n", ready, rows.size());
    if (const auto hint = xla_hint(rows, s.config.profile)) std::printf("%s\n", hint->c_str());
  }
  return ready == rows.size() ? 0 : 3;
}

}  // namespace

Command doctor_command() {
  return {"doctor",
          "Which frameworks, versions, devices and drivers each environment sees; what is missing "
          "and the command that installs it (exit 3 when something is missing)",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<DoctorArgs>();
            add_common(c, a->common);
            c->add_option("--framework", a->frameworks, "Only these frameworks");
            c->add_flag("--refresh", a->refresh,
                        "Start every framework's probe again instead of reading the answers "
                        "cached since nothing they depend on changed");
            return [a] { return doctor(*a); };
          }};
}

}  // namespace mudjack::cli
