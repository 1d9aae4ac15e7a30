// mudjack list: the cases of a suite, from static metadata.
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "cli/commands.hpp"

namespace mudjack::cli {
namespace {

struct ListArgs {
  Common common;
  Selection sel;
};

nlohmann::json case_json(const model::CaseInfo& c) {
  nlohmann::json j{{"id", c.id},           {"framework", c.framework}, {"function", c.function},
                   {"variant", c.variant}, {"dtype", c.dtype},         {"shape", c.shape},
                   {"dims", c.dims},       {"mode", c.mode},           {"compiler", c.compiler},
                   {"params", c.params},   {"requires", c.requires_},  {"tags", c.tags}};
  if (!c.note.empty()) j["note"] = c.note;
  if (!c.successor.empty()) j["successor"] = c.successor;
  j.update(model::oracle_meta_to_json(c));
  return j;
}

// Cases carrying labels ("key::value" tags) are whole models: one line per
// model after the cases, with its frameworks, stages and labels.
void print_models(const std::vector<model::CaseInfo>& cases) {
  struct Model {
    std::set<std::string> frameworks, stages, labels;
  };
  std::map<std::string, Model> models;
  for (const auto& c : cases) {
    std::set<std::string> labels;
    for (const auto& t : c.tags) {
      if (t.find("::") != std::string::npos) labels.insert(t);
    }
    if (labels.empty()) continue;
    auto& m = models[c.function];
    m.frameworks.insert(c.framework);
    m.stages.insert(c.mode);
    m.labels.insert(labels.begin(), labels.end());
  }
  if (models.empty()) return;
  const auto join = [](const std::set<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
    return out;
  };
  std::printf("\n%zu models:\n", models.size());
  for (const auto& [name, m] : models) {
    std::printf("%-28s %-26s %-38s %s\n", name.c_str(), join(m.frameworks, ",").c_str(),
                join(m.stages, ",").c_str(), join(m.labels, " ").c_str());
  }
}

int list(const ListArgs& a) {
  auto s = settings(a.common);
  auto cases = selected_cases(a.sel, s);
  if (a.common.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : cases) out.push_back(case_json(c));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::set<std::string> functions;
  if (!cases.empty()) std::printf("%-70s %-9s %-11s %-8s\n", "CASE", "DTYPE", "MODE", "SHAPE");
  for (const auto& c : cases) {
    functions.insert(c.framework + "/" + c.function);
    std::printf("%-70s %-9s %-11s %-8s\n", c.id.c_str(), c.dtype.c_str(), c.mode.c_str(),
                c.shape.c_str());
  }
  print_models(cases);
  std::fprintf(stderr, "%zu cases of %zu functions\n", cases.size(), functions.size());
  return 0;
}

}  // namespace

Command list_command() {
  return {"list", "List the cases of a suite (metadata only; no framework needed)",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<ListArgs>();
            add_common(c, a->common);
            add_selection(c, a->sel);
            return [a] { return list(*a); };
          }};
}

}  // namespace mudjack::cli
