#pragma once
// Text helpers shared by the report views (and the CLI's one-line messages): decoding
// UTF-8 and repairing text that came from a probe (stderr tails, exception
// messages) before a view writes it. Pure and thread-safe.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "verdict/judged.hpp"

namespace mudjack::report {

// Longest message a view prints on one line, in bytes.
inline constexpr size_t kMaxMessageBytes = 200;

// Verdict columns in the order every table shows them: portable first,
// unavailable last.
inline constexpr std::array<model::Verdict, 7> kVerdictOrder = {
    model::Verdict::kPortable,       model::Verdict::kUnverified,
    model::Verdict::kPartialFailure, model::Verdict::kCompleteFailure,
    model::Verdict::kDivergent,      model::Verdict::kIntolerableLatency,
    model::Verdict::kUnavailable};

// One line counting the functions whose listed name is missing (verdict
// unavailable, VerdictRow::successor), with how many successors were
// portable: "listed names missing (counted unavailable, never portable): 3
// (torch on cpu: 2, successor portable 2; ...)\n". Empty when there are none.
std::string listed_missing_line(const verdict::Judged& judged);

// The divergent functions per framework and device by cause; empty when
// there are none.
std::string divergence_line(const verdict::Judged& judged);

// The counts beside the failure rate, one line each, or "": functions with
// unsupported dtypes (VerdictRow::unsupported, never failures), functions
// with a kernel missing (VerdictRow::kernel_missing, failures: in the rate),
// portability gaps (Judged::gaps), per framework and device, and the failing
// cases no gap can be told for (Judged::unreached).
std::string apart_lines(const verdict::Judged& judged);
// Claimed versus actual support (verdict/claims.hpp), one line per
// framework and device: "claimed vs actual, torch on cuda:0: 4210 agree,
// 12 claimed but failing (e.g. linalg.svd float16), 40 working but
// unclaimed (e.g. ...)\n". Empty when no case carries claims.
std::string claims_lines(const verdict::Judged& judged);

// The first case behind verdict `v` that did not pass: a failing, then a
// mismatching case (VerdictRow::failing, ::mismatching), else any other of
// its cases on its device that is no pass; nullptr when none.
const model::CaseResult* first_failing(const verdict::Judged& j, const model::VerdictRow& v);

// Where a machine's probes ran (environment.machines[].layout, results
// 1.10), plain text, or "" when the run recorded none: "lanes side by side;
// 2 probes of cpu: cores 0 (1 thread), cores 1 (1 thread); 1 probe of
// cuda:0: cores 2,3 (default threads)".
std::string layout_line(const nlohmann::json& machine);

// "partial_failure" -> "partial failure".
std::string words(std::string_view name);

// Decodes the UTF-8 sequence starting at s[i] (i < s.size()). Returns the code
// point and the sequence length, or {-1, 1} for an invalid, overlong or
// truncated sequence or an encoded surrogate.
std::pair<long, size_t> decode_utf8(std::string_view s, size_t i);

// `s` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

// Probe text made safe for one line: invalid UTF-8 repaired, ANSI escape
// sequences removed, TAB made a space, other control characters dropped.
std::string plain(std::string_view s);

// The first non-empty line, cleaned (plain), cut to max_bytes on a UTF-8
// boundary with "…" appended when cut.
std::string one_line(std::string_view text, size_t max_bytes = kMaxMessageBytes);

// The last line of s, trailing newlines and spaces ignored.
std::string last_line(std::string_view s);

// The environment is {"machines": [{"host", "devices": [...], "label"?}, ...]}:
// one entry per machine whose results are in the report (a merged run's
// machines carry the label their devices are prefixed with). An empty array
// when env has no such list.
const nlohmann::json& machines(const nlohmann::json& env);

// Why result `r` did not pass, in its own words, on one line cut to
// max_bytes: the error message, else (a mismatch) the numeric comparison's,
// else the last line of the probe's stderr; prefixed "signal N: " or
// "exit code N: " when the probe died that way. "" when there is nothing.
std::string failure_text(const model::CaseResult& r, size_t max_bytes = kMaxMessageBytes);

// The model of device `id` ("cuda:0", or "h200/cuda:0" in a merged run: the
// machine labelled "h200"), or "" when the environment does not say.
std::string device_model(const nlohmann::json& env, const std::string& id);

// `s` with &, <, >, " and ' as HTML entities (invalid UTF-8 repaired).
std::string html_escape(std::string_view s);
// `s` with the characters Markdown (and GitHub's tables) would interpret escaped.
std::string markdown_escape(std::string_view s);

}  // namespace mudjack::report
