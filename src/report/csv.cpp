#include "report/csv.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include "report/capability.hpp"
#include "report/text.hpp"
#include "verdict/fallback.hpp"

namespace mudjack::report {
namespace {

// Non-finite values are written as pandas and Python's float() read them:
// an infinite error (a non-finite miss) is "inf", never an empty cell, which
// means nothing was compared.
std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string num(int64_t v) {
  return std::to_string(v);
}

template <typename T>
std::string num(const std::optional<T>& v) {
  return v ? num(*v) : std::string();
}

}  // namespace

std::string csv_field(std::string_view raw) {
  std::string value = valid_utf8(raw);
  if (value.find_first_of(",\"\r\n") == std::string::npos) {
    return value;
  }
  std::string out;
  out.reserve(value.size() + 2);
  out += '"';
  for (char c : value) {
    if (c == '"') {
      out += '"';
    }
    out += c;
  }
  out += '"';
  return out;
}

std::string to_csv(const std::vector<model::CaseResult>& cases,
                   const std::vector<model::Check>& checked,
                   const std::vector<verdict::RefusalOf>& refusals) {
  std::string out;
  const auto row = [&out](const auto& fields) {
    bool first = true;
    for (const auto& f : fields) {
      if (!first) {
        out += ',';
      }
      first = false;
      out += csv_field(f);
    }
    out += "\r\n";
  };
  row(kCsvColumns);
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& r = cases[i];
    const auto& s = r.latency.stats;
    const std::string check = i < checked.size() && r.outcome == model::Outcome::kPass
                                  ? std::string(model::to_string(checked[i]))
                                  : "";
    auto tp = throughput_of(r);
    const auto& t = s ? r.latency.timing : std::nullopt;
    const auto fallback = verdict::case_fallback(r);
    const auto warm = verdict::warm_compiles(r);
    const verdict::RefusalOf none;
    const auto& why = i < refusals.size() ? refusals[i] : none;
    const bool refused = why.refusal != model::Refusal::kNone;
    const std::array<std::string, kCsvColumns.size()> fields = {
        r.run_id,
        r.info.id,
        r.info.framework,
        r.info.function,
        r.info.variant,
        r.device,
        r.info.dtype,
        r.info.shape,
        r.info.mode,
        std::string(model::to_string(r.outcome)),
        std::string(model::to_string(r.error.kind)),
        r.error.message,
        num(r.latency.cold_ns),
        s ? num(s->median_ns) : "",
        s ? num(s->p10_ns) : "",
        s ? num(s->p90_ns) : "",
        s ? num(s->n) : "",
        num(r.memory.peak_device_bytes),
        num(r.memory.peak_host_bytes),
        num(r.numeric.max_abs_err),
        num(r.numeric.max_rel_err),
        num(r.numeric.error_eps),
        num(r.numeric.bound_eps),
        std::string(model::to_string(r.numeric.cause)),
        check,
        r.work ? num(r.work->amount) : "",
        r.work ? r.work->unit : "",
        tp ? num(tp->per_s) : "",
        tp ? tp->unit : "",
        metrics_text(r.metrics),
        r.info.params.is_object() && !r.info.params.empty() ? r.info.params.dump() : "",
        t ? std::string(t->unstable ? "true" : "false") : "",
        t ? num(t->spread) : "",
        fallback ? verdict::describe(*fallback) : "",
        warm ? num(static_cast<int64_t>(*warm)) : "",
        std::string(model::to_string(why.refusal)),
        std::string(model::to_string(why.source)),
        refused ? std::string(why.documented ? "true" : "false") : "",
    };
    row(fields);
  }
  return out;
}

}  // namespace mudjack::report
