#pragma once
// Run progress on stderr: a redrawn status line on a terminal (done/total,
// failures so far, ETA, per device), one plain line per outcome otherwise.
// Called from the supervisor's listener, which is already serialised.

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "model/model.hpp"

namespace mudjack::cli {

class Progress {
 public:
  // `total` pairs planned, `done` of them already finished (resume).
  Progress(size_t total, size_t done, std::map<std::string, size_t> per_device_total, bool tty,
           FILE* out);
  void on_result(const model::CaseResult& r);
  void finish();

 private:
  void redraw();
  size_t total_;
  size_t done_;
  size_t done_here_ = 0;
  size_t failed_ = 0;
  std::map<std::string, size_t> device_total_;
  std::map<std::string, size_t> device_done_;
  bool tty_;
  FILE* out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace mudjack::cli
