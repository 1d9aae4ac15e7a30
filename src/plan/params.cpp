#include "plan/params.hpp"

#include <cctype>

#include "util/error.hpp"

namespace mudjack::plan {

namespace {

bool identifier(const std::string& s) {
  if (s.empty() || (std::isalpha(static_cast<unsigned char>(s[0])) == 0 && s[0] != '_')) {
    return false;
  }
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

Params parse_params(const std::vector<std::string>& items) {
  Params out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    std::string name = trim(item.substr(0, eq));
    if (eq == std::string::npos || !identifier(name)) {
      throw util::FatalError("--param '" + item +
                             "': expected NAME=VALUE with NAME an identifier (e.g. "
                             "--param matrix_size=4096)");
    }
    out[name] = trim(item.substr(eq + 1));
  }
  return out;
}

void check_params(const Params& given, const nlohmann::json& read) {
  std::string unknown;
  for (const auto& [name, value] : given) {
    if (!read.is_object() || !read.contains(name)) {
      unknown += (unknown.empty() ? "'" : ", '") + name + "'";
    }
  }
  if (unknown.empty()) return;
  const std::string known = describe_read(read);
  throw util::FatalError("no selected suite reads --param " + unknown +
                         (known == "none" ? "; they read none" : "; they read: " + known));
}

std::string describe_read(const nlohmann::json& read) {
  std::string known;
  if (read.is_object()) {
    for (const auto& [name, info] : read.items()) {
      known += (known.empty() ? "" : ", ") + name;
      if (info.is_object() && info.contains("type") && info["type"].is_string()) {
        known += " (" + info["type"].get<std::string>() + ")";
      }
    }
  }
  return known.empty() ? "none" : known;
}

nlohmann::json params_to_json(const Params& params) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : params) j[name] = value;
  return j;
}

Params params_from_json(const nlohmann::json& j) {
  Params out;
  if (j.is_null()) return out;
  if (!j.is_object()) throw util::FatalError("run options: params must be an object");
  for (const auto& [name, value] : j.items()) {
    if (!value.is_string())
      throw util::FatalError("run options: params." + name + " must be a string");
    out[name] = value.get<std::string>();
  }
  return out;
}

}  // namespace mudjack::plan
