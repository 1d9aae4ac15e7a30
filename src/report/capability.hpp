#pragma once
// Results with units: what the capability suite's cases declare and measure
// besides latency (model/workload.hpp), in every view of a run.
//   - results.json (schema 1.1, additive) per case:
//       work: null | {amount, unit}               -- one timed call's work
//       throughput: null | {per_s, unit, basis}   -- amount / median latency
//       metrics: {name: {value, unit}}            -- final loss, accuracy, ...
//   - results.csv: columns work_amount, work_unit, throughput_per_s,
//     throughput_unit, metrics ("name=value unit; ..."), params (JSON).
//   - summary.md: a "Workloads" section (capability_markdown).
// Pure and thread-safe.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::report {

// Adds work, throughput and metrics to one case object of results.json.
void workload_to_json(const model::CaseResult& r, nlohmann::json& c);
// Reads them back (absent in a 1.0 document: no work, no metrics).
void workload_from_json(const nlohmann::json& c, model::CaseResult& r);

// Throughput at the result's median latency, if it declared work.
std::optional<model::Throughput> throughput_of(const model::CaseResult& r);

// "accuracy=0.864; final_loss=0.565" (units after the value when not empty or "1").
std::string metrics_text(const model::Metrics& metrics);

// summary.md's section for results that declare work or metrics, grouped by
// function (experiment): per (framework, device, variant) the outcome,
// median and cold latency, throughput and metrics; then the eager-vs-compiled
// speed-up wherever both modes of a variant ran on a device. Results of
// functions where no case declares work or metrics are left out; "" when
// there are none at all.
std::string capability_markdown(const std::vector<model::CaseResult>& results);

}  // namespace mudjack::report
