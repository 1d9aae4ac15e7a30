#include "verdict/claims.hpp"

#include "verdict/refusal.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace mudjack::verdict {

std::string_view to_string(Claim c) {
  switch (c) {
    case Claim::kAgrees:
      return "agrees";
    case Claim::kClaimedFailing:
      return "claimed_failing";
    case Claim::kUnclaimedWorking:
      return "unclaimed_working";
  }
  return "agrees";
}

std::string_view to_string(ClaimSource s) {
  switch (s) {
    case ClaimSource::kOpDatabase:
      return "op_database";
    case ClaimSource::kKernelRegistry:
      return "kernel_registry";
    case ClaimSource::kDeclared:
      return "declared";
    case ClaimSource::kGrid:
      return "grid";
  }
  return "grid";
}

std::string device_kind(std::string_view device) {
  if (auto slash = device.rfind('/'); slash != std::string_view::npos) {
    device = device.substr(slash + 1);
  }
  return std::string(device.substr(0, device.find(':')));
}

const nlohmann::json* kernel_prediction(const model::CaseResult& r, std::string_view kind) {
  const auto k = r.extra.find("kernels");
  if (k == r.extra.end() || !k->is_object()) return nullptr;
  const auto p = k->find(kind == "cuda" ? std::string("gpu") : std::string(kind));
  if (p == k->end() || !p->is_object() || !p->contains("kernels") ||
      !(*p)["kernels"].is_boolean()) {
    return nullptr;
  }
  return &*p;
}

CaseClaim claim_of(const model::CaseResult& r) {
  const std::string kind = device_kind(r.device);
  if (auto c = r.info.claims.find(kind); c != r.info.claims.end() && c->is_boolean()) {
    return {c->get<bool>(), ClaimSource::kOpDatabase};
  }
  if (const auto* p = kernel_prediction(r, kind)) {
    return {(*p)["kernels"].get<bool>(), ClaimSource::kKernelRegistry};
  }
  if (!r.info.grid) return {true, ClaimSource::kDeclared};
  // A grid dtype is claimed unless its failure reads as outside the
  // function's domain (refusal.hpp: an API contract or a type rule).
  return {refusal_of(r).refusal != model::Refusal::kUnsupported, ClaimSource::kGrid};
}

namespace {

// The row's claim once all its cases are in, and its evidence.
void settle(ClaimRow& row, const std::vector<const model::CaseResult*>& cases) {
  for (const auto* r : cases) {
    if (row.claimed && model::props(r->outcome).failed && row.case_id.empty()) {
      row.case_id = r->info.id;
      row.error = r->error.message.substr(0, r->error.message.find('\n'));
    } else if (!row.claimed && model::props(r->outcome).ran && row.case_id.empty()) {
      row.case_id = r->info.id;
    }
  }
  if (row.claimed && row.failed > 0) {
    row.claim = Claim::kClaimedFailing;
  } else if (!row.claimed && row.ran > 0 && row.failed == 0) {
    row.claim = Claim::kUnclaimedWorking;
  } else {
    row.case_id.clear();
    row.error.clear();
  }
}

}  // namespace

std::vector<ClaimRow> claims(const std::vector<model::CaseResult>& cases) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, std::pair<ClaimRow, std::vector<const model::CaseResult*>>> rows;
  for (const auto& r : cases) {
    if (!model::props(r.outcome).attempted) continue;
    auto& [row, members] = rows[{r.info.framework, r.device, r.info.function, r.info.dtype}];
    const auto claim = claim_of(r);
    if (members.empty()) {
      row.framework = r.info.framework;
      row.function = r.info.function;
      row.dtype = r.info.dtype;
      row.device = r.device;
      row.claimed = true;
      row.source = claim.source;
    }
    row.claimed = row.claimed && claim.claimed;
    (model::props(r.outcome).failed ? row.failed : row.ran)++;
    members.push_back(&r);
  }
  std::vector<ClaimRow> out;
  out.reserve(rows.size());
  for (auto& [key, entry] : rows) {
    settle(entry.first, entry.second);
    out.push_back(std::move(entry.first));
  }
  return out;
}

bool worth_showing(const std::vector<ClaimRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ClaimRow& r) {
    return r.claim != Claim::kAgrees || r.source == ClaimSource::kOpDatabase ||
           r.source == ClaimSource::kKernelRegistry;
  });
}

std::map<std::string, std::map<std::string, ClaimTally>> tally(const std::vector<ClaimRow>& rows) {
  std::map<std::string, std::map<std::string, ClaimTally>> out;
  for (const auto& row : rows) {
    auto& t = out[row.framework][row.device];
    switch (row.claim) {
      case Claim::kAgrees:
        ++t.agrees;
        break;
      case Claim::kClaimedFailing:
        t.claimed_failing.push_back(&row);
        break;
      case Claim::kUnclaimedWorking:
        t.unclaimed_working.push_back(&row);
        break;
    }
  }
  return out;
}

std::vector<KernelRow> kernel_rows(const std::vector<model::CaseResult>& cases) {
  std::vector<KernelRow> rows;
  for (const auto& r : cases) {
    auto it = r.extra.find("kernels");
    if (it == r.extra.end() || !it->is_object() || it->contains("error")) continue;
    KernelRow row;
    for (const auto& [kind, p] : it->items()) {
      if (!p.is_object() || !p.contains("kernels") || !p["kernels"].is_boolean()) continue;
      row.predicted[kind] = p["kernels"].get<bool>();
      auto& missing = row.missing[kind];
      if (auto m = p.find("missing"); m != p.end() && m->is_array()) {
        for (const auto& op : *m) {
          if (op.is_string()) missing.push_back(op.get<std::string>());
        }
      }
    }
    if (row.predicted.empty()) continue;
    row.framework = r.info.framework;
    row.function = r.info.function;
    row.dtype = r.info.dtype;
    row.device = r.device;
    row.case_id = r.info.id;
    row.outcome = r.outcome;
    row.error = r.error.message.substr(0, r.error.message.find('\n'));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::map<std::string, KernelTally> kernel_tally(const std::vector<KernelRow>& rows) {
  // The registry's device types as MudJack's device kinds name them.
  const auto type_of = [](const std::string& kind) { return kind == "cuda" ? "gpu" : kind; };
  std::map<std::string, KernelTally> out;
  for (const auto& row : rows) {
    auto& t = out[row.framework];
    const std::string observed = type_of(device_kind(row.device));
    for (const auto& [type, ok] : row.predicted) {
      if (type != observed) {
        if (!ok) t.unobserved_missing[type].push_back(&row);
        continue;
      }
      if (!model::props(row.outcome).attempted) continue;  // skipped, unavailable: no evidence
      ++t.cases;
      if (ok && model::props(row.outcome).failed) {
        t.predicted_present_failed.push_back(&row);
      } else if (!ok && model::props(row.outcome).ran) {
        t.predicted_missing_ran.push_back(&row);
      } else {
        ++t.agree;
      }
    }
  }
  return out;
}

namespace {

// "2.11" of "2.11.0+cu130": the part before the second dot.
std::string_view major_minor(std::string_view version) {
  const size_t first = version.find('.');
  if (first == std::string_view::npos) return version;
  return version.substr(0, version.find_first_of(".+", first + 1));
}

}  // namespace

size_t apply_claims_map(const nlohmann::json& map, std::string_view framework,
                        std::string_view version, std::vector<model::CaseResult>& cases) {
  if (!map.is_object() || !map.contains(framework) || !map[std::string(framework)].is_string() ||
      !map.contains("functions") || !map["functions"].is_object() || version.empty() ||
      major_minor(map[std::string(framework)].get<std::string>()) != major_minor(version)) {
    return 0;
  }
  const auto& functions = map["functions"];
  size_t given = 0;
  for (auto& r : cases) {
    if (r.info.framework != framework || !functions.contains(r.info.function)) continue;
    if (r.info.claims.is_object() && !r.info.claims.empty()) continue;
    const auto& entry = functions[r.info.function];
    if (!entry.is_object()) continue;
    nlohmann::json claims = nlohmann::json::object();
    for (const char* kind : {"cpu", "cuda"}) {
      const auto it = entry.find(kind);
      if (it == entry.end() || !it->is_array()) continue;
      claims[kind] = std::find(it->begin(), it->end(), r.info.dtype) != it->end();
    }
    if (claims.empty()) continue;
    r.info.claims = std::move(claims);
    ++given;
  }
  return given;
}

}  // namespace mudjack::verdict
