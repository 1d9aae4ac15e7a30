#include "verdict/claims.hpp"

#include <tuple>

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

std::string device_kind(std::string_view device) {
  if (auto slash = device.rfind('/'); slash != std::string_view::npos) {
    device = device.substr(slash + 1);
  }
  return std::string(device.substr(0, device.find(':')));
}

namespace {

bool ran(model::Outcome o) {
  return o == model::Outcome::kPass || o == model::Outcome::kMismatch;
}
bool failed(model::Outcome o) {
  return o == model::Outcome::kFail || o == model::Outcome::kCrash || o == model::Outcome::kTimeout;
}

}  // namespace

std::vector<ClaimRow> claims(const std::vector<model::CaseResult>& cases) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, ClaimRow> rows;
  for (const auto& r : cases) {
    const auto& c = r.info.claims;
    if (!c.is_object() || c.empty() || (!ran(r.outcome) && !failed(r.outcome))) continue;
    auto it = c.find(device_kind(r.device));
    if (it == c.end() || !it->is_boolean()) continue;
    auto& row = rows[{r.info.framework, r.device, r.info.function, r.info.dtype}];
    if (row.framework.empty()) {
      row.framework = r.info.framework;
      row.function = r.info.function;
      row.dtype = r.info.dtype;
      row.device = r.device;
      row.claimed = it->get<bool>();
    }
    if (failed(r.outcome)) {
      if (row.failed++ == 0 && row.claimed) {
        row.case_id = r.info.id;
        row.error = r.error.message.substr(0, r.error.message.find('\n'));
      }
    } else if (row.ran++ == 0 && !row.claimed) {
      row.case_id = r.info.id;
    }
  }
  std::vector<ClaimRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) {
    if (row.claimed && row.failed > 0) {
      row.claim = Claim::kClaimedFailing;
    } else if (!row.claimed && row.ran > 0 && row.failed == 0) {
      row.claim = Claim::kUnclaimedWorking;
    } else {
      row.case_id.clear();
      row.error.clear();
    }
    out.push_back(std::move(row));
  }
  return out;
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
      if (!ran(row.outcome) && !failed(row.outcome)) continue;  // skipped, unavailable: no evidence
      ++t.cases;
      if (ok && failed(row.outcome)) {
        t.predicted_present_failed.push_back(&row);
      } else if (!ok && ran(row.outcome)) {
        t.predicted_missing_ran.push_back(&row);
      } else {
        ++t.agree;
      }
    }
  }
  return out;
}

}  // namespace mudjack::verdict
