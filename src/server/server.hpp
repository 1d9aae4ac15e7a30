#pragma once
// `mudjack serve`: the HTTP API inside each container (docs/design.md: server).
// Endpoints, bodies and errors are documented in schemas/openapi.json, which
// the server also serves at /v1/openapi.json; their handlers are one table in
// server/routes.cpp.
//
// Threads: serve() runs on the caller's thread until shutdown; HTTP requests
// are handled by a pool of `threads` workers (an open event stream holds one
// worker, so at most threads - kReservedWorkers streams are admitted); each
// run executes on a thread of its own (RunManager).
//
// The listening socket is made here, not by cpp-httplib: Debian's build of
// cpp-httplib 0.11 compiles in listen(fd, 5), a backlog that drops or stalls
// bursts of connections. The socket is bound and listened on with
// `backlog` and handed to the server.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "server/request.hpp"
#include "server/runs.hpp"

namespace mudjack::server {

// Workers kept free of event streams, so status, results and metrics
// requests are answered while streams are open.
inline constexpr size_t kReservedWorkers = 4;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: any free port (see port_file)
  int backlog = 4096;   // listen(2) backlog; the kernel caps it at somaxconn
  size_t threads = 64;  // HTTP worker threads
  size_t max_body_bytes = kDefaultMaxBodyBytes;
  std::string token;  // bearer token; empty only when no_auth
  bool no_auth = false;
  std::optional<std::filesystem::path> port_file;  // the bound port is written here
  std::vector<plan::SuiteRef> suites;              // offered; empty: every known suite
  std::vector<std::string> frameworks;             // offered; empty: all four
  RunDefaults defaults;
  std::chrono::milliseconds drain_grace{0};    // SIGTERM: time runs get to finish
  std::chrono::milliseconds keepalive{15000};  // comment on an idle event stream
};

// A TCP socket bound to host:port and listening with `backlog`, close-on-exec.
// Returns the descriptor and sets *bound_port (useful with port 0).
// FatalError naming the address when it cannot be resolved, bound or listened on.
int listen_socket(const std::string& host, int port, int backlog, int* bound_port);

// The bearer token: the first line of `token_file` if given, else
// $MUDJACK_TOKEN. FatalError when there is none (unless no_auth), when the
// file cannot be read, or when the token is empty or shorter than 16 characters.
std::string resolve_token(const std::optional<std::filesystem::path>& token_file, bool no_auth);

// Constant-time comparison of a presented token with the expected one.
bool token_matches(const std::string& presented, const std::string& expected);

// "Bearer abc" -> "abc"; nullopt for any other scheme or a missing value.
std::optional<std::string> bearer_token(const std::string& authorization);

// Serves until `stop` is set (the CLI sets it on SIGTERM and SIGINT), then
// drains: stops accepting connections, cancels queued runs, gives running
// ones drain_grace, interrupts them, lets event streams send their end, and
// returns 0. Every outcome that finished is in the store. FatalError for a
// socket that cannot be bound or suites that cannot be listed.
int serve(const ServeOptions& options, store::Store& store, const std::atomic<bool>& stop);

}  // namespace mudjack::server
