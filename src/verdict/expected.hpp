#pragma once
// Expected failures for CI (`mudjack run --xfail FILE`): cases known to fail
// are reported as expected and do not trip --fail-on; a listed case that
// passes is an error (remove it from the file), as pytest's strict xfail.
//
// The file: one entry per line, `CASE_ID [DEVICE]`; CASE_ID may be a shell
// glob ("torch/torch.sort/*"), DEVICE absent means every device; `#` starts
// a comment; blank lines are ignored.

#include <filesystem>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace mudjack::verdict {

struct Expected {
  std::string pattern;  // case id glob
  std::string device;   // "" = every device
  int line = 0;
};

// FatalError naming the file and line for an unreadable file or a line with
// more than two fields.
std::vector<Expected> read_expected(const std::filesystem::path& file);

bool is_expected(const std::vector<Expected>& expected, const model::CaseResult& r);

struct ExpectedReport {
  std::vector<const model::CaseResult*> still_failing;  // listed, and did not pass
  std::vector<const model::CaseResult*> passing;        // listed, and passed: an error
};

ExpectedReport check_expected(const std::vector<Expected>& expected,
                              const std::vector<model::CaseResult>& results);

// Whether every failing and mismatching case of `row` is expected: such a
// verdict does not trip --fail-on.
bool all_expected(const std::vector<Expected>& expected, const model::VerdictRow& row);

}  // namespace mudjack::verdict
