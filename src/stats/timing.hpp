#pragma once
// The timing class of a case and its rounds (docs/design.md, "timing
// class"). The rules are fixed here, before any agreement is measured:
//
// - device_bound when the device is busy for at least kDeviceBoundShare of
//   the host's wall time per call. Where the framework has device events
//   (torch on CUDA) the device time is measured; elsewhere on an
//   accelerator (JAX) the host is taken to wait on the device for the time
//   it does not spend enqueueing (wall - enqueue). A CPU case is host_bound:
//   the host is the device.
// - A device-bound case with device events is reported in device time:
//   its samples are the per-call event spans.
// - A host-bound case is timed in rounds interleaved across cases; its
//   median is the median of the round medians, and it is unstable when
//   (max - min) / median of the round medians exceeds kUnstableSpread.

#include <string_view>

#include "model/model.hpp"

namespace mudjack::stats {

inline constexpr double kDeviceBoundShare = 0.8;
inline constexpr double kUnstableSpread = 0.10;

// What a probe measured in one round, besides the samples (protocol 1.4).
struct RoundFacts {
  std::vector<double> samples_ns;         // host wall time per call, per block
  std::optional<double> enqueue_ns;       // median host enqueue time per call
  std::vector<double> device_samples_ns;  // per-call device-event spans
  std::optional<double> drift_ns;         // the drift detector beside the round
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

// Does this case get more rounds? Host-bound eager cases with samples do; a
// compiled case does not (each round rebuilds the case, and rebuilding a
// compiled function compiles it again), nor does a whole model (a round
// would build the model from its script again: seconds of weight
// initialisation for calls that last milliseconds).
bool wants_rounds(const model::CaseResult& r);

// Adds a later round's samples and detector reading.
void add_round(model::Latency& latency, const RoundFacts& facts);

// Once the last round has landed: stats over every round's samples, the
// median replaced by the median of round medians; spread and unstable set.
void finish_rounds(model::Latency& latency);

}  // namespace mudjack::stats
