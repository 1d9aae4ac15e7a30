#include "verdict/fallback.hpp"

#include <algorithm>
#include <tuple>

namespace mudjack::verdict {
namespace {

const nlohmann::json* xla_facts(const model::CaseResult& r) {
  auto it = r.extra.find("xla");
  return it != r.extra.end() && it->is_object() ? &*it : nullptr;
}

std::map<std::string, int> host_ops(const nlohmann::json& xla) {
  std::map<std::string, int> ops;
  auto c = xla.find("counters");
  if (c == xla.end() || !c->is_object()) return ops;
  for (const auto& [name, value] : c->items()) {
    if (name.rfind("aten::", 0) == 0 && value.is_number_integer() && value.get<int64_t>() > 0) {
      ops[name] = static_cast<int>(std::min<int64_t>(value.get<int64_t>(), 1'000'000'000));
    }
  }
  return ops;
}

std::string local_id(const std::string& device) {
  auto slash = device.rfind('/');
  return slash == std::string::npos ? device : device.substr(slash + 1);
}

}  // namespace

std::optional<CaseFallback> case_fallback(const model::CaseResult& r) {
  if (const auto* xla = xla_facts(r)) {
    if (auto ops = host_ops(*xla); !ops.empty()) return CaseFallback{"host_ops", ops, ""};
  }
  if (auto f = r.extra.find("fallback"); f != r.extra.end() && f->is_boolean() && f->get<bool>()) {
    return CaseFallback{"soft_placement", {}, ""};
  }
  auto od = r.extra.find("output_device");
  if (r.outcome == model::Outcome::kFail && r.error.kind == model::ErrorKind::kDeviceError &&
      od != r.extra.end() && od->is_string() && od->get<std::string>() != local_id(r.device)) {
    return CaseFallback{"elsewhere", {}, od->get<std::string>()};
  }
  return std::nullopt;
}

std::optional<int> warm_compiles(const model::CaseResult& r) {
  const auto* xla = xla_facts(r);
  if (xla == nullptr) return std::nullopt;
  auto w = xla->find("warm_compiles");
  if (w == xla->end() || !w->is_number_integer()) return std::nullopt;
  return w->get<int>();
}

std::vector<FallbackRow> fallback_rows(const std::vector<model::CaseResult>& cases) {
  std::map<std::tuple<std::string, std::string, std::string>, FallbackRow> rows;
  for (const auto& r : cases) {
    auto f = case_fallback(r);
    const bool recompiled = warm_compiles(r).value_or(0) > 0;
    if (!f && !recompiled) continue;
    auto& row = rows[{r.info.framework, r.device, r.info.function}];
    row.framework = r.info.framework;
    row.function = r.info.function;
    row.device = r.device;
    row.recompiling += recompiled ? 1 : 0;
    if (!f) continue;
    row.cases += 1;
    if (std::find(row.kinds.begin(), row.kinds.end(), f->kind) == row.kinds.end()) {
      row.kinds.push_back(f->kind);
      std::sort(row.kinds.begin(), row.kinds.end());
    }
    for (const auto& [op, n] : f->ops) row.ops[op] += n;
  }
  std::vector<FallbackRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

std::string describe(const CaseFallback& f) {
  if (f.ops.empty()) return f.where.empty() ? f.kind : f.kind + " (" + f.where + ")";
  std::string out;
  for (const auto& [op, n] : f.ops) {
    out += (out.empty() ? "" : ", ") + op + (n > 1 ? "\u00d7" + std::to_string(n) : "");
  }
  return out;
}

}  // namespace mudjack::verdict
