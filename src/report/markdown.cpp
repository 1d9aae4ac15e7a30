#include "report/markdown.hpp"

#include "verdict/verdict.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "report/capability.hpp"
#include "report/text.hpp"

namespace mudjack::report {
namespace {

using nlohmann::json;

constexpr std::array<model::Verdict, 6> kVerdictColumns = {
    model::Verdict::kPortable,           model::Verdict::kPartialFailure,
    model::Verdict::kCompleteFailure,    model::Verdict::kDivergent,
    model::Verdict::kIntolerableLatency, model::Verdict::kUnavailable};

constexpr std::array<model::Outcome, 7> kOutcomeColumns = {
    model::Outcome::kPass,  model::Outcome::kFail,    model::Outcome::kMismatch,
    model::Outcome::kCrash, model::Outcome::kTimeout, model::Outcome::kUnavailable,
    model::Outcome::kSkip};

// "partial_failure" -> "partial failure".
std::string words(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

// Escapes characters Markdown (and GitHub's tables) would interpret.
std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (std::string_view("\\`*_[]<>|~#").find(c) != std::string_view::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// An inline code span that survives backticks in the text.
std::string code(std::string_view s) {
  if (s.find('`') == std::string_view::npos) {
    return "`" + std::string(s) + "`";
  }
  return "`` " + std::string(s) + " ``";
}

std::string hosts(const json& env) {
  std::string all;
  for (const auto& m : machines(env)) {
    if (!m.is_object() || !m.contains("host") || !m["host"].is_string()) {
      continue;
    }
    all += (all.empty() ? "" : ", ") + m["host"].get<std::string>();
  }
  return all;
}

std::string device_label(const json& env, const std::string& id) {
  const std::string model = device_model(env, id);
  return model.empty() ? code(id) : code(id) + " (" + escape(model) + ")";
}

// Why a case did not pass, in one line.
std::string case_message(const model::CaseResult& r) {
  std::string msg(model::to_string(r.outcome));
  if (r.error.kind != model::ErrorKind::kNone) {
    msg += " (" + escape(model::to_string(r.error.kind)) + ")";
  }
  if (auto text = failure_text(r); !text.empty()) {
    // "crash, signal 11: ..." when the text starts with how the probe died.
    const bool died = r.error.signal.has_value() || r.error.exit_code.has_value();
    msg += (died ? ", " : ": ") + escape(text);
  }
  return msg;
}

struct Key {
  std::string framework, device;
  bool operator<(const Key& o) const {
    return std::tie(framework, device) < std::tie(o.framework, o.device);
  }
};

}  // namespace

std::string to_markdown(const model::RunInfo& run, const std::vector<model::CaseResult>& cases,
                        const std::vector<model::VerdictRow>& verdicts) {
  // Tallies per (framework, device).
  std::map<Key, std::map<model::Verdict, int>> by_verdict;
  std::map<Key, std::map<model::Outcome, int>> by_outcome;
  std::map<std::string, std::set<std::string>> devices;  // framework -> devices
  for (const auto& v : verdicts) {
    ++by_verdict[{v.framework, v.device}][v.verdict];
    devices[v.framework].insert(v.device);
  }
  for (const auto& r : cases) {
    ++by_outcome[{r.info.framework, r.device}][r.outcome];
    devices[r.info.framework].insert(r.device);
  }

  std::string out = "# MudJack run " + code(run.id) + "\n\n";
  std::string host = hosts(run.environment);
  out += "- Suite: " + code(run.suite) + "\n";
  out += "- Date: " + (run.created_at.empty() ? std::string("unknown") : escape(run.created_at));
  if (!run.finished_at.empty()) {
    out += " (finished " + escape(run.finished_at) + ")";
  }
  out += "\n";
  out += "- Host: " + (host.empty() ? std::string("unknown") : escape(plain(host))) + "\n";
  out += "- Baseline device: " + code(run.baseline) + "\n";
  if (!run.state.empty()) {
    out += "- State: " + escape(run.state) + "\n";
  }
  out += "- Results: " + std::to_string(cases.size()) + " case results, " +
         std::to_string(verdicts.size()) + " function verdicts\n";

  for (const auto& [framework, device_set] : devices) {
    std::vector<std::string> order(device_set.begin(), device_set.end());
    std::stable_partition(order.begin(), order.end(),
                          [&](const std::string& d) { return d == run.baseline; });

    out += "\n## " + escape(framework) + "\n\n";
    out += "| Device | Functions";
    for (auto v : kVerdictColumns) {
      out += " | " + words(model::to_string(v));
    }
    out += " | Failure rate |\n|---|--:";
    for (size_t i = 0; i < kVerdictColumns.size(); ++i) {
      out += "|--:";
    }
    out += "|--:|\n";
    for (const auto& device : order) {
      const auto& tally = by_verdict[{framework, device}];
      int total = 0;
      for (const auto& [verdict, n] : tally) {
        total += n;
      }
      out += "| " + device_label(run.environment, device) + " | " + std::to_string(total);
      for (auto v : kVerdictColumns) {
        auto it = tally.find(v);
        out += " | " + std::to_string(it == tally.end() ? 0 : it->second);
      }
      const auto count = [&](model::Verdict v) {
        auto it = tally.find(v);
        return it == tally.end() ? 0 : it->second;
      };
      int attempted = total - count(model::Verdict::kUnavailable);
      int failing =
          count(model::Verdict::kPartialFailure) + count(model::Verdict::kCompleteFailure);
      out += " | " + (attempted == 0
                          ? std::string("–")
                          : std::to_string((100 * failing + attempted / 2) / attempted) + "%");
      out += " |\n";
    }

    out += "\n| Device | Cases";
    for (auto o : kOutcomeColumns) {
      out += " | " + std::string(model::to_string(o));
    }
    out += " |\n|---|--:";
    for (size_t i = 0; i < kOutcomeColumns.size(); ++i) {
      out += "|--:";
    }
    out += "|\n";
    for (const auto& device : order) {
      const auto& tally = by_outcome[{framework, device}];
      int total = 0;
      for (const auto& [outcome, n] : tally) {
        total += n;
      }
      out += "| " + device_label(run.environment, device) + " | " + std::to_string(total);
      for (auto o : kOutcomeColumns) {
        auto it = tally.find(o);
        out += " | " + std::to_string(it == tally.end() ? 0 : it->second);
      }
      out += " |\n";
    }

    // Failure reasons, grouped as the paper grouped them.
    std::map<std::string, std::map<std::string_view, int>> reasons;
    for (const auto& r : cases) {
      if (r.info.framework != framework) {
        continue;
      }
      if (auto reason = verdict::paper_reason(r); !reason.empty()) {
        ++reasons[r.device][reason];
      }
    }
    if (!reasons.empty()) {
      out += "\nFailure reasons (cases, grouped as the paper grouped them):\n\n| Device";
      for (auto reason : verdict::kPaperReasons) {
        out += " | " + std::string(reason);
      }
      out += " |\n|---";
      for (size_t i = 0; i < verdict::kPaperReasons.size(); ++i) {
        out += "|--:";
      }
      out += "|\n";
      for (const auto& device : order) {
        out += "| " + device_label(run.environment, device);
        for (auto reason : verdict::kPaperReasons) {
          out += " | " + std::to_string(reasons[device][reason]);
        }
        out += " |\n";
      }
    }
  }

  // Non-portable functions, in the verdicts' order.
  std::map<std::pair<std::string, std::string>, const model::CaseResult*> by_case;
  for (const auto& r : cases) {
    by_case.try_emplace({r.info.id, r.device}, &r);
  }
  std::vector<const model::VerdictRow*> bad;
  for (const auto& v : verdicts) {
    if (v.verdict != model::Verdict::kPortable) {
      bad.push_back(&v);
    }
  }
  out += "\n## Not portable (" + std::to_string(bad.size()) + ")\n\n";
  if (bad.empty()) {
    out += verdicts.empty() ? "No verdicts were computed.\n"
                            : "Every function is portable on every device.\n";
    return out + capability_markdown(cases);
  }
  for (const auto* v : bad) {
    out += "- **" + escape(v->framework) + "** " + code(v->function) + " on " + code(v->device) +
           ": " + words(model::to_string(v->verdict));
    if (!v->flags.empty()) {
      out += " (also ";
      for (size_t i = 0; i < v->flags.size(); ++i) {
        if (i > 0) {
          out += ", ";
        }
        out += words(model::to_string(v->flags[i]));
      }
      out += ")";
    }
    if (!v->reason.empty()) {
      out += " — " + escape(one_line(v->reason));
    }
    out += "\n";

    const model::CaseResult* first = nullptr;
    for (const auto* ids : {&v->failing, &v->mismatching}) {
      for (const auto& id : *ids) {
        auto it = by_case.find({id, v->device});
        if (it != by_case.end()) {
          first = it->second;
          break;
        }
      }
      if (first != nullptr) {
        break;
      }
    }
    if (first == nullptr) {
      for (const auto& r : cases) {
        if (r.info.framework == v->framework && r.info.function == v->function &&
            r.device == v->device && r.outcome != model::Outcome::kPass) {
          first = &r;
          break;
        }
      }
    }
    if (first != nullptr) {
      out += "  - first failing case " + code(first->info.id) + ": " + case_message(*first) + "\n";
    }
  }
  return out + capability_markdown(cases);
}

}  // namespace mudjack::report
