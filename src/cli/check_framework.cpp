#include "cli/check_framework.hpp"

#include "util/error.hpp"

namespace mudjack::cli {
namespace {

// One step of the precedence: numpy yields to any other framework.
std::set<std::string> without_numpy(std::set<std::string> found) {
  if (found.size() > 1) found.erase("numpy");
  return found;
}

std::string both(const std::set<std::string>& found) {
  std::string text;
  size_t i = 0;
  for (const auto& f : found) {
    text += (i == 0 ? "" : i + 1 == found.size() ? " and " : ", ") + f;
    ++i;
  }
  return text;
}

std::string flags(const std::set<std::string>& found) {
  std::string text;
  for (const auto& f : found) text += (text.empty() ? "--framework " : " or --framework ") + f;
  return text;
}

}  // namespace

CheckFacts check_facts(const std::vector<model::CaseInfo>& cases) {
  CheckFacts f;
  if (cases.empty()) return f;
  for (const auto& tag : cases.front().tags) {
    const auto sep = tag.find("::");
    if (sep == std::string::npos) continue;
    const std::string key = tag.substr(0, sep);
    const std::string value = tag.substr(sep + 2);
    if (key == "check.module") f.module.insert(value);
    if (key == "check.imports") f.imports.insert(value);
    if (key == "check.inputs") f.inputs.insert(value);
    if (key == "check.returns") f.returns.push_back(value);
  }
  return f;
}

std::string decide_framework(const std::string& flag, const CheckFacts& facts,
                             const std::string& name) {
  if (!flag.empty()) return flag;
  const auto module = without_numpy(facts.module);
  if (module.size() == 1) return *module.begin();
  const auto imports = without_numpy(facts.imports);
  if (imports.size() == 1) return *imports.begin();
  const auto inputs = without_numpy(facts.inputs);
  if (imports.size() > 1) {
    // Its globals name several: the inputs may say which of those it is.
    std::set<std::string> named;
    for (const auto& f : inputs) {
      if (imports.contains(f)) named.insert(f);
    }
    if (named.size() == 1) return *named.begin();
    throw util::FatalError(name + " names both " + both(imports) +
                           " and its inputs do not tell which it runs on: pass " + flags(imports));
  }
  if (inputs.size() == 1) return *inputs.begin();
  if (inputs.size() > 1) {
    throw util::FatalError(name + " takes inputs of " + both(inputs) +
                           ": pass the one it runs on, " + flags(inputs));
  }
  return "numpy";
}

std::string non_tensor_return(const CheckFacts& facts, const std::string& name) {
  if (facts.returns.empty()) return "";
  const std::string& type = facts.returns.front();
  return name + " returns " + (type == "NoneType" ? std::string("None") : type) +
         "; return the tensor";
}

}  // namespace mudjack::cli
