#include "fleet/merge.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "util/error.hpp"
#include "util/sha256.hpp"

namespace mudjack::fleet {
namespace {

using nlohmann::json;

std::string slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

bool valid_label(std::string_view label) {
  return !label.empty() && std::all_of(label.begin(), label.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string relabel(const std::string& label, const std::string& device) {
  return device.empty() ? device : label + "/" + device;
}

}  // namespace

std::pair<std::string, std::string> split_device(std::string_view device) {
  const auto slash = device.find('/');
  if (slash == std::string_view::npos) return {"", std::string(device)};
  return {std::string(device.substr(0, slash)), std::string(device.substr(slash + 1))};
}

std::string default_label(const report::Results& results) {
  const json& machines = results.run.environment.value("machines", json::array());
  std::string cpu;
  std::string host;
  for (const json& m : machines) {
    if (!m.is_object()) continue;
    for (const json& d : m.value("devices", json::array())) {
      if (d.is_object() && d.value("kind", "") != "cpu" && !d.value("model", "").empty()) {
        if (auto s = slug(d.value("model", "")); !s.empty()) return s;
      }
    }
    if (cpu.empty()) cpu = slug(m.value("cpu_model", ""));
    if (host.empty()) host = slug(m.value("host", ""));
  }
  if (!cpu.empty()) return cpu;
  if (!host.empty()) return host;
  return "machine";
}

report::Results merge(const std::vector<Source>& sources, std::string_view created_at) {
  if (sources.empty()) throw util::FatalError("nothing to merge: name at least one run or file");
  report::Results out;
  out.schema_version = std::string(model::kResultsSchemaVersion);
  out.run.baseline = sources.front().results.run.baseline;
  out.run.created_at = std::string(created_at);
  out.run.finished_at = std::string(created_at);
  out.run.state = "complete";
  out.run.options = json{{"merged_from", json::array()}};
  out.run.environment = json{{"machines", json::array()}};

  std::set<std::string> suites;
  std::string suite_list;
  std::map<std::pair<std::string, std::string>, std::string> seen;  // (case, device) -> origin
  std::string fingerprint;
  for (const Source& s : sources) {
    const model::RunInfo& run = s.results.run;
    if (!valid_label(s.label)) {
      throw util::FatalError("bad label '" + s.label + "' for " + s.origin +
                             ": use letters, digits, '.', '_' and '-'");
    }
    if (run.baseline != out.run.baseline) {
      throw util::FatalError(
          "cannot merge runs with different baselines: " + sources.front().origin + " uses '" +
          out.run.baseline + "', " + s.origin + " uses '" + run.baseline + "'");
    }
    if (run.state != "complete") out.run.state = "incomplete";
    if (suites.insert(run.suite).second) {
      suite_list += (suite_list.empty() ? "" : "+") + run.suite;
    }
    fingerprint += s.label + "\n" + run.id + "\n" + s.origin + "\n";
    out.run.options["merged_from"].push_back({{"label", s.label},
                                              {"origin", s.origin},
                                              {"run_id", run.id},
                                              {"suite", run.suite},
                                              {"state", run.state}});
    for (const json& m : run.environment.value("machines", json::array())) {
      json machine = m;
      machine["label"] = s.label;
      machine["run_id"] = run.id;
      out.run.environment["machines"].push_back(std::move(machine));
    }
    for (const model::CaseResult& r : s.results.cases) {
      if (r.device.find('/') != std::string::npos) {
        throw util::FatalError(s.origin + " is already a merged run (device '" + r.device +
                               "'); merge the original runs instead");
      }
      model::CaseResult m = r;
      m.device = relabel(s.label, r.device);
      m.numeric.compared_with = relabel(s.label, r.numeric.compared_with);
      if (const auto on = r.numeric.reference.rfind(" on "); on != std::string::npos) {
        m.numeric.reference = r.numeric.reference.substr(0, on + 4) +
                              relabel(s.label, r.numeric.reference.substr(on + 4));
      }
      auto [it, fresh] = seen.emplace(std::pair{m.info.id, m.device}, s.origin);
      if (!fresh) {
        throw util::FatalError("case " + m.info.id + " on " + m.device + " is in both " +
                               it->second + " and " + s.origin +
                               "; give one of them another label (FILE=LABEL)");
      }
      out.cases.push_back(std::move(m));
    }
  }
  out.run.suite = suite_list;
  std::string digits;
  for (char c : created_at) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  out.run.id = "merged-" + digits.substr(0, 14) + "-" + util::sha256_hex(fingerprint).substr(0, 6);
  for (auto& c : out.cases) c.run_id = out.run.id;
  return out;
}

void save(store::Store& store, const report::Results& results) {
  store.create_run(results.run);
  std::vector<model::CaseInfo> infos;
  std::vector<store::CaseDevice> pairs;
  std::set<std::string> ids;
  for (const model::CaseResult& r : results.cases) {
    if (ids.insert(r.info.id).second) infos.push_back(r.info);
    pairs.emplace_back(r.info.id, r.device);
  }
  store.add_plan(results.run.id, infos, pairs);
  for (model::CaseResult r : results.cases) {
    r.run_id = results.run.id;
    store.record(r);
  }
}

}  // namespace mudjack::fleet
