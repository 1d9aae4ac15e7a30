// Rows to the model and back (src/store/internal.hpp): runs, case
// metadata, results and leases as SQLite reads and binds them.

#include "store/internal.hpp"

#include <limits>

#include "util/error.hpp"

namespace mudjack::store::detail {
namespace {

using nlohmann::json;
using util::FatalError;

json output_to_json(const model::OutputRef& o) {
  return {{"path", o.path}, {"dtype", o.dtype}, {"saved_dtype", o.saved_dtype}, {"shape", o.shape}};
}

model::OutputRef output_from_json(const json& j) {
  model::OutputRef o;
  o.path = j.value("path", "");
  o.dtype = j.value("dtype", "");
  o.saved_dtype = j.value("saved_dtype", "");
  if (j.contains("shape")) {
    o.shape = j.at("shape").get<std::vector<int64_t>>();
  }
  return o;
}

// Columns 3-9: the outcome and its error.
void outcome_from_row(const Statement& q, const std::filesystem::path& path,
                      const std::string& case_id, model::CaseResult& r) {
  std::string outcome = q.col_text(3);
  auto o = model::parse_outcome(outcome);
  if (!o) {
    throw FatalError(path.string() + ": stored result " + case_id + " has unknown outcome '" +
                     outcome + "'");
  }
  r.outcome = *o;
  std::string kind = q.col_text(4);
  auto k = model::parse_error_kind(kind);
  if (!k) {
    throw FatalError(path.string() + ": stored result " + case_id + " has unknown error kind '" +
                     kind + "'");
  }
  r.error.kind = *k;
  r.error.message = q.col_text(5);
  if (!q.is_null(6)) {
    r.error.signal = static_cast<int>(q.col_int64(6));
  }
  if (!q.is_null(7)) {
    r.error.exit_code = static_cast<int>(q.col_int64(7));
  }
  r.error.stderr_tail = q.col_text(8);
  r.error.traceback = q.col_text(9);
}

// Columns 10-21: cold time, samples and their statistics (all NULL, n
// included, when there were no samples).
void latency_from_row(const Statement& q, model::CaseResult& r) {
  r.latency.cold_ns = q.col_opt_int64(10);
  json samples = q.col_json(11, "samples");
  if (samples.is_array()) {
    r.latency.samples_ns.reserve(samples.size());
    // NaN samples were dumped as null; keep the count honest.
    for (const auto& s : samples) {
      r.latency.samples_ns.push_back(s.is_number() ? s.get<double>()
                                                   : std::numeric_limits<double>::quiet_NaN());
    }
  }
  r.latency.calls_per_sample = q.col_int64(12);
  if (q.is_null(21)) {
    return;
  }
  model::LatencyStats s;
  s.median_ns = q.col_real_or_nan(13);
  s.p10_ns = q.col_real_or_nan(14);
  s.p90_ns = q.col_real_or_nan(15);
  s.iqr_ns = q.col_real_or_nan(16);
  s.mean_ns = q.col_real_or_nan(17);
  s.stddev_ns = q.col_real_or_nan(18);
  s.cv = q.col_real_or_nan(19);
  s.min_ns = q.col_real_or_nan(20);
  s.n = q.col_int64(21);
  r.latency.stats = s;
}

// Columns 28-34: output files, extras, times, work and metrics.
void rest_from_row(const Statement& q, const std::filesystem::path& path,
                   const std::string& case_id, model::CaseResult& r) {
  json outputs = q.col_json(28, "outputs");
  if (outputs.is_array()) {
    try {
      for (const auto& o : outputs) {
        r.outputs.push_back(output_from_json(o));
      }
    } catch (const json::exception& e) {
      throw FatalError(path.string() + ": stored outputs of " + case_id +
                       " are malformed: " + e.what());
    }
  }
  json extra = q.col_json(29, "extra");
  r.extra = extra.is_null() ? json::object() : extra;
  r.started_at = q.col_text(30);
  r.finished_at = q.col_text(31);
  r.wall_s = q.col_real(32);
  r.work = model::work_from_json(q.col_json(33, "work"));
  r.metrics = model::metrics_from_json(q.col_json(34, "metrics"));
  model::accuracy_from_json(q.col_json(35, "accuracy"), r.numeric);
  r.latency.timing = model::timing_from_json(q.col_json(36, "timing"));
}

std::optional<int64_t> opt_int(std::optional<int> v) {
  if (v) return *v;
  return std::nullopt;
}

}  // namespace

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

model::RunInfo run_from_row(const Statement& q) {
  model::RunInfo r;
  r.id = q.col_text(0);
  r.suite = q.col_text(1);
  r.state = q.col_text(2);
  r.created_at = q.col_text(3);
  r.finished_at = q.col_text(4);
  r.baseline = q.col_text(5);
  r.options = q.col_json(6, "run options");
  if (r.options.is_null()) {
    r.options = json::object();
  }
  r.environment = q.col_json(7, "run environment");
  if (r.environment.is_null()) {
    r.environment = json::object();
  }
  return r;
}

void case_from_row(const Statement& q, int first, model::CaseInfo& c) {
  int i = first;
  c.id = q.col_text(i++);
  c.framework = q.col_text(i++);
  c.function = q.col_text(i++);
  c.variant = q.col_text(i++);
  c.dtype = q.col_text(i++);
  c.shape = q.col_text(i++);
  c.mode = q.col_text(i++);
  c.compiler = q.col_text(i++);
  json params = q.col_json(i++, "case params");
  c.params = params.is_null() ? json::object() : params;
  json req = q.col_json(i++, "case requires");
  c.requires_ = req.is_null() ? json::object() : req;
  json dims = q.col_json(i++, "case dims");
  c.dims = dims.is_null() ? json::array() : dims;
  c.note = q.col_text(i++);
  c.successor = q.col_text(i++);
  c.rtol = q.col_opt_real(i++);
  c.atol = q.col_opt_real(i++);
  json tags = q.col_json(i++, "case tags");
  if (tags.is_array()) {
    c.tags = tags.get<std::vector<std::string>>();
  }
  model::oracle_meta_from_json(q.col_json(i++, "case oracle"), c);
}

model::CaseResult result_from_row(const Statement& q, const std::filesystem::path& path) {
  model::CaseResult r;
  r.run_id = q.col_text(0);
  std::string case_id = q.col_text(1);
  r.device = q.col_text(2);
  outcome_from_row(q, path, case_id, r);
  latency_from_row(q, r);
  r.memory.peak_device_bytes = q.col_opt_int64(22);
  r.memory.peak_host_bytes = q.col_opt_int64(23);
  r.numeric.max_abs_err = q.col_opt_real(24);
  r.numeric.max_rel_err = q.col_opt_real(25);
  r.numeric.compared_with = q.col_text(26);
  r.numeric.message = q.col_text(27);
  rest_from_row(q, path, case_id, r);
  if (q.is_null(kResultColumnCount)) {
    // No stored metadata (cannot happen through record()); keep the id.
    r.info.id = case_id;
  } else {
    case_from_row(q, kResultColumnCount, r.info);
  }
  return r;
}

void upsert_case(Statement& q, const std::string& run_id, const model::CaseInfo& c) {
  q.reset();
  q.text(1, run_id)
      .text(2, c.id)
      .text(3, c.framework)
      .text(4, c.function)
      .text(5, c.variant)
      .text(6, c.dtype)
      .text(7, c.shape)
      .text(8, c.mode)
      .text(9, c.compiler)
      .text(10, dump(c.params))
      .text(11, dump(c.requires_))
      .text(12, dump(c.dims))
      .text(13, c.note)
      .text(14, c.successor)
      .opt_real(15, c.rtol)
      .opt_real(16, c.atol)
      .text(17, dump(json(c.tags)))
      .text(18, dump(model::oracle_meta_to_json(c)));
  q.run();
}

void bind_result(Statement& q, const model::CaseResult& r) {
  json outputs = json::array();
  for (const auto& o : r.outputs) outputs.push_back(output_to_json(o));
  q.text(1, r.run_id)
      .text(2, r.info.id)
      .text(3, r.device)
      .text(4, model::to_string(r.outcome))
      .text(5, model::to_string(r.error.kind))
      .text(6, r.error.message)
      .opt_int64(7, opt_int(r.error.signal))
      .opt_int64(8, opt_int(r.error.exit_code))
      .text(9, r.error.stderr_tail)
      .text(10, r.error.traceback)
      .opt_int64(11, r.latency.cold_ns)
      .text(12, dump(json(r.latency.samples_ns)))
      .int64(13, r.latency.calls_per_sample);
  if (const auto& s = r.latency.stats) {
    q.real(14, s->median_ns)
        .real(15, s->p10_ns)
        .real(16, s->p90_ns)
        .real(17, s->iqr_ns)
        .real(18, s->mean_ns)
        .real(19, s->stddev_ns)
        .real(20, s->cv)
        .real(21, s->min_ns)
        .int64(22, s->n);
  } else {
    for (int i = 14; i <= 22; ++i) q.null(i);
  }
  q.opt_int64(23, r.memory.peak_device_bytes)
      .opt_int64(24, r.memory.peak_host_bytes)
      .opt_real(25, r.numeric.max_abs_err)
      .opt_real(26, r.numeric.max_rel_err)
      .text(27, r.numeric.compared_with)
      .text(28, r.numeric.message)
      .text(29, dump(outputs))
      .text(30, dump(r.extra))
      .text(31, r.started_at)
      .text(32, r.finished_at)
      .real(33, r.wall_s)
      .text(34, dump(model::work_to_json(r.work)))
      .text(35, dump(model::metrics_to_json(r.metrics)))
      .text(36, dump(model::accuracy_to_json(r.numeric)))
      .text(37, dump(model::timing_to_json(r.latency.timing)));
}

Lease lease_from_row(const Statement& q) {
  Lease l;
  l.run_id = q.col_text(0);
  l.host = q.col_text(1);
  l.pid = q.col_int64(2);
  l.process_start = q.col_text(3);
  l.acquired_at = q.col_text(4);
  l.heartbeat_at = q.col_text(5);
  l.heartbeat_unix_ms = q.col_int64(6);
  return l;
}

}  // namespace mudjack::store::detail
