#pragma once
// `mudjack serve`: the HTTP API inside each container (docs/design.md: server).
// Endpoints, bodies and errors are documented in schemas/openapi.json, which
// the server also serves at /v1/openapi.json; their handlers are one table in
// server/routes.cpp.
//
// Connections: a front door of our own (server/intake.hpp) accepts them and
// reads each request whole — head and body — under limits on the head's
// size and line count, the body's size, and a deadline, before any worker,
// auth check or handler sees it; refusals are JSON errors (431, 414, 413,
// 411, 408). A slow or oversized client therefore holds no worker and at
// most max_head_bytes + max_body_bytes of memory, and at most
// max_connections are open (the longest-waiting one is dropped for a new
// one). cpp-httplib then only routes and answers (server/http.hpp): its
// compiled-in limits cannot be changed (Debian's shared build), its
// header reading has no line limit and no deadline for a whole head.
//
// Threads: serve() runs on the caller's thread until shutdown; the intake has
// a thread of its own; HTTP requests are answered by a pool of `threads`
// workers (an open event stream holds one worker, so at most threads -
// kReservedWorkers streams are admitted; a kept-alive connection between
// requests holds none); each run executes on a thread of its own
// (RunManager).
//
// Time: a request must arrive whole within request_timeout of its first byte
// (of the accept, for a new connection); a response may wait on the client
// write_timeout at a time and, in total, write_timeout plus a second per
// 64 KiB written; an event stream sends a comment every `keepalive` and ends
// with its run, or when the server drains.
//
// The listening socket is made here, not by cpp-httplib: Debian's build of
// cpp-httplib 0.11 compiles in listen(fd, 5), a backlog that drops or stalls
// bursts of connections. The socket is bound and listened on with
// `backlog`.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "server/intake.hpp"
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
  // The front door's limits (intake.hpp says what each one bounds).
  size_t max_head_bytes = IntakeLimits{}.max_head_bytes;
  size_t max_header_lines = IntakeLimits{}.max_header_lines;
  size_t max_line_bytes = IntakeLimits{}.max_line_bytes;
  size_t max_connections = IntakeLimits{}.max_connections;
  std::chrono::milliseconds request_timeout = IntakeLimits{}.request_timeout;
  std::chrono::milliseconds write_timeout{10000};  // see "Time" above
  size_t max_queued = 64;                          // queued runs; POST /v1/runs answers 429 beyond
  std::string token;                               // bearer token; empty only when no_auth
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
