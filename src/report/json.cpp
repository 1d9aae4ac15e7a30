#include "report/json.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <zlib.h>

#include "report/capability.hpp"
#include "report/models.hpp"
#include "util/error.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::report {
namespace {

using nlohmann::json;
using util::FatalError;

// NaN and infinities have no JSON spelling; write them as null explicitly so
// the document never depends on the serialiser's choice.
json number(double v) {
  if (!std::isfinite(v)) {
    return nullptr;
  }
  return v;
}

template <typename T>
json optional(const std::optional<T>& v) {
  if (!v) {
    return nullptr;
  }
  if constexpr (std::is_floating_point_v<T>) {
    return number(*v);
  } else {
    return *v;
  }
}

bool has_error(const model::ErrorInfo& e) {
  return e.kind != model::ErrorKind::kNone || !e.message.empty() || e.signal || e.exit_code ||
         !e.stderr_tail.empty() || !e.traceback.empty();
}

int my_major() {
  auto v = model::parse_schema_version(model::kResultsSchemaVersion);
  return v ? v->first : 0;
}

// Lenient field readers: a missing or null field takes its default (a field a
// later or earlier MINOR lacks); a present field of the wrong type throws
// json::type_error, which from_json turns into a FatalError.
std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return {};
  }
  return it->get<std::string>();
}

template <typename T>
std::optional<T> opt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return std::nullopt;
  }
  return it->get<T>();
}

double real_or_nan(const json& j, const char* key) {
  return opt<double>(j, key).value_or(std::numeric_limits<double>::quiet_NaN());
}

json object_or(const json& j, const char* key, json fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return fallback;
  }
  return *it;
}

const json& sub(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return kEmpty;
  }
  if (!it->is_object()) {
    throw json::type_error::create(302, std::string(key) + " must be an object", &j);
  }
  return *it;
}

template <typename T>
std::vector<T> list(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return {};
  }
  return it->get<std::vector<T>>();
}

model::CaseInfo info_from_json(const json& c) {
  model::CaseInfo info;
  info.id = str(c, "id");
  info.framework = str(c, "framework");
  info.function = str(c, "function");
  info.variant = str(c, "variant");
  info.dtype = str(c, "dtype");
  info.shape = str(c, "shape");
  info.mode = str(c, "mode");
  info.compiler = str(c, "compiler");
  info.params = object_or(c, "params", json::object());
  info.requires_ = object_or(c, "requires", json::object());
  info.dims = object_or(c, "dims", json::array());
  info.note = str(c, "note");
  info.successor = str(c, "successor");
  info.rtol = opt<double>(c, "rtol");
  info.atol = opt<double>(c, "atol");
  info.tags = list<std::string>(c, "tags");
  model::oracle_meta_from_json(c, info);  // 1.4
  return info;
}

model::Latency latency_from_json(const json& l) {
  model::Latency latency;
  latency.cold_ns = opt<int64_t>(l, "cold_ns");
  latency.calls_per_sample = opt<int64_t>(l, "calls_per_sample").value_or(0);
  if (auto it = l.find("samples_ns"); it != l.end() && !it->is_null()) {
    for (const auto& s : *it) {
      latency.samples_ns.push_back(s.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                               : s.get<double>());
    }
  }
  if (auto n = opt<int64_t>(l, "n")) {
    model::LatencyStats s;
    s.median_ns = real_or_nan(l, "median_ns");
    s.p10_ns = real_or_nan(l, "p10_ns");
    s.p90_ns = real_or_nan(l, "p90_ns");
    s.iqr_ns = real_or_nan(l, "iqr_ns");
    s.mean_ns = real_or_nan(l, "mean_ns");
    s.stddev_ns = real_or_nan(l, "stddev_ns");
    s.cv = real_or_nan(l, "cv");
    s.min_ns = real_or_nan(l, "min_ns");
    s.n = *n;
    latency.stats = s;
  }
  if (auto t = l.find("timing"); t != l.end()) latency.timing = model::timing_from_json(*t);
  return latency;
}

// Outcome and error kind, checked against the closed lists.
void outcome_from_json(const json& c, model::CaseResult& r, std::string_view source) {
  const auto bad = [&](const std::string& what) {
    return FatalError(std::string(source) + ": case " + str(c, "id") + " " + what);
  };
  std::string outcome = str(c, "outcome");
  auto o = model::parse_outcome(outcome);
  if (!o) throw bad("has unknown outcome '" + outcome + "'");
  r.outcome = *o;
  const json& e = sub(c, "error");
  std::string kind = str(e, "kind");
  auto k = model::parse_error_kind(kind);
  if (!k) throw bad("has unknown error kind '" + kind + "'");
  r.error.kind = *k;
  r.error.message = str(e, "message");
  r.error.signal = opt<int>(e, "signal");
  r.error.exit_code = opt<int>(e, "exit_code");
  r.error.stderr_tail = str(e, "stderr_tail");
  r.error.traceback = str(e, "traceback");
}

std::vector<model::OutputRef> outputs_from_json(const json& c) {
  std::vector<model::OutputRef> outputs;
  if (auto it = c.find("outputs"); it != c.end() && !it->is_null()) {
    for (const auto& out : *it) {
      model::OutputRef ref;
      ref.path = str(out, "path");
      ref.dtype = str(out, "dtype");
      ref.saved_dtype = str(out, "saved_dtype");
      ref.shape = list<int64_t>(out, "shape");
      outputs.push_back(std::move(ref));
    }
  }
  return outputs;
}

model::CaseResult case_from_json(const json& c, const std::string& run_id,
                                 std::string_view source) {
  model::CaseResult r;
  r.run_id = run_id;
  r.info = info_from_json(c);
  if (r.info.id.empty()) throw FatalError(std::string(source) + ": a case has no id");
  r.device = str(c, "device");
  outcome_from_json(c, r, source);
  r.latency = latency_from_json(sub(c, "latency"));
  const json& m = sub(c, "memory");
  r.memory.peak_device_bytes = opt<int64_t>(m, "peak_device_bytes");
  r.memory.peak_host_bytes = opt<int64_t>(m, "peak_host_bytes");
  const json& nu = sub(c, "numeric");
  r.numeric.compared_with = str(nu, "compared_with");
  r.numeric.message = str(nu, "message");
  model::accuracy_from_json(nu, r.numeric);  // 1.4
  r.outputs = outputs_from_json(c);
  r.extra = object_or(c, "extra", json::object());
  workload_from_json(c, r);
  r.started_at = str(c, "started_at");
  r.finished_at = str(c, "finished_at");
  // Missing (a writer without it) reads as 0; null (NaN was written) as NaN.
  if (auto it = c.find("wall_s"); it != c.end()) {
    r.wall_s = it->is_null() ? std::numeric_limits<double>::quiet_NaN() : it->get<double>();
  }
  return r;
}

model::VerdictRow verdict_from_json(const json& v, std::string_view source) {
  model::VerdictRow row;
  row.framework = str(v, "framework");
  row.function = str(v, "function");
  row.device = str(v, "device");
  const auto parse = [&](const std::string& name) {
    auto p = model::parse_verdict(name);
    if (!p) {
      throw FatalError(std::string(source) + ": verdict of " + row.framework + " " + row.function +
                       " on " + row.device + " has unknown verdict '" + name + "'");
    }
    return *p;
  };
  row.verdict = parse(str(v, "verdict"));
  for (const auto& f : list<std::string>(v, "flags")) {
    row.flags.push_back(parse(f));
  }
  row.cases = opt<int>(v, "cases").value_or(0);
  row.failing = list<std::string>(v, "failing");
  row.mismatching = list<std::string>(v, "mismatching");
  row.latency_ratio = opt<double>(v, "latency_ratio");
  row.latency_ratio_low = opt<double>(v, "latency_ratio_low");
  row.latency_ratio_high = opt<double>(v, "latency_ratio_high");
  row.reason = str(v, "reason");
  row.unchecked = opt<int>(v, "unchecked").value_or(0);  // 1.3
  row.successor = str(v, "successor");                   // 1.3
  if (auto sv = str(v, "successor_verdict"); !sv.empty()) row.successor_verdict = parse(sv);
  if (auto it = v.find("causes"); it != v.end() && it->is_object()) {  // 1.4
    for (const auto& [name, n] : it->items()) {
      auto cause = model::parse_cause(name);
      if (cause && *cause != model::Cause::kNone && n.is_number_integer()) {
        row.causes[*cause] = n.get<int>();
      }
    }
  }
  // 1.9 unsupported; 1.10 each entry's source and documented, and kernel_missing.
  const auto refused = [&v](const char* key, std::vector<model::Refused>& into) {
    auto it = v.find(key);
    if (it == v.end() || !it->is_array()) return;
    for (const auto& u : *it) {
      if (!u.is_object()) continue;
      const auto said_by = u.value("source", "");
      into.push_back({u.value("dtype", ""), u.value("reason", ""), u.value("cases", 0),
                      model::parse_refusal_source(said_by).value_or(model::RefusalSource::kNone),
                      u.value("documented", false)});
    }
  };
  refused("unsupported", row.unsupported);
  refused("kernel_missing", row.kernel_missing);
  // 1.4-1.8: dtypes that failed on every device, the rule before claims.
  for (const auto& dtype : list<std::string>(v, "lacks_dtype")) {
    row.unsupported.push_back({dtype, "failed on every device (judged before results 1.9)", 0});
  }
  return row;
}

}  // namespace

namespace {

json latency_to_json(const model::Latency& l) {
  json lat = json::object();
  lat["cold_ns"] = optional(l.cold_ns);
  const auto stat = [&](double model::LatencyStats::*field) -> json {
    return l.stats ? number((*l.stats).*field) : json(nullptr);
  };
  lat["median_ns"] = stat(&model::LatencyStats::median_ns);
  lat["p10_ns"] = stat(&model::LatencyStats::p10_ns);
  lat["p90_ns"] = stat(&model::LatencyStats::p90_ns);
  lat["iqr_ns"] = stat(&model::LatencyStats::iqr_ns);
  lat["mean_ns"] = stat(&model::LatencyStats::mean_ns);
  lat["stddev_ns"] = stat(&model::LatencyStats::stddev_ns);
  lat["cv"] = stat(&model::LatencyStats::cv);
  lat["min_ns"] = stat(&model::LatencyStats::min_ns);
  lat["n"] = l.stats ? json(l.stats->n) : json(nullptr);
  lat["calls_per_sample"] = l.calls_per_sample;
  json samples = json::array();
  for (double s : l.samples_ns) {
    samples.push_back(number(s));
  }
  lat["samples_ns"] = std::move(samples);
  lat["timing"] = model::timing_to_json(l.timing);
  return lat;
}

}  // namespace

json case_to_json(const model::CaseResult& r) {
  const auto& i = r.info;
  json c = json::object();
  c["id"] = i.id;
  c["framework"] = i.framework;
  c["function"] = i.function;
  c["variant"] = i.variant;
  c["device"] = r.device;
  c["dtype"] = i.dtype;
  c["shape"] = i.shape;
  c["mode"] = i.mode;
  c["compiler"] = i.compiler;
  c["params"] = i.params.is_null() ? json::object() : i.params;
  c["requires"] = i.requires_.is_null() ? json::object() : i.requires_;
  c["dims"] = i.dims;
  c["note"] = i.note;
  c["successor"] = i.successor;
  c["rtol"] = optional(i.rtol);
  c["atol"] = optional(i.atol);
  c["tags"] = i.tags;
  c.update(model::oracle_meta_to_json(i));  // 1.4
  c["outcome"] = model::to_string(r.outcome);

  if (has_error(r.error)) {
    const auto& e = r.error;
    c["error"] = {
        {"kind",
         e.kind == model::ErrorKind::kNone ? json(nullptr) : json(model::to_string(e.kind))},
        {"message", e.message},
        {"signal", optional(e.signal)},
        {"exit_code", optional(e.exit_code)},
        {"stderr_tail", e.stderr_tail},
        {"traceback", e.traceback},
    };
  } else {
    c["error"] = nullptr;
  }

  c["latency"] = latency_to_json(r.latency);

  c["memory"] = {{"peak_device_bytes", optional(r.memory.peak_device_bytes)},
                 {"peak_host_bytes", optional(r.memory.peak_host_bytes)}};
  c["numeric"] = {{"compared_with", r.numeric.compared_with}, {"message", r.numeric.message}};
  c["numeric"].update(model::accuracy_to_json(r.numeric));  // 1.4
  json outputs = json::array();
  for (const auto& o : r.outputs) {
    outputs.push_back(
        {{"path", o.path}, {"dtype", o.dtype}, {"saved_dtype", o.saved_dtype}, {"shape", o.shape}});
  }
  c["outputs"] = std::move(outputs);
  c["extra"] = r.extra.is_null() ? json::object() : r.extra;
  workload_to_json(r, c);
  c["started_at"] = r.started_at;
  c["finished_at"] = r.finished_at;
  c["wall_s"] = number(r.wall_s);
  return c;
}

namespace {

json refused_to_json(const std::vector<model::Refused>& refused) {
  json out = json::array();
  for (const auto& u : refused) {
    json entry = {{"dtype", u.dtype}, {"reason", u.reason}, {"cases", u.cases}};
    if (u.source != model::RefusalSource::kNone) {  // a row read from results before 1.10 has none
      entry["source"] = model::to_string(u.source);
      entry["documented"] = u.documented;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// A failing case's refusal (results 1.10), or null.
json refusal_to_json(const verdict::RefusalOf& why) {
  if (why.refusal == model::Refusal::kNone) return nullptr;
  return {{"refusal", model::to_string(why.refusal)},
          {"source", model::to_string(why.source)},
          {"documented", why.documented},
          {"reason", why.reason}};
}

}  // namespace

json verdict_to_json(const model::VerdictRow& v) {
  json flags = json::array();
  for (auto f : v.flags) {
    flags.push_back(model::to_string(f));
  }
  json causes = json::object();
  for (auto c : model::kCauses) {
    auto it = v.causes.find(c);
    causes[std::string(model::to_string(c))] = it == v.causes.end() ? 0 : it->second;
  }
  return {
      {"framework", v.framework},
      {"function", v.function},
      {"device", v.device},
      {"verdict", model::to_string(v.verdict)},
      {"flags", std::move(flags)},
      {"cases", v.cases},
      {"failing", v.failing},
      {"mismatching", v.mismatching},
      {"latency_ratio", optional(v.latency_ratio)},
      {"latency_ratio_low", optional(v.latency_ratio_low)},
      {"latency_ratio_high", optional(v.latency_ratio_high)},
      {"reason", v.reason},
      {"unchecked", v.unchecked},
      {"successor", v.successor},
      {"successor_verdict",
       v.successor_verdict ? json(model::to_string(*v.successor_verdict)) : json(nullptr)},
      {"causes", std::move(causes)},
      {"cause", model::to_string(v.cause())},
      {"unsupported", refused_to_json(v.unsupported)},
      {"kernel_missing", refused_to_json(v.kernel_missing)},
  };
}

json counts_to_json(const verdict::Judged& judged) {
  json counts = json::object();
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.cases == 0) continue;
      json& per_device = counts[framework][device];
      for (auto [outcome, n] : tally.outcomes)
        per_device[std::string(model::to_string(outcome))] = n;
    }
  }
  return counts;
}

namespace {

json reasons_to_json(const verdict::Judged& judged) {
  json reasons = json::object();
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.cases > 0) reasons[framework][device] = tally.reasons;
    }
  }
  return reasons;
}

// Cases that work on one device and not another (schema 1.9).
json gaps_to_json(const verdict::Judged& judged) {
  json out = json::array();
  for (const auto& g : judged.gaps) {
    out.push_back({{"framework", g.framework},
                   {"function", g.function},
                   {"case", g.case_id},
                   {"device", g.device},
                   {"works_on", g.works_on},
                   {"what", g.what},
                   {"reason", g.reason}});
  }
  return out;
}

// Failing cases whose other lane never ran them (schema 1.10).
json unreached_to_json(const verdict::Judged& judged) {
  json out = json::array();
  for (const auto& u : judged.unreached) {
    out.push_back({{"framework", u.framework},
                   {"device", u.device},
                   {"other", u.other},
                   {"cases", u.cases},
                   {"example", u.example}});
  }
  return out;
}

// Host fallback and recompilation per (framework, function, device)
// (verdict/fallback.hpp).
json fallbacks_to_json(const verdict::Judged& judged) {
  json out = json::array();
  for (const auto& f : judged.fallbacks) {
    out.push_back({{"framework", f.framework},
                   {"function", f.function},
                   {"device", f.device},
                   {"cases", f.cases},
                   {"kinds", f.kinds},
                   {"ops", f.ops},
                   {"recompiling", f.recompiling}});
  }
  return out;
}

json run_to_json(const model::RunInfo& run) {
  return {
      {"id", run.id},
      {"suite", run.suite},
      {"state", run.state},
      {"created_at", run.created_at},
      {"finished_at", run.finished_at},
      {"baseline", run.baseline},
      {"options", run.options.is_null() ? json::object() : run.options},
  };
}

// framework -> device -> {agrees, claimed_failing: [...], unclaimed_working: [...]} (1.7).
json claims_to_json(const verdict::Judged& judged) {
  const auto row = [](const verdict::ClaimRow* r) {
    json j = {{"function", r->function}, {"dtype", r->dtype},
              {"ran", r->ran},           {"failed", r->failed},
              {"case", r->case_id},      {"source", verdict::to_string(r->source)}};
    if (!r->error.empty()) j["error"] = r->error;
    return j;
  };
  json out = json::object();
  for (const auto& [framework, by_device] : verdict::tally(judged.claims)) {
    for (const auto& [device, t] : by_device) {
      json failing = json::array();
      json working = json::array();
      for (const auto* r : t.claimed_failing) failing.push_back(row(r));
      for (const auto* r : t.unclaimed_working) working.push_back(row(r));
      out[framework][device] = {{"agrees", t.agrees},
                                {"claimed_failing", std::move(failing)},
                                {"unclaimed_working", std::move(working)}};
    }
  }
  return out;
}

// framework -> the registry's prediction against outcomes (1.7): the device
// type observed, agreements, both kinds of disagreement, and per device type
// never observed the cases predicted to lack a kernel there.
json kernels_to_json(const verdict::Judged& judged) {
  const auto row = [](const verdict::KernelRow* r) {
    json missing = json::object();
    for (const auto& [type, ops] : r->missing) {
      if (!ops.empty()) missing[type] = ops;
    }
    json j = {{"function", r->function},
              {"dtype", r->dtype},
              {"case", r->case_id},
              {"device", r->device},
              {"outcome", model::to_string(r->outcome)},
              {"missing", std::move(missing)}};
    if (!r->error.empty()) j["error"] = r->error;
    return j;
  };
  const auto rows = [&](const std::vector<const verdict::KernelRow*>& list) {
    json a = json::array();
    for (const auto* r : list) a.push_back(row(r));
    return a;
  };
  json out = json::object();
  for (const auto& [framework, t] : verdict::kernel_tally(judged.kernels)) {
    json unobserved = json::object();
    for (const auto& [type, list] : t.unobserved_missing) unobserved[type] = rows(list);
    out[framework] = {{"cases", t.cases},
                      {"agree", t.agree},
                      {"predicted_missing_ran", rows(t.predicted_missing_ran)},
                      {"predicted_present_failed", rows(t.predicted_present_failed)},
                      {"unobserved_missing", std::move(unobserved)}};
  }
  return out;
}

json ratio_to_json(const verdict::CaseRatio* q) {
  if (q == nullptr) return nullptr;
  return {{"baseline", q->baseline},
          {"ratio", number(q->ratio)},
          {"low", q->low ? number(*q->low) : json(nullptr)},
          {"high", q->high ? number(*q->high) : json(nullptr)}};
}

}  // namespace

json to_json(const verdict::Judged& judged) {
  json doc = json::object();
  doc["schema_version"] = model::kResultsSchemaVersion;
  doc["run"] = run_to_json(judged.run);
  doc["environment"] = judged.run.environment.is_null() ? json::object() : judged.run.environment;
  json cs = json::array();
  for (size_t i = 0; i < judged.cases.size(); ++i) {
    const auto& r = judged.cases[i];
    json c = case_to_json(r);
    c["latency_ratio"] = ratio_to_json(judged.ratio_of(r));
    c["checked"] = model::to_string(judged.checked[i]);
    c["refusal"] = refusal_to_json(judged.refusals[i]);
    cs.push_back(std::move(c));
  }
  doc["cases"] = std::move(cs);
  json vs = json::array();
  for (const auto& v : judged.verdicts) vs.push_back(verdict_to_json(v));
  doc["verdicts"] = std::move(vs);
  doc["counts"] = counts_to_json(judged);
  doc["reasons"] = reasons_to_json(judged);
  doc["portability_gaps"] = gaps_to_json(judged);
  doc["gaps_unreached"] = unreached_to_json(judged);
  if (!judged.claims.empty()) doc["claims"] = claims_to_json(judged);
  if (!judged.kernels.empty()) doc["kernels"] = kernels_to_json(judged);
  if (!judged.fallbacks.empty()) doc["host_fallback"] = fallbacks_to_json(judged);
  if (auto rows = model_rows(judged.cases); !rows.empty()) doc["models"] = models_to_json(rows);
  return doc;
}

Results from_json(const json& doc, std::string_view source) {
  const std::string src(source);
  if (!doc.is_object()) {
    throw FatalError(src + " is not a MudJack results document");
  }
  auto sv = doc.find("schema_version");
  if (sv == doc.end() || !sv->is_string()) {
    throw FatalError(src + " has no schema_version");
  }
  std::string version = sv->get<std::string>();
  auto parsed = model::parse_schema_version(version);
  if (!parsed) {
    throw FatalError(src + " has an unreadable schema_version '" + version + "'");
  }
  if (parsed->first != my_major()) {
    throw FatalError(src + " has schema " + version + "; this mudjack reads " +
                     std::to_string(my_major()) + ".x");
  }

  Results out;
  out.schema_version = version;
  std::string where = "run";
  try {
    const json& run = sub(doc, "run");
    out.run.id = str(run, "id");
    out.run.suite = str(run, "suite");
    out.run.state = str(run, "state");
    out.run.created_at = str(run, "created_at");
    out.run.finished_at = str(run, "finished_at");
    out.run.baseline = str(run, "baseline");
    out.run.options = object_or(run, "options", json::object());
    out.run.environment = object_or(doc, "environment", json::object());

    if (auto it = doc.find("cases"); it != doc.end() && !it->is_null()) {
      size_t index = 0;
      std::map<std::pair<std::string, std::string>, size_t> seen;  // (case, device) -> index
      for (const auto& c : *it) {
        where = "cases[" + std::to_string(index) + "]";
        out.cases.push_back(case_from_json(c, out.run.id, source));
        const auto& r = out.cases.back();
        auto [at, fresh] = seen.emplace(std::pair{r.info.id, r.device}, index);
        if (!fresh) {
          throw FatalError(src + ": cases[" + std::to_string(index) + "] repeats case " +
                           r.info.id + " on " + r.device + " (cases[" + std::to_string(at->second) +
                           "]); a run has one outcome per case and device");
        }
        ++index;
      }
    }
    if (auto it = doc.find("verdicts"); it != doc.end() && !it->is_null()) {
      size_t index = 0;
      for (const auto& v : *it) {
        where = "verdicts[" + std::to_string(index++) + "]";
        out.verdicts.push_back(verdict_from_json(v, source));
      }
    }
  } catch (const json::exception& e) {
    throw FatalError(src + ": bad " + where + ": " + e.what());
  }
  return out;
}

namespace {

// The most a results.json may hold, plain or inflated: 3 times the largest
// MudJack has written (the opinfo surface on an H100, 85 MB), far below what a
// crafted file inflates to (972 KB of gzip were 1 GB).
constexpr size_t kMaxResultsBytes = size_t{256} << 20;

std::string too_large(const std::string& source) {
  return source + " holds more than " + std::to_string(kMaxResultsBytes >> 20) +
         " MiB of JSON; no results.json is that large";
}

std::string gunzip(const std::string& data, const std::string& source) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw FatalError(source + ": zlib would not start");
  std::string out;
  std::array<char, 1 << 16> chunk{};
  // zlib's API takes a mutable pointer; it only reads the input.
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));  // NOLINT
  z.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());  // NOLINT
    z.avail_out = chunk.size();
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why =
          z.msg != nullptr ? z.msg : (rc == Z_BUF_ERROR ? "truncated" : "corrupt");
      inflateEnd(&z);
      throw FatalError(source + " is not valid gzip: " + why);
    }
    out.append(chunk.data(), chunk.size() - z.avail_out);
    if (out.size() > kMaxResultsBytes) {
      inflateEnd(&z);
      throw FatalError(too_large(source) + " (inflated)");
    }
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

Results load_json(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw FatalError("cannot read " + file.string());
  }
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(file, ec); !ec && size > kMaxResultsBytes) {
    throw FatalError(too_large(file.string()));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  // Published runs are gzip-compressed (results.json.gz): read them as they are.
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
      static_cast<unsigned char>(text[1]) == 0x8b) {
    text = gunzip(text, file.string());
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw FatalError(file.string() + " is not valid JSON: " + e.what());
  }
  return from_json(doc, file.string());
}

}  // namespace mudjack::report
