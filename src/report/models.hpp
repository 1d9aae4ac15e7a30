#pragma once
// Whole models (suites/models) in every view of a run: one row per model x
// device x stage, from the cases whose tags carry labels ("name::bert").
//   - results.json (schema 1.8, additive): "models": [row, ...] (models_to_json);
//   - results.csv: the cases' own rows (stage = mode, tags = labels) carry
//     the same facts;
//   - summary.md: a "Models" section (models_markdown);
//   - report.html: a "Models" table beside the function heatmaps (models_html).
// Pure and thread-safe.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::report {

struct ModelRow {
  std::string model;      // the name label (the case's function)
  std::string framework;  // the case's framework (a Keras model's backend)
  std::string device;
  std::string stage;  // the case's mode
  std::string dtype;
  std::string shape;  // the inputs' tag ("b1-s128")
  std::string task, family, author;
  std::string case_id;
  model::Outcome outcome = model::Outcome::kUnavailable;
  std::string error;                  // one line, empty on a pass
  std::optional<int64_t> peak_bytes;  // device memory where known, else host
  std::optional<double> median_ns, cold_ns;
  std::optional<model::Throughput> throughput;
  std::optional<double> error_eps, bound_eps;  // the accuracy oracle's figures
  model::Cause cause = model::Cause::kNone;
  std::optional<double> build_s;     // export time (or the cached build's load)
  std::optional<bool> build_reused;  // the build cache had it
  // What the model is (issue 38), from the probe's metrics (models.py):
  // parameter count and FLOPs of one forward pass (eager stage), the
  // operator histogram (ops_source "onnx": the exported graph's nodes, the
  // onnxruntime stage; "aten": the operators one eager forward pass
  // dispatched), a hash of its structure (13 hex digits: operators, shapes,
  // attributes, not the weights), and the labels size:: and license::.
  std::optional<double> params, flops;
  std::string ops_source;
  std::map<std::string, int64_t> ops;
  std::string structure_hash;
  std::string size, license;
};

// The rows of every result that is a whole model (stats::whole_model), ordered by model,
// framework, stage, device.
std::vector<ModelRow> model_rows(const std::vector<model::CaseResult>& results);

nlohmann::json models_to_json(const std::vector<ModelRow>& rows);

// "" when there are no rows; else a table per task: model, framework, stage,
// device, outcome, latency, throughput, peak memory, divergence, build, and
// the count of models per stage and device that ran.
std::string models_markdown(const std::vector<ModelRow>& rows);

// The same table as HTML (id="models"), or "" without rows.
std::string models_html(const std::vector<ModelRow>& rows);

// Rows the terminal's models table lists before "... and N more".
inline constexpr size_t kTerminalModelRows = 200;

// The table `mudjack run` prints after a run with models (report/terminal.hpp):
// one line per model x device x stage, in model_rows' order: model, device,
// stage, outcome (with the divergence's cause), median latency (the cold call
// where only that was timed), error / bound in eps; at most `limit` rows,
// then "... and N more (summary.md)". "" without rows.
std::string models_terminal(const std::vector<ModelRow>& rows, size_t limit = kTerminalModelRows);

}  // namespace mudjack::report
