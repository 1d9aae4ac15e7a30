#include "portability/join.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "stats/timing.hpp"
#include "util/error.hpp"
#include "verdict/refusal.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::portability {
namespace {

using nlohmann::json;
using util::FatalError;

constexpr std::string_view kAten = "aten.";

size_t index_of(Status s) {
  return static_cast<size_t>(s);
}
size_t index_of(Prediction p) {
  return static_cast<size_t>(p);
}
size_t index_of(Actual a) {
  return static_cast<size_t>(a);
}

// A case of the opinfo suite: torch's, tagged "opinfo" (suites/opinfo/torch.py).
bool opinfo_case(const model::CaseResult& r) {
  return r.info.framework == "torch" &&
         std::find(r.info.tags.begin(), r.info.tags.end(), "opinfo") != r.info.tags.end();
}

bool counts_as_failing(Status s) {
  return s == Status::kFailing || s == Status::kPartial;
}

// A case's eager aten histogram: its metrics "op:aten.<op>" (the probe's
// models.py and checking.py), keyed "aten.<op>"; other op: metrics (a jaxpr's
// primitives) are no aten ops.
std::map<std::string, int64_t> aten_histogram(const model::CaseResult& r) {
  constexpr std::string_view kMetric = "op:";
  std::map<std::string, int64_t> ops;
  for (const auto& [name, metric] : r.metrics) {
    if (!name.starts_with("op:aten.") || !metric.value || !std::isfinite(*metric.value)) continue;
    ops[name.substr(kMetric.size())] = static_cast<int64_t>(*metric.value);
  }
  return ops;
}

// One entry of the manifest; FatalError naming `src` when it is not one.
Entry entry_of(const json& r, const std::string& src) {
  if (!r.is_object() || !r.contains("name") || !r["name"].is_string()) {
    throw FatalError(src + ": an entry of \"ops\" has no name");
  }
  Entry e;
  e.name = r["name"].get<std::string>();
  const std::string variant = r.value("variant", std::string());
  e.function = variant.empty() ? e.name : e.name + "." + variant;
  const auto at = r.find("aten_name");
  if (at == r.end() || !at->is_string()) {
    throw FatalError(src + ": entry " + e.function +
                     " has no aten_name (a manifest written before it was recorded: run "
                     "scripts/update-opinfo-manifest.py --names-only with the torch "
                     "environment's python)");
  }
  e.aten_name = at->get<std::string>();
  if (const auto al = r.find("aliases"); al != r.end() && al->is_array()) {
    for (const auto& a : *al) {
      if (a.is_string()) e.aliases.push_back(a.get<std::string>());
    }
  }
  return e;
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Rule 4's prediction from the statuses of a model's ops.
Prediction predict(const std::set<Status>& seen) {
  if (seen.contains(Status::kFailing)) return Prediction::kFail;
  if (seen.contains(Status::kPartial)) return Prediction::kRisk;
  if (seen.size() == 1 && seen.contains(Status::kPortable)) return Prediction::kFine;
  return Prediction::kUnknown;
}

Actual actual_of(model::Outcome o) {
  const auto p = model::props(o);
  if (!p.attempted) return Actual::kNotRun;
  return p.fine ? Actual::kFine : Actual::kNotFine;
}

OpStatus op_status(const std::string& op, const std::string& device, const std::string& dtype,
                   const Mapper& mapper, const Surface& surface) {
  const Mapping m = mapper.map(op);
  if (m.functions.empty()) {
    OpStatus s;
    s.status = Status::kUnmapped;
    s.why = "no OpInfo entry";
    return s;
  }
  Evidence pooled;
  for (const auto& f : m.functions) {
    if (const auto it = surface.find({f, device, dtype}); it != surface.end()) pooled += it->second;
  }
  return status_of(pooled);
}

bool by_calls(const OpRow& a, const OpRow& b) {
  return a.calls != b.calls ? a.calls > b.calls : a.op < b.op;
}

// The rows of `ops` whose status `keep` admits, ordered by `less`, at most `top`.
template <class Keep, class Less>
std::vector<OpRow> ranked(const std::vector<OpRow>& ops, Keep keep, Less less, size_t top) {
  std::vector<OpRow> out;
  std::copy_if(ops.begin(), ops.end(), std::back_inserter(out),
               [&](const OpRow& r) { return keep(r.status.status); });
  std::stable_sort(out.begin(), out.end(), less);
  if (out.size() > top) out.resize(top);
  return out;
}

// One model on one (device, dtype): its ops' rows (added to `rows`) and its verdict.
ModelVerdict weigh(const Model& m, const std::string& device, const std::string& dtype,
                   const Mapper& mapper, const Surface& surface,
                   std::map<std::string, OpRow>& rows) {
  ModelVerdict mv;
  mv.framework = m.framework;
  mv.model = m.model;
  std::set<Status> seen;
  for (const auto& [op, n] : histogram_on(m, device)) {
    auto [it, fresh] = rows.try_emplace(op);
    OpRow& row = it->second;
    if (fresh) {
      row.op = op;
      row.status = op_status(op, device, dtype, mapper, surface);
    }
    row.calls += n;
    ++row.models;
    seen.insert(row.status.status);
    if (counts_as_failing(row.status.status)) mv.failing_ops.push_back(op);
  }
  mv.prediction = predict(seen);
  if (const auto it = m.outcome_by_device.find(device); it != m.outcome_by_device.end()) {
    mv.outcome = it->second;
    mv.actual = actual_of(it->second);
  }
  return mv;
}

DeviceView view_of(const std::string& device, const std::string& dtype, const Corpus& corpus,
                   const Mapper& mapper, const Surface& surface, size_t top) {
  DeviceView v;
  v.device = device;
  v.dtype = dtype;
  std::map<std::string, OpRow> rows;
  for (const auto& m : corpus.models) {
    if (m.dtype != dtype) continue;
    ++v.models;
    v.verdicts.push_back(weigh(m, device, dtype, mapper, surface, rows));
    const auto& mv = v.verdicts.back();
    ++v.confusion[index_of(mv.prediction)][index_of(mv.actual)];
  }
  for (auto& [op, row] : rows) {
    v.calls += row.calls;
    v.calls_by_status[index_of(row.status.status)] += row.calls;
    if (counts_as_failing(row.status.status) && row.status.attempted > 0) {
      row.failing_calls = static_cast<double>(row.calls * row.status.failed) /
                          static_cast<double>(row.status.attempted);
    }
    v.ops.push_back(row);
  }
  std::sort(v.ops.begin(), v.ops.end(), by_calls);
  v.top = ranked(
      v.ops, counts_as_failing,
      [](const OpRow& a, const OpRow& b) {
        return a.failing_calls != b.failing_calls ? a.failing_calls > b.failing_calls : a.op < b.op;
      },
      top);
  v.unknown = ranked(
      v.ops, [](Status s) { return s == Status::kUnverified || s == Status::kUnmapped; }, by_calls,
      top);
  return v;
}

// The torch devices of the surface, or `wanted` when every one is there.
std::vector<std::string> devices_of(const std::vector<model::CaseResult>& surface,
                                    const std::vector<std::string>& wanted,
                                    const std::string& origin) {
  std::set<std::string> have;
  for (const auto& r : surface) {
    if (opinfo_case(r)) have.insert(r.device);
  }
  if (have.empty()) {
    throw FatalError(origin +
                     " is not an opinfo run (no torch case tagged opinfo): run mudjack "
                     "run --suite opinfo on the device");
  }
  if (wanted.empty()) return std::vector<std::string>(have.begin(), have.end());
  for (const auto& d : wanted) {
    if (!have.contains(d)) {
      std::string known;
      for (const auto& h : have) known += (known.empty() ? "" : ", ") + h;
      throw FatalError("no opinfo cases on device '" + d + "' in " + origin +
                       " (devices: " + known + ")");
    }
  }
  return wanted;
}

}  // namespace

Manifest manifest_from_json(const json& doc, std::string_view source) {
  const std::string src(source);
  const auto ops = doc.is_object() ? doc.find("ops") : doc.end();
  if (!doc.is_object() || ops == doc.end() || !ops->is_array()) {
    throw FatalError(src + " is not an OpInfo manifest (no \"ops\" list)");
  }
  Manifest m;
  try {
    m.torch = doc.value("torch", std::string());
    for (const auto& r : *ops) m.entries.push_back(entry_of(r, src));
  } catch (const json::exception& e) {
    throw FatalError(src + ": " + e.what());
  }
  return m;
}

Manifest load_manifest(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw FatalError("cannot read the OpInfo manifest " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, false);
  if (doc.is_discarded()) throw FatalError(file.string() + " is not valid JSON");
  return manifest_from_json(doc, file.string());
}

const std::vector<Dispatched>& dispatched_by() {
  // Internal aten ops that no OpInfo entry names, and the public ops (the
  // surface's function names) that dispatch them in eager mode: a model's
  // call of the internal op is judged by theirs. studies/portability/
  // portability.py holds a copy (DISPATCHED_BY): change both.
  static const std::vector<Dispatched> kTable = {
      {"_adaptive_avg_pool2d", {"nn.functional.adaptive_avg_pool2d"}},
      {"_adaptive_avg_pool3d", {"nn.functional.adaptive_avg_pool3d"}},
      {"_convolution",
       {"nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
        "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
        "nn.functional.conv_transpose3d"}},
      {"_fft_c2c", {"fft.fft", "fft.fft2", "fft.fftn", "fft.ifft", "fft.ifft2", "fft.ifftn"}},
      {"_fft_c2r", {"fft.irfft", "fft.irfft2", "fft.irfftn", "fft.hfft", "fft.hfft2", "fft.hfftn"}},
      {"_fft_r2c", {"fft.rfft", "fft.rfft2", "fft.rfftn", "fft.ihfft", "fft.ihfft2", "fft.ihfftn"}},
      {"_log_softmax", {"log_softmax"}},
      {"_native_multi_head_attention", {"nn.functional.multi_head_attention_forward"}},
      {"_prelu_kernel", {"nn.functional.prelu"}},
      {"_safe_softmax", {"softmax"}},
      {"_scaled_dot_product_cudnn_attention", {"nn.functional.scaled_dot_product_attention"}},
      {"_scaled_dot_product_efficient_attention", {"nn.functional.scaled_dot_product_attention"}},
      {"_scaled_dot_product_flash_attention", {"nn.functional.scaled_dot_product_attention"}},
      {"_scaled_dot_product_flash_attention_for_cpu",
       {"nn.functional.scaled_dot_product_attention"}},
      {"_softmax", {"softmax"}},
      {"_to_copy", {"to"}},
      {"_unique2", {"unique"}},
      {"_unsafe_view", {"reshape"}},
      {"_upsample_nearest_exact1d", {"nn.functional.interpolate.nearest-exact"}},
      {"_upsample_nearest_exact2d", {"nn.functional.interpolate.nearest-exact"}},
      {"_upsample_nearest_exact3d", {"nn.functional.interpolate.nearest-exact"}},
      {"convolution",
       {"nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
        "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
        "nn.functional.conv_transpose3d"}},
      {"index", {"__getitem__"}},
      {"max_pool2d_with_indices", {"nn.functional.max_pool2d"}},
      {"max_pool3d_with_indices", {"nn.functional.max_pool3d"}},
      {"native_group_norm", {"nn.functional.group_norm"}},
      {"reflection_pad1d", {"nn.functional.pad.reflect"}},
      {"reflection_pad2d", {"nn.functional.pad.reflect"}},
      {"reflection_pad3d", {"nn.functional.pad.reflect"}},
      {"replication_pad1d", {"nn.functional.pad.replicate"}},
      {"replication_pad2d", {"nn.functional.pad.replicate"}},
      {"replication_pad3d", {"nn.functional.pad.replicate"}},
      {"upsample_bicubic2d", {"nn.functional.interpolate.bicubic"}},
      {"upsample_bilinear2d",
       {"nn.functional.interpolate.bilinear", "nn.functional.upsample_bilinear"}},
      {"upsample_linear1d", {"nn.functional.interpolate.linear"}},
      {"upsample_nearest1d", {"nn.functional.interpolate.nearest"}},
      {"upsample_nearest2d",
       {"nn.functional.interpolate.nearest", "nn.functional.upsample_nearest"}},
      {"upsample_nearest3d", {"nn.functional.interpolate.nearest"}},
      {"upsample_trilinear3d", {"nn.functional.interpolate.trilinear"}},
  };
  return kTable;
}

Mapper::Mapper(const std::vector<Entry>& entries) {
  for (const auto& e : entries) {
    known_.insert(e.function);
    by_aten_[e.aten_name].push_back(e.function);
    for (const auto& a : e.aliases) by_alias_[a].push_back(e.function);
    if (const auto dot = e.name.rfind('.'); dot != std::string::npos) {
      by_tail_[e.name.substr(dot + 1)].push_back(e.function);
    }
  }
  for (Index* names : {&by_aten_, &by_alias_, &by_tail_}) {
    for (auto& [key, functions] : *names) sort_unique(functions);
  }
}

Mapping Mapper::find(std::string_view name) const {
  Mapping m;
  for (const auto& d : dispatched_by()) {
    if (d.op != name) continue;
    for (const auto f : d.functions) {
      if (known_.contains(f)) m.functions.emplace_back(f);
    }
    if (!m.functions.empty()) {
      sort_unique(m.functions);
      m.how = "table";
      return m;
    }
    break;
  }
  const std::array<std::pair<const Index*, const char*>, 3> rules = {
      {{&by_aten_, "aten_name"}, {&by_alias_, "alias"}, {&by_tail_, "name"}}};
  for (const auto& [names, how] : rules) {
    if (const auto it = names->find(name); it != names->end()) {
      m.functions = it->second;
      m.how = how;
      return m;
    }
  }
  return m;
}

Mapping Mapper::map(std::string_view op) const {
  if (!op.starts_with(kAten)) return {};
  const std::string_view name = op.substr(kAten.size());
  Mapping m = find(name);
  if (m.functions.empty() && name.size() > 1 && name.ends_with('_') && !name.ends_with("__")) {
    m = find(name.substr(0, name.size() - 1));
    if (!m.functions.empty()) m.how = "inplace+" + m.how;
  }
  return m;
}

std::string_view to_string(Status s) {
  switch (s) {
    case Status::kPortable:
      return "portable";
    case Status::kPartial:
      return "partial";
    case Status::kFailing:
      return "failing";
    case Status::kUnverified:
      return "unverified";
    case Status::kUnmapped:
      return "unmapped";
  }
  return "";
}

std::string_view to_string(Prediction p) {
  switch (p) {
    case Prediction::kFail:
      return "fail";
    case Prediction::kRisk:
      return "risk";
    case Prediction::kFine:
      return "fine";
    case Prediction::kUnknown:
      return "unknown";
  }
  return "";
}

std::string_view to_string(Actual a) {
  switch (a) {
    case Actual::kFine:
      return "fine";
    case Actual::kNotFine:
      return "not_fine";
    case Actual::kNotRun:
      return "not_run";
  }
  return "";
}

Evidence& Evidence::operator+=(const Evidence& o) {
  attempted += o.attempted;
  failed += o.failed;
  unchecked += o.unchecked;
  outside_domain += o.outside_domain;
  return *this;
}

Surface surface_evidence(const std::vector<model::CaseResult>& cases) {
  const auto checks = verdict::checks_of(cases);
  Surface out;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& r = cases[i];
    const auto props = model::props(r.outcome);
    if (!opinfo_case(r) || !props.attempted) continue;
    Evidence& e = out[{r.info.function, r.device, r.info.dtype}];
    if (r.outcome == model::Outcome::kFail &&
        verdict::refusal_of(r).refusal == model::Refusal::kUnsupported) {
      ++e.outside_domain;
      continue;
    }
    ++e.attempted;
    if (props.failure) ++e.failed;
    if (r.outcome == model::Outcome::kPass && checks[i] == model::Check::kNone) ++e.unchecked;
  }
  return out;
}

OpStatus status_of(const Evidence& e) {
  OpStatus s;
  s.failed = e.failed;
  s.attempted = e.attempted;
  const std::string n = std::to_string(e.attempted);
  if (e.attempted == 0) {
    s.status = Status::kUnverified;
    s.why = e.outside_domain > 0 ? "outside the domain: " + std::to_string(e.outside_domain) +
                                       " cases refused as unsupported"
                                 : "no case attempted";
  } else if (e.failed == e.attempted) {
    s.status = Status::kFailing;
    s.why = "all " + n + " cases failed";
  } else if (e.failed > 0) {
    s.status = Status::kPartial;
    s.why = std::to_string(e.failed) + " of " + n + " cases failed";
  } else if (e.unchecked > 0) {
    s.status = Status::kUnverified;
    s.why = std::to_string(e.unchecked) + " of " + n + " passes checked by nothing";
  } else {
    s.status = Status::kPortable;
    s.why = "all " + n + " cases passed";
  }
  return s;
}

Corpus corpus_models(const std::vector<std::vector<model::CaseResult>>& runs) {
  std::map<std::tuple<std::string, std::string, std::string>, Model> all;
  for (const auto& run : runs) {
    for (const auto& r : run) {
      if (!stats::composition(r.info) || r.info.mode != "eager") continue;
      Model& m = all[{r.info.framework, r.info.function, r.info.dtype}];
      m.framework = r.info.framework;
      m.model = r.info.function;
      m.dtype = r.info.dtype;
      m.outcome_by_device[r.device] = r.outcome;
      if (auto ops = aten_histogram(r); !ops.empty()) m.ops_by_device[r.device] = std::move(ops);
    }
  }
  Corpus out;
  for (auto& [key, m] : all) {
    if (!m.ops_by_device.empty()) {
      out.models.push_back(std::move(m));
      continue;
    }
    for (const auto& [device, outcome] : m.outcome_by_device) ++out.blind[outcome];
  }
  return out;
}

const std::map<std::string, int64_t>& histogram_on(const Model& m, const std::string& device) {
  if (const auto it = m.ops_by_device.find(device); it != m.ops_by_device.end()) return it->second;
  if (const auto it = m.ops_by_device.find("cpu"); it != m.ops_by_device.end()) return it->second;
  if (m.ops_by_device.empty()) std::abort();  // corpus_models keeps models with a histogram only
  return m.ops_by_device.begin()->second;
}

double DeviceView::share(Status s) const {
  return calls > 0 ? static_cast<double>(calls_by_status[index_of(s)]) / static_cast<double>(calls)
                   : 0.0;
}

int64_t Portability::unmapped_calls() const {
  int64_t n = 0;
  for (const auto& o : ops) {
    if (o.mapping.functions.empty()) n += o.calls;
  }
  return n;
}

Portability join(const Inputs& in) {
  Portability p;
  p.corpus = in.corpus_origins;
  p.surface = in.surface_origin;
  p.surface_run = in.surface_run;
  p.torch = in.manifest.torch;
  const Mapper mapper(in.manifest.entries);
  const Corpus corpus = corpus_models(in.corpus);
  const Surface surface = surface_evidence(in.surface);
  const auto devices = devices_of(in.surface, in.devices, in.surface_origin);
  p.models = static_cast<int>(corpus.models.size());
  p.blind = corpus.blind;
  std::map<std::string, OpMapping> ops;
  std::set<std::string> dtypes;
  for (const auto& m : corpus.models) {
    dtypes.insert(m.dtype);
    for (const auto& [op, n] : histogram_on(m, "cpu")) {
      OpMapping& o = ops[op];
      o.op = op;
      o.calls += n;
      ++o.models;
    }
  }
  for (auto& [op, o] : ops) {
    o.mapping = mapper.map(op);
    p.calls += o.calls;
    p.ops.push_back(std::move(o));
  }
  std::sort(p.ops.begin(), p.ops.end(), [](const OpMapping& a, const OpMapping& b) {
    return a.calls != b.calls ? a.calls > b.calls : a.op < b.op;
  });
  for (const auto& device : devices) {
    for (const auto& dtype : dtypes) {
      p.views.push_back(view_of(device, dtype, corpus, mapper, surface, in.top));
    }
  }
  return p;
}

}  // namespace mudjack::portability
