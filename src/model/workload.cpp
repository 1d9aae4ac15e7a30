#include "model/workload.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace mudjack::model {

using nlohmann::json;

std::optional<Throughput> throughput(const std::optional<Work>& work,
                                     std::optional<double> median_ns) {
  if (!work || !median_ns || !std::isfinite(*median_ns) || *median_ns <= 0 ||
      !std::isfinite(work->amount) || work->amount <= 0) {
    return std::nullopt;
  }
  return Throughput{work->amount / (*median_ns * 1e-9), work->unit + "/s"};
}

std::string format_si(double value, const std::string& unit) {
  static constexpr std::array<const char*, 6> kPrefixes = {"", "k", "M", "G", "T", "P"};
  if (!std::isfinite(value)) return "-";
  size_t i = 0;
  double v = value;
  while (std::fabs(v) >= 999.5 && i + 1 < kPrefixes.size()) {
    v /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  std::string out = buf;
  if (!unit.empty() || i > 0) out += " ";
  return out + kPrefixes[i] + unit;
}

json work_to_json(const std::optional<Work>& work) {
  if (!work) return nullptr;
  return {{"amount", std::isfinite(work->amount) ? json(work->amount) : json(nullptr)},
          {"unit", work->unit}};
}

std::optional<Work> work_from_json(const json& j) {
  if (!j.is_object()) return std::nullopt;
  auto amount = j.find("amount");
  if (amount == j.end() || !amount->is_number()) return std::nullopt;
  Work w;
  w.amount = amount->get<double>();
  if (!(w.amount > 0)) return std::nullopt;
  auto unit = j.find("unit");
  if (unit != j.end() && unit->is_string()) w.unit = unit->get<std::string>();
  return w;
}

json metrics_to_json(const Metrics& metrics) {
  json out = json::object();
  for (const auto& [name, m] : metrics) {
    out[name] = {{"value", m.value && std::isfinite(*m.value) ? json(*m.value) : json(nullptr)},
                 {"unit", m.unit}};
  }
  return out;
}

Metrics metrics_from_json(const json& j) {
  Metrics out;
  if (!j.is_object()) return out;
  for (const auto& [name, m] : j.items()) {
    if (!m.is_object()) continue;
    Metric metric;
    auto value = m.find("value");
    if (value != m.end() && value->is_number()) metric.value = value->get<double>();
    auto unit = m.find("unit");
    if (unit != m.end() && unit->is_string()) metric.unit = unit->get<std::string>();
    out[name] = std::move(metric);
  }
  return out;
}

}  // namespace mudjack::model
