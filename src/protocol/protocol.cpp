#include "protocol/protocol.hpp"

namespace mudjack::protocol {
namespace {

using nlohmann::json;

std::optional<json> parse_object(std::string_view line, std::string* error) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    std::string shown(line.substr(0, 120));
    *error = "probe sent a line that is not JSON: '" + shown + "'";
    return std::nullopt;
  }
  if (!j.is_object()) {
    *error = "probe sent JSON that is not an object";
    return std::nullopt;
  }
  return j;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int64_t> opt_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<int64_t>();
}

std::optional<double> opt_double(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// An `engine_fault` as one line of at most kMaxFaultBytes: "" when absent or
// null; nullopt when it is there but not a string.
std::optional<std::string> fault_of(const json& j) {
  auto it = j.find("engine_fault");
  if (it == j.end() || it->is_null()) return std::string();
  if (!it->is_string()) return std::nullopt;
  auto text = it->get<std::string>();
  text.erase(0, text.find_first_not_of(" \t\r\n"));
  text = text.substr(0, text.find_first_of("\r\n"));
  if (text.size() > kMaxFaultBytes) text.resize(kMaxFaultBytes);
  if (text.empty() && !it->get<std::string>().empty()) text = "(no message)";
  return text;
}

// A result's `outputs[]` (the saved .npy files), absent fields empty.
std::vector<model::OutputRef> outputs_of(const json& j) {
  std::vector<model::OutputRef> out;
  auto it = j.find("outputs");
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& o : *it) {
    model::OutputRef ref;
    ref.path = str(o, "path");
    ref.dtype = str(o, "dtype");
    ref.saved_dtype = str(o, "saved_dtype");
    if (o.contains("shape") && o["shape"].is_array()) {
      for (const auto& d : o["shape"]) ref.shape.push_back(d.is_number() ? d.get<int64_t>() : -1);
    }
    out.push_back(std::move(ref));
  }
  return out;
}

}  // namespace

json Policy::to_json() const {
  return {{"budget_ms", budget_ms},       {"min_samples", min_samples},
          {"max_samples", max_samples},   {"warmup_ms", warmup_ms},
          {"block_ms", block_ms},         {"reference", reference},
          {"timing_only", timing_only},   {"once", once},
          {"settle_ms", settle_ms},       {"device_timer", device_timer},
          {"slow_call_ms", slow_call_ms}, {"slow_min_samples", slow_min_samples},
          {"slow_spread", slow_spread}};
}

model::DeviceInfo device_from_json(const json& j) {
  model::DeviceInfo d;
  d.id = str(j, "id");
  d.kind = str(j, "kind");
  d.vendor = str(j, "vendor");
  d.model = str(j, "model");
  d.memory_bytes = opt_int(j, "memory_bytes").value_or(0);
  d.driver_version = str(j, "driver_version");
  d.runtime_version = str(j, "runtime_version");
  d.raw = j;
  return d;
}

model::CaseInfo case_from_json(const json& j) {
  model::CaseInfo c;
  c.id = j.at("id").get<std::string>();
  c.framework = j.at("framework").get<std::string>();
  c.function = j.at("function").get<std::string>();
  c.variant = j.at("variant").get<std::string>();
  c.dtype = str(j, "dtype");
  c.shape = str(j, "shape");
  c.mode = str(j, "mode");
  c.compiler = str(j, "compiler");
  if (j.contains("params") && j["params"].is_object()) c.params = j["params"];
  if (j.contains("requires") && j["requires"].is_object()) c.requires_ = j["requires"];
  if (j.contains("dims")) c.dims = j["dims"];
  c.note = str(j, "note");
  c.successor = str(j, "successor");
  c.rtol = opt_double(j, "rtol");
  c.atol = opt_double(j, "atol");
  if (j.contains("tags") && j["tags"].is_array()) {
    for (const auto& t : j["tags"]) {
      if (t.is_string()) c.tags.push_back(t.get<std::string>());
    }
  }
  if (auto it = j.find("reduction"); it != j.end() && it->is_number_integer()) {
    c.reduction = it->get<int64_t>();
  }
  if (auto it = j.find("excused"); it != j.end() && it->is_object()) c.excused = *it;
  c.grid = j.value("grid", false);
  c.policy = model::policy_from_json(j);  // 1.6
  c.claims = model::claims_from_json(j);  // 1.6
  return c;
}

Parsed<Hello> parse_hello(std::string_view line) {
  Parsed<Hello> p;
  auto j = parse_object(line, &p.error);
  if (!j) return p;
  if (str(*j, "type") != "hello") {
    p.error = "probe's first line is not a hello: '" + std::string(line.substr(0, 120)) + "'";
    return p;
  }
  auto version = opt_int(*j, "protocol");
  if (!version || *version != kVersion) {
    p.error = "probe speaks protocol " + (version ? std::to_string(*version) : "?") +
              ", this mudjack speaks protocol " + std::to_string(kVersion);
    return p;
  }
  auto fault = fault_of(*j);
  if (!fault) {
    p.error = "probe sent a hello whose engine_fault is not a string";
    return p;
  }
  Hello h;
  h.protocol = static_cast<int>(*version);
  h.protocol_minor = static_cast<int>(opt_int(*j, "protocol_minor").value_or(0));
  h.engine_fault = std::move(*fault);
  h.probe_version = str(*j, "probe_version");
  h.framework = str(*j, "framework");
  h.framework_version = str(*j, "framework_version");
  h.python = str(*j, "python");
  h.executable = str(*j, "executable");
  h.pid = opt_int(*j, "pid").value_or(0);
  h.unavailable = str(*j, "unavailable");
  if (auto it = j->find("accelerators_absent"); it != j->end() && it->is_array()) {  // 1.10
    for (const auto& entry : *it) {
      if (entry.is_string()) h.accelerators_absent.push_back(entry.get<std::string>());
    }
  }
  if (j->contains("devices") && (*j)["devices"].is_array()) {
    for (const auto& d : (*j)["devices"]) {
      if (d.is_object()) h.devices.push_back(device_from_json(d));
    }
  }
  h.raw = *j;
  p.value = std::move(h);
  return p;
}

Parsed<std::vector<model::CaseInfo>> parse_cases(std::string_view line, json* params_read) {
  Parsed<std::vector<model::CaseInfo>> p;
  auto j = parse_object(line, &p.error);
  if (!j) return p;
  if (str(*j, "type") == "error") {
    p.error = str(*j, "message");
    return p;
  }
  if (str(*j, "type") != "cases" || !(*j)["cases"].is_array()) {
    p.error = "probe answered list with something other than cases";
    return p;
  }
  std::vector<model::CaseInfo> cases;
  try {
    for (const auto& c : (*j)["cases"]) cases.push_back(case_from_json(c));
  } catch (const json::exception& e) {
    p.error = std::string("malformed case metadata: ") + e.what();
    return p;
  }
  if (params_read) {
    auto it = j->find("params");
    *params_read = it != j->end() && it->is_object() ? *it : json::object();
  }
  p.value = std::move(cases);
  return p;
}

Parsed<ProbeResult> parse_result(std::string_view line, std::string_view expected_case) {
  Parsed<ProbeResult> p;
  auto j = parse_object(line, &p.error);
  if (!j) return p;
  if (str(*j, "type") == "error") {
    p.error = "probe refused the request: " + str(*j, "message");
    return p;
  }
  if (str(*j, "type") != "result") {
    p.error = "probe answered run with type '" + str(*j, "type") + "'";
    return p;
  }
  ProbeResult r;
  r.case_id = str(*j, "case");
  if (r.case_id != expected_case) {
    p.error = "probe answered for case '" + r.case_id + "', expected '" +
              std::string(expected_case) + "'";
    return p;
  }
  auto fault = fault_of(*j);
  if (!fault) {
    p.error = "probe sent an engine_fault that is not a string";
    return p;
  }
  if (!fault->empty()) {  // no outcome: the machine failed, not the case
    r.engine_fault = std::move(*fault);
    p.value = std::move(r);
    return p;
  }
  auto status = str(*j, "status");
  auto outcome = model::parse_outcome(status);
  if (!outcome || *outcome == model::Outcome::kCrash || *outcome == model::Outcome::kTimeout) {
    p.error = "probe reported unknown status '" + status + "'";
    return p;
  }
  r.outcome = *outcome;
  if (j->contains("error") && (*j)["error"].is_object()) {
    const auto& e = (*j)["error"];
    auto kind = model::parse_error_kind(str(e, "kind"));
    r.error.kind = kind.value_or(model::ErrorKind::kOther);
    r.error.message = str(e, "message");
    r.error.traceback = str(e, "traceback");
    // Not running a case is not an error of any kind; the message says why.
    if (model::props(r.outcome).judged && !model::props(r.outcome).attempted) {
      r.error.kind = model::ErrorKind::kNone;
    }
  }
  r.latency.cold_ns = opt_int(*j, "cold_ns");
  if (j->contains("samples_ns") && (*j)["samples_ns"].is_array()) {
    for (const auto& s : (*j)["samples_ns"]) {
      if (!s.is_number()) {
        p.error = "probe sent a non-numeric sample";
        return p;
      }
      r.latency.samples_ns.push_back(s.get<double>());
    }
  }
  r.latency.calls_per_sample = opt_int(*j, "calls_per_sample").value_or(0);
  if (j->contains("memory") && (*j)["memory"].is_object()) {
    r.memory.peak_device_bytes = opt_int((*j)["memory"], "peak_device_bytes");
    r.memory.peak_host_bytes = opt_int((*j)["memory"], "peak_host_bytes");
  }
  r.outputs = outputs_of(*j);
  if (auto it = j->find("work"); it != j->end()) r.work = model::work_from_json(*it);
  if (auto it = j->find("metrics"); it != j->end()) r.metrics = model::metrics_from_json(*it);
  for (const char* key : {"warmup_calls",    "case_ns",         "output_device",     "checks",
                          "fallback",        "device_unusable", "reference",         "strict",
                          "skipped_outputs", "enqueue_ns",      "device_samples_ns", "device_error",
                          "drift_ns",        "kernels",         "missing_name",      "xla",
                          "compile_cache",   "device_wait_ns",  "phases_ns",         "again"}) {
    if (j->contains(key) && !(*j)[key].is_null()) r.extra[key] = (*j)[key];
  }
  p.value = std::move(r);
  return p;
}

std::string repro_request(const ReproRequest& r) {
  json j{{"type", "repro"},        {"case", r.case_id}, {"seed", r.seed}, {"seen", r.seen},
         {"expected", r.expected}, {"rtol", r.rtol},    {"atol", r.atol}};
  if (r.bound_eps) j["bound_eps"] = *r.bound_eps;
  if (r.minimal) j["minimal"] = true;
  return j.dump();
}

Parsed<Repro> parse_repro(std::string_view line) {
  Parsed<Repro> p;
  auto j = parse_object(line, &p.error);
  if (!j) return p;
  if (str(*j, "type") == "error") {
    p.error = str(*j, "message");
    return p;
  }
  if (str(*j, "type") != "repro") {
    p.error = "probe answered repro with something other than a repro";
    return p;
  }
  Repro r;
  r.script = str(*j, "script");
  r.unwritable = str(*j, "unwritable");
  if (r.script.empty() && r.unwritable.empty()) {
    p.error = "probe sent an empty repro";
    return p;
  }
  p.value = std::move(r);
  return p;
}

std::string repro_graph_request(const GraphScriptRequest& r) {
  json j = {{"type", "repro_graph"},    {"graph", r.graph},
            {"backend", r.backend},     {"device", r.device},
            {"seed", r.seed},           {"symptom", r.symptom},
            {"bound_eps", nullptr},     {"slow_ratio", r.slow_ratio},
            {"timeout_s", r.timeout_s}, {"eager", r.eager}};
  if (r.bound_eps) j["bound_eps"] = *r.bound_eps;
  return j.dump();
}

std::string reference_request(std::string_view graph, int64_t seed) {
  return json{{"type", "reference"}, {"graph", graph}, {"seed", seed}}.dump();
}

Parsed<json> parse_reference(std::string_view line, std::string_view graph) {
  Parsed<json> p;
  auto j = parse_object(line, &p.error);
  if (!j) return p;
  if (str(*j, "type") == "error") {
    p.error = str(*j, "message");
    return p;
  }
  if (str(*j, "type") != "reference" || str(*j, "graph") != graph) {
    p.error = "probe answered reference for " + std::string(graph) + " with something else";
    return p;
  }
  p.value = std::move(*j);
  return p;
}

std::string build_request(const BuildRequest& r) {
  return json{{"type", "build"}, {"cases", r.cases},     {"seed", r.seed},
              {"jobs", r.jobs},  {"threads", r.threads}, {"timeout_s", r.timeout_s}}
      .dump();
}

Parsed<Built> parse_built(std::string_view line) {
  Parsed<Built> p;
  auto j = parse_object(line, &p.error);
  if (!j) return p;
  const std::string type = str(*j, "type");
  if (type == "error") {
    p.error = str(*j, "message");
    return p;
  }
  Built b;
  if (type == "build_done") {
    b.done = true;
  } else if (type == "built" && !str(*j, "case").empty() && !str(*j, "status").empty()) {
    b.case_id = str(*j, "case");
    b.status = str(*j, "status");
    b.seconds = opt_double(*j, "seconds").value_or(0.0);
    b.message = str(*j, "message");
  } else {
    p.error = "probe answered build with something other than built or build_done";
    return p;
  }
  p.value = std::move(b);
  return p;
}

std::string list_request(std::string_view framework) {
  return json{{"type", "list"}, {"framework", framework}}.dump();
}

std::string run_request(std::string_view case_id, std::string_view device, int64_t seed,
                        const Policy& policy, std::string_view artifact_dir) {
  return json{{"type", "run"},
              {"case", case_id},
              {"device", device},
              {"seed", seed},
              {"policy", policy.to_json()},
              {"artifact_dir", artifact_dir}}
      .dump();
}

std::string shutdown_request() {
  return json{{"type", "shutdown"}}.dump();
}

}  // namespace mudjack::protocol
