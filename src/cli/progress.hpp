#pragma once
// Run progress on stderr: a redrawn status line on a terminal (done/total,
// failures, unsupported dtypes and unstable timings so far, ETA, per
// device), one plain line per outcome otherwise (a timed case's median, and
// "unstable, spread N%" where its timing is). A failing case whose dtype the
// framework lacks is counted and shown `unsupported`, not failed
// (verdict::unsupported_reason, as every other view).
// Called from the supervisor's listener, which is already serialised.
//
// Case ids, device names and messages come from suites and probes: every
// control character in them is shown escaped (terminal_safe), so none can
// move the cursor, clear the screen or retitle the terminal.

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include "model/model.hpp"

namespace mudjack::cli {

// `text` with every control character escaped: C0 controls, DEL and C1
// controls (U+0080-U+009F) as \xHH / \u00HH, bytes that are not UTF-8 as
// \xHH; everything else, other UTF-8 included, unchanged.
std::string terminal_safe(std::string_view text);

class Progress {
 public:
  // `total` pairs planned, `done` of them already finished (resume).
  Progress(size_t total, size_t done, std::map<std::string, size_t> per_device_total, bool tty,
           FILE* out);
  void on_result(const model::CaseResult& r);
  // One line saying why the run stopped short (supervisor::execute's engine
  // fault); call it after finish().
  void fault(const std::string& why);
  void finish();

 private:
  void redraw();
  size_t total_;
  size_t done_;
  size_t done_here_ = 0;
  size_t failed_ = 0;
  size_t unsupported_ =
      0;                 // failing cases whose dtype is not claimed (verdict::unsupported_reason)
  size_t errors_ = 0;    // the suite's own mistakes (outcome error)
  size_t unstable_ = 0;  // timed cases whose spread is past stats::kUnstableSpread
  std::map<std::string, size_t> device_total_;
  std::map<std::string, size_t> device_done_;
  bool tty_;
  FILE* out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace mudjack::cli
