#include "report/markdown.hpp"

#include "verdict/verdict.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "report/capability.hpp"
#include "report/models.hpp"
#include "report/text.hpp"
#include "report/units.hpp"
#include "stats/timing.hpp"

namespace mudjack::report {
namespace {

using nlohmann::json;

std::string escape(std::string_view s) {
  return markdown_escape(s);
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

std::string verdict_table(const verdict::Judged& j, const std::string& framework,
                          const std::vector<std::string>& order) {
  std::string out = "| Device | Functions";
  for (auto v : kVerdictOrder) out += " | " + words(model::to_string(v));
  out += " | Failure rate |\n|---|--:";
  for (size_t i = 0; i < kVerdictOrder.size(); ++i) out += "|--:";
  out += "|--:|\n";
  for (const auto& device : order) {
    const auto& tally = j.tallies.at(framework).at(device);
    out += "| " + device_label(j.run.environment, device) + " | " + std::to_string(tally.functions);
    for (auto v : kVerdictOrder) out += " | " + std::to_string(tally.count(v));
    const int attempted = tally.attempted_functions();
    out +=
        " | " +
        (attempted == 0
             ? std::string("–")
             : std::to_string((100 * tally.failing_functions() + attempted / 2) / attempted) + "%");
    out += " |\n";
  }
  return out;
}

std::string outcome_table(const verdict::Judged& j, const std::string& framework,
                          const std::vector<std::string>& order) {
  std::string out = "\n| Device | Cases";
  for (auto o : model::kOutcomes) out += " | " + std::string(model::to_string(o));
  out += " |\n|---|--:";
  for (size_t i = 0; i < model::kOutcomes.size(); ++i) out += "|--:";
  out += "|\n";
  for (const auto& device : order) {
    const auto& tally = j.tallies.at(framework).at(device);
    out += "| " + device_label(j.run.environment, device) + " | " + std::to_string(tally.cases);
    for (auto o : model::kOutcomes) out += " | " + std::to_string(tally.count(o));
    out += " |\n";
  }
  return out;
}

// Failure reasons, grouped as the paper grouped them; empty when there are none.
std::string reason_table(const verdict::Judged& j, const std::string& framework,
                         const std::vector<std::string>& order) {
  const auto& by_device = j.tallies.at(framework);
  if (std::none_of(by_device.begin(), by_device.end(),
                   [](const auto& kv) { return kv.second.any_reason(); })) {
    return "";
  }
  std::string out = "\nFailure reasons (cases, grouped as the paper grouped them):\n\n| Device";
  for (auto reason : verdict::kPaperReasons) out += " | " + std::string(reason);
  out += " |\n|---";
  for (size_t i = 0; i < verdict::kPaperReasons.size(); ++i) out += "|--:";
  out += "|\n";
  for (const auto& device : order) {
    out += "| " + device_label(j.run.environment, device);
    const auto& reasons = by_device.at(device).reasons;
    for (auto reason : verdict::kPaperReasons) {
      out += " | " + std::to_string(reasons.at(std::string(reason)));
    }
    out += " |\n";
  }
  return out;
}

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// One machine for a bug report: host, OS, CPU, MudJack revision, each
// device with its driver and runtime, each framework with its Python.
std::string machine_lines(const json& m) {
  std::string out = "- Machine: " + escape(plain(text_of(m, "host"))) + ", " +
                    escape(plain(text_of(m, "os"))) + ", " + escape(plain(text_of(m, "arch"))) +
                    ", " + escape(plain(text_of(m, "cpu_model"))) + "\n";
  std::string revision = text_of(m, "mudjack_revision");
  if (m.contains("source") && m["source"].is_object()) {
    const auto& src = m["source"];
    if (auto commit = text_of(src, "commit"); !commit.empty()) revision = commit.substr(0, 12);
    // dirty is null when the source state is unknown (no git checkout: a
    // `git archive` tarball, an sdist, an image without .git).
    const auto dirty = src.find("dirty");
    if (dirty == src.end() || !dirty->is_boolean()) {
      revision += " (source state unknown)";
    } else if (dirty->get<bool>()) {
      revision += " (uncommitted changes)";
    }
  }
  out += "- MudJack: " + escape(text_of(m, "mudjack_version")) + ", revision " +
         code(plain(revision)) + "\n";
  for (const auto& d : m.value("devices", json::array())) {
    std::string line =
        "- Device " + code(plain(text_of(d, "id"))) + ": " + escape(plain(text_of(d, "model")));
    if (auto driver = text_of(d, "driver_version"); !driver.empty()) {
      line += ", driver " + escape(plain(driver));
    }
    if (auto rt = text_of(d, "runtime_version"); !rt.empty())
      line += ", runtime " + escape(plain(rt));
    out += line + "\n";
  }
  if (m.contains("frameworks") && m["frameworks"].is_object()) {
    for (const auto& [name, fw] : m["frameworks"].items()) {
      out += "- " + escape(name) + " " + escape(plain(text_of(fw, "version"))) + " (Python " +
             escape(plain(text_of(fw, "python"))) + ")\n";
    }
  }
  return out;
}

std::string header(const verdict::Judged& j) {
  const auto& run = j.run;
  std::string out = "# MudJack run " + code(run.id) + "\n\n";
  if (auto command = text_of(run.options, "command"); !command.empty()) {
    out += "```\n" + plain(command) + "\n```\n\n";
  }
  for (const auto& m : machines(run.environment)) {
    if (!m.is_object()) continue;
    out += machine_lines(m);
    if (auto probes = layout_line(m); !probes.empty()) out += "- Probes: " + escape(probes) + "\n";
  }
  if (auto narrowed = text_of(run.options, "narrowed"); !narrowed.empty()) {
    out += "- Selection: " + escape(plain(narrowed)) +
           " (the verdicts cover only the selected cases)\n";
  }
  std::string host = hosts(run.environment);
  out += "- Suite: " + code(run.suite) + "\n";
  out += "- Date: " + (run.created_at.empty() ? std::string("unknown") : escape(run.created_at));
  if (!run.finished_at.empty()) out += " (finished " + escape(run.finished_at) + ")";
  out += "\n";
  out += "- Host: " + (host.empty() ? std::string("unknown") : escape(plain(host))) + "\n";
  out += "- Baseline device: " + code(run.baseline) + "\n";
  if (!run.state.empty()) out += "- State: " + escape(run.state) + "\n";
  out += "- Results: " + std::to_string(j.cases.size()) + " case results, " +
         std::to_string(j.verdicts.size()) + " function verdicts\n";
  return out;
}

std::string not_portable_item(const verdict::Judged& j, const model::VerdictRow& v) {
  std::string out = "- **" + escape(v.framework) + "** " + code(v.function) + " on " +
                    code(v.device) + ": " + words(model::to_string(v.verdict));
  if (!v.flags.empty()) {
    out += " (also ";
    for (size_t i = 0; i < v.flags.size(); ++i) {
      out += (i > 0 ? ", " : "") + words(model::to_string(v.flags[i]));
    }
    out += ")";
  }
  if (!v.reason.empty()) out += " — " + escape(one_line(v.reason));
  out += "\n";
  if (const auto* first = first_failing(j, v)) {
    out += "  - first failing case " + code(first->info.id) + ": " + case_message(*first) + "\n";
  }
  return out;
}

// Claimed versus actual support: counts per framework and device, then up
// to kClaimExamples rows of each disagreement (results.json has them all).
constexpr size_t kClaimExamples = 25;

// Up to kClaimExamples rows as list items (`item` writes one, without its
// "  - " and newline), then how many more `block` in results.json has.
template <typename Row, typename Item>
std::string capped_items(const std::vector<const Row*>& rows, const char* block, Item item) {
  std::string out;
  for (size_t i = 0; i < rows.size() && i < kClaimExamples; ++i) {
    out += "  - " + item(*rows[i]) + "\n";
  }
  if (rows.size() > kClaimExamples) {
    out += "  - ... and " + std::to_string(rows.size() - kClaimExamples) +
           " more (results.json, `" + block + "`)\n";
  }
  return out;
}

std::string claim_items(const std::vector<const verdict::ClaimRow*>& rows) {
  return capped_items(rows, "claims", [](const verdict::ClaimRow& r) {
    std::string out = code(r.function) + " " + code(r.dtype) + " (" +
                      std::string(verdict::to_string(r.source)) + "): " + std::to_string(r.ran) +
                      " ran, " + std::to_string(r.failed) + " failed; " + code(r.case_id);
    if (!r.error.empty()) out += " — " + escape(one_line(r.error));
    return out;
  });
}

std::string claims_section(const verdict::Judged& j) {
  const auto tallies = verdict::tally(j.claims);
  if (tallies.empty()) return "";
  std::string out =
      "\n## Claimed vs actual support\n\nWhether a dtype is claimed on a device kind — by the "
      "framework's op database (`op_database`), its kernel registry (`kernel_registry`), the "
      "suite author's hand (`declared`), or, for a dtype the grid added, unless a case was "
      "refused by a typed dtype rejection (`grid`) — against what its cases did there: *claimed "
      "but failing* has a case that failed (fail, crash, timeout); *working but unclaimed* ran "
      "every case without a failure. Wrong answers are divergences, judged above, not a support "
      "question.\n\n"
      "| framework | device | agree | claimed but failing | working but unclaimed |\n"
      "|---|---|---:|---:|---:|\n";
  for (const auto& [framework, by_device] : tallies) {
    for (const auto& [device, t] : by_device) {
      out += "| " + escape(framework) + " | " + code(device) + " | " + std::to_string(t.agrees) +
             " | " + std::to_string(t.claimed_failing.size()) + " | " +
             std::to_string(t.unclaimed_working.size()) + " |\n";
    }
  }
  for (const auto& [framework, by_device] : tallies) {
    for (const auto& [device, t] : by_device) {
      if (!t.claimed_failing.empty()) {
        out += "\n- " + escape(framework) + " on " + code(device) + ", claimed but failing:\n" +
               claim_items(t.claimed_failing);
      }
      if (!t.unclaimed_working.empty()) {
        out += "\n- " + escape(framework) + " on " + code(device) + ", working but unclaimed:\n" +
               claim_items(t.unclaimed_working);
      }
    }
  }
  return out;
}

std::string kernel_items(const std::vector<const verdict::KernelRow*>& rows,
                         const std::string& type) {
  return capped_items(rows, "kernels", [&type](const verdict::KernelRow& r) {
    std::string out = code(r.function) + " " + code(r.dtype) + " (" +
                      std::string(model::to_string(r.outcome)) + ")";
    if (auto m = r.missing.find(type); m != r.missing.end() && !m->second.empty()) {
      std::string ops;
      for (const auto& op : m->second) ops += (ops.empty() ? "" : ", ") + op;
      out += ": no " + type + " kernel for " + code(ops);
    }
    if (!r.error.empty()) out += " — " + escape(one_line(r.error));
    return out;
  });
}

std::string kernels_section(const verdict::Judged& j) {
  const auto tallies = verdict::kernel_tally(j.kernels);
  if (tallies.empty()) return "";
  std::string out =
      "\n## Kernel registry: predicted vs observed\n\nFor each case, whether the framework's "
      "kernel registry has a kernel for every op its call uses, with its dtypes, per device "
      "type, set against what the case did where it ran (soft placement off). TensorFlow "
      "cannot reach the GPU machines: its GPU column is a prediction only, with nothing "
      "observed beside it.\n\n";
  for (const auto& [framework, t] : tallies) {
    out += "- **" + escape(framework) + "**: " + std::to_string(t.cases) + " cases observed, " +
           std::to_string(t.agree) + " as predicted, " +
           std::to_string(t.predicted_missing_ran.size()) + " ran with a kernel predicted " +
           "missing, " + std::to_string(t.predicted_present_failed.size()) +
           " failed with every kernel present";
    for (const auto& [type, list] : t.unobserved_missing) {
      out += "; " + std::to_string(list.size()) + " predicted to lack a " + type + " kernel";
    }
    out += "\n";
    if (!t.predicted_missing_ran.empty()) {
      out += "\n  Ran although a kernel was predicted missing:\n" +
             kernel_items(t.predicted_missing_ran, "cpu");
    }
    if (!t.predicted_present_failed.empty()) {
      out += "\n  Failed with every kernel present:\n" +
             kernel_items(t.predicted_present_failed, "cpu");
    }
    for (const auto& [type, list] : t.unobserved_missing) {
      out += "\n  Predicted to lack a " + type + " kernel (not observed):\n" +
             kernel_items(list, type);
    }
  }
  return out;
}

// Cases that work on one device and not on another: per device, up to
// kClaimExamples items (results.json's `portability_gaps` has them all).
// Failing cases whose other lane never ran them: no gap can be told.
std::string unreached_items(const verdict::Judged& j) {
  std::string out;
  for (const auto& u : j.unreached) {
    out += "- " + std::to_string(u.cases) + " " + u.framework + " cases failed on " +
           code(u.device) + " that " + code(u.other) + " never ran (the run did not reach them; " +
           "e.g. " + code(u.example) + "): whether they work there is not known\n";
  }
  return out;
}

std::string gaps_section(const verdict::Judged& j) {
  if (j.gaps.empty() && j.unreached.empty()) return "";
  std::map<std::string, std::vector<const verdict::Gap*>> by_device;
  for (const auto& g : j.gaps) by_device[g.device].push_back(&g);
  std::string out =
      "\n## Portability gaps (" + std::to_string(j.gaps.size()) +
      ")\n\nCases that passed on one device and did not on another: code that works there "
      "does not here. Counted beside the failure rate, never in a verdict; `unsupported` ones "
      "are outside the function's domain, `kernel_missing` ones a gap of that chip (a "
      "failure there).\n\n" +
      unreached_items(j);
  for (const auto& [device, gaps] : by_device) {
    out += "- " + code(device) + ": " + std::to_string(gaps.size()) + "\n";
    out += capped_items(gaps, "portability_gaps", [](const verdict::Gap& g) {
      return code(g.case_id) + " passes on " + code(g.works_on) + ", " + g.what + " here" +
             (g.reason.empty() ? "" : " — " + escape(one_line(g.reason)));
    });
  }
  return out;
}

// Host fallback and recompilation (verdict/fallback.hpp), a row per
// (framework, function, device); results.json's `host_fallback` has them all.
std::string fallback_section(const verdict::Judged& j) {
  if (j.fallbacks.empty()) return "";
  std::string out =
      "\n## Host fallback (" + std::to_string(j.fallbacks.size()) +
      ")\n\nFunctions with cases that ran, in part, somewhere other than the device asked for "
      "(ops without an XLA lowering run on the host; TensorFlow's soft placement; an output "
      "left on another device), or whose warm calls compiled a new graph. A flag beside the "
      "verdict, never a verdict.\n\n| device | function | cases | kinds | host ops | "
      "recompiling cases |\n|---|---|--:|---|---|--:|\n";
  for (const auto& f : j.fallbacks) {
    std::string kinds, ops;
    for (const auto& k : f.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    for (const auto& [op, n] : f.ops) {
      ops += (ops.empty() ? "" : ", ") + code(op) + (n > 1 ? "\u00d7" + std::to_string(n) : "");
    }
    out += "| " + code(f.device) + " | " + code(f.framework + "/" + f.function) + " | " +
           std::to_string(f.cases) + " | " + escape(kinds) + " | " + ops + " | " +
           std::to_string(f.recompiling) + " |\n";
  }
  return out;
}

std::string not_portable(const verdict::Judged& j) {
  std::vector<const model::VerdictRow*> bad;
  for (const auto& v : j.verdicts) {
    if (v.verdict != model::Verdict::kPortable) bad.push_back(&v);
  }
  std::string out = "\n## Not portable (" + std::to_string(bad.size()) + ")\n\n";
  if (bad.empty()) {
    return out + (j.verdicts.empty() ? "No verdicts were computed.\n"
                                     : "Every function is portable on every device.\n");
  }
  for (const auto* v : bad) out += not_portable_item(j, *v);
  return out;
}

}  // namespace

// `mudjack check`'s per-case table, as the terminal prints it: device, mode,
// dtype, outcome, how a pass was checked, error and bound in eps.
std::string check_table(const verdict::Judged& j) {
  if (j.run.suite != "check" || j.cases.empty()) return "";
  std::string out =
      "\n## Cases\n\n| device | mode | dtype | outcome | checked | error (eps) | bound (eps) |\n"
      "|---|---|---|---|---|---:|---:|\n";
  const auto eps = [](const std::optional<double>& v) {
    if (!v) return std::string("-");
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.3g", *v);
    return std::string(buf.data());
  };
  for (size_t i = 0; i < j.cases.size(); ++i) {
    const auto& r = j.cases[i];
    const bool pass = r.outcome == model::Outcome::kPass;
    out += "| " + code(r.device) + " | " + escape(r.info.mode) + " | " + escape(r.info.dtype) +
           " | " + std::string(model::to_string(r.outcome)) + " | " +
           (pass ? std::string(model::to_string(j.checked[i])) : "-") + " | " +
           eps(r.numeric.error_eps) + " | " + eps(r.numeric.bound_eps) + " |\n";
  }
  return out;
}

// Unstable timings (spread past stats::kUnstableSpread) and what made the
// machine busy, once per run; nothing when every timing is steady.
std::string timing_section(const verdict::Judged& j) {
  const auto line = stats::busy_line(stats::busy_machine(j.cases));
  if (line.empty()) return "";
  std::string out = "\n## Timing\n\n" + escape(line) + ".\n";
  constexpr size_t kListed = 20;
  size_t n = 0;
  for (const auto& r : j.cases) {
    const auto text = r.latency.stats ? stats::unstable_text(r.latency) : "";
    if (text.empty()) continue;
    if (n++ == 0) out += "\n";
    if (n > kListed) continue;
    out += "- " + code(r.info.id) + " on " + code(r.device) + ": " +
           duration_text(r.latency.stats->median_ns) + ", " + escape(text) + "\n";
  }
  if (n > kListed) out += "- ... and " + std::to_string(n - kListed) + " more (results.csv)\n";
  return out;
}

std::string to_markdown(const verdict::Judged& j) {
  std::string out = header(j);
  out += timing_section(j);
  out += check_table(j);
  for (const auto& [framework, by_device] : j.tallies) {
    std::vector<std::string> order;
    for (const auto& [device, tally] : by_device) order.push_back(device);
    std::stable_partition(order.begin(), order.end(),
                          [&](const std::string& d) { return d == j.run.baseline; });
    out += "\n## " + escape(framework) + "\n\n";
    out += verdict_table(j, framework, order);
    out += outcome_table(j, framework, order);
    out += reason_table(j, framework, order);
  }
  if (auto missing = listed_missing_line(j); !missing.empty()) out += "\n" + escape(missing);
  if (auto line = divergence_line(j); !line.empty()) out += "\n" + escape(line);
  if (auto line = apart_lines(j); !line.empty()) out += "\n" + escape(line);
  return out + claims_section(j) + kernels_section(j) + gaps_section(j) + fallback_section(j) +
         not_portable(j) + capability_markdown(j.cases) + models_markdown(model_rows(j.cases));
}

}  // namespace mudjack::report
