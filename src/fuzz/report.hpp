#pragma once
// A fuzz campaign's reports, every format, rewritten after each batch:
// findings.json (the summary and every unique finding), findings.csv (one
// row per finding), summary.md (ready to paste), junit.xml (a failing test
// per finding), report.html (self-contained: counts, acceptance, coverage,
// the findings table with each reduced graph).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/findings.hpp"

namespace mudjack::fuzz {

// Suspects (symptom `suspect`, fuzz/suspect.hpp) have their own count and
// section in every format: never a finding, never a JUnit failure.

// The version of findings.json (`schemas/fuzz-findings-v1.schema.json`):
// 1.1 added `suspects` and the symptom `suspect`.
inline constexpr const char* kFindingsSchemaVersion = "1.1";

// `summary`: the campaign's counts (graphs, cases, acceptance, coverage, ...).
void write_reports(const std::filesystem::path& dir, const nlohmann::json& summary,
                   const std::vector<Finding>& findings, const std::vector<Finding>& suspects);

std::string render_csv(const std::vector<Finding>& findings, const std::vector<Finding>& suspects);
std::string render_markdown(const nlohmann::json& summary, const std::vector<Finding>& findings,
                            const std::vector<Finding>& suspects);
std::string render_junit(const nlohmann::json& summary, const std::vector<Finding>& findings,
                         const std::vector<Finding>& suspects);
std::string render_html(const std::filesystem::path& dir, const nlohmann::json& summary,
                        const std::vector<Finding>& findings, const std::vector<Finding>& suspects);

}  // namespace mudjack::fuzz
