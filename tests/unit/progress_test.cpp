// The progress display shows what suites and probes wrote (case ids,
// messages, device names) without letting any of it drive the terminal.

#include "cli/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mudjack::cli {
namespace {

TEST(Progress, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(terminal_safe("numpy/np.sum/float32-vec"), "numpy/np.sum/float32-vec");
  EXPECT_EQ(terminal_safe("a\x1b[2Jb"), "a\\x1B[2Jb");
  EXPECT_EQ(terminal_safe("x\rreturn\n\t\x07\x7f"), "x\\x0Dreturn\\x0A\\x09\\x07\\x7F");
  // UTF-8 text stays; C1 controls (8-bit CSI) and stray bytes are escaped.
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x99\x82"),
            "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x99\x82");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m"),
            "\\u009B31m");
  EXPECT_EQ(terminal_safe("\x9b"
                          "31m"),
            "\\x9B31m");
  EXPECT_EQ(terminal_safe("\xc3"), "\\xC3") << "a cut sequence";
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xC0\\xAF") << "an overlong form";
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xED\\xA0\\x80") << "a surrogate";
  EXPECT_EQ(terminal_safe(std::string("a\0b", 3)), "a\\x00b");
}

TEST(Progress, OutcomeLinesAndFaultsCarryNoRawControlCharacters) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buffer, &size);
  ASSERT_NE(out, nullptr);
  {
    Progress progress(2, 0, {{"cpu\x1b[1m", 2}}, /*tty=*/false, out);
    model::CaseResult r;
    r.info.id = "numpy/\x1b]0;owned\x07/x\rreturn";
    r.device = "cpu\x1b[1m";
    r.outcome = model::Outcome::kFail;
    r.error.kind = model::ErrorKind::kOther;
    r.error.message = "red \x1b[31malert\x1b[0m";
    progress.on_result(r);
    progress.finish();
    progress.fault("cannot save outputs in /x\x1b[2J: disk full");
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("numpy/\\x1B]0;owned\\x07/x\\x0Dreturn"), std::string::npos) << text;
  EXPECT_NE(text.find("mudjack: run stopped by a machine fault: cannot save outputs in /x\\x1B[2J"),
            std::string::npos)
      << text;
}

TEST(Progress, TheRedrawnLineEscapesDeviceNames) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buffer, &size);
  ASSERT_NE(out, nullptr);
  {
    Progress progress(1, 0, {{"cuda:0\x1b[2J", 1}}, /*tty=*/true, out);
    model::CaseResult r;
    r.device = "cuda:0\x1b[2J";
    r.outcome = model::Outcome::kPass;
    progress.on_result(r);
    progress.finish();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  // The redraw's own "\r\033[K" is the only escape sequence.
  EXPECT_EQ(text.find("\x1b[2J"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda:0\\x1B[2J 1/1"), std::string::npos) << text;
}

// A dtype the framework lacks (numpy's bfloat16, added by the grid and
// rejected by type) is counted unsupported, as every view counts it, not
// failed; a real failure beside it still is.
TEST(Progress, AnUnsupportedDtypeIsCountedUnsupportedNotFailed) {
  model::CaseResult lacking;
  lacking.info.id = "numpy/softmax/bfloat16-given-eager";
  lacking.info.grid = true;
  lacking.device = "cpu";
  lacking.outcome = model::Outcome::kFail;
  lacking.error.kind = model::ErrorKind::kUnsupportedDtype;
  lacking.error.message = "UnsupportedDtype: numpy has no dtype bfloat16";
  model::CaseResult wrong = lacking;
  wrong.info.id = "numpy/softmax/float16-given-eager";
  wrong.info.grid = false;
  wrong.error.kind = model::ErrorKind::kOther;
  for (const bool tty : {true, false}) {
    char* buffer = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&buffer, &size);
    ASSERT_NE(out, nullptr);
    {
      Progress progress(2, 0, {{"cpu", 2}}, tty, out);
      progress.on_result(lacking);
      if (tty) {
        std::fflush(out);
        EXPECT_NE(std::string(buffer, size).find("[1/2] 0 failed, 1 unsupported"),
                  std::string::npos)
            << std::string(buffer, size);
      }
      progress.on_result(wrong);
      progress.finish();
    }
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    if (tty) {
      EXPECT_NE(text.find("[2/2] 1 failed, 1 unsupported"), std::string::npos) << text;
    } else {
      EXPECT_NE(text.find("[1/2] cpu     unsupported numpy/softmax/bfloat16"), std::string::npos)
          << text;
      EXPECT_NE(text.find("[2/2] cpu     fail        numpy/softmax/float16"), std::string::npos)
          << text;
    }
  }
}

}  // namespace
}  // namespace mudjack::cli
