#include "server/routes.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "report/write.hpp"
#include "util/json.hpp"
#include "util/sse.hpp"
#include "util/version.hpp"

namespace mudjack::server {
namespace {

using nlohmann::json;
using Answer = std::optional<HttpError>;

// --- helpers ----------------------------------------------------------------

std::string content_type_of(const std::string& format) {
  if (format == "json") return "application/json";
  if (format == "csv") return "text/csv; charset=utf-8";
  if (format == "junit") return "application/xml";
  if (format == "md") return "text/markdown; charset=utf-8";
  if (format == "html") return "text/html; charset=utf-8";
  return "text/plain; charset=utf-8";
}

std::string known_formats() {
  std::string all;
  for (auto f : report::kFormats) all += (all.empty() ? "" : ", ") + std::string(f);
  return all;
}

// A run manager's answer: its error bodies also carry the status.
void reply_manager(httplib::Response& res, Reply reply) {
  if (reply.body.contains("error")) reply.body["status"] = reply.status;
  if (reply.retry_after_s > 0) res.set_header("Retry-After", std::to_string(reply.retry_after_s));
  reply_json(res, reply.status, reply.body);
}

json frameworks_json(const plan::Discovery& d) {
  json frameworks = json::object();
  for (const auto& [fw, rt] : d.runtimes) {
    json f = {{"available", rt.unavailable.empty() && !rt.python.empty()}};
    if (auto h = d.hellos.find(fw); h != d.hellos.end()) {
      f["version"] = h->second.framework_version;
      f["python"] = h->second.python;
    }
    auto ids = d.devices_of.find(fw);
    f["devices"] = ids == d.devices_of.end() ? std::vector<std::string>{} : ids->second;
    if (!rt.unavailable.empty()) f["unavailable"] = rt.unavailable;
    frameworks[fw] = f;
  }
  return frameworks;
}

json info_json(const RunManager& m, const ServeOptions& o) {
  json devices = json::array();
  for (const auto& d : m.discovery().devices) {
    devices.push_back({{"id", d.id},
                       {"kind", d.kind},
                       {"vendor", d.vendor},
                       {"model", d.model},
                       {"memory_bytes", d.memory_bytes},
                       {"driver_version", d.driver_version},
                       {"runtime_version", d.runtime_version}});
  }
  return {{"service", "mudjack"},
          {"api_version", "1"},
          {"version", util::version()},
          {"revision", util::revision()},
          {"schema_version", model::kSchemaVersion},
          {"profile", o.defaults.profile},
          {"frameworks", frameworks_json(m.discovery())},
          {"devices", devices},
          {"formats", report::kFormats},
          {"limits",
           {{"max_body_bytes", o.max_body_bytes},
            {"max_head_bytes", o.max_head_bytes},
            {"max_header_lines", o.max_header_lines},
            {"max_connections", o.max_connections},
            {"request_timeout_s", std::chrono::duration<double>(o.request_timeout).count()},
            {"max_queued_runs", o.max_queued},
            {"max_event_streams", o.threads - kReservedWorkers}}},
          {"environment", m.environment()}};
}

bool offered(const Catalog& c, const std::string& framework) {
  return std::find(c.frameworks.begin(), c.frameworks.end(), framework) != c.frameworks.end();
}

json suites_json(const Catalog& c) {
  json out = json::array();
  for (const auto& [name, cases] : c.cases) {
    std::map<std::string, size_t> per_fw;
    size_t n = 0;
    for (const auto& k : cases) {
      if (!offered(c, k.framework)) continue;
      ++per_fw[k.framework];
      ++n;
    }
    out.push_back({{"name", name}, {"cases", n}, {"frameworks", per_fw}});
  }
  return out;
}

// The parsed Last-Event-ID header or ?after= parameter; nullopt if malformed.
std::optional<uint64_t> resume_point(const httplib::Request& req) {
  std::string text = req.has_header("Last-Event-ID") ? req.get_header_value("Last-Event-ID")
                     : req.has_param("after")        ? req.get_param_value("after")
                                                     : "0";
  if (text.empty() || text.size() > 19 ||
      !std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return std::nullopt;
  }
  return std::stoull(text);
}

// A {name} segment of a pattern.
bool is_parameter(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// Segment by segment: literals equal, {name} any non-empty segment.
bool path_matches(std::string_view pattern, std::string_view path) {
  size_t i = 0;
  size_t j = 0;
  for (;;) {
    size_t pattern_end = pattern.find('/', i);
    size_t path_end = path.find('/', j);
    auto want = pattern.substr(i, pattern_end - i);
    auto got = path.substr(j, path_end - j);
    if (is_parameter(want) ? got.empty() : want != got) return false;
    if (pattern_end == std::string_view::npos || path_end == std::string_view::npos) {
      return pattern_end == path_end;
    }
    i = pattern_end + 1;
    j = path_end + 1;
  }
}

// The pattern as cpp-httplib's regex: literals escaped, {name} a capture group.
std::string pattern_regex(std::string_view pattern) {
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    if (pattern[i] == '{') {
      size_t close = pattern.find('}', i);
      out += "([^/]+)";
      i = close + 1;
      continue;
    }
    if (std::string_view(R"(\^$.|?*+()[]{})").find(pattern[i]) != std::string_view::npos) {
      out += '\\';
    }
    out += pattern[i++];
  }
  return out;
}

// --- handlers ---------------------------------------------------------------

Answer get_healthz(const Call& c) {
  reply_json(c.res, 200, {{"status", "alive"}});
  return std::nullopt;
}

Answer get_readyz(const Call& c) {
  const char* status = c.manager == nullptr    ? "starting"
                       : c.manager->draining() ? "draining"
                                               : "ready";
  reply_json(c.res, std::string_view(status) == "ready" ? 200 : 503, {{"status", status}});
  return std::nullopt;
}

Answer get_metrics(const Call& c) {
  Gauges g = c.manager != nullptr ? c.manager->gauges() : Gauges{};
  g.ready = c.manager != nullptr && !c.manager->draining();
  g.connections_open = c.ctx.open_connections ? c.ctx.open_connections() : 0;
  c.res.set_content(c.ctx.metrics.render(g, util::version(), util::revision()),
                    "text/plain; version=0.0.4; charset=utf-8");
  return std::nullopt;
}

Answer get_openapi(const Call& c) {
  c.res.set_content(c.ctx.openapi, "application/json");
  return std::nullopt;
}

Answer get_info(const Call& c) {
  reply_json(c.res, 200, info_json(*c.manager, c.ctx.options));
  return std::nullopt;
}

Answer get_suites(const Call& c) {
  reply_json(c.res, 200, suites_json(c.manager->catalog()));
  return std::nullopt;
}

Answer get_suite_cases(const Call& c) {
  const auto& catalog = c.manager->catalog();
  auto it = catalog.cases.find(c.req.matches[1]);
  if (it == catalog.cases.end()) {
    return HttpError{404, "unknown suite '" + std::string(c.req.matches[1]) + "'"};
  }
  json out = json::array();
  for (const auto& k : it->second) {
    if (!offered(catalog, k.framework)) continue;
    out.push_back({{"id", k.id},
                   {"framework", k.framework},
                   {"function", k.function},
                   {"variant", k.variant},
                   {"dtype", k.dtype},
                   {"shape", k.shape},
                   {"mode", k.mode}});
  }
  reply_json(c.res, 200, out);
  return std::nullopt;
}

Answer post_run(const Call& c) {
  if (c.manager->draining()) return HttpError{503, "server is shutting down; no new runs"};
  auto request = parse_run_request(c.req.body, c.manager->catalog());
  if (!request) return request.error();
  auto reply = c.manager->submit(*request);
  if (reply.status == 202) c.res.set_header("Location", "/v1/runs/" + reply.body.value("id", ""));
  reply_manager(c.res, std::move(reply));
  return std::nullopt;
}

Answer get_run(const Call& c) {
  reply_manager(c.res, c.manager->status(c.req.matches[1]));
  return std::nullopt;
}

Answer delete_run(const Call& c) {
  reply_manager(c.res, c.manager->cancel(c.req.matches[1]));
  return std::nullopt;
}

Answer get_results(const Call& c) {
  auto format = c.req.has_param("format") ? c.req.get_param_value("format") : "json";
  if (std::find(report::kFormats.begin(), report::kFormats.end(), format) ==
      report::kFormats.end()) {
    return bad_request("unknown format '" + format + "' (known: " + known_formats() + ")");
  }
  auto text = c.manager->results(c.req.matches[1], format);
  if (!text) return HttpError{404, "unknown run '" + std::string(c.req.matches[1]) + "'"};
  // The shared text outlives the response: no copy for large reports.
  auto body = *text;
  c.res.set_content_provider(body->size(), content_type_of(format),
                             [body](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(body->data() + offset, length);
                             });
  return std::nullopt;
}

// Streams the run's events after `after` until its end, a keep-alive comment
// whenever none came for options.keepalive.
void stream_events(const Call& c, const std::string& id, uint64_t after) {
  RunManager* m = c.manager;
  m->event_stream_opened();
  c.res.set_header("Cache-Control", "no-cache");
  auto cursor = std::make_shared<uint64_t>(after);
  c.res.set_chunked_content_provider(
      "text/event-stream",
      [m, id, cursor, keepalive = c.ctx.options.keepalive](size_t, httplib::DataSink& sink) {
        auto batch = m->events_after(id, *cursor, keepalive);
        if (batch.events.empty() && !batch.ended) {
          auto comment = util::sse_comment("keep-alive");
          return sink.write(comment.data(), comment.size());
        }
        for (const auto& e : batch.events) {
          auto text = util::sse_event_raw(e.id, e.name, e.data);
          if (!sink.write(text.data(), text.size())) return false;
          *cursor = e.id;
        }
        if (batch.ended) sink.done();
        return true;
      },
      [m](bool) { m->event_stream_closed(); });
}

Answer get_events(const Call& c) {
  std::string id = c.req.matches[1];
  auto after = resume_point(c.req);
  if (!after) return bad_request("Last-Event-ID (or ?after=) must be an event number");
  if (!c.manager->events_after(id, *after, std::chrono::milliseconds(0)).known) {
    return HttpError{404, "unknown run '" + id + "'"};
  }
  if (c.manager->event_streams() >= c.ctx.options.threads - kReservedWorkers) {
    c.res.set_header("Retry-After", "5");
    return HttpError{503, "too many open event streams; retry later"};
  }
  stream_events(c, id, *after);
  return std::nullopt;
}

// Runs the row's handler once its preconditions hold.
httplib::Server::Handler dispatcher(const Route& route, const Context& ctx) {
  return [&route, &ctx](const httplib::Request& req, httplib::Response& res) {
    RunManager* m = ctx.manager.load();
    if (route.access == Access::kReady && m == nullptr) {
      return reply_error(res, {503, "not ready: still listing suites and discovering devices"});
    }
    if (auto error = route.handler(Call{ctx, m, req, res})) reply_error(res, *error);
  };
}

}  // namespace

const std::vector<Route>& routes() {
  static const std::vector<Route> table = {
      {Method::kGet, "/healthz", Access::kOpen, get_healthz},
      {Method::kGet, "/readyz", Access::kOpen, get_readyz},
      {Method::kGet, "/metrics", Access::kToken, get_metrics},
      {Method::kGet, "/v1/openapi.json", Access::kToken, get_openapi},
      {Method::kGet, "/v1/info", Access::kReady, get_info},
      {Method::kGet, "/v1/suites", Access::kReady, get_suites},
      {Method::kGet, "/v1/suites/{name}/cases", Access::kReady, get_suite_cases},
      {Method::kPost, "/v1/runs", Access::kReady, post_run},
      {Method::kGet, "/v1/runs/{id}", Access::kReady, get_run},
      {Method::kDelete, "/v1/runs/{id}", Access::kReady, delete_run},
      {Method::kGet, "/v1/runs/{id}/results", Access::kReady, get_results},
      {Method::kGet, "/v1/runs/{id}/events", Access::kReady, get_events},
  };
  return table;
}

std::string route_of(std::string_view path) {
  for (const auto& r : routes()) {
    if (path_matches(r.pattern, path)) return std::string(r.pattern);
  }
  return "other";
}

bool is_open_path(std::string_view path) {
  return std::any_of(routes().begin(), routes().end(), [&](const Route& r) {
    return r.access == Access::kOpen && path_matches(r.pattern, path);
  });
}

void install_routes(httplib::Server& http, const Context& ctx) {
  for (const auto& route : routes()) {
    auto regex = pattern_regex(route.pattern);
    auto handler = dispatcher(route, ctx);
    switch (route.method) {
      case Method::kGet:
        http.Get(regex, handler);
        break;
      case Method::kPost:
        http.Post(regex, handler);
        break;
      case Method::kDelete:
        http.Delete(regex, handler);
        break;
    }
  }
}

void reply_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(util::dump_json(body, -1) + "\n", "application/json");
}

void reply_error(httplib::Response& res, const HttpError& error) {
  reply_json(res, error.status, {{"error", error.message}, {"status", error.status}});
}

}  // namespace mudjack::server
