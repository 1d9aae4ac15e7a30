#include "report/terminal.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "report/models.hpp"
#include "report/text.hpp"
#include "stats/timing.hpp"

namespace mudjack::report {
namespace {

// Short column heads, in kVerdictOrder.
constexpr std::array<const char*, 7> kHeads = {"portable",  "unverified",  "partial",    "complete",
                                               "divergent", "intolerable", "unavailable"};

std::string padded(const std::string& text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

// The last `n` non-empty lines of a traceback, indented, one per line.
std::string traceback_tail(const std::string& tb, size_t n) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < tb.size()) {
    size_t end = tb.find('\n', start);
    if (end == std::string::npos) end = tb.size();
    std::string line = plain(tb.substr(start, end - start));
    // Python's ^^^ and ~~~ markers under a line say nothing on their own.
    if (line.find_first_not_of(" ^~") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) {
    out += "      " + one_line(lines[i], kMaxMessageBytes) + "\n";
  }
  return out;
}

// Cases the suite's own code broke, each with its message and traceback tail.
std::string suite_errors(const verdict::Judged& judged, size_t limit) {
  std::string out;
  size_t n = 0;
  for (const auto& r : judged.cases) {
    if (r.outcome != model::Outcome::kError) continue;
    if (n++ < limit) {
      out += "  ERROR " + plain(r.info.id) + " on " + plain(r.device) + ": " + failure_text(r) +
             "\n" + traceback_tail(r.error.traceback, 4);
    }
  }
  if (n == 0) return "";
  if (n > limit) out += "  ... and " + std::to_string(n - limit) + " more (junit.xml)\n";
  return "suite errors: " + std::to_string(n) +
         " (the suite's own code, not the framework; no verdict counts them)\n" + out;
}

std::string row_line(const model::VerdictRow& row, const model::CaseResult* bad) {
  std::string line = "  " + padded(words(model::to_string(row.verdict)), 19, false) + " " +
                     plain(row.function) + " on " + plain(row.device);
  if (!row.failing.empty()) line += ", " + std::to_string(row.failing.size()) + " failed";
  if (!row.mismatching.empty()) line += ", " + std::to_string(row.mismatching.size()) + " diverged";
  line += " of " + std::to_string(row.cases);
  if (row.verdict == model::Verdict::kUnverified) {
    line += ": " + std::to_string(row.unchecked) + " passes checked by nothing";
  } else if (bad != nullptr) {
    // A mismatch's kind says nothing ("other"): its message does.
    std::string kind(bad->outcome == model::Outcome::kMismatch ? ""
                                                               : model::to_string(bad->error.kind));
    line += "\n      " + std::string(model::to_string(bad->outcome)) +
            (kind.empty() ? "" : " " + kind) + ": " + failure_text(*bad, 160) + "  [" +
            plain(bad->info.id) + "]";
  } else if (!row.reason.empty()) {
    line += ": " + one_line(row.reason, 160);
  }
  return line + "\n";
}

}  // namespace

std::string short_summary(const verdict::Judged& judged, size_t limit) {
  // Worst first: failures, divergences, latency, then passes nobody checked.
  constexpr std::array<model::Verdict, 5> kShown = {
      model::Verdict::kCompleteFailure, model::Verdict::kPartialFailure, model::Verdict::kDivergent,
      model::Verdict::kIntolerableLatency, model::Verdict::kUnverified};
  std::string rows;
  size_t n = 0;
  for (auto v : kShown) {
    for (const auto& row : judged.verdicts) {
      if (row.verdict != v) continue;
      if (n++ < limit) rows += row_line(row, first_failing(judged, row));
    }
  }
  if (n > limit) rows += "  ... and " + std::to_string(n - limit) + " more (summary.md)\n";
  std::string out = suite_errors(judged, limit);
  if (n > 0) {
    out += "short summary: " + std::to_string(n) +
           " functions not portable (first error of each, case id in brackets)\n" + rows;
  }
  return out;
}

std::string to_terminal(const verdict::Judged& judged, const std::filesystem::path& run_dir) {
  size_t width = 8;
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) width = std::max(width, device.size());
  }
  std::string out =
      "\nrun " + judged.run.id + " (" + judged.run.state + "): verdicts per framework and device\n";
  if (judged.run.options.is_object() && judged.run.options.contains("narrowed")) {
    out += "selection: " + plain(judged.run.options.value("narrowed", "")) +
           "; the verdicts cover only the selected cases\n";
  }
  out += padded("FRAMEWORK", 11, false) + " " + padded("DEVICE", width, false);
  for (const char* head : kHeads) out += " " + padded(head, 11, true);
  out += "\n";
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.functions == 0) continue;
      out += padded(framework, 11, false) + " " + padded(device, width, false);
      for (auto v : kVerdictOrder) {
        // The headline counts wrong answers (own_check, full_precision
        // divergences); the precision-setting ones are listed below.
        const int n = v == model::Verdict::kDivergent
                          ? tally.divergent_causes.at(model::Cause::kOwnCheck) +
                                tally.divergent_causes.at(model::Cause::kFullPrecision)
                          : tally.count(v);
        out += " " + padded(std::to_string(n), 11, true);
      }
      out += "\n";
    }
  }
  // A run with whole models (suites/models): a line per model, device and stage.
  out += models_terminal(model_rows(judged.cases));
  if (auto summary = short_summary(judged, kShortSummaryRows); !summary.empty()) {
    out += "\n" + summary + "\n";
  }
  out += listed_missing_line(judged);
  out += divergence_line(judged);
  out += apart_lines(judged);
  out += claims_lines(judged);
  if (auto busy = stats::busy_line(stats::busy_machine(judged.cases)); !busy.empty()) {
    out += busy + "\n";
  }
  out += "reports: " + run_dir.string() +
         "/{results.json,results.csv,junit.xml,summary.md,report.html}\n";
  return out;
}

}  // namespace mudjack::report
