#include "fleet/targets.hpp"

#include <toml++/toml.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "util/error.hpp"

namespace mudjack::fleet {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json toml_to_json(const toml::table& table) {
  std::stringstream ss;
  ss << toml::json_formatter{table};
  return json::parse(ss.str());
}

std::string string_field(const json& t, const char* key, const std::string& where,
                         const std::string& source, bool required) {
  if (!t.contains(key)) {
    if (required) throw util::FatalError(source + ": " + where + " has no '" + key + "'");
    return "";
  }
  if (!t[key].is_string() || t[key].get<std::string>().empty()) {
    throw util::FatalError(source + ": " + where + "." + key + " must be a non-empty string");
  }
  return t[key].get<std::string>();
}

// The document as JSON, whichever format it was written in.
json parse_document(std::string_view text, std::string_view format, const std::string& source) {
  json doc;
  if (format == "json") {
    doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) throw util::FatalError(source + ": not valid JSON");
  } else {
    try {
      doc = toml_to_json(toml::parse(text, source));
    } catch (const toml::parse_error& e) {
      throw util::FatalError(source + ": line " + std::to_string(e.source().begin.line) + ": " +
                             std::string(e.description()));
    }
  }
  if (!doc.is_object()) throw util::FatalError(source + ": must be a table/object");
  return doc;
}

// The target's POST /v1/runs body: [run], its own run table over it, and
// its framework unless the body names one.
json target_request(const json& t, const Target& target, const json& defaults,
                    const std::string& where, const std::string& source) {
  json request = defaults;
  if (t.contains("run")) {
    if (!t["run"].is_object()) {
      throw util::FatalError(source + ": " + where + ".run must be a table/object");
    }
    for (const auto& [key, value] : t["run"].items()) request[key] = value;
  }
  if (request.contains("resume")) {
    throw util::FatalError(source + ": " + where +
                           ": 'resume' is not for targets files (use --resume)");
  }
  if (!target.framework.empty() && !request.contains("framework") &&
      !request.contains("frameworks")) {
    request["frameworks"] = json::array({target.framework});
  }
  if (!request.contains("suite") && !request.contains("suites")) {
    throw util::FatalError(source + ": " + where + ": no suite to run (set suite in [run])");
  }
  return request;
}

// One [[target]] table; `where` names it ("target 2") until its label is
// known. Its label joins `labels`, the ones taken.
Target parse_target(const json& t, std::string where, const json& defaults, const fs::path& base,
                    const std::string& source, std::set<std::string>& labels) {
  static const std::regex label_re("^[A-Za-z0-9._-]{1,64}$");
  static const std::set<std::string> keys = {"label",     "url",   "token_file", "chip",
                                             "framework", "image", "run"};
  if (!t.is_object()) throw util::FatalError(source + ": " + where + " must be a table/object");
  for (const auto& [key, value] : t.items()) {
    if (!keys.count(key)) {
      throw util::FatalError(source + ": " + where + ": unknown key '" + key +
                             "' (known: label, url, token_file, chip, framework, image, run)");
    }
  }
  Target target;
  target.label = string_field(t, "label", where, source, true);
  // The label names a folder (targets/<label>/) and prefixes device names:
  // no path separators, no control characters, and not "." or "..", which
  // name the sweep folder itself or its parent. A bad label is not echoed.
  if (!std::regex_match(target.label, label_re) || target.label == "." || target.label == "..") {
    throw util::FatalError(source + ": " + where +
                           ": a label is 1-64 of A-Z a-z 0-9 . _ - and not . or .. (it names a "
                           "folder)");
  }
  where = "target '" + target.label + "'";
  if (!labels.insert(target.label).second) {
    throw util::FatalError(source + ": two targets are labelled '" + target.label + "'");
  }
  target.url = string_field(t, "url", where, source, true);
  while (!target.url.empty() && target.url.back() == '/') target.url.pop_back();
  std::string error;
  auto url = parse_url(target.url, &error);
  if (!url) throw util::FatalError(source + ": " + where + ": " + error);
  target.host = url->host;
  target.port = url->port;
  auto token = string_field(t, "token_file", where, source, false);
  if (!token.empty()) {
    target.token_file = fs::path(token).is_absolute() ? fs::path(token) : base / token;
  }
  target.chip = string_field(t, "chip", where, source, false);
  target.framework = string_field(t, "framework", where, source, false);
  target.image = string_field(t, "image", where, source, false);
  target.request = target_request(t, target, defaults, where, source);
  return target;
}

}  // namespace

std::optional<Url> parse_url(std::string_view url, std::string* error) {
  static const std::regex re(R"(^http://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.\-_]+)(:([0-9]{1,5}))?/?$)");
  std::cmatch m;
  if (url.rfind("https://", 0) == 0) {
    *error = "https is not supported; use http:// (behind a TLS proxy if needed)";
    return std::nullopt;
  }
  if (!std::regex_match(url.data(), url.data() + url.size(), m, re)) {
    *error = "'" + std::string(url) + "' is not an http://HOST[:PORT] URL";
    return std::nullopt;
  }
  Url u;
  u.host = m[1].str();
  if (u.host.front() == '[') u.host = u.host.substr(1, u.host.size() - 2);
  if (m[3].matched) {
    u.port = std::stoi(m[3].str());
    if (u.port < 1 || u.port > 65535) {
      *error = "port " + m[3].str() + " is out of range";
      return std::nullopt;
    }
  }
  return u;
}

std::vector<Target> parse_targets(std::string_view text, std::string_view format,
                                  const fs::path& base, std::string_view source_view) {
  std::string source(source_view);
  json doc = parse_document(text, format, source);
  const char* list_key = format == "json" ? "targets" : "target";
  for (const auto& [key, value] : doc.items()) {
    if (key != "run" && key != list_key) {
      throw util::FatalError(source + ": unknown key '" + key + "' (known: run, " + list_key + ")");
    }
  }
  json defaults = doc.value("run", json::object());
  if (!defaults.is_object()) throw util::FatalError(source + ": 'run' must be a table/object");
  if (!doc.contains(list_key) || !doc[list_key].is_array() || doc[list_key].empty()) {
    throw util::FatalError(
        source + ": no targets (add " +
        (format == "json" ? std::string("\"targets\": [...]") : std::string("[[target]] tables")) +
        ")");
  }
  std::vector<Target> out;
  std::set<std::string> labels;
  int n = 0;
  for (const auto& t : doc[list_key]) {
    out.push_back(parse_target(t, "target " + std::to_string(++n), defaults, base, source, labels));
  }
  return out;
}

std::vector<Target> load_targets(const fs::path& file) {
  std::ifstream f(file);
  if (!f) throw util::FatalError("cannot read targets file " + file.string());
  std::stringstream ss;
  ss << f.rdbuf();
  auto format = file.extension() == ".json" ? "json" : "toml";
  return parse_targets(ss.str(), format, file.parent_path(), file.string());
}

}  // namespace mudjack::fleet
