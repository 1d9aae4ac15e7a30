#pragma once
// JSON text for files, responses and event streams.

#include <string>

#include <nlohmann/json.hpp>

namespace mudjack::util {

// Serialises for a file: `indent` spaces per level (-1: compact, one line);
// invalid UTF-8 in strings (a probe's stderr) is replaced by U+FFFD instead of
// throwing.
std::string dump_json(const nlohmann::json& doc, int indent = 1);

}  // namespace mudjack::util
