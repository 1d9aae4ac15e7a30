#include "util/redact.hpp"

#include <mutex>
#include <shared_mutex>
#include <vector>

#include <nlohmann/json.hpp>

namespace mudjack::util {
namespace {

constexpr size_t kMinSecretChars = 8;

struct Secrets {
  std::shared_mutex mu;
  std::vector<std::string> forms;  // each secret raw and JSON-escaped
};

Secrets& secrets() {
  static Secrets s;
  return s;
}

void replace_all(std::string& text, const std::string& what) {
  static const std::string kRedacted = "[redacted]";
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at)) {
    text.replace(at, what.size(), kRedacted);
    at += kRedacted.size();
  }
}

}  // namespace

void add_secret(const std::string& secret) {
  if (secret.size() < kMinSecretChars) return;
  std::string escaped = nlohmann::json(secret).dump();
  escaped = escaped.substr(1, escaped.size() - 2);
  std::unique_lock lock(secrets().mu);
  secrets().forms.push_back(secret);
  if (escaped != secret) secrets().forms.push_back(escaped);
}

std::string redact(std::string text) {
  std::shared_lock lock(secrets().mu);
  for (const auto& s : secrets().forms) replace_all(text, s);
  return text;
}

}  // namespace mudjack::util
