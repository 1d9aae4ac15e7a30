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

// `summary`: the campaign's counts (graphs, cases, acceptance, coverage, ...).
void write_reports(const std::filesystem::path& dir, const nlohmann::json& summary,
                   const std::vector<Finding>& findings);

std::string render_csv(const std::vector<Finding>& findings);
std::string render_markdown(const nlohmann::json& summary, const std::vector<Finding>& findings);
std::string render_junit(const nlohmann::json& summary, const std::vector<Finding>& findings);
std::string render_html(const std::filesystem::path& dir, const nlohmann::json& summary,
                        const std::vector<Finding>& findings);

}  // namespace mudjack::fuzz
