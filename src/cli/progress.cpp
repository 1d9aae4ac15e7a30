#include "cli/progress.hpp"

#include "report/units.hpp"
#include "stats/timing.hpp"
#include "verdict/refusal.hpp"
#include "verdict/verdict.hpp"

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

// The length of the valid UTF-8 sequence at text[i] and its code point,
// or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view text, size_t i, uint32_t* code) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t n = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (lead >= 0xF8 || n == 0 || i + n > text.size()) return 0;
  uint32_t cp = lead & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  *code = cp;
  return n;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[8];
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    uint32_t code = 0;
    size_t n = c >= 0x80 ? utf8_sequence(text, i, &code) : 0;
    if (n > 0 && code >= 0xA0) {
      out.append(text.substr(i, n));
    } else if (n > 0) {  // a C1 control: 8-bit CSI and friends
      std::snprintf(buf, sizeof(buf), "\\u%04X", static_cast<unsigned>(code));
      out += buf;
    } else {
      std::snprintf(buf, sizeof(buf), "\\x%02X", static_cast<unsigned>(c));
      out += buf;
      n = 1;
    }
    i += n;
  }
  return out;
}

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
  const auto refusal = verdict::refusal_of(r).refusal;
  const bool unsupported = refusal == model::Refusal::kUnsupported;
  if (unsupported) {
    ++unsupported_;
  } else if (model::props(r.outcome).failure) {
    ++failed_;
  }
  if (r.outcome == model::Outcome::kError) ++errors_;
  if (r.latency.stats && r.latency.timing && r.latency.timing->unstable) ++unstable_;
  if (tty_) {
    redraw();
    return;
  }
  std::string detail;
  if (r.latency.stats) {
    detail = report::duration_text(r.latency.stats->median_ns);
    if (auto noisy = stats::unstable_text(r.latency); !noisy.empty()) detail += " (" + noisy + ")";
  }
  if (r.outcome != model::Outcome::kPass) {
    std::string kind(model::to_string(r.error.kind));
    detail = (kind.empty() ? "" : kind + ": ") + r.error.message.substr(0, 100);
  }
  // A refused fail shows the judge's word: unsupported, kernel_missing (verdict/refusal.hpp).
  const std::string outcome = refusal != model::Refusal::kNone
                                  ? std::string(model::to_string(refusal))
                                  : std::string(model::to_string(r.outcome));
  std::fprintf(out_, "[%zu/%zu] %-7s %-11s %s  %s\n", done_, total_,
               terminal_safe(r.device).c_str(), outcome.c_str(), terminal_safe(r.info.id).c_str(),
               terminal_safe(detail).c_str());
  std::fflush(out_);
}

void Progress::redraw() {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = done_here_ > 0 ? elapsed / static_cast<double>(done_here_) : 0;
  std::string line =
      "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + std::to_string(failed_) +
      " failed" + (unsupported_ > 0 ? ", " + std::to_string(unsupported_) + " unsupported" : "") +
      (errors_ > 0 ? ", " + std::to_string(errors_) + " suite errors" : "") +
      (unstable_ > 0 ? ", " + std::to_string(unstable_) + " unstable" : "") + "  ETA " +
      eta(rate * static_cast<double>(total_ - done_));
  for (const auto& [device, n] : device_total_) {
    line += "  " + terminal_safe(device) + " " + std::to_string(device_done_[device]) + "/" +
            std::to_string(n);
  }
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
}

void Progress::fault(const std::string& why) {
  std::fprintf(out_, "mudjack: run stopped by a machine fault: %s\n", terminal_safe(why).c_str());
  std::fflush(out_);
}

void Progress::finish() {
  if (tty_) std::fprintf(out_, "\n");
  std::fflush(out_);
}

}  // namespace mudjack::cli
