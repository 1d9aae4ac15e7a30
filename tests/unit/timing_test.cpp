// The timing class and rounds (stats/timing.hpp) and what disturbs timings
// (os/disturb.hpp), with exact values.

#include <gtest/gtest.h>

#include <vector>

#include "os/disturb.hpp"
#include "protocol/protocol.hpp"
#include "run/options.hpp"
#include "stats/timing.hpp"

namespace mudjack::stats {
namespace {

RoundFacts facts(std::vector<double> samples, std::optional<double> enqueue,
                 std::vector<double> device = {}, std::optional<double> drift = 5.0,
                 std::optional<double> load = std::nullopt) {
  return RoundFacts{std::move(samples), enqueue, std::move(device), drift, load};
}

model::Latency first(const RoundFacts& f, std::string_view device) {
  model::Latency l;
  l.samples_ns = f.samples_ns;
  l.calls_per_sample = 10;
  first_round(l, f, device);
  return l;
}

TEST(TimingClass, ACpuCaseIsHostBoundWhateverItsEnqueueTime) {
  auto l = first(facts({100, 100, 100}, 1), "cpu");
  ASSERT_TRUE(l.timing);
  EXPECT_EQ(l.timing->bound, "host_bound");
  EXPECT_EQ(l.timing->rule, "host");
  EXPECT_EQ(l.timing->rounds_ns, std::vector<double>{100});
  EXPECT_EQ(l.timing->drift_ns, std::vector<double>{5});
}

TEST(TimingClass, DeviceEventsAtEightyPercentOfWallAreDeviceBoundAndBecomeTheSamples) {
  auto l = first(facts({100, 100, 100}, 10, {80, 81, 79}), "cuda:0");
  EXPECT_EQ(l.timing->bound, "device_bound");
  EXPECT_EQ(l.timing->rule, "device_events");
  EXPECT_EQ(l.timing->device_ns, 80);
  EXPECT_EQ(l.timing->wall_ns, 100);
  EXPECT_EQ(l.samples_ns, (std::vector<double>{80, 81, 79}));
  EXPECT_EQ(l.calls_per_sample, 1);
  ASSERT_TRUE(l.stats);
  EXPECT_EQ(l.stats->median_ns, 80);
}

TEST(TimingClass, DeviceEventsBelowEightyPercentLeaveAHostBoundCaseInWallTime) {
  auto l = first(facts({100, 100, 100}, 95, {79, 79, 79}), "cuda:0");
  EXPECT_EQ(l.timing->bound, "host_bound");
  EXPECT_EQ(l.timing->device_ns, 79);
  EXPECT_EQ(l.samples_ns, (std::vector<double>{100, 100, 100}));
  EXPECT_EQ(l.calls_per_sample, 10);
}

// Events spanning the whole wall time while the host enqueues for all of it
// (a synchronize; a loop reading the device each step): the spans hold the
// host's time, so the case is host-bound in wall time.
TEST(TimingClass, EventsOfACallWhoseHostNeverWaitsLeaveItHostBound) {
  auto l = first(facts({100, 100, 100}, 96, {130, 125, 128}), "cuda:0");
  EXPECT_EQ(l.timing->bound, "host_bound");
  EXPECT_EQ(l.samples_ns, (std::vector<double>{100, 100, 100}));
  EXPECT_EQ(first(facts({100}, 90, {95}), "cuda:0").timing->bound, "device_bound");
  EXPECT_EQ(first(facts({100}, 91, {95}), "cuda:0").timing->bound, "host_bound");
}

TEST(TimingClass, WithoutEventsTheHostWaitingEightyPercentMakesItDeviceBound) {
  EXPECT_EQ(first(facts({100}, 20), "cuda:0").timing->bound, "device_bound");
  auto host = first(facts({100}, 21), "cuda:0");
  EXPECT_EQ(host.timing->bound, "host_bound");
  EXPECT_EQ(host.timing->rule, "enqueue");
  EXPECT_EQ(first(facts({100}, std::nullopt), "cuda:0").timing->bound, "host_bound");
}

TEST(TimingRounds, TheMedianIsTheMedianOfRoundMediansAndASpreadPastTenPercentIsUnstable) {
  auto l = first(facts({100, 102, 98}, 100), "cpu");
  add_round(l, facts({150, 150, 150}, 150, {}, 7.0));
  add_round(l, facts({104, 104, 104}, 104, {}, std::nullopt));
  finish_rounds(l);
  ASSERT_TRUE(l.stats);
  EXPECT_EQ(l.timing->rounds_ns, (std::vector<double>{100, 150, 104}));
  EXPECT_EQ(l.stats->median_ns, 104);
  EXPECT_EQ(l.stats->n, 9);  // every round's samples
  EXPECT_DOUBLE_EQ(l.timing->spread, 50.0 / 104.0);
  EXPECT_TRUE(l.timing->unstable);
  EXPECT_EQ(l.timing->drift_ns, (std::vector<double>{5, 7}));
}

TEST(TimingRounds, RoundsWithinTenPercentAreStableAndOneRoundHasItsSamplesSpread) {
  auto l = first(facts({100}, 100), "cpu");
  add_round(l, facts({105}, 105));
  add_round(l, facts({109}, 109));
  finish_rounds(l);
  EXPECT_FALSE(l.timing->unstable);
  EXPECT_DOUBLE_EQ(l.timing->spread, 9.0 / 105.0);
  // One round: (p90 - p10) / median of its samples, p10 = 120, p90 = 280.
  auto one = first(facts({100, 300}, 100), "cpu");
  finish_rounds(one);
  EXPECT_TRUE(one.timing->unstable);
  EXPECT_DOUBLE_EQ(one.timing->spread, 160.0 / 200.0);
  auto steady = first(facts({100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110}, 100), "cpu");
  EXPECT_DOUBLE_EQ(steady.timing->spread, 8.0 / 105.0);  // p10 101, p90 109
  EXPECT_FALSE(steady.timing->unstable);
  // Rounds replace the samples' spread: one slow block no longer counts.
  auto rounds = first(facts({100, 100, 100, 100, 400}, 100), "cpu");
  EXPECT_TRUE(rounds.timing->unstable);
  add_round(rounds, facts({101}, 101));
  finish_rounds(rounds);
  EXPECT_DOUBLE_EQ(rounds.timing->spread, 1.0 / 100.5);
  EXPECT_FALSE(rounds.timing->unstable);
}

TEST(TimingRounds, ADeviceBoundCaseWithEventsGetsRoundsInDeviceTimeAndALongerBudget) {
  auto l = first(facts({100, 100}, 10, {90, 92}), "cuda:0");
  ASSERT_EQ(l.timing->bound, "device_bound");
  EXPECT_EQ(round_budget_ms(l, 7), kDeviceRoundMs);
  EXPECT_EQ(round_budget_ms(l, 80), 80);
  add_round(l, facts({100, 100}, 10, {80, 82}));
  add_round(l, facts({100, 100}, 10, {90, 90}));
  finish_rounds(l);
  EXPECT_EQ(l.timing->rounds_ns, (std::vector<double>{91, 81, 90}));
  EXPECT_EQ(l.stats->median_ns, 81);   // the fastest round: interference only adds
  EXPECT_EQ(l.samples_ns.size(), 6u);  // device spans only, no host blocks
  EXPECT_TRUE(l.timing->unstable);     // 10 / 90
  auto host = first(facts({100}, 100), "cpu");
  EXPECT_EQ(round_budget_ms(host, 7), 7);
  auto jax = first(facts({100}, 10), "cuda:0");  // device-bound by enqueue: no events, no rounds
  EXPECT_EQ(round_budget_ms(jax, 7), 7);
}

TEST(TimingRounds, TheDriftDetectorSaysWhenTheHostItselfChangedSpeed) {
  auto l = first(facts({100}, 100, {}, 10.0), "cpu");
  add_round(l, facts({150}, 150, {}, 15.0));
  add_round(l, facts({100}, 100, {}, 10.0));
  finish_rounds(l);
  EXPECT_DOUBLE_EQ(drift_spread(*l.timing), 0.5);
  EXPECT_EQ(unstable_text(l), "unstable, spread 50%, host drift 50%");
  auto steady = first(facts({100}, 100, {}, 10.0), "cpu");
  add_round(steady, facts({150}, 150, {}, 10.0));
  finish_rounds(steady);
  EXPECT_EQ(unstable_text(steady), "unstable, spread 40%");
  auto stable = first(facts({100}, 100), "cpu");
  EXPECT_EQ(unstable_text(stable), "");
}

model::CaseResult timed(std::string device, RoundFacts f) {
  model::CaseResult r;
  r.device = device;
  r.info.framework = "torch";
  r.latency = first(f, r.device);
  return r;
}

TEST(BusyMachine, QuietRunsSayNothingAndBusyOnesNameEveryCauseOnce) {
  std::vector<model::CaseResult> quiet;
  for (int i = 0; i < 6; ++i) quiet.push_back(timed("cpu", facts({100}, 100, {}, 10.0, 0.5)));
  EXPECT_TRUE(busy_machine(quiet).causes.empty());
  EXPECT_EQ(busy_line(busy_machine(quiet)), "");

  auto busy = quiet;
  busy[0].latency.timing->steal = 0.12;
  busy[1].latency.timing->load = 2.4;
  busy[2].latency.timing->sm_clock_mhz = 1515;
  busy[3].latency.timing->sm_clock_mhz = 1980;
  busy[3].latency.timing->throttle = {"sw_thermal"};
  busy[4].latency.timing->unstable = true;
  for (int i = 0; i < 3; ++i) busy[i].latency.timing->drift_ns = {20};
  const auto b = busy_machine(busy);
  EXPECT_EQ(b.timed, 6u);
  EXPECT_EQ(b.unstable, 1u);
  EXPECT_EQ(busy_line(b),
            "timing: 1 of 6 timed cases unstable (spread over 10%); busy machine: steal up to 12%, "
            "load up to 2.4 per core, GPU SM clock 1515-1980 MHz, GPU clock throttled "
            "(sw_thermal), drift detector p90/p10 2.00 (torch on cpu); read medians as this "
            "machine's state, not the case's");
}

TEST(TimingRounds, OnlyPassingHostBoundEagerCasesGetMoreRounds) {
  model::CaseResult r;
  r.outcome = model::Outcome::kPass;
  r.info.mode = "eager";
  r.latency = first(facts({100}, 100), "cpu");
  EXPECT_TRUE(wants_rounds(r));
  r.outcome = model::Outcome::kMismatch;
  EXPECT_TRUE(wants_rounds(r));
  r.outcome = model::Outcome::kFail;
  EXPECT_FALSE(wants_rounds(r));
  r.outcome = model::Outcome::kPass;
  r.info.mode = "compiled";
  EXPECT_FALSE(wants_rounds(r));
  r.info.mode = "eager";
  r.latency = first(facts({100}, 10, {90}), "cuda:0");
  EXPECT_TRUE(wants_rounds(r));  // device-bound in device time: rounds of device spans
  r.latency = first(facts({100}, 10), "cuda:0");
  EXPECT_FALSE(wants_rounds(r));  // device-bound by enqueue time (JAX): the host waits
}

TEST(TimingRounds, AWholeModelGetsOneRoundBecauseARoundRebuildsIt) {
  model::CaseResult r;
  r.outcome = model::Outcome::kPass;
  r.info.mode = "eager";
  r.info.tags = {"task::Computer_Vision"};
  r.latency = first(facts({100}, 100), "cpu");
  EXPECT_TRUE(wants_rounds(r));  // a label alone does not make a model
  r.info.tags.push_back("name::resnet18");
  EXPECT_TRUE(whole_model(r.info));
  EXPECT_FALSE(wants_rounds(r));
}

// One default for the budget and its neighbours: the run's options (what
// --budget-ms defaults to) and the policy the engine sends.
TEST(TimingDefaults, ThePolicysDefaultsAreTheRunsDefaults) {
  const protocol::Policy policy;
  const run::RunOptions options;
  EXPECT_EQ(policy.budget_ms, options.budget_ms);
  EXPECT_EQ(policy.budget_ms, 7);
  EXPECT_EQ(policy.warmup_ms, options.warmup_ms);
  EXPECT_EQ(policy.min_samples, options.min_samples);
  EXPECT_EQ(policy.max_samples, options.max_samples);
}

TEST(TimingFacts, TheProbesRawFieldsLeaveExtra) {
  model::Latency l;
  l.samples_ns = {3, 4};
  nlohmann::json extra = {{"enqueue_ns", 2.5},
                          {"device_samples_ns", {1, 2}},
                          {"drift_ns", 9},
                          {"load", 0.7},
                          {"checks", nlohmann::json::array()}};
  auto f = take_round_facts(l, extra);
  EXPECT_EQ(f.enqueue_ns, 2.5);
  EXPECT_EQ(f.device_samples_ns, (std::vector<double>{1, 2}));
  EXPECT_EQ(f.drift_ns, 9);
  EXPECT_EQ(f.load, 0.7);
  EXPECT_EQ(f.samples_ns, (std::vector<double>{3, 4}));
  EXPECT_EQ(extra, (nlohmann::json{{"checks", nlohmann::json::array()}}));
}

TEST(TimingJson, RoundTripsEveryField) {
  model::Timing t;
  t.bound = "host_bound";
  t.rule = "enqueue";
  t.wall_ns = 10;
  t.enqueue_ns = 9;
  t.rounds_ns = {10, 11};
  t.spread = 0.1;
  t.unstable = true;
  t.drift_ns = {1, 2};
  t.steal = 0.25;
  t.sm_clock_mhz = 1980;
  t.throttle = {"sw_power_cap"};
  auto back = model::timing_from_json(model::timing_to_json(t));
  ASSERT_TRUE(back);
  EXPECT_EQ(model::timing_to_json(*back), model::timing_to_json(t));
  EXPECT_EQ(model::timing_to_json(std::nullopt), nullptr);
  EXPECT_FALSE(model::timing_from_json(nullptr));
}

}  // namespace
}  // namespace mudjack::stats

namespace mudjack::os {
namespace {

TEST(Disturbance, StealIsTheEighthFieldOverTheFirstEight) {
  auto a = parse_cpu_times("cpu  100 0 50 800 10 0 0 40 7 7\ncpu0 1 2 3\n");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->total, 1000u);  // guest time is already in user
  EXPECT_EQ(a->steal, 40u);
  auto b = parse_cpu_times("cpu  150 0 50 800 10 0 0 90 7 7");
  EXPECT_EQ(steal_share(*a, *b), 0.5);
  EXPECT_FALSE(steal_share(*a, *a));
  EXPECT_FALSE(parse_cpu_times("intr 5 6"));
  EXPECT_FALSE(parse_cpu_times("cpu  12 x"));
}

TEST(Disturbance, ThrottleNamesLeaveIdleOut) {
  EXPECT_TRUE(throttle_names(0x1).empty());
  EXPECT_EQ(throttle_names(0x1 | 0x4 | 0x40),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
}

TEST(Disturbance, NoGpuClocksForACpuOrAMalformedDevice) {
  EXPECT_FALSE(gpu_clocks("cpu"));
  EXPECT_FALSE(gpu_clocks("cuda:x"));
}

TEST(Disturbance, FastestFirstKeepsEveryCoreOnce) {
  const std::vector<int> cpus{0};
  EXPECT_EQ(fastest_first(cpus), cpus);
  EXPECT_TRUE(fastest_first({}).empty());
}

}  // namespace
}  // namespace mudjack::os

namespace mudjack::stats {
namespace {

// A slow case (its median call at least kSlowCallMs) gets no later rounds:
// each would repeat seconds of calls; its first round's samples are few and
// within the spread the probe allowed.
TEST(TimingRounds, ASlowCaseGetsOneRound) {
  model::CaseResult r;
  r.outcome = model::Outcome::kPass;
  r.info.mode = "eager";
  r.latency = first(facts({499e6, 499e6, 499e6}, 499e6), "cpu");
  EXPECT_FALSE(slow_case(r.latency));
  EXPECT_TRUE(wants_rounds(r));
  r.latency = first(facts({500e6, 510e6, 505e6}, 500e6), "cpu");
  EXPECT_TRUE(slow_case(r.latency));
  EXPECT_FALSE(wants_rounds(r));
}

}  // namespace
}  // namespace mudjack::stats
