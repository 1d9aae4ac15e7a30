#pragma once
// Writes a run's reports: results.json (primary), results.csv, junit.xml,
// summary.md and report.html, all renderings of the one results model (CONTRIBUTING.md rule 8).
//
// Called by the run lifecycle (run::finish) and by `report`, `merge`, `sweep`
// and the server's results route, on a judged run (verdict::judge);
// blocks on file I/O. Thread-safe as long as two callers do not write the
// same folder at once. Errors throw util::FatalError naming the file.

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "verdict/judged.hpp"

namespace mudjack::report {

// The formats render() knows, and the file each is written to by write_all().
inline constexpr std::array<std::string_view, 5> kFormats = {"json", "csv", "junit", "md", "html"};
inline constexpr std::array<std::string_view, 5> kFileNames = {
    "results.json", "results.csv", "junit.xml", "summary.md", "report.html"};

// One report as text. results.json is pretty-printed with a 1-space indent.
// FatalError for a format outside kFormats, listing the known ones.
std::string render(std::string_view format, const verdict::Judged& judged);

// Creates `dir` if needed and writes every format to its file there.
void write_all(const std::filesystem::path& dir, const verdict::Judged& judged);

// Writes `content` to a temporary file beside `file`, flushes it to disk and
// renames it over `file`, so a reader sees the old file or the new one, never
// half of one. Never writes through a link: the temporary file is created
// new (O_EXCL | O_NOFOLLOW; a link or file already at its name is unlinked
// as itself first), and the rename replaces a link at `file` rather than
// writing where it points. FatalError naming the file on any failure (the
// temporary file is removed).
void write_file_atomically(const std::filesystem::path& file, std::string_view content);

}  // namespace mudjack::report
