#include "cli/progress.hpp"

#include "util/time.hpp"

namespace mudjack::cli {
namespace {

std::string eta(double seconds) {
  if (seconds < 0 || seconds > 1e7) return "?";
  auto s = static_cast<long>(seconds);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", s / 60, s % 60);
  }
  return buf;
}

bool is_failure(model::Outcome o) {
  return o == model::Outcome::kFail || o == model::Outcome::kCrash ||
         o == model::Outcome::kTimeout || o == model::Outcome::kMismatch;
}

}  // namespace

Progress::Progress(size_t total, size_t done, std::map<std::string, size_t> per_device_total,
                   bool tty, FILE* out)
    : total_(total),
      done_(done),
      device_total_(std::move(per_device_total)),
      tty_(tty),
      out_(out) {}

void Progress::on_result(const model::CaseResult& r) {
  ++done_;
  ++done_here_;
  ++device_done_[r.device];
  if (is_failure(r.outcome)) ++failed_;
  if (tty_) {
    redraw();
    return;
  }
  std::string detail;
  if (r.latency.stats) detail = util::format_ns(r.latency.stats->median_ns);
  if (is_failure(r.outcome) || r.outcome == model::Outcome::kUnavailable ||
      r.outcome == model::Outcome::kSkip) {
    std::string kind(model::to_string(r.error.kind));
    detail = (kind.empty() ? "" : kind + ": ") + r.error.message.substr(0, 100);
  }
  std::fprintf(out_, "[%zu/%zu] %-7s %-11s %s  %s\n", done_, total_, r.device.c_str(),
               std::string(model::to_string(r.outcome)).c_str(), r.info.id.c_str(), detail.c_str());
  std::fflush(out_);
}

void Progress::redraw() {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = done_here_ > 0 ? elapsed / static_cast<double>(done_here_) : 0;
  std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " +
                     std::to_string(failed_) + " failed  ETA " +
                     eta(rate * static_cast<double>(total_ - done_));
  for (const auto& [device, n] : device_total_) {
    line += "  " + device + " " + std::to_string(device_done_[device]) + "/" + std::to_string(n);
  }
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
}

void Progress::finish() {
  if (tty_) std::fprintf(out_, "\n");
  std::fflush(out_);
}

}  // namespace mudjack::cli
