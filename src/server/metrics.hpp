#pragma once
// GET /metrics in the Prometheus text exposition format (version 0.0.4).
//
// Metrics is thread-safe: HTTP worker threads and run threads record into it
// concurrently; render() takes a consistent snapshot under the same lock.
// Counters only grow for the life of the process; gauges are passed in at
// render time by their owner (the run manager).

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

namespace mudjack::server {

// Upper bounds of the request-duration histogram, seconds.
inline constexpr std::array<double, 10> kDurationBucketsS = {0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                             0.025,  0.05,  0.1,    0.5,   2.5};

// Point-in-time values owned elsewhere.
struct Gauges {
  bool ready = false;
  bool draining = false;
  size_t runs_queued = 0;
  size_t runs_running = 0;
  size_t event_streams = 0;
  size_t runs_queue_limit = 0;              // POST /v1/runs answers 429 at this many queued
  size_t connections_open = 0;              // client connections open now
  std::map<std::string, bool> device_busy;  // device id -> a run holds it
};

// A label value escaped as the format requires (\\, \", \n).
std::string escape_label(std::string_view value);

class Metrics {
 public:
  // `route` is the matched pattern (/v1/runs/{id}), never the raw path, so
  // the number of series stays bounded.
  void observe_request(std::string_view method, std::string_view route, int status, double seconds);
  void count_outcome(std::string_view framework, std::string_view device, std::string_view outcome);
  // A run reached a final state (complete, incomplete, cancelled, failed).
  void count_run_finished(std::string_view state);
  void count_run_accepted();
  // The front door refused a request or dropped a connection before any
  // handler saw it; `reason` is a short label (server/intake.hpp).
  void count_refused(std::string_view reason);

  std::string render(const Gauges& gauges, std::string_view version,
                     std::string_view revision) const;

 private:
  struct Histogram {
    std::array<uint64_t, kDurationBucketsS.size()> buckets{};
    uint64_t count = 0;
    double sum_s = 0;
  };
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> durations_;  // by route
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> outcomes_;
  std::map<std::string, uint64_t> runs_finished_;
  uint64_t runs_accepted_ = 0;
  std::map<std::string, uint64_t> refused_;
};

}  // namespace mudjack::server
