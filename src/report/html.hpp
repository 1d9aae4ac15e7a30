#pragma once
// report.html: one self-contained page (inline CSS, inline script, the data
// it needs embedded; nothing fetched from the network) for reading a run or a
// merged run offline:
//   - the paper-style summary: verdicts, outcomes and failure reasons per
//     framework and device;
//   - a heatmap per framework, function x device, coloured by verdict, each
//     cell showing the latency ratio to the baseline; clicking a cell (or
//     opening the page at #cell=<framework>|<function>|<device>) lists its
//     cases: dtype, mode, outcome, medians, ratio with its interval, and the
//     error message;
//   - latency, on every run (one device too): a table per (framework,
//     function, device); a chart per (framework, device), a row per case
//     (p10-p90 band, median, each round's median, unstable rows in red);
//     with a second device, each function's ratio to the baseline with its
//     interval;
//   - accuracy: each case's error against float64 in eps, per dtype, against
//     the bounds it was held to;
//   - every function that failed or diverged, with the reason;
//   - each machine's environment (devices, drivers, framework versions).
// The heatmap, tables and charts (inline SVG, svg.hpp) are plain HTML,
// readable without the script.
//
// Pure and thread-safe.

#include <string>
#include <vector>

#include "verdict/judged.hpp"

namespace mudjack::report {

std::string to_html(const verdict::Judged& judged);

}  // namespace mudjack::report
