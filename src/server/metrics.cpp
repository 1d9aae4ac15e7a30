#include "server/metrics.hpp"

#include <charconv>

namespace mudjack::server {
namespace {

// The shortest text that reads back as the same double (0.0005, not 0.00050000000000000001).
std::string number(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

}  // namespace

std::string escape_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void Metrics::observe_request(std::string_view method, std::string_view route, int status,
                              double seconds) {
  std::lock_guard lock(mu_);
  ++requests_[{std::string(method), std::string(route), status}];
  auto& h = durations_[std::string(route)];
  for (size_t i = 0; i < kDurationBucketsS.size(); ++i) {
    if (seconds <= kDurationBucketsS[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum_s += seconds;
}

void Metrics::count_outcome(std::string_view framework, std::string_view device,
                            std::string_view outcome) {
  std::lock_guard lock(mu_);
  ++outcomes_[{std::string(framework), std::string(device), std::string(outcome)}];
}

void Metrics::count_run_finished(std::string_view state) {
  std::lock_guard lock(mu_);
  ++runs_finished_[std::string(state)];
}

void Metrics::count_run_accepted() {
  std::lock_guard lock(mu_);
  ++runs_accepted_;
}

void Metrics::count_refused(std::string_view reason) {
  std::lock_guard lock(mu_);
  ++refused_[std::string(reason)];
}

std::string Metrics::render(const Gauges& g, std::string_view version,
                            std::string_view revision) const {
  std::lock_guard lock(mu_);
  std::string out;
  header(out, "mudjack_build_info", "gauge", "Version and revision of this server (always 1).");
  out += "mudjack_build_info{version=\"" + escape_label(version) + "\",revision=\"" +
         escape_label(revision) + "\"} 1\n";
  header(out, "mudjack_ready", "gauge", "1 once suites are listed and devices discovered.");
  out += "mudjack_ready " + std::string(g.ready ? "1" : "0") + "\n";
  header(out, "mudjack_draining", "gauge", "1 after SIGTERM: no new runs are accepted.");
  out += "mudjack_draining " + std::string(g.draining ? "1" : "0") + "\n";
  header(out, "mudjack_runs", "gauge", "Runs this server holds, by state.");
  out += "mudjack_runs{state=\"queued\"} " + std::to_string(g.runs_queued) + "\n";
  out += "mudjack_runs{state=\"running\"} " + std::to_string(g.runs_running) + "\n";
  header(out, "mudjack_device_busy", "gauge", "1 while a run holds the device.");
  for (const auto& [device, busy] : g.device_busy) {
    out +=
        "mudjack_device_busy{device=\"" + escape_label(device) + "\"} " + (busy ? "1" : "0") + "\n";
  }
  header(out, "mudjack_event_streams", "gauge", "Open GET /v1/runs/{id}/events streams.");
  out += "mudjack_event_streams " + std::to_string(g.event_streams) + "\n";
  header(out, "mudjack_runs_queue_limit", "gauge",
         "Queued runs beyond which POST /v1/runs answers 429.");
  out += "mudjack_runs_queue_limit " + std::to_string(g.runs_queue_limit) + "\n";
  header(out, "mudjack_http_connections", "gauge", "Client connections open.");
  out += "mudjack_http_connections " + std::to_string(g.connections_open) + "\n";
  header(out, "mudjack_http_refused_total", "counter",
         "Requests refused or connections dropped before any handler, by reason.");
  for (const auto& [reason, n] : refused_) {
    out += "mudjack_http_refused_total{reason=\"" + escape_label(reason) + "\"} " +
           std::to_string(n) + "\n";
  }
  header(out, "mudjack_runs_accepted_total", "counter", "Runs accepted by POST /v1/runs.");
  out += "mudjack_runs_accepted_total " + std::to_string(runs_accepted_) + "\n";
  header(out, "mudjack_runs_finished_total", "counter", "Runs that reached a final state.");
  for (const auto& [state, n] : runs_finished_) {
    out += "mudjack_runs_finished_total{state=\"" + escape_label(state) + "\"} " +
           std::to_string(n) + "\n";
  }
  header(out, "mudjack_outcomes_total", "counter",
         "Case outcomes stored, by framework, device and outcome.");
  for (const auto& [key, n] : outcomes_) {
    const auto& [fw, device, outcome] = key;
    out += "mudjack_outcomes_total{framework=\"" + escape_label(fw) + "\",device=\"" +
           escape_label(device) + "\",outcome=\"" + escape_label(outcome) + "\"} " +
           std::to_string(n) + "\n";
  }
  header(out, "mudjack_http_requests_total", "counter",
         "HTTP requests answered, by method, route and status code.");
  for (const auto& [key, n] : requests_) {
    const auto& [method, route, status] = key;
    out += "mudjack_http_requests_total{method=\"" + escape_label(method) + "\",route=\"" +
           escape_label(route) + "\",code=\"" + std::to_string(status) + "\"} " +
           std::to_string(n) + "\n";
  }
  header(out, "mudjack_http_request_duration_seconds", "histogram",
         "Time from request parsed to response handed to the socket, by route.");
  for (const auto& [route, h] : durations_) {
    auto label = "route=\"" + escape_label(route) + "\"";
    for (size_t i = 0; i < kDurationBucketsS.size(); ++i) {
      out += "mudjack_http_request_duration_seconds_bucket{" + label + ",le=\"" +
             number(kDurationBucketsS[i]) + "\"} " + std::to_string(h.buckets[i]) + "\n";
    }
    out += "mudjack_http_request_duration_seconds_bucket{" + label + ",le=\"+Inf\"} " +
           std::to_string(h.count) + "\n";
    out += "mudjack_http_request_duration_seconds_sum{" + label + "} " + number(h.sum_s) + "\n";
    out += "mudjack_http_request_duration_seconds_count{" + label + "} " + std::to_string(h.count) +
           "\n";
  }
  return out;
}

}  // namespace mudjack::server
