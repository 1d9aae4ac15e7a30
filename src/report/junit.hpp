#pragma once
// junit.xml: the results as JUnit XML, for CI systems that show test reports.
// A rendering of the results model (CONTRIBUTING.md rule 8).
//
// Layout: <testsuites> holds one <testsuite name="<framework>@<device>"> per
// framework x device (in order of first appearance), each holding one
// <testcase classname="<framework>.<function>" name="<variant>"
// time="<wall_s>"> per result. The framework prefix is not doubled when the
// function is already listed with it ("torch.argsort" stays
// "torch.argsort"). fail, crash, timeout and mismatch carry a
// <failure type="<outcome>" message="<one line>"> whose text holds the full
// error (kind, signal or exit code, traceback, stderr tail, numeric
// mismatch); skip and unavailable carry <skipped message="<reason>">.
// Pure and thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace mudjack::report {

std::string to_junit(const model::RunInfo& run, const std::vector<model::CaseResult>& cases);

// Escapes text for XML 1.0 element content or attribute values: & < > " '
// become entities; in attributes, TAB, LF and CR become character references
// so they survive attribute normalisation. Characters XML 1.0 cannot carry
// (other C0 controls, U+FFFE, U+FFFF) are written as the visible text
// "\xNN" / "\uFFFE"; invalid UTF-8 becomes U+FFFD.
std::string xml_escape(std::string_view text, bool attribute);

}  // namespace mudjack::report
