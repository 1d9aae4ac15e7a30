#pragma once
// The HTTP API of `mudjack serve` as one table (routes.cpp): each row is a
// method, a path pattern, what the request needs (a bearer token, a ready
// server) and its handler. The pattern is also the route's label in
// /metrics, so series stay bounded. Adding an endpoint is one row (and its
// entry in schemas/openapi.json).
//
// Patterns are literal paths whose `{name}` segments match one non-empty
// path segment; a handler reads them as req.matches[1], [2], ...
//
// Threads: the table is immutable; handlers run on HTTP worker threads and
// share a Context, whose members are thread-safe (Metrics, RunManager) or
// read-only.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/http_error.hpp"
#include "server/metrics.hpp"
#include "server/runs.hpp"
#include "server/server.hpp"

namespace mudjack::server {

// What every handler shares, owned by serve().
struct Context {
  const ServeOptions& options;
  const std::string& openapi;  // schemas/openapi.json, served as is
  Metrics& metrics;
  // Null until the suites are listed and devices discovered; set once.
  const std::atomic<RunManager*>& manager;
  // Connections open now (the /metrics gauge).
  std::function<size_t()> open_connections;
};

// One request as a handler sees it.
struct Call {
  const Context& ctx;
  RunManager* manager;  // never null for an Access::kReady route
  const httplib::Request& req;
  httplib::Response& res;
};

// Answers through call.res, or returns the error to answer with
// {"error": message, "status": status}.
using Handler = std::optional<HttpError> (*)(const Call& call);

enum class Method { kGet, kPost, kDelete };

enum class Access {
  kOpen,   // no bearer token (liveness and readiness probes); manager may be null
  kToken,  // bearer token; manager may be null (the server is still starting)
  kReady,  // bearer token; 503 until the manager is set
};

struct Route {
  Method method;
  std::string_view pattern;  // /v1/runs/{id}; also the /metrics label
  Access access;
  Handler handler;
};

// Every endpoint, in registration order.
const std::vector<Route>& routes();

// The pattern of the route a path belongs to (/v1/runs/{id}/events), any
// method, or "other"; the label of request metrics.
std::string route_of(std::string_view path);

// True when some route serves this path without a token (/healthz, /readyz).
bool is_open_path(std::string_view path);

// Registers every row with the server; handlers keep a reference to `ctx`.
void install_routes(httplib::Server& http, const Context& ctx);

// JSON replies: the body dumped compactly with a trailing newline.
void reply_json(httplib::Response& res, int status, const nlohmann::json& body);
// {"error": message, "status": status}.
void reply_error(httplib::Response& res, const HttpError& error);

}  // namespace mudjack::server
