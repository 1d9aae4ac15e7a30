#include "report/terminal.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "report/text.hpp"

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

}  // namespace

std::string to_terminal(const verdict::Judged& judged, const std::filesystem::path& run_dir) {
  size_t width = 8;
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) width = std::max(width, device.size());
  }
  std::string out =
      "\nrun " + judged.run.id + " (" + judged.run.state + "): verdicts per framework and device\n";
  out += padded("FRAMEWORK", 11, false) + " " + padded("DEVICE", width, false);
  for (const char* head : kHeads) out += " " + padded(head, 11, true);
  out += "\n";
  for (const auto& [framework, by_device] : judged.tallies) {
    for (const auto& [device, tally] : by_device) {
      if (tally.functions == 0) continue;
      out += padded(framework, 11, false) + " " + padded(device, width, false);
      for (auto v : kVerdictOrder) {
        // The headline counts full_precision divergences; the rest are listed below.
        const int n = v == model::Verdict::kDivergent
                          ? tally.divergent_causes.at(model::Cause::kFullPrecision)
                          : tally.count(v);
        out += " " + padded(std::to_string(n), 11, true);
      }
      out += "\n";
    }
  }
  out += listed_missing_line(judged);
  out += divergence_line(judged);
  out += lacking_line(judged);
  out += "reports: " + run_dir.string() +
         "/{results.json,results.csv,junit.xml,summary.md,report.html}\n";
  return out;
}

}  // namespace mudjack::report
