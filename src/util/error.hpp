#pragma once
// The one fatal error type (CONTRIBUTING.md rule 6). Thrown for bad usage or bad
// input; caught once in main and printed as `mudjack: error: <message>`.
// Expected failures (a case that fails, a probe that crashes) are values,
// never exceptions; broken invariants abort.

#include <stdexcept>
#include <string>

namespace mudjack::util {

class FatalError : public std::runtime_error {
 public:
  explicit FatalError(const std::string& message, int exit_code = 2)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace mudjack::util
