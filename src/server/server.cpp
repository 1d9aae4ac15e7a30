#include "server/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "envs/envs.hpp"
#include "report/write.hpp"
#include "run/options.hpp"
#include "server/http.hpp"
#include "server/intake.hpp"
#include "server/routes.hpp"
#include "util/error.hpp"

namespace mudjack::server {
namespace fs = std::filesystem;
using nlohmann::json;
using util::FatalError;

namespace {

// Requests on one connection before it is closed: clients reconnect now and
// then, so none keeps a connection for ever.
constexpr size_t kMaxRequestsPerConnection = 100;

thread_local std::chrono::steady_clock::time_point t_request_start{};

std::string read_text(const fs::path& file) {
  std::ifstream f(file);
  if (!f) throw FatalError("cannot read " + file.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The path parameter a suite with no cases would need to have any (`check`'s
// `target`, `fuzz`'s `graphs`), or "" when the suite has cases or reads none.
std::string driven_by_path(const std::vector<model::CaseInfo>& cases, const json& read) {
  if (!cases.empty() || !read.is_object()) return "";
  for (const auto& [name, info] : read.items()) {
    if (info.is_object() && info.value("path", false)) return name;
  }
  return "";
}

// What the server offers: every suite's cases, listed once. A suite whose
// cases come only from a path parameter runs whatever that path names: it is
// offered only where the operator set the path (mudjack.toml's params), and
// naming it with `--suite` otherwise is an error.
Catalog load_catalog(const ServeOptions& o, const plan::Discovery& discovery) {
  Catalog c;
  auto refs = o.suites;
  const bool named = !refs.empty();
  if (!named) {
    for (const auto& name : plan::known_suites()) refs.push_back(plan::resolve_suite(name));
  }
  auto python = envs::listing_interpreter(o.defaults.profile, o.defaults.python);
  for (const auto& ref : refs) {
    if (c.suites.count(ref.name)) throw FatalError("two suites are named '" + ref.name + "'");
    json read;
    auto cases =
        plan::list_cases({ref}, python, o.defaults.params, &read, run::memory_limit_of(o.defaults));
    if (auto param = driven_by_path(cases, read); !param.empty()) {
      if (!named) continue;
      throw FatalError("suite '" + ref.name + "' runs only what its parameter '" + param +
                       "' names, and a server never takes a path from a request; set " + param +
                       " in mudjack.toml's [params] to offer it");
    }
    c.suites[ref.name] = ref.dir;
    c.cases[ref.name] = std::move(cases);
    c.params[ref.name] = std::move(read);
  }
  c.frameworks = o.frameworks.empty() ? envs::kFrameworks : o.frameworks;
  for (const auto& d : discovery.devices) c.devices.push_back(d.id);
  return c;
}

void check_options(const ServeOptions& o) {
  if (!o.no_auth && o.token.empty()) throw FatalError("serve needs a token (or --no-auth)");
  if (o.max_queued == 0) throw FatalError("--max-queued must be at least 1");
  if (o.threads < kReservedWorkers + 1) {
    throw FatalError("--threads must be at least " + std::to_string(kReservedWorkers + 1));
  }
}

std::string read_openapi() {
  auto openapi = read_text(envs::data_dir() / "schemas" / "openapi.json");
  if (json::parse(openapi, nullptr, false).is_discarded()) {
    throw FatalError("schemas/openapi.json is not valid JSON");
  }
  return openapi;
}

IntakeLimits intake_limits(const ServeOptions& o) {
  IntakeLimits l;
  l.max_head_bytes = o.max_head_bytes;
  l.max_header_lines = o.max_header_lines;
  l.max_line_bytes = o.max_line_bytes;
  l.max_body_bytes = o.max_body_bytes;
  l.max_connections = o.max_connections;
  l.request_timeout = o.request_timeout;
  return l;
}

// cpp-httplib reads nothing from sockets here (the intake does); what it
// still uses: the body limit (checked by the intake first) and the
// Keep-Alive header it writes, which tells clients the intake's idle timeout.
void configure(Http& http, const ServeOptions& o) {
  http.set_payload_max_length(o.max_body_bytes);
  http.set_keep_alive_max_count(kMaxRequestsPerConnection);
  http.set_keep_alive_timeout(
      std::chrono::duration_cast<std::chrono::seconds>(IntakeLimits{}.idle_timeout).count());
}

// The front door and the workers behind it (server.hpp: Connections).
class Front {
 public:
  Front(Http& http, const ServeOptions& o, int listen_fd, Metrics& metrics)
      : write_{o.write_timeout},
        workers_(o.threads, [this, &http](ConnectionPtr c) { answer(http, std::move(c)); }),
        intake_(
            listen_fd, intake_limits(o), [this](ConnectionPtr c) { workers_.submit(std::move(c)); },
            [&metrics](std::string_view why) { metrics.count_refused(why); }) {}

  ~Front() { stop(); }
  Front(const Front&) = delete;
  Front& operator=(const Front&) = delete;

  void start() { intake_.start(); }
  void stop_accepting() { intake_.stop_accepting(); }
  // Closes idle connections, answers what is queued, ends every thread.
  void stop() {
    intake_.stop();
    workers_.stop();
  }
  size_t open_connections() const { return intake_.open_connections(); }

 private:
  void answer(Http& http, ConnectionPtr c) {
    bool close_after = c->served + 1 >= kMaxRequestsPerConnection || !intake_.accepting();
    if (http.answer(*c, close_after, write_)) intake_.give_back(std::move(c));
  }

  const WriteLimits write_;
  Workers workers_;
  Intake intake_;
};

// Before routing: the request's start time, and the bearer token unless the
// path is open (routes.hpp: Access::kOpen) or the server runs without auth.
void install_auth(Http& http, const ServeOptions& o) {
  http.set_pre_routing_handler([&o](const httplib::Request& req, httplib::Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    if (o.no_auth || is_open_path(req.path)) return httplib::Server::HandlerResponse::Unhandled;
    auto token = bearer_token(req.get_header_value("Authorization"));
    if (!token) {
      res.set_header("WWW-Authenticate", "Bearer");
      reply_error(res, {401, "missing bearer token: send 'Authorization: Bearer <token>'"});
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!token_matches(*token, o.token)) {
      res.set_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      reply_error(res, {401, "invalid bearer token"});
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

// The message of an error status cpp-httplib set without a body of ours.
std::string error_message(const httplib::Request& req, int status, const ServeOptions& o) {
  switch (status) {
    case 404:
      return "no such endpoint: " + req.method + " " + req.path + " (see /v1/openapi.json)";
    case 413:
      // The intake refuses bodies over max_body_bytes before cpp-httplib
      // sees them, so a 413 from cpp-httplib is its own compiled limit on
      // form bodies (what `curl -d` sends): name that one.
      if (req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0) {
        return "form-encoded request body (Content-Type: application/x-www-form-urlencoded, "
               "what curl -d sends) larger than " +
               std::to_string(CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH) +
               " bytes; send JSON with Content-Type: application/json (up to " +
               std::to_string(o.max_body_bytes) + " bytes)";
      }
      return "request body larger than " + std::to_string(o.max_body_bytes) + " bytes";
    case 400:
      return "malformed HTTP request";
    default:
      return "HTTP " + std::to_string(status);
  }
}

// Every 4xx/5xx without a body of ours gets a JSON one (404 no route, 413
// body too large, 400 unparsable request); an exception a handler let
// through (the store failed) is a 500 naming it.
void install_error_replies(Http& http, const ServeOptions& o) {
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [&o](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        reply_error(res, {res.status, error_message(req, res.status, o)});
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr& ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = std::string("internal error: ") + e.what();
        } catch (...) {
        }
        reply_error(res, {500, what});
      });
}

// After each request: its count and duration, labelled by route pattern.
void install_request_metrics(Http& http, Metrics& metrics) {
  http.set_logger([&metrics](const httplib::Request& req, const httplib::Response& res) {
    double seconds = 0;
    if (t_request_start != std::chrono::steady_clock::time_point{}) {
      seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t_request_start).count();
      t_request_start = {};
    }
    metrics.observe_request(req.method, route_of(req.path), res.status, seconds);
  });
}

// Discovers devices and lists the suites (slow: probes start), then the
// run manager over them.
std::unique_ptr<RunManager> start_manager(const ServeOptions& o, store::Store& store,
                                          Metrics& metrics, const std::atomic<bool>& stop) {
  auto discovery = plan::discover(o.frameworks, o.defaults.profile, o.defaults.python, stop);
  auto catalog = load_catalog(o, discovery);
  size_t n_cases = 0;
  for (const auto& [name, cases] : catalog.cases) n_cases += cases.size();
  auto m = std::make_unique<RunManager>(store, std::move(catalog), std::move(discovery), o.defaults,
                                        metrics, o.max_queued);
  std::string devices;
  for (const auto& d : m->catalog().devices) devices += (devices.empty() ? "" : ", ") + d;
  std::fprintf(stderr, "mudjack serve: ready: %zu suites, %zu cases; devices: %s\n",
               m->catalog().suites.size(), n_cases, devices.c_str());
  return m;
}

}  // namespace

int listen_socket(const std::string& host, int port, int backlog, int* bound_port) {
  if (port < 0 || port > 65535)
    throw FatalError("port " + std::to_string(port) + " is out of range");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto where = host + ":" + std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    throw FatalError("cannot listen on " + where + ": " + gai_strerror(rc));
  }
  std::string last_error = "no address";
  int fd = -1;
  for (auto* ai = found; ai != nullptr; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    // Accepted connections inherit it: a response written as headers then
    // body must not wait 40 ms for the client's delayed ACK (Nagle).
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, backlog) == 0) break;
    last_error = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) throw FatalError("cannot listen on " + where + ": " + last_error);
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *bound_port = addr.ss_family == AF_INET6
                    ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                    : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

std::string resolve_token(const std::optional<fs::path>& token_file, bool no_auth) {
  std::string token;
  std::string source;
  if (token_file) {
    std::ifstream f(*token_file);
    if (!f) throw FatalError("cannot read token file " + token_file->string());
    std::getline(f, token);
    source = "token file " + token_file->string();
  } else if (const char* env = std::getenv("MUDJACK_TOKEN")) {
    token = env;
    source = "MUDJACK_TOKEN";
  } else if (no_auth) {
    return "";
  } else {
    throw FatalError(
        "no API token: set MUDJACK_TOKEN or pass --token-file FILE (or --no-auth to serve "
        "without one)");
  }
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t'))
    token.pop_back();
  if (token.size() < 16) throw FatalError(source + " holds a token shorter than 16 characters");
  return token;
}

bool token_matches(const std::string& presented, const std::string& expected) {
  if (expected.empty()) return false;
  // Time depends only on the presented length, never on where they differ.
  unsigned diff = presented.size() == expected.size() ? 0U : 1U;
  for (size_t i = 0; i < presented.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i]) ^
            static_cast<unsigned char>(expected[i % expected.size()]);
  }
  return diff == 0;
}

std::optional<std::string> bearer_token(const std::string& authorization) {
  static const std::string kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i])
      return std::nullopt;
  }
  auto token = authorization.substr(kScheme.size());
  token.erase(0, token.find_first_not_of(' '));
  if (token.empty()) return std::nullopt;
  return token;
}

int serve(const ServeOptions& o, store::Store& store, const std::atomic<bool>& stop) {
  check_options(o);
  auto openapi = read_openapi();
  int port = 0;
  int fd = listen_socket(o.host, o.port, o.backlog, &port);
  if (o.port_file) report::write_file_atomically(*o.port_file, std::to_string(port) + "\n");

  Metrics metrics;
  // Set once the catalog is loaded; handlers read it without a lock.
  std::atomic<RunManager*> manager{nullptr};
  std::unique_ptr<RunManager> owned;
  Http http;
  configure(http, o);
  install_auth(http, o);
  install_error_replies(http, o);
  install_request_metrics(http, metrics);
  Front front(http, o, fd, metrics);
  Context ctx{o, openapi, metrics, manager, [&front] { return front.open_connections(); }};
  install_routes(http, ctx);
  http.mark_running();
  front.start();
  std::fprintf(stderr, "mudjack serve: listening on http://%s:%d (backlog %d, %zu workers)\n",
               o.host.c_str(), port, o.backlog, o.threads);
  try {
    owned = start_manager(o, store, metrics, stop);
    manager.store(owned.get());
  } catch (...) {
    front.stop_accepting();
    http.mark_stopped();
    front.stop();
    throw;
  }

  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::fprintf(stderr, "mudjack serve: shutting down: no new connections; draining runs\n");
  // Connections already open are still answered (each then closed).
  front.stop_accepting();
  owned->shutdown(o.drain_grace);
  // Event streams have sent their end; let the last answers go out.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  http.mark_stopped();
  front.stop();
  std::fprintf(stderr, "mudjack serve: stopped; every finished outcome is in %s\n",
               store.path().c_str());
  return 0;
}

}  // namespace mudjack::server
