#include "verdict/intolerable.hpp"

#include <toml++/toml.h>

#include <set>
#include <string>

#include "util/error.hpp"

namespace mudjack::verdict {
namespace {

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
  throw util::FatalError(path.string() + ": " + what);
}

double ratio(const toml::node& node, const std::filesystem::path& path, const std::string& where) {
  auto v = node.value<double>();
  if (!v) bad(path, where + " must be a number");
  if (!(*v > 1.0))
    bad(path, where + " must be greater than 1 (a ratio of latencies), got " + std::to_string(*v));
  return *v;
}

std::string text(const toml::table& t, const char* key, bool required,
                 const std::filesystem::path& path, const std::string& where) {
  const auto* node = t.get(key);
  if (!node) {
    if (required) bad(path, where + " needs " + key);
    return {};
  }
  auto v = node->value<std::string>();
  if (!v || v->empty()) bad(path, where + "." + key + " must be a non-empty string");
  return *v;
}

}  // namespace

Options load_intolerable(const std::filesystem::path& path, Options options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) bad(path, "no such file");
  toml::table root;
  try {
    root = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    bad(path,
        "line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  for (const auto& [key, value] : root) {
    const std::string k(key.str());
    if (k != "default" && k != "functions" && k != "pairs") {
      bad(path, "unknown key '" + k + "' (known: default, functions, pairs)");
    }
  }
  if (const auto* node = root.get("default"))
    options.intolerable_ratio = ratio(*node, path, "default");
  if (const auto* node = root.get("functions")) {
    const auto* t = node->as_table();
    if (!t) bad(path, "[functions] must be a table of \"function\" = ratio");
    for (const auto& [key, value] : *t) {
      const std::string fn(key.str());
      options.function_ratios[fn] = ratio(value, path, "functions.\"" + fn + "\"");
    }
  }
  if (const auto* node = root.get("pairs")) {
    const auto* list = node->as_array();
    if (!list) bad(path, "pairs must be an array of tables ([[pairs]])");
    size_t index = 0;
    for (const auto& entry : *list) {
      const std::string where = "pairs[" + std::to_string(index++) + "]";
      const auto* t = entry.as_table();
      if (!t) bad(path, where + " must be a table");
      for (const auto& [key, value] : *t) {
        const std::string k(key.str());
        if (k != "baseline" && k != "device" && k != "function" && k != "ratio") {
          bad(path, "unknown key '" + k + "' in " + where +
                        " (known: baseline, device, function, ratio)");
        }
      }
      const auto baseline = text(*t, "baseline", true, path, where);
      const auto device = text(*t, "device", true, path, where);
      const auto function = text(*t, "function", false, path, where);
      const auto* r = t->get("ratio");
      if (!r) bad(path, where + " needs ratio");
      options.pair_ratios[{function, baseline, device}] = ratio(*r, path, where + ".ratio");
    }
  }
  return options;
}

Options thresholds_for(const std::optional<std::filesystem::path>& explicit_path, Options options) {
  if (explicit_path) return load_intolerable(*explicit_path, std::move(options));
  std::error_code ec;
  if (std::filesystem::exists("intolerable.toml", ec)) {
    return load_intolerable("intolerable.toml", std::move(options));
  }
  return options;
}

Options options_for(const std::string& baseline,
                    const std::optional<std::filesystem::path>& intolerable) {
  Options options;
  options.baseline = baseline;
  return thresholds_for(intolerable, std::move(options));
}

}  // namespace mudjack::verdict
