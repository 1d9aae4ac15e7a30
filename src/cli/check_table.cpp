#include "cli/check_table.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "cli/common.hpp"
#include "cli/progress.hpp"
#include "report/text.hpp"
#include "report/units.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::cli {
namespace {

// The spread as slowest over fastest (the Python API's Row.ratio): the round
// medians' max / min, with one round its samples' p90 / p10; infinity where
// the fastest took no time; nullopt for a case not timed.
std::optional<double> spread_ratio(const model::Latency& latency) {
  if (!latency.timing || !latency.stats) return std::nullopt;
  double lo = latency.stats->p10_ns;
  double hi = latency.stats->p90_ns;
  if (const auto& rounds = latency.timing->rounds_ns; rounds.size() > 1) {
    const auto [fastest, slowest] = std::minmax_element(rounds.begin(), rounds.end());
    lo = *fastest;
    hi = *slowest;
  }
  return lo > 0 ? hi / lo : std::numeric_limits<double>::infinity();
}

std::string padded(const std::string& text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

// The cells of case `i`, in the order of the heads (check_table_text).
std::vector<std::string> cells(const verdict::Judged& judged, size_t i) {
  const auto& r = judged.cases[i];
  const auto& timing = r.latency.timing;
  const bool unstable = timing && timing->unstable;
  const std::string checked =
      r.outcome == model::Outcome::kPass ? std::string(model::to_string(judged.checked[i])) : "-";
  // A refused fail reads as the judge reads it (Judged::refusals): outside
  // the domain `unsupported` (not a failure), a gap of this chip
  // `kernel_missing` (a failure).
  const auto refusal = judged.refusals[i].refusal;
  const std::string outcome = refusal != model::Refusal::kNone
                                  ? std::string(model::to_string(refusal))
                                  : std::string(model::to_string(r.outcome));
  std::string median = "-";
  if (r.latency.stats) {
    median = report::duration_text(r.latency.stats->median_ns);
    if (unstable) median = "[" + median + "]";
  }
  std::string noise = unstable ? "unstable" : "-";
  if (const auto ratio = timing ? spread_ratio(r.latency) : std::nullopt) {
    noise = report::spread_ratio_text(*ratio) + (unstable ? " unstable" : "");
  }
  return {terminal_safe(r.info.function),
          terminal_safe(r.device),
          terminal_safe(r.info.mode),
          terminal_safe(r.info.dtype),
          outcome,
          checked,
          report::eps_over_bound(r.numeric.error_eps, r.numeric.bound_eps),
          median,
          timing ? terminal_safe(timing->bound) : "-",
          noise};
}

}  // namespace

bool check_failed(const verdict::Judged& judged, size_t i) {
  const auto& r = judged.cases[i];
  if (r.outcome == model::Outcome::kPass || r.outcome == model::Outcome::kSkip) return false;
  if (i < judged.refusals.size() && judged.refusals[i].refusal == model::Refusal::kUnsupported) {
    return false;
  }
  return !verdict::unsupported_reason(r);
}

std::string repro_command(const verdict::Judged& judged, size_t i,
                          const std::filesystem::path& results_dir) {
  const auto& r = judged.cases[i];
  return "mudjack repro " + shell_word(r.info.id) + " --device " + shell_word(r.device) +
         " --run " + shell_word(judged.run.id) + " --out " + shell_word(results_dir.string());
}

std::string check_table_text(const verdict::Judged& judged,
                             const std::filesystem::path& results_dir) {
  // Column heads; the widths of the first six are fixed (NAME's is its
  // longest name), the error and median columns right-aligned to theirs.
  const std::vector<std::string> heads = {
      "NAME",    "DEVICE",          "MODE",   "DTYPE", "OUTCOME",
      "CHECKED", "ERROR/BOUND eps", "MEDIAN", "CLASS", "NOISE"};
  std::vector<size_t> widths = {4, 8, 9, 9, 11, 9, heads[6].size(), 10, 12, 0};
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < judged.cases.size(); ++i) {
    rows.push_back(cells(judged, i));
    for (const size_t c : {size_t{0}, size_t{6}, size_t{7}}) {
      widths[c] = std::max(widths[c], rows.back()[c].size());
    }
  }
  const auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      out += (c == 0 ? "" : " ") + (last ? row[c] : padded(row[c], widths[c], c == 6 || c == 7));
    }
    return out + "\n";
  };
  std::string out = line(heads);
  const std::string indent(widths[0] + 10, ' ');
  for (size_t i = 0; i < judged.cases.size(); ++i) {
    out += line(rows[i]);
    const auto& r = judged.cases[i];
    const auto& why = judged.refusals[i];
    if (why.refusal != model::Refusal::kNone) {
      out += indent + terminal_safe(report::one_line(why.reason)) + "\n";
    } else if (r.outcome != model::Outcome::kPass) {
      if (auto text = report::failure_text(r); !text.empty()) {
        out += indent + terminal_safe(text) + "\n";
      }
    }
    if (check_failed(judged, i)) {
      out += indent + terminal_safe(repro_command(judged, i, results_dir)) + "\n";
    }
  }
  return out;
}

}  // namespace mudjack::cli
