#include "supervisor/supervisor.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <thread>

#include "model/extra.hpp"
#include "oracle/accuracy.hpp"
#include "oracle/compare.hpp"
#include "os/disturb.hpp"
#include "stats/stats.hpp"
#include "stats/timing.hpp"
#include "util/time.hpp"

namespace mudjack::supervisor {
namespace {

std::string device_folder(const std::string& device) {
  std::string s = device;
  std::replace(s.begin(), s.end(), ':', '_');
  return s;
}

// One probe of a lane: its cores and the environment that pins its
// frameworks' threads to them.
struct Slot {
  std::vector<int> cpus;  // empty: inherit the engine's
  std::map<std::string, std::string> env;
};

struct Lane {
  std::string device;
  bool reference = false;  // its probe builds the float64 references
  bool shared = false;     // its probes take turns on the device (Layout::shared)
  std::vector<const std::pair<model::CaseInfo, std::string>*> items;
  std::vector<Slot> slots;  // one per probe: several only for `cpu`
};

// A lane's cases of one framework in plan order, handed to whichever of the
// lane's probes asks first, each exactly once. Thread-safe.
class CaseQueue {
 public:
  explicit CaseQueue(std::vector<const model::CaseInfo*> cases) : cases_(std::move(cases)) {}
  // The next case, or nullptr when every case was handed out.
  const model::CaseInfo* next() {
    std::lock_guard lock(mutex_);
    return next_ < cases_.size() ? cases_[next_++] : nullptr;
  }

 private:
  std::mutex mutex_;
  std::vector<const model::CaseInfo*> cases_;
  size_t next_ = 0;
};

// Everything lanes share; every method takes the lock.
class Shared {
 public:
  Shared(store::Store& store, const RunSpec& spec, const ResultListener& listener)
      : store_(store), oracle_(store, spec.run_id, spec.baseline), listener_(listener) {
    oracle_.load(store.results(spec.run_id));
    for (auto& h : store.held(spec.run_id)) {
      auto key = std::make_pair(h.result.info.id, h.result.device);
      held_.emplace(std::move(key), std::move(h));
    }
  }

  void land(model::CaseResult r) {
    std::lock_guard lock(mutex_);
    auto changed = oracle_.observe(r);
    store_.record(r);
    for (const auto& c : changed) {
      store_.record(c);
      // Results that still pass were only annotated with their numeric error.
      if (c.outcome == model::Outcome::kMismatch) {
        store_.record_change(c.run_id, c.info.id, c.device, model::Outcome::kPass, c.outcome,
                             c.numeric.message);
      }
    }
    if (listener_) listener_(r);
  }

  // Stores a case's result so far, after round `rounds` (Store::hold).
  void hold(const model::CaseResult& r, int rounds) {
    std::lock_guard lock(mutex_);
    store_.hold(r, rounds);
  }

  // The rounds a killed run stored for (case, device), taken once.
  std::optional<store::HeldResult> take_held(const std::string& case_id,
                                             const std::string& device) {
    std::lock_guard lock(mutex_);
    auto it = held_.find({case_id, device});
    if (it == held_.end()) return std::nullopt;
    auto h = std::move(it->second);
    held_.erase(it);
    return h;
  }

  // An engine fault stops the run: every lane ends after its case in flight.
  // The first fault is the one reported.
  void fault(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (fault_.empty()) fault_ = why;
    stopped_.store(true);
  }
  bool stopped() const { return stopped_.load(); }
  std::string fault() {
    std::lock_guard lock(mutex_);
    return fault_;
  }

 private:
  std::mutex mutex_;
  store::Store& store_;
  Oracle oracle_;
  const ResultListener& listener_;
  std::string fault_;
  std::atomic<bool> stopped_{false};
  // What a killed run stored of cases whose rounds were under way.
  std::map<std::pair<std::string, std::string>, store::HeldResult> held_;
};

model::CaseResult without_run(const RunSpec& spec, const model::CaseInfo& info,
                              const std::string& device, model::Outcome outcome,
                              const std::string& message) {
  model::CaseResult r;
  r.run_id = spec.run_id;
  r.info = info;
  r.device = device;
  r.outcome = outcome;
  r.error.kind =
      outcome == model::Outcome::kCrash ? model::ErrorKind::kOther : model::ErrorKind::kNone;
  r.error.message = message;
  r.started_at = r.finished_at = util::now_iso8601();
  return r;
}

bool device_unusable(const model::CaseResult& r) {
  auto it = r.extra.find("device_unusable");
  return it != r.extra.end() && it->is_string() && !it->get<std::string>().empty();
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// How the lane starts framework `fw`'s probes; empty python when it cannot,
// with the reason in *give_up.
ProbeCommand command_for(const Lane& lane, const Slot& slot, const RunSpec& spec,
                         const std::string& fw, std::string* give_up) {
  ProbeCommand command;
  auto rt_it = spec.frameworks.find(fw);
  if (rt_it == spec.frameworks.end() || rt_it->second.python.empty()) {
    *give_up = rt_it == spec.frameworks.end() ? fw + " is not a known framework"
                                              : rt_it->second.unavailable;
    return command;
  }
  command.python = rt_it->second.python;
  command.probe_dir = spec.probe_dir;
  command.suite_dirs = spec.suite_dirs;
  command.params = spec.params;
  command.framework = fw;
  command.device = lane.device;
  command.env = slot.env;
  command.cpu_affinity = slot.cpus;
  return command;
}

// A new probe, tried up to max_start_failures times. A probe that cannot
// start (cannot fork or exec, dies or hangs before its hello, reports an
// engine fault) says nothing about any case: no outcome is stored, and when
// every try fails the run stops with an engine fault. nullptr then, or when
// interrupted.
std::unique_ptr<ProbeSession> start_probe(const ProbeCommand& command, const RunSpec& spec,
                                          const std::string& device, Shared& shared,
                                          const std::atomic<bool>& interrupted) {
  std::string error;
  const int tries = std::max(1, spec.max_start_failures);
  for (int attempt = 1; attempt <= tries; ++attempt) {
    if (interrupted.load() || shared.stopped()) return nullptr;
    auto session = ProbeSession::start(command, spec.limits, interrupted, &error);
    if (session) return session;
  }
  if (!interrupted.load()) {
    shared.fault("probe for " + command.framework + " on " + device + " failed to start " +
                 std::to_string(tries) + " times: " + first_line(error));
  }
  return nullptr;
}

// What disturbed a case's timing, read around each probe call: CPU time
// the hypervisor stole, the GPU's lowest SM clock and its throttle reasons.
class Disturbance {
 public:
  explicit Disturbance(const std::string& device) : device_(device) {
    cpu_ = os::cpu_times();
    note(os::gpu_clocks(device_));
  }
  void apply(model::Latency& latency) {
    note(os::gpu_clocks(device_));
    if (!latency.timing) return;
    model::Timing seen;
    if (auto now = os::cpu_times(); now && cpu_) seen.steal = os::steal_share(*cpu_, *now);
    seen.sm_clock_mhz = sm_mhz_;
    seen.throttle = os::throttle_names(throttle_);
    merge_disturbance(*latency.timing, seen);
  }

  // The worst of both: most steal, lowest clock, every throttle reason.
  static void merge_disturbance(model::Timing& into, const model::Timing& from) {
    if (from.steal) into.steal = std::max(into.steal.value_or(0), *from.steal);
    if (from.sm_clock_mhz) {
      into.sm_clock_mhz =
          std::min(into.sm_clock_mhz.value_or(*from.sm_clock_mhz), *from.sm_clock_mhz);
    }
    for (const auto& name : from.throttle) {
      if (std::find(into.throttle.begin(), into.throttle.end(), name) == into.throttle.end()) {
        into.throttle.push_back(name);
      }
    }
  }

 private:
  void note(const std::optional<os::GpuClocks>& c) {
    if (!c) return;
    sm_mhz_ = std::min(sm_mhz_.value_or(c->sm_mhz), static_cast<double>(c->sm_mhz));
    throttle_ |= c->throttle;
  }
  std::string device_;
  std::optional<os::CpuTimes> cpu_;
  std::optional<double> sm_mhz_;
  uint64_t throttle_ = 0;
};

// One framework's probes on one lane: started on demand, replaced after a
// crash or an unusable device.
class LaneProbe {
 public:
  LaneProbe(const Lane& lane, const Slot& slot, const RunSpec& spec, Shared& shared,
            const std::string& fw, const std::atomic<bool>& interrupted)
      : lane_(lane), spec_(spec), shared_(shared), fw_(fw), interrupted_(interrupted) {
    command_ = command_for(lane, slot, spec, fw, &give_up_);
  }
  ~LaneProbe() {
    if (session_) session_->stop();
  }
  LaneProbe(const LaneProbe&) = delete;
  LaneProbe& operator=(const LaneProbe&) = delete;

  // Why this framework cannot run on the lane ("" while it can).
  const std::string& give_up() const { return give_up_; }

  enum class Step { kDone, kUnavailable, kStop };
  // Runs one request for `info`; kDone with *out set, kUnavailable when the
  // framework turned out not to run here (give_up() says why), kStop when
  // the lane must stop (interrupted, or an engine fault).
  Step run(const model::CaseInfo& info, const protocol::Policy& policy, model::CaseResult* out) {
    if (interrupted_.load() || shared_.stopped()) return Step::kStop;
    if (!session_ || !session_->alive()) {
      session_ = start_probe(command_, spec_, lane_.device, shared_, interrupted_);
      if (!session_) return Step::kStop;
      if (!session_->hello().unavailable.empty()) {
        give_up_ = session_->hello().unavailable;
        session_->stop();
        session_.reset();
        return Step::kUnavailable;
      }
    }
    std::string fault;
    Disturbance disturbance(lane_.device);
    auto r = session_->run(info, lane_.device, spec_.seed, policy,
                           spec_.artifact_root / device_folder(lane_.device), &fault);
    if (!fault.empty()) {
      shared_.fault(fw_ + " on " + lane_.device + ", case " + info.id + ": " + fault);
      return Step::kStop;
    }
    if (!r) return Step::kStop;  // interrupted: this case runs again on --resume
    r->run_id = spec_.run_id;
    auto facts = stats::take_round_facts(r->latency, r->extra);
    if (policy.timing_only) {
      facts_ = std::move(facts);
      r->latency.timing = model::Timing{};  // what disturbed this round, for merge_round
    } else {
      stats::first_round(r->latency, facts, lane_.device);  // classifies and summarises
    }
    disturbance.apply(r->latency);
    // The probe found its device unusable after the case (a sticky CUDA
    // error, a lost device): the case keeps its outcome, the next case gets
    // a new probe (protocol 1.2).
    if (device_unusable(*r)) {
      session_->stop();
      session_.reset();
    }
    *out = std::move(*r);
    return Step::kDone;
  }
  // The round facts of the last timing-only request.
  const stats::RoundFacts& round_facts() const { return facts_; }

 private:
  const Lane& lane_;
  const RunSpec& spec_;
  Shared& shared_;
  std::string fw_;
  const std::atomic<bool>& interrupted_;
  ProbeCommand command_;
  std::string give_up_;
  std::unique_ptr<ProbeSession> session_;
  stats::RoundFacts facts_;
};

// A later round of `held`: its samples join the case's, or its failure
// becomes the case's outcome (a case is only as good as its worst round).
void merge_round(model::CaseResult& held, const model::CaseResult& round, int number,
                 const stats::RoundFacts& facts) {
  if (round.outcome == model::Outcome::kPass) {
    stats::add_round(held.latency, facts);
    if (round.latency.timing && held.latency.timing) {
      Disturbance::merge_disturbance(*held.latency.timing, *round.latency.timing);
    }
    return;
  }
  held.outcome = round.outcome;
  held.error = round.error;
  held.error.message = "timing round " + std::to_string(number) + ": " + round.error.message;
  held.outputs.clear();
  held.extra["round_failed"] = number;
  if (round.extra.contains("device_unusable"))
    held.extra["device_unusable"] = round.extra["device_unusable"];
}

// A case between its first round and its last: its result so far and how
// many rounds it has, every one of them stored (Store::hold).
struct Held {
  model::CaseResult result;
  int rounds = 1;
};

// One framework's cases of the lane in one of the lane's probes (a slot),
// one probe process at a time, taken from the framework's queue in windows
// of spec.round_window cases: the first round of each case of the window
// (outputs, checks, references), then rounds 2..spec.rounds of its
// host-bound cases, one case after another, so every round of a case is
// taken at a different time and the machine's drift falls on different
// rounds. Every round of a case runs in the same slot (its cores). Each round is stored as it lands
// (Store::hold): a killed engine loses at most the round in flight, and a resumed run takes only
// the rounds a case is missing. A case's outcome is stored once, after its last round; when the
// lane stops first (an interrupt, a cancel, an engine fault) the case stays held with the rounds
// it has, so that --resume adds the rest (an incomplete run's reports show it as it is).
class FrameworkRun {
 public:
  FrameworkRun(const Lane& lane, const Slot& slot, const RunSpec& spec, Shared& shared,
               const std::string& fw, CaseQueue& queue, const std::atomic<bool>& interrupted)
      : lane_(lane),
        spec_(spec),
        shared_(shared),
        interrupted_(interrupted),
        probe_(lane, slot, spec, shared, fw, interrupted),
        queue_(queue) {
    first_policy_ = spec.policy;
    first_policy_.reference = lane.reference;
    round_policy_ = spec.policy;
    round_policy_.timing_only = true;
    // The first round's cold call and warm-up already warmed caches and
    // clocks; a later round's rebuilt case needs only a short warm-up.
    round_policy_.warmup_ms = std::min(round_policy_.warmup_ms, 1.0);
  }

  // False when the lane must stop (interrupted, or an engine fault).
  bool run() {
    const size_t window = static_cast<size_t>(std::max(1, spec_.round_window));
    while (!drained_) {
      // A lane that stops (an interrupt, a cancel, an engine fault) leaves
      // its held cases held, each round stored: --resume runs only the
      // rounds they are missing. Before, they landed with the rounds they
      // had, and a resume never added the rest.
      if (!first_rounds(window) || !later_rounds()) return false;
      for (auto& h : held_) {
        stats::finish_rounds(h.result.latency);
        shared_.land(std::move(h.result));
      }
      held_.clear();
    }
    return true;
  }

 private:
  bool stop() const { return interrupted_.load() || shared_.stopped(); }

  void unavailable(const model::CaseInfo& info) {
    shared_.land(
        without_run(spec_, info, lane_.device, model::Outcome::kUnavailable, probe_.give_up()));
  }

  // The first round of up to `window` cases from the queue; a case that
  // gets more rounds is held, every other one lands.
  bool first_rounds(size_t window) {
    for (size_t i = 0; i < window; ++i) {
      if (stop()) return false;
      const auto* next = queue_.next();
      if (!next) {
        drained_ = true;
        break;
      }
      const auto& info = *next;
      if (auto h = shared_.take_held(info.id, lane_.device)) {
        // A killed run stored its first rounds: only the missing ones run.
        h->result.info = info;
        held_.push_back({std::move(h->result), h->rounds});
        continue;
      }
      if (!probe_.give_up().empty()) {
        unavailable(info);
        continue;
      }
      model::CaseResult r;
      first_policy_.once = spec_.once(info);  // one call, judged: no rounds follow
      auto step = probe_.run(info, first_policy_, &r);
      if (step == LaneProbe::Step::kStop) return false;
      if (step == LaneProbe::Step::kUnavailable) {
        unavailable(info);
        continue;
      }
      if (spec_.rounds > 1 && stats::wants_rounds(r)) {
        shared_.hold(r, 1);
        held_.push_back({std::move(r), 1});
      } else {
        shared_.land(std::move(r));
      }
    }
    return true;
  }

  // Rounds 2..spec.rounds of the held cases, each stored as it lands.
  bool later_rounds() {
    for (int number = 2; number <= spec_.rounds; ++number) {
      for (auto& h : held_) {
        if (h.rounds >= number) continue;  // stored before the engine was killed
        if (!model::props(h.result.outcome).ran) continue;
        if (!probe_.give_up().empty()) continue;  // the framework left: the first rounds stand
        model::CaseResult round;
        auto policy = round_policy_;  // a device-bound case gets time to settle
        policy.budget_ms = stats::round_budget_ms(h.result.latency, round_policy_.budget_ms);
        policy.device_timer =
            h.result.latency.timing && stats::in_device_time(*h.result.latency.timing);
        auto step = probe_.run(h.result.info, policy, &round);
        if (step == LaneProbe::Step::kStop) return false;
        if (step == LaneProbe::Step::kUnavailable) continue;
        merge_round(h.result, round, number, probe_.round_facts());
        h.result.wall_s += round.wall_s;
        h.result.finished_at = round.finished_at;
        h.rounds = number;
        shared_.hold(h.result, number);
      }
    }
    return true;
  }

  const Lane& lane_;
  const RunSpec& spec_;
  Shared& shared_;
  const std::atomic<bool>& interrupted_;
  LaneProbe probe_;
  CaseQueue& queue_;
  bool drained_ = false;  // the queue had no case left
  protocol::Policy first_policy_;
  protocol::Policy round_policy_;
  std::vector<Held> held_;
};

// A lane's frameworks one after another, each a queue of its cases; every
// slot (probe) of the lane on a thread of its own takes cases from the
// queue of the framework it is on, and moves to the next framework when
// that queue is empty.
void run_lane(const Lane& lane, const RunSpec& spec, Shared& shared,
              const std::atomic<bool>& interrupted) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const model::CaseInfo*>> cases;
  for (const auto* item : lane.items) {
    const auto& fw = item->first.framework;
    if (std::find(order.begin(), order.end(), fw) == order.end()) order.push_back(fw);
    cases[fw].push_back(&item->first);
  }
  std::vector<size_t> sizes;  // each framework's cases, in the lane's order
  sizes.reserve(order.size());
  for (const auto& fw : order) sizes.push_back(cases.at(fw).size());
  std::map<std::string, CaseQueue> queues;
  for (auto& [fw, list] : cases) queues.try_emplace(fw, std::move(list));
  // The probes of a shared device start on different frameworks, as many
  // on each as its share of the lane's cases (first_frameworks), so one
  // compiles while another has the device and the queues drain together;
  // each then helps with what is left. On an H200 the torch+JAX paper run's
  // three probes per framework left JAX's (1,001 s of case time against
  // torch's 561 s) running 90 s after torch's ran out.
  const auto firsts = first_frameworks(sizes, lane.slots.size());
  auto work = [&](const Slot& slot, size_t index) {
    const size_t first = lane.shared && index < firsts.size() ? firsts[index] : 0;
    for (size_t k = 0; k < order.size(); ++k) {
      const auto& fw = order[(first + k) % order.size()];
      if (!FrameworkRun(lane, slot, spec, shared, fw, queues.at(fw), interrupted).run()) return;
    }
  };
  if (lane.slots.size() == 1) {
    work(lane.slots.front(), 0);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(lane.slots.size());
  for (size_t i = 0; i < lane.slots.size(); ++i) {
    threads.emplace_back([&work, &lane, i] { work(lane.slots[i], i); });
  }
  for (auto& t : threads) t.join();
}

}  // namespace

Oracle::Oracle(store::Store& store, std::string run_id, std::string baseline)
    : store_(store), run_id_(std::move(run_id)), baseline_(std::move(baseline)) {}

void Oracle::load(const std::vector<model::CaseResult>& existing) {
  for (const auto& r : existing) {
    if (!r.outputs.empty()) by_case_[r.info.id][r.device] = r;
  }
}

namespace {

std::string extra_text(const model::CaseResult& r, const char* key, const char* field) {
  auto it = r.extra.find(key);
  if (it == r.extra.end() || !it->is_object()) return "";
  auto f = it->find(field);
  return f != it->end() && f->is_string() ? f->get<std::string>() : "";
}

std::optional<oracle::Tolerance> case_tolerance(const model::CaseInfo& info) {
  if (!info.rtol && !info.atol) return std::nullopt;
  return oracle::Tolerance{info.rtol.value_or(0), info.atol.value_or(0)};
}

// What one output's judgement adds to the result's numeric record.
struct Judged {
  bool ok = true;
  model::Cause cause = model::Cause::kNone;
  std::string message;
};

// The device's error against the reference (in eps, and absolute and
// relative: the largest over outputs), its bound, and the baseline's error.
void note_error(model::Numeric& n, const oracle::Error& e, std::optional<double> base,
                double bound) {
  const double device = e.eps;
  if (!n.error_eps || device > *n.error_eps) {
    n.error_eps = device;
    n.bound_eps = bound;
  }
  n.max_abs_err = std::max(n.max_abs_err.value_or(0.0), e.max_abs);
  n.max_rel_err = std::max(n.max_rel_err.value_or(0.0), e.max_rel);
  if (base && (!n.baseline_error_eps || *base > *n.baseline_error_eps)) n.baseline_error_eps = base;
}

// The message is the first failing output's, or that of the output whose
// cause outranks (full_precision, then precision_default, then
// baseline_wrong), so it explains the cause.
void merge(model::CaseResult& r, const Judged& j, size_t output) {
  if (j.ok) return;
  const bool outranks = r.numeric.cause == model::Cause::kNone ||
                        static_cast<int>(j.cause) < static_cast<int>(r.numeric.cause);
  if (r.numeric.message.empty() || (outranks && j.cause != model::Cause::kNone)) {
    r.numeric.message = "output " + std::to_string(output) + ": " + j.message;
  }
  if (outranks) r.numeric.cause = j.cause;
  if (j.cause == model::Cause::kPrecisionDefault && r.numeric.setting.empty()) {
    r.numeric.setting = extra_text(r, "strict", "setting");
  }
}

// A device wrong at default precision: does its strict-precision run agree?
Judged device_wrong(const model::CaseResult& d, size_t i, const std::string& ref, double eps,
                    double bound, const oracle::Error& e, const std::string& against) {
  Judged j{false, model::Cause::kFullPrecision, oracle::describe(e, bound, against)};
  // A whole model that blows up or underflows at its random weights: the
  // comparison says nothing about the device (model::Cause::kUnstableModel).
  if (stats::composition(d.info)) {
    if (auto why = oracle::unstable_output(e, d.outputs[i].dtype)) {
      j.cause = model::Cause::kUnstableModel;
      j.message += "; " + *why;
      return j;
    }
  }
  auto strict = model::extra_output_paths(d, "strict");
  if (i < strict.size() && !strict[i].empty()) {
    auto s = oracle::measure_files(strict[i], ref, eps, bound, case_tolerance(d.info));
    if (s.eps <= bound) {
      j.cause = model::Cause::kPrecisionDefault;
      j.message += "; agrees with " + extra_text(d, "strict", "setting");
    }
  }
  return j;
}

// A case's accuracy class. A composition (stats::composition: a whole model,
// or a model `mudjack check` was given) is loose, with its reduction depth
// from the operator histogram it reported, where that exceeds the guess
// from its name and dims; a declared reduction stays.
oracle::OpClass op_class_of(const model::CaseResult& r) {
  const bool composition = stats::composition(r.info);
  auto op = oracle::op_class(r.info.function, r.info.dims, r.info.reduction, composition);
  if (composition && !r.info.reduction) {
    if (auto depth = stats::reduction_depth(r.metrics))
      op.reduction = std::max(op.reduction, *depth);
  }
  return op;
}

// The device alone against its own float64 reference (the baseline, or every
// device of a run without one).
bool judge_alone(model::CaseResult& r) {
  auto refs = model::extra_output_paths(r, "reference");
  if (refs.empty()) return true;
  const oracle::OpClass op = op_class_of(r);
  const std::string against = "the float64 reference";
  bool ok = true;
  for (size_t i = 0; i < r.outputs.size() && i < refs.size(); ++i) {
    // A trusted host reference (check's NAME_reference) judges float64 too.
    auto eps = model::extra_trusted(r) ? oracle::dtype_epsilon(r.outputs[i].dtype)
                                       : oracle::reference_epsilon(r.outputs[i].dtype);
    if (!eps || refs[i].empty()) continue;
    const double bound = oracle::alone_bound(r.outputs[i].dtype, op);
    auto e = oracle::measure_files(r.outputs[i].path, refs[i], *eps, bound, case_tolerance(r.info));
    r.numeric.reference = model::reference_name(r, r.device);
    note_error(r.numeric, e, std::nullopt, bound);
    if (e.eps > bound) {
      merge(r, device_wrong(r, i, refs[i], *eps, bound, e, against), i);
      ok = false;
    }
  }
  return ok;
}

// Output i of device d against the float64 reference of the baseline's case.
// The reference judges every device, also beside a baseline beyond its own
// bound: the device may be off by kBaselineFactor times the baseline's error
// (or the sqrt(K) term), never by a looser comparison with the baseline's
// outputs, so a device far worse than a slightly-off baseline is caught.
Judged judge_output(model::CaseResult& d, const model::CaseResult& base, size_t i,
                    const std::string& ref, double eps, const oracle::OpClass& op) {
  const auto& dtype = d.outputs[i].dtype;
  const double alone = oracle::alone_bound(dtype, op);
  auto eb = oracle::measure_files(base.outputs[i].path, ref, eps, alone, case_tolerance(d.info));
  const bool base_ok = eb.eps <= alone;
  const double bound = oracle::device_bound(dtype, op, eb.eps);
  auto ed = oracle::measure_files(d.outputs[i].path, ref, eps, bound, case_tolerance(d.info));
  d.numeric.reference = model::reference_name(base, base.device);
  note_error(d.numeric, ed, eb.eps, bound);
  if (ed.eps > bound) return device_wrong(d, i, ref, eps, bound, ed, "the float64 reference");
  if (!base_ok && ed.eps <= alone) {
    // The device is right and the baseline is not: they disagree, and the
    // finding is about the baseline.
    auto c = oracle::compare_files(d.outputs[i].path, base.outputs[i].path,
                                   oracle::default_tolerance(dtype));
    if (!c.equal) {
      return {false, model::Cause::kBaselineWrong,
              "baseline " + base.device + " is further from the float64 reference (" +
                  oracle::describe(eb, alone, "it") + ") than " + d.device + " (" +
                  oracle::describe(ed, alone, "it") + ")"};
    }
  }
  return {};
}

// Why a case's mismatch is its own call's doing: its second call on the same
// arguments (the probe's `again`, saved only when not identical) differs from
// its first beyond the dtype's tolerance. nullopt when it does not, or when
// there is no second call to read.
std::optional<std::string> nondeterministic(const model::CaseResult& r) {
  auto again = model::extra_output_paths(r, "again");
  if (again.size() != r.outputs.size()) return std::nullopt;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    if (again[i].empty() || !oracle::known_dtype(r.outputs[i].dtype)) continue;
    auto tol = oracle::default_tolerance(r.outputs[i].dtype);
    if (r.info.rtol) tol.rtol = *r.info.rtol;
    if (r.info.atol) tol.atol = *r.info.atol;
    auto c = oracle::compare_files(again[i], r.outputs[i].path, tol);
    if (!c.equal) {
      return "not deterministic: a second call on the same inputs differs from the first "
             "(output " +
             std::to_string(i) + ": " + c.message + ")";
    }
  }
  return std::nullopt;
}

bool usable_baseline(const model::CaseResult& base) {
  return !base.outputs.empty() &&
         (base.outcome == model::Outcome::kPass ||
          (base.outcome == model::Outcome::kMismatch && base.numeric.cause != model::Cause::kNone));
}

}  // namespace

bool Oracle::compare(model::CaseResult& d, const model::CaseResult& base) {
  d.numeric.compared_with = base.device;
  if (d.outputs.size() != base.outputs.size()) {
    d.numeric.message = std::to_string(d.outputs.size()) + " outputs vs baseline's " +
                        std::to_string(base.outputs.size());
    return false;
  }
  auto refs = model::extra_output_paths(base, "reference");
  const oracle::OpClass op = op_class_of(d);
  bool equal = true;
  double max_abs = 0, max_rel = 0;
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    const auto& a = d.outputs[i];
    const auto& b = base.outputs[i];
    Judged j;
    if (a.dtype != b.dtype) {
      j = {false, model::Cause::kNone, "dtype " + a.dtype + " vs baseline " + b.dtype};
    } else if (!oracle::known_dtype(a.dtype)) {
      j = {false, model::Cause::kNone, "unknown dtype name '" + a.dtype + "'"};
    } else if (auto eps = oracle::reference_epsilon(a.dtype);
               eps && i < refs.size() && !refs[i].empty()) {
      j = judge_output(d, base, i, refs[i], *eps, op);
    } else {
      auto tol = oracle::default_tolerance(b.dtype);
      if (oracle::dtype_epsilon(a.dtype)) {  // case tolerances loosen floating outputs only
        if (d.info.rtol) tol.rtol = *d.info.rtol;
        if (d.info.atol) tol.atol = *d.info.atol;
      }
      auto c = oracle::compare_files(a.path, b.path, tol);
      max_abs = std::max(max_abs, c.max_abs_err);
      max_rel = std::max(max_rel, c.max_rel_err);
      if (!c.equal) j = {false, model::Cause::kFullPrecision, c.message};
    }
    merge(d, j, i);
    equal = equal && j.ok;
  }
  // With the reference's errors (note_error) where the oracle judged.
  d.numeric.max_abs_err = std::max(max_abs, d.numeric.max_abs_err.value_or(0.0));
  d.numeric.max_rel_err = std::max(max_rel, d.numeric.max_rel_err.value_or(0.0));
  return equal;
}

std::vector<model::CaseResult> Oracle::observe(model::CaseResult& r) {
  std::vector<model::CaseResult> changed;
  if (r.outcome == model::Outcome::kMismatch && r.numeric.cause == model::Cause::kNone) {
    if (auto why = nondeterministic(r)) {  // its checks failed on an output its next call changes
      r.outcome = model::Outcome::kFail;
      r.error.kind = model::ErrorKind::kNondeterministic;
      r.error.message = *why + "; " + r.error.message;
      return changed;
    }
    // The case's own checks failed; they held on its strict-precision run.
    auto strict = r.extra.find("strict");
    if (strict != r.extra.end() && strict->is_object() && strict->value("checks_ok", false)) {
      r.numeric.cause = model::Cause::kPrecisionDefault;
      r.numeric.setting = extra_text(r, "strict", "setting");
      r.error.message += "; the checks hold with " + r.numeric.setting;
    }
  }
  if (r.outcome != model::Outcome::kPass || r.outputs.empty()) return changed;
  auto& devices = by_case_[r.info.id];
  auto mismatch = [](model::CaseResult& x) {
    if (auto why = nondeterministic(x)) {
      x.outcome = model::Outcome::kFail;
      x.error.kind = model::ErrorKind::kNondeterministic;
      x.error.message = *why + "; " + x.numeric.message;
      return;
    }
    x.outcome = model::Outcome::kMismatch;
    if (x.error.message.empty()) x.error.message = x.numeric.message;
  };
  if (r.device == baseline_ || !model::extra_output_paths(r, "reference").empty()) {
    if (!judge_alone(r)) mismatch(r);
  }
  if (r.device == baseline_) {
    for (auto& [device, other] : devices) {
      if (device == baseline_ || other.outcome != model::Outcome::kPass) continue;
      if (!compare(other, r)) mismatch(other);
      changed.push_back(other);  // numeric fields are new even when it still passes
    }
  } else if (auto base = devices.find(baseline_);
             base != devices.end() && usable_baseline(base->second)) {
    if (!compare(r, base->second)) mismatch(r);
  }
  devices[r.device] = r;
  return changed;
}

LaneCores lane_cores(size_t cores, size_t accelerator_lanes) {
  // An accelerator lane's probe enqueues work and compiles (XLA compiles on
  // threads of its own): up to 4 cores each, half the machine at most, so
  // its host work never waits for a core; the cpu lane gets the rest.
  // Too few cores for that (fewer than 2 left to the cpu lane): the lanes
  // run one after another, each with every core.
  if (accelerator_lanes == 0) return {0, cores};
  const size_t per = std::clamp<size_t>(cores / 2 / accelerator_lanes, 1, 4);
  if (cores < accelerator_lanes * per + 2) return {per, cores};
  return {per, cores - accelerator_lanes * per};
}

size_t default_cpu_probes(size_t cpu_lane_cores) {
  return std::max<size_t>(1, cpu_lane_cores / 2);
}

std::vector<size_t> first_frameworks(const std::vector<size_t>& cases, size_t slots) {
  const size_t kinds = cases.size();
  std::vector<size_t> share(kinds, 0);
  if (kinds == 0 || slots == 0) return {};
  const size_t total = std::accumulate(cases.begin(), cases.end(), size_t{0});
  // At least one probe each while probes last, in the lane's order.
  size_t given = 0;
  for (size_t k = 0; k < kinds && given < slots; ++k, ++given) share[k] = 1;
  // The rest by largest remainder of each framework's share of every probe.
  std::vector<double> want(kinds, 0.0);
  for (size_t k = 0; k < kinds; ++k) {
    const double part = total == 0 ? 1.0 / static_cast<double>(kinds)
                                   : static_cast<double>(cases[k]) / static_cast<double>(total);
    want[k] = part * static_cast<double>(slots);
  }
  while (given < slots) {
    size_t best = 0;
    for (size_t k = 1; k < kinds; ++k) {
      if (want[k] - static_cast<double>(share[k]) > want[best] - static_cast<double>(share[best])) {
        best = k;
      }
    }
    ++share[best];
    ++given;
  }
  std::vector<size_t> first;  // the slots are alike (a core each): in the lane's order
  first.reserve(slots);
  for (size_t k = 0; k < kinds; ++k) first.insert(first.end(), share[k], k);
  return first;
}

Layout lay_out(const std::vector<int>& cpus, const std::vector<std::string>& devices,
               int cpu_probes, bool parallel_allowed, int device_probes,
               const std::map<std::string, size_t>& frameworks) {
  Layout layout;
  layout.host_cpus = cpus;
  const auto accel = static_cast<size_t>(
      std::count_if(devices.begin(), devices.end(), [](const auto& d) { return d != "cpu"; }));
  const size_t per_accel = lane_cores(cpus.size(), accel).accelerator;
  layout.parallel = parallel_allowed && devices.size() > 1 && cpus.size() >= accel * per_accel + 2;
  size_t next = 0;
  for (const auto& device : devices) {
    if (device == "cpu") continue;
    if (!layout.parallel) {
      layout.probes[device].emplace_back();
      continue;
    }
    // A lane of several frameworks: three probes per framework (or as
    // asked), one core each, so the compiles overlap while one probe has
    // the device; such a lane may take up to 3/8 of the host's cores. On an
    // H200 with 16 cores the torch+JAX paper run took 441 s with one probe
    // per framework and 348 s with two on 4 cores, where the JAX compiles
    // on cuda:0 were still the last lane to end.
    const auto known = frameworks.find(device);
    const size_t kinds = known == frameworks.end() ? 1 : known->second;
    const size_t room = kinds > 1 ? std::max(per_accel, cpus.size() * 3 / 8 / accel) : per_accel;
    const size_t asked = device_probes > 0 ? static_cast<size_t>(device_probes)
                         : kinds > 1       ? 3 * kinds
                                           : 1;
    const size_t n = std::clamp<size_t>(asked, 1, room);
    const size_t cores = std::max(per_accel, n);  // the lane's
    for (size_t i = 0; i < n; ++i) {
      const size_t size = cores / n + (i < cores % n ? 1 : 0);
      ProbeCores probe;
      probe.cpus.assign(cpus.begin() + static_cast<std::ptrdiff_t>(next),
                        cpus.begin() + static_cast<std::ptrdiff_t>(next + size));
      next += size;
      layout.probes[device].push_back(std::move(probe));
    }
    if (n > 1) layout.shared.insert(device);
  }
  if (std::find(devices.begin(), devices.end(), "cpu") == devices.end()) return layout;
  // The cpu lane: the cores left to it (all of them when it runs alone).
  const std::vector<int> own(cpus.begin() + static_cast<std::ptrdiff_t>(next), cpus.end());
  size_t n = cpu_probes > 0 ? static_cast<size_t>(cpu_probes) : default_cpu_probes(own.size());
  n = std::clamp<size_t>(n, 1, std::max<size_t>(1, own.size()));
  auto& probes = layout.probes["cpu"];
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t size = own.size() / n + (i < own.size() % n ? 1 : 0);
    ProbeCores probe;
    probe.cpus.assign(own.begin() + static_cast<std::ptrdiff_t>(at),
                      own.begin() + static_cast<std::ptrdiff_t>(at + size));
    at += size;
    probe.threads = probe.cpus.size() < cpus.size() ? probe.cpus.size() : 0;
    // A probe on every core is not pinned: it inherits the engine's cores.
    if (probe.cpus.size() == cpus.size()) probe.cpus.clear();
    probes.push_back(std::move(probe));
  }
  return layout;
}

nlohmann::json Layout::to_json() const {
  nlohmann::json lanes = nlohmann::json::array();
  for (const auto& [device, list] : probes) {
    nlohmann::json ps = nlohmann::json::array();
    for (const auto& p : list) {
      ps.push_back({{"cpus", p.cpus.empty() ? host_cpus : p.cpus},
                    {"pinned", !p.cpus.empty()},
                    {"threads", p.threads}});
    }
    lanes.push_back({{"device", device}, {"shared", shared.contains(device)}, {"probes", ps}});
  }
  return {{"parallel", parallel}, {"lanes", lanes}};
}

size_t cpu_lane_threads(size_t accelerator_lanes) {
  const size_t cores = os::own_cpus().size();
  const auto lanes = lane_cores(cores, accelerator_lanes);
  return accelerator_lanes > 0 && lanes.cpu < cores ? lanes.cpu : 0;
}

namespace {

// The environment of a probe on `probe`'s cores: its frameworks' intra-op
// threads set to its share (OpenMP and MKL for torch and NumPy's BLAS,
// TensorFlow's own pools; XLA's CPU pool sizes itself from the affinity),
// and the core its calling thread is pinned to.
std::map<std::string, std::string> probe_env(const ProbeCores& probe,
                                             const std::vector<int>& host_cpus) {
  std::map<std::string, std::string> env;
  if (probe.threads > 0) {
    const auto n = std::to_string(probe.threads);
    for (const char* name :
         {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TF_NUM_INTRAOP_THREADS"}) {
      env[name] = n;
    }
  }
  // The probe pins the thread that calls every case to one core of its own
  // (probe/__main__.py: the cores of one machine can differ in speed).
  const auto& own = probe.cpus.empty() ? host_cpus : probe.cpus;
  if (!own.empty()) env["MUDJACK_MAIN_CPU"] = std::to_string(own.front());
  return env;
}

// The lock file the probes of a shared device take turns on, beside the
// run's artifacts (each probe opens it with O_CREAT; flock needs no content).
std::filesystem::path device_lock(const RunSpec& spec, const std::string& device) {
  std::string name = device;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  const auto dir = spec.artifact_root.empty()
                       ? std::filesystem::temp_directory_path() / ("mudjack-" + spec.run_id)
                       : spec.artifact_root;
  std::error_code ec;  // a folder that cannot be made fails the probe's open, with its error
  std::filesystem::create_directories(dir, ec);
  return dir / ("device-" + name + ".lock");
}

std::vector<Lane> lanes_of(const RunSpec& spec) {
  std::vector<Lane> lanes;
  for (const auto& item : spec.work) {
    auto it = std::find_if(lanes.begin(), lanes.end(),
                           [&](const Lane& l) { return l.device == item.second; });
    if (it == lanes.end()) {
      lanes.push_back(Lane{item.second, false, false, {}, {}});
      it = std::prev(lanes.end());
    }
    it->items.push_back(&item);
  }
  // The cpu lane first, so the baseline's outputs usually exist when others land.
  std::stable_sort(lanes.begin(), lanes.end(), [](const Lane& a, const Lane& b) {
    return a.device == "cpu" && b.device != "cpu";
  });
  // The baseline's probe builds the float64 references; without a baseline
  // in the run, every device judges itself against its own.
  for (auto& lane : lanes) lane.reference = !spec.baseline_planned || lane.device == spec.baseline;
  return lanes;
}

}  // namespace

Layout layout_for(const RunSpec& spec) {
  if (spec.layout) return *spec.layout;
  std::vector<std::string> devices;
  std::map<std::string, size_t> frameworks;
  for (const auto& lane : lanes_of(spec)) {
    devices.push_back(lane.device);
    std::set<std::string> kinds;
    for (const auto* item : lane.items) kinds.insert(item->first.framework);
    frameworks[lane.device] = kinds.size();
  }
  // Fast cores first: accelerator lanes take theirs from the front, and
  // every lane's calling thread sits on the first core it is given.
  return lay_out(os::fastest_first(os::own_cpus()), devices, spec.cpu_probes, spec.parallel,
                 spec.device_probes, frameworks);
}

bool execute(const RunSpec& spec, store::Store& store, const ResultListener& on_result,
             const std::atomic<bool>& interrupted, std::string* fault) {
  Shared shared(store, spec, on_result);
  auto lanes = lanes_of(spec);
  const Layout layout = layout_for(spec);
  for (auto& lane : lanes) {
    std::map<std::string, std::string> env;
    if (lane.device == "cpu") {
      env["CUDA_VISIBLE_DEVICES"] = "";
      env["JAX_PLATFORMS"] = "cpu";
    } else {
      env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false";
      env["TF_FORCE_GPU_ALLOW_GROWTH"] = "true";
    }
    if (layout.shared.contains(lane.device)) {
      lane.shared = true;
      env["MUDJACK_DEVICE_LOCK"] = device_lock(spec, lane.device).string();
    }
    auto it = layout.probes.find(lane.device);
    const std::vector<ProbeCores> one(1);
    for (const auto& probe : it != layout.probes.end() && !it->second.empty() ? it->second : one) {
      Slot slot{probe.cpus, probe_env(probe, layout.host_cpus)};
      slot.env.insert(env.begin(), env.end());
      lane.slots.push_back(std::move(slot));
    }
  }
  if (layout.parallel && lanes.size() > 1) {
    std::vector<std::thread> threads;
    threads.reserve(lanes.size());
    for (const auto& lane : lanes) {
      threads.emplace_back(
          [&, lane_ptr = &lane] { run_lane(*lane_ptr, spec, shared, interrupted); });
    }
    for (auto& t : threads) t.join();
  } else {
    for (const auto& lane : lanes) run_lane(lane, spec, shared, interrupted);
  }
  if (fault) *fault = shared.fault();
  return !interrupted.load() && !shared.stopped();
}

}  // namespace mudjack::supervisor
