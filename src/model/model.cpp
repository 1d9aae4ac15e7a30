#include "model/model.hpp"

#include "model/extra.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace mudjack::model {
namespace {

template <typename E, size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view s) {
  for (const auto& [e, name] : table) {
    if (name == s) return e;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<Outcome, std::string_view>, 8> kOutcomeNames{{
    {Outcome::kPass, "pass"},
    {Outcome::kFail, "fail"},
    {Outcome::kMismatch, "mismatch"},
    {Outcome::kCrash, "crash"},
    {Outcome::kTimeout, "timeout"},
    {Outcome::kUnavailable, "unavailable"},
    {Outcome::kSkip, "skip"},
    {Outcome::kError, "error"},
}};

constexpr std::array<std::pair<ErrorKind, std::string_view>, 8> kErrorKinds{{
    {ErrorKind::kNone, ""},
    {ErrorKind::kNotImplemented, "not_implemented"},
    {ErrorKind::kUnsupportedDtype, "unsupported_dtype"},
    {ErrorKind::kTypeError, "type_error"},
    {ErrorKind::kOutOfMemory, "out_of_memory"},
    {ErrorKind::kDeviceError, "device_error"},
    {ErrorKind::kNondeterministic, "nondeterministic"},
    {ErrorKind::kOther, "other"},
}};

constexpr std::array<std::pair<Verdict, std::string_view>, 7> kVerdictNames{{
    {Verdict::kUnavailable, "unavailable"},
    {Verdict::kCompleteFailure, "complete_failure"},
    {Verdict::kPartialFailure, "partial_failure"},
    {Verdict::kDivergent, "divergent"},
    {Verdict::kIntolerableLatency, "intolerable_latency"},
    {Verdict::kUnverified, "unverified"},
    {Verdict::kPortable, "portable"},
}};

constexpr std::array<std::pair<Check, std::string_view>, 5> kCheckNames{{
    {Check::kNone, "none"},
    {Check::kReference, "reference"},
    {Check::kProperty, "property"},
    {Check::kBaseline, "baseline"},
    {Check::kFloat64, "float64"},
}};

constexpr std::array<std::pair<Cause, std::string_view>, 6> kCauseNames{{
    {Cause::kNone, ""},
    {Cause::kFullPrecision, "full_precision"},
    {Cause::kPrecisionDefault, "precision_default"},
    {Cause::kBaselineWrong, "baseline_wrong"},
    {Cause::kOwnCheck, "own_check"},
    {Cause::kUnstableModel, "unstable_model"},
}};

constexpr std::array<std::pair<Refusal, std::string_view>, 3> kRefusalNames{{
    {Refusal::kNone, ""},
    {Refusal::kUnsupported, "unsupported"},
    {Refusal::kKernelMissing, "kernel_missing"},
}};

constexpr std::array<std::pair<RefusalSource, std::string_view>, 5> kRefusalSourceNames{{
    {RefusalSource::kNone, ""},
    {RefusalSource::kOpDatabase, "op_database"},
    {RefusalSource::kKernelRegistry, "kernel_registry"},
    {RefusalSource::kTypeRule, "type_rule"},
    {RefusalSource::kMessage, "message"},
}};

// The flags' relations (model.hpp, props): for an outcome as for a verdict,
// failed is failure && !ran and attempted is ran || failure; nothing fine is
// a failure; a case outside every verdict (judged false) was not attempted.
constexpr bool flags_agree() {
  for (const Outcome o : kOutcomes) {
    const OutcomeProps p = props(o);
    if (p.failed != (p.failure && !p.ran) || p.attempted != (p.ran || p.failure) ||
        (p.fine && p.failure) || (p.attempted && !p.judged)) {
      return false;
    }
  }
  for (const Verdict v : kVerdicts) {
    const VerdictProps p = props(v);
    if (p.failed != (p.failure && !p.ran) || p.attempted != (p.ran || p.failure)) return false;
  }
  return true;
}
static_assert(flags_agree(), "outcome or verdict flags contradict each other");

}  // namespace

std::string_view to_string(Cause c) {
  return name_of(kCauseNames, c);
}
std::optional<Cause> parse_cause(std::string_view s) {
  return value_of(kCauseNames, s);
}
std::string_view to_string(Check c) {
  return name_of(kCheckNames, c);
}
std::string modes_text() {
  std::string out;
  for (size_t i = 0; i < kModes.size(); ++i) {
    if (i > 0) out += i + 1 == kModes.size() ? " or " : ", ";
    out += kModes[i];
  }
  return out;
}

std::optional<Check> parse_check(std::string_view s) {
  return value_of(kCheckNames, s);
}
std::string_view to_string(Refusal r) {
  return name_of(kRefusalNames, r);
}
std::string_view to_string(RefusalSource s) {
  return name_of(kRefusalSourceNames, s);
}
std::optional<Refusal> parse_refusal(std::string_view s) {
  return value_of(kRefusalNames, s);
}
std::optional<RefusalSource> parse_refusal_source(std::string_view s) {
  return value_of(kRefusalSourceNames, s);
}
std::string_view to_string(Outcome o) {
  return name_of(kOutcomeNames, o);
}
std::string_view to_string(ErrorKind k) {
  return name_of(kErrorKinds, k);
}
std::string_view to_string(Verdict v) {
  return name_of(kVerdictNames, v);
}
std::optional<Outcome> parse_outcome(std::string_view s) {
  return value_of(kOutcomeNames, s);
}
std::optional<ErrorKind> parse_error_kind(std::string_view s) {
  return value_of(kErrorKinds, s);
}
std::optional<Verdict> parse_verdict(std::string_view s) {
  return value_of(kVerdictNames, s);
}

std::optional<std::pair<int, int>> parse_schema_version(std::string_view v) {
  auto dot = v.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == v.size()) return std::nullopt;
  int major = 0;
  int minor = 0;
  auto a = std::from_chars(v.data(), v.data() + dot, major);
  auto b = std::from_chars(v.data() + dot + 1, v.data() + v.size(), minor);
  if (a.ec != std::errc() || a.ptr != v.data() + dot || b.ec != std::errc() ||
      b.ptr != v.data() + v.size() || major < 0 || minor < 0) {
    return std::nullopt;
  }
  return std::pair{major, minor};
}

namespace {

nlohmann::json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<double> number_or_inf(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string() && it->get<std::string>() == "inf") {
    return std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> extra_output_paths(const CaseResult& r, std::string_view key) {
  std::vector<std::string> paths;
  auto it = r.extra.find(key);
  if (it == r.extra.end() || !it->is_object()) return paths;
  auto outs = it->find("outputs");
  if (outs == it->end() || !outs->is_array()) return paths;
  for (const auto& o : *outs) {
    paths.push_back(o.is_object() && o.contains("path") && o["path"].is_string()
                        ? o["path"].get<std::string>()
                        : std::string());
  }
  return paths;
}

namespace {
constexpr std::string_view kOnTheHost = " on the host";
}  // namespace

namespace {
// The trusted reference's name from r's extra, empty when it has none.
std::string trusted_name(const CaseResult& r) {
  auto it = r.extra.find("reference");
  if (it == r.extra.end() || !it->is_object()) return {};
  auto trusted = it->find("trusted");
  return trusted != it->end() && trusted->is_string() ? trusted->get<std::string>() : std::string();
}
}  // namespace

std::string reference_name(const CaseResult& r, const std::string& device) {
  const auto trusted = trusted_name(r);
  return trusted.empty() ? "float64 on " + device : trusted + std::string(kOnTheHost);
}

bool extra_trusted(const CaseResult& r) {
  return !trusted_name(r).empty();
}

bool trusted_reference(const Numeric& n) {
  return n.reference.ends_with(kOnTheHost);
}

nlohmann::json accuracy_to_json(const Numeric& n) {
  // A non-finite error (a NaN where the reference is finite) is written "inf".
  auto error = [](const std::optional<double>& v) {
    return v && std::isinf(*v) ? nlohmann::json("inf") : optional_number(v);
  };
  return {{"reference", n.reference},
          {"max_abs_err", error(n.max_abs_err)},
          {"max_rel_err", error(n.max_rel_err)},
          {"error_eps", error(n.error_eps)},
          {"baseline_error_eps", error(n.baseline_error_eps)},
          {"bound_eps", optional_number(n.bound_eps)},
          {"cause", to_string(n.cause)},
          {"setting", n.setting}};
}

void accuracy_from_json(const nlohmann::json& j, Numeric& n) {
  if (!j.is_object()) return;
  n.reference = j.value("reference", "");
  // Older records keep these beside the accuracy fields (store columns,
  // results.json before 1.9 wrote them as numbers or null): read them only
  // where they are written here.
  if (j.contains("max_abs_err")) n.max_abs_err = number_or_inf(j, "max_abs_err");
  if (j.contains("max_rel_err")) n.max_rel_err = number_or_inf(j, "max_rel_err");
  n.error_eps = number_or_inf(j, "error_eps");
  n.baseline_error_eps = number_or_inf(j, "baseline_error_eps");
  n.bound_eps = number_or_inf(j, "bound_eps");
  n.cause = parse_cause(j.value("cause", "")).value_or(Cause::kNone);
  n.setting = j.value("setting", "");
}

nlohmann::json oracle_meta_to_json(const CaseInfo& c) {
  nlohmann::json j = {
      {"reduction", c.reduction ? nlohmann::json(*c.reduction) : nlohmann::json(nullptr)},
      {"excused", c.excused.is_object() ? c.excused : nlohmann::json::object()},
      {"grid", c.grid}};
  // Written only when they say something, so the paper suite's records keep
  // their size; a reader takes the defaults when they are absent.
  if (c.policy != "timed") j["policy"] = c.policy;
  if (c.claims.is_object() && !c.claims.empty()) j["claims"] = c.claims;
  return j;
}

void oracle_meta_from_json(const nlohmann::json& j, CaseInfo& c) {
  if (!j.is_object()) return;
  if (auto it = j.find("reduction"); it != j.end() && it->is_number_integer()) {
    c.reduction = it->get<int64_t>();
  }
  if (auto it = j.find("excused"); it != j.end() && it->is_object()) c.excused = *it;
  c.grid = j.value("grid", false);
  c.policy = policy_from_json(j);
  c.claims = claims_from_json(j);
}

std::string policy_from_json(const nlohmann::json& j) {
  auto it = j.find("policy");
  if (it == j.end() || !it->is_string()) return "timed";
  const auto p = it->get<std::string>();
  return is_policy(p) ? p : "timed";
}

nlohmann::json claims_from_json(const nlohmann::json& j) {
  nlohmann::json out = nlohmann::json::object();
  auto it = j.find("claims");
  if (it == j.end() || !it->is_object()) return out;
  for (const auto& [kind, claimed] : it->items()) {
    if (claimed.is_boolean()) out[kind] = claimed;
  }
  return out;
}

namespace {

nlohmann::json opt_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<double> number_at(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

std::vector<double> numbers_at(const nlohmann::json& j, const char* key) {
  std::vector<double> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& x : *it) {
    if (x.is_number()) out.push_back(x.get<double>());
  }
  return out;
}

}  // namespace

nlohmann::json timing_to_json(const std::optional<Timing>& t) {
  if (!t) return nullptr;
  return {
      {"bound", t->bound},
      {"rule", t->rule},
      {"wall_ns", opt_number(t->wall_ns)},
      {"enqueue_ns", opt_number(t->enqueue_ns)},
      {"device_ns", opt_number(t->device_ns)},
      {"rounds", t->rounds_ns},
      {"spread", std::isfinite(t->spread) ? nlohmann::json(t->spread) : nlohmann::json(nullptr)},
      {"unstable", t->unstable},
      {"drift_ns", t->drift_ns},
      {"steal", opt_number(t->steal)},
      {"load", opt_number(t->load)},
      {"gpu", t->sm_clock_mhz || !t->throttle.empty()
                  ? nlohmann::json{{"sm_clock_mhz", opt_number(t->sm_clock_mhz)},
                                   {"throttle", t->throttle}}
                  : nlohmann::json(nullptr)}};
}

std::optional<Timing> timing_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  Timing t;
  t.bound = j.value("bound", "");
  t.rule = j.value("rule", "");
  t.wall_ns = number_at(j, "wall_ns");
  t.enqueue_ns = number_at(j, "enqueue_ns");
  t.device_ns = number_at(j, "device_ns");
  t.rounds_ns = numbers_at(j, "rounds");
  t.spread = number_at(j, "spread").value_or(0);
  t.unstable = j.value("unstable", false);
  t.drift_ns = numbers_at(j, "drift_ns");
  t.steal = number_at(j, "steal");
  t.load = number_at(j, "load");
  if (auto g = j.find("gpu"); g != j.end() && g->is_object()) {
    t.sm_clock_mhz = number_at(*g, "sm_clock_mhz");
    if (auto th = g->find("throttle"); th != g->end() && th->is_array()) {
      for (const auto& x : *th) {
        if (x.is_string()) t.throttle.push_back(x.get<std::string>());
      }
    }
  }
  return t;
}

}  // namespace mudjack::model
