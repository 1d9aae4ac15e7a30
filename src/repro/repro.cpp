#include "repro/repro.hpp"

#include <algorithm>

#include "envs/envs.hpp"
#include "oracle/compare.hpp"
#include "protocol/protocol.hpp"
#include "report/text.hpp"
#include "supervisor/probe_session.hpp"
#include "util/error.hpp"
#include "util/nearest.hpp"

namespace mudjack::repro {
namespace fs = std::filesystem;

namespace {

model::CaseInfo find_case(const Request& r) {
  auto all = plan::list_cases(r.suites, envs::listing_interpreter(r.profile, r.python), r.params,
                              nullptr, r.memory_limit_bytes);
  auto found = std::find_if(all.begin(), all.end(),
                            [&](const model::CaseInfo& c) { return c.id == r.case_id; });
  if (found == all.end()) {
    // The nearest listed id within a quarter of its length in edits (at least
    // 3): a typo in a dtype, a function or a variant.
    std::vector<std::string> ids;
    ids.reserve(all.size());
    for (const auto& c : all) ids.push_back(c.id);
    const auto near = util::nearest(r.case_id, ids, std::max<size_t>(3, r.case_id.size() / 4));
    throw util::FatalError("unknown case '" + r.case_id + "'" +
                           (near ? "; did you mean '" + *near + "'?" : std::string()) +
                           " (see: mudjack list; --suite or --suite-dir for other suites; a "
                           "`mudjack check` case: --out the results folder that checked it)");
  }
  return *found;
}

// The run to read: the one asked for, else the newest with this case here.
std::string run_to_read(const Request& r) {
  if (!r.run_id.empty()) return r.run_id;
  for (const auto& run : r.store->list_runs()) {
    if (r.store->result(run.id, r.case_id, r.device)) return run.id;
  }
  return "";
}

// The baseline device's saved outputs, if every file is still there; the
// tolerance follows their dtype.
void add_expected(const Request& r, const model::RunInfo& run, protocol::ReproRequest& req,
                  oracle::Tolerance& tol) {
  auto base = r.store->result(run.id, r.case_id, run.baseline);
  if (!base) return;
  std::error_code ec;
  for (const auto& o : base->outputs) {
    if (!fs::exists(o.path, ec)) {
      req.expected.clear();
      return;
    }
    req.expected.push_back(o.path);
    tol = oracle::default_tolerance(o.dtype);
  }
}

// What a stored run saw, when there is one: the outcome, the seed, the
// baseline's outputs.
void add_seen(const Request& r, protocol::ReproRequest& req, oracle::Tolerance& tol) {
  if (r.store == nullptr) return;
  const auto run_id = run_to_read(r);
  if (run_id.empty()) return;
  auto run = *r.store->get_run(run_id);
  req.seed = run.options.value("seed", int64_t{0});
  if (auto seen = r.store->result(run_id, r.case_id, r.device)) {
    req.seen =
        std::string(model::to_string(seen->outcome)) + " on " + r.device + " in run " + run_id;
    if (auto msg = report::failure_text(*seen); !msg.empty()) req.seen += ": " + msg;
    const auto& n = seen->numeric;
    if (seen->outcome == model::Outcome::kMismatch && n.bound_eps && n.error_eps &&
        *n.error_eps > *n.bound_eps) {
      req.bound_eps = n.bound_eps;  // the oracle's mismatch: the script measures it again
    }
  } else if (!r.run_id.empty()) {
    throw util::FatalError("run " + run_id + " has no result for " + r.case_id + " on " + r.device);
  }
  if (r.device != run.baseline) add_expected(r, run, req, tol);
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

protocol::Repro ask_probe(const Request& r, const model::CaseInfo& info,
                          const protocol::ReproRequest& req, const std::atomic<bool>& interrupted) {
  auto discovery = plan::discover({info.framework}, r.profile, r.python, interrupted);
  const auto& rt = discovery.runtimes.at(info.framework);
  if (rt.python.empty() || !rt.unavailable.empty()) {
    throw util::FatalError(info.framework + " is unavailable here: " + rt.unavailable);
  }
  supervisor::ProbeCommand cmd;
  cmd.python = rt.python;
  cmd.probe_dir = envs::data_dir() / "probe";
  for (const auto& ref : r.suites) cmd.suite_dirs.push_back(ref.dir);
  cmd.framework = info.framework;
  cmd.device = r.device;
  cmd.params = r.params;
  std::string error;
  supervisor::ProbeSession::Limits limits;
  limits.memory_limit_bytes = r.memory_limit_bytes;
  auto session = supervisor::ProbeSession::start(cmd, limits, interrupted, &error);
  if (!session) throw util::FatalError("probe did not start: " + first_line(error));
  if (!session->hello().unavailable.empty()) {
    throw util::FatalError(info.framework + " cannot run on " + r.device + ": " +
                           session->hello().unavailable);
  }
  auto reply = session->repro(req, &error);
  session->stop();
  if (!reply) throw util::FatalError("probe failed to write the script: " + first_line(error));
  return *reply;
}

// What the run that has the case lends the request (Request::suites_named).
Request lent(const Request& asked) {
  Request r = asked;
  if (r.store == nullptr) return r;
  const auto run_id = run_to_read(r);
  const auto run = run_id.empty() ? std::nullopt : r.store->get_run(run_id);
  if (!run) return r;
  // The stored run options, in run::to_json's spelling (plan/ reads it).
  const auto& stored = run->options;
  const auto params = plan::params_from_json(stored.value("params", nlohmann::json::object()));
  for (const auto& [name, value] : params) r.params.try_emplace(name, value);
  for (const auto& [fw, python] : stored.value("python", std::map<std::string, std::string>{})) {
    std::error_code ec;
    if (fs::exists(python, ec)) r.python.try_emplace(fw, python);
  }
  if (!r.suites_named) {
    std::vector<plan::SuiteRef> suites;  // those whose folders still exist
    for (const auto& ref :
         plan::suites_from_json(stored.value("suites", nlohmann::json::array()))) {
      std::error_code ec;
      if (fs::is_directory(ref.dir, ec)) suites.push_back(ref);
    }
    if (!suites.empty()) r.suites = std::move(suites);
  }
  return r;
}

}  // namespace

Script write(const Request& asked, const std::atomic<bool>& interrupted) {
  const Request r = lent(asked);
  const model::CaseInfo info = find_case(r);
  protocol::ReproRequest req;
  req.minimal = r.minimal;
  req.case_id = info.id;
  auto tol = oracle::default_tolerance(info.dtype);
  add_seen(r, req, tol);
  if (info.rtol) tol.rtol = *info.rtol;
  if (info.atol) tol.atol = *info.atol;
  req.rtol = tol.rtol;
  req.atol = tol.atol;
  auto reply = ask_probe(r, info, req, interrupted);
  if (!reply.unwritable.empty()) {
    throw util::FatalError("cannot write " + info.id + " as a script: " + reply.unwritable, 1);
  }
  return {reply.script, info.framework};
}

std::string write_graph(const fs::path& python, const protocol::GraphScriptRequest& request,
                        std::string* why) {
  static const std::atomic<bool> kNever{false};  // a campaign stops between findings
  std::string error;
  auto session =
      supervisor::ProbeSession::start(supervisor::tool_command(python), {}, kNever, &error);
  if (!session) {
    *why = "no script: the probe did not start: " + first_line(error);
    return "";
  }
  auto reply = session->repro_graph(request, &error);
  session->stop();
  if (!reply) {
    *why = "no script: " + error;
    return "";
  }
  if (!reply->unwritable.empty()) {
    *why = "no script: " + reply->unwritable;
    return "";
  }
  return reply->script;
}

}  // namespace mudjack::repro
