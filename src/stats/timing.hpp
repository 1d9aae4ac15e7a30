#pragma once
// The timing class of a case and its rounds (docs/design.md, "timing
// class"). The rules are fixed here, before any agreement is measured:
//
// - device_bound when the device is busy for at least kDeviceBoundShare of
//   the host's wall time per call. Where the framework has device events
//   (torch on CUDA) the device time is measured; elsewhere on an
//   accelerator (JAX) the host is taken to wait on the device for the time
//   it does not spend enqueueing (wall - enqueue). A CPU case is host_bound:
//   the host is the device. With events the host must also wait: its
//   enqueue time per call at most kHostWaitShare of the wall time. A call
//   whose host time is its whole wall time (a synchronize, a Python loop
//   that reads the device at each step, a call that launches nothing) is
//   host_bound whatever its events read: their spans then hold the host's
//   own time (measured on an H200: such calls read 0.96-1.0 enqueue/wall
//   and 0.85-1.8 event/wall; sorts, pools and convolutions 0.1-0.8).
// - A device-bound case with device events is reported in device time:
//   its samples are the per-call event spans.
// - A host-bound case, and a device-bound case with device events, is
//   timed in rounds interleaved across cases; its median is the median of
//   the round medians, and it is unstable when (max - min) / median of the
//   round medians (its spread) exceeds kUnstableSpread. A device-bound
//   case in device time reports its fastest round median instead: what
//   else runs on the device or its clocks can only add time, and the
//   fastest round is the one two runs agree on (on an H200 the median of
//   rounds agreed within 5% for 36% of such cases, the minimum for 42%,
//   their later rounds drifting by up to 9%); its spread is the same. A case of one round
//   (compiled, a whole model, `--rounds 1`) has the spread of its samples
//   instead, (p90 - p10) / median, against the same bound.
// - A device-bound case's later rounds run with at least kDeviceRoundMs of
//   budget: time for the device's clocks and caches to settle.
// - A slow case, whose warm call takes at least kSlowCallMs, gets the fewest
//   samples its spread allows: the probe stops sampling once it has
//   kSlowMinSamples whose spread, (max - min) / median, is within
//   kUnstableSpread (else it goes on to the run's minimum), and the case
//   gets no later rounds (one more round would repeat seconds of calls).
//   The engine sends the rule's numbers in the policy (protocol 1.11).

#include <string_view>

#include "model/model.hpp"

namespace mudjack::stats {

// Timing rounds of a host-bound case unless a run asks for others (--rounds).
inline constexpr int kDefaultRounds = 3;
inline constexpr double kDeviceBoundShare = 0.8;
inline constexpr double kHostWaitShare = 0.9;
inline constexpr double kUnstableSpread = 0.10;
inline constexpr double kDeviceRoundMs = 50;
inline constexpr double kSlowCallMs = 500;
inline constexpr int kSlowMinSamples = 3;
// A run's machine was busy (busy_machine) when a case saw more steal than
// kBusySteal, a load average per core above kBusyLoad, GPU clock throttling
// or SM clocks kBusyClockDrop apart, or the drift detector's p90 / p10 on
// one device above kBusyDrift.
inline constexpr double kBusySteal = 0.05;
inline constexpr double kBusyLoad = 1.0;
inline constexpr double kBusyClockDrop = 0.10;
inline constexpr double kBusyDrift = 1.2;

// What a probe measured in one round, besides the samples (protocol 1.4).
struct RoundFacts {
  std::vector<double> samples_ns;         // host wall time per call, per block
  std::optional<double> enqueue_ns;       // median host enqueue time per call
  std::vector<double> device_samples_ns;  // per-call device-event spans
  std::optional<double> drift_ns;         // the drift detector beside the round
  std::optional<double> load;             // 1-minute load average per core, at the round's end
};

// The probe's raw round facts, taken out of `extra` (where protocol parsing
// leaves them) so they are not stored twice.
RoundFacts take_round_facts(model::Latency& latency, nlohmann::json& extra);

// Classifies the first round on `device` and sets latency.timing and the
// samples the case is reported by (device spans for device-bound cases with
// events). Stats are recomputed.
void first_round(model::Latency& latency, const RoundFacts& facts, std::string_view device);

// Is this case a whole model (suites/models: its labels carry "name::")?
// The one definition: the timing rounds and the reports' model rows use it.
bool whole_model(const model::CaseInfo& info);

// Does the accuracy oracle judge this case's outputs as a composition of many
// ops (the loose bound, docs/design.md "accuracy oracle")? A whole model
// (whole_model), and a model `mudjack check` was given (an nn.Module, a Flax
// or Keras model, or a model a script calls: the tag "check.target::model");
// a function, checked or not, keeps its op's bound. The one definition: the
// oracle's judgement, wherever the model comes from.
bool composition(const model::CaseInfo& info);

// A composition's reduction depth, from the operator histogram its case
// reported (metrics "op:<operator>", one eager forward pass as dispatched):
// how many contractions, reductions and normalisations (oracle::reduces) its
// output went through. nullopt without a histogram.
std::optional<int64_t> reduction_depth(const model::Metrics& metrics);

// Does this case get more rounds? Host-bound eager cases with samples do; a
// compiled case does not (each round rebuilds the case, and rebuilding a
// compiled function compiles it again), nor does a whole model (a round
// would build the model from its script again: seconds of weight
// initialisation for calls that last milliseconds), nor does a slow case
// (slow_case).
bool wants_rounds(const model::CaseResult& r);
// Is this a slow case: its median call took at least kSlowCallMs?
bool slow_case(const model::Latency& latency);

// A device-bound case reported in device time (its samples are event spans):
// its later rounds need the device pass, no other case's do.
bool in_device_time(const model::Timing& t);

// Adds a later round's samples (device spans for a device-bound case with
// events) and detector reading.
void add_round(model::Latency& latency, const RoundFacts& facts);

// The budget of a later round of this case: `budget_ms`, and at least
// kDeviceRoundMs for a device-bound case.
double round_budget_ms(const model::Latency& latency, double budget_ms);

// Once the last round has landed: stats over every round's samples, the
// median replaced by the median of round medians; spread and unstable set.
void finish_rounds(model::Latency& latency);

// (max - min) / median of the case's drift-detector readings (one per
// round); 0 with fewer than two. How far the host itself changed speed
// while the case was timed.
double drift_spread(const model::Timing& t);

// "unstable, spread 34%" (with ", host drift 20%" when the drift detector moved
// by more than kUnstableSpread too) for an unstable case, else "".
std::string unstable_text(const model::Latency& latency);

// What made a run's machine busy, one phrase per cause ("steal up to 12%",
// "load up to 2.4 per core", "GPU clock 1515-1980 MHz", "drift detector
// p90/p10 1.9 on cpu"), and how many timed cases are unstable.
struct Busy {
  std::vector<std::string> causes;
  size_t timed = 0;
  size_t unstable = 0;
};
Busy busy_machine(const std::vector<model::CaseResult>& cases);

// One line for the end of a run's output: "" when nothing disturbed it and
// no case is unstable, else "timing: 12 of 80 timed cases unstable; busy
// machine: steal up to 12%, ...".
std::string busy_line(const Busy& busy);

}  // namespace mudjack::stats
