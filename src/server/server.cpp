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
#include <regex>
#include <sstream>
#include <thread>

#include "envs/envs.hpp"
#include "report/json.hpp"
#include "report/write.hpp"
#include "util/error.hpp"
#include "util/json.hpp"
#include "util/sse.hpp"
#include "util/version.hpp"

namespace mudjack::server {
namespace fs = std::filesystem;
using nlohmann::json;
using util::FatalError;

namespace {

// cpp-httplib 0.11 has no call that takes a listening socket, but its
// accept loop (listen_after_bind) only reads the protected svr_sock_: set it
// to our socket and run the loop.
class Http : public httplib::Server {
 public:
  bool serve_socket(int fd) {
    svr_sock_ = fd;
    return listen_after_bind();
  }
  // Ends keep-alive loops and chunked streams (they poll svr_sock_); called
  // once the accept loop has ended and the runs have drained.
  void mark_stopped() { svr_sock_ = INVALID_SOCKET; }
};

thread_local std::chrono::steady_clock::time_point t_request_start{};

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

void reply_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(util::dump_json(body, -1) + "\n", "application/json");
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  reply_json(res, status, {{"error", message}, {"status", status}});
}

std::string read_text(const fs::path& file) {
  std::ifstream f(file);
  if (!f) throw FatalError("cannot read " + file.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// What the server offers: every suite's cases, listed once.
Catalog load_catalog(const ServeOptions& o, const plan::Discovery& discovery) {
  Catalog c;
  auto refs = o.suites;
  if (refs.empty()) {
    for (const auto& name : plan::known_suites()) refs.push_back(plan::resolve_suite(name));
  }
  auto python = envs::listing_interpreter(o.defaults.profile, o.defaults.python);
  for (const auto& ref : refs) {
    if (c.suites.count(ref.name)) throw FatalError("two suites are named '" + ref.name + "'");
    c.suites[ref.name] = ref.dir;
    c.cases[ref.name] = plan::list_cases({ref}, python, o.defaults.params);
  }
  c.frameworks = o.frameworks.empty() ? envs::kFrameworks : o.frameworks;
  for (const auto& d : discovery.devices) c.devices.push_back(d.id);
  return c;
}

json info_json(const RunManager& m, const ServeOptions& o) {
  json frameworks = json::object();
  for (const auto& [fw, rt] : m.discovery().runtimes) {
    json f = {{"available", rt.unavailable.empty() && !rt.python.empty()}};
    if (auto h = m.discovery().hellos.find(fw); h != m.discovery().hellos.end()) {
      f["version"] = h->second.framework_version;
      f["python"] = h->second.python;
    }
    auto ids = m.discovery().devices_of.find(fw);
    f["devices"] = ids == m.discovery().devices_of.end() ? std::vector<std::string>{} : ids->second;
    if (!rt.unavailable.empty()) f["unavailable"] = rt.unavailable;
    frameworks[fw] = f;
  }
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
  return {
      {"service", "mudjack"},
      {"api_version", "1"},
      {"version", util::version()},
      {"revision", util::revision()},
      {"schema_version", model::kSchemaVersion},
      {"profile", o.defaults.profile},
      {"frameworks", frameworks},
      {"devices", devices},
      {"formats", report::kFormats},
      {"limits",
       {{"max_body_bytes", o.max_body_bytes}, {"max_event_streams", o.threads - kReservedWorkers}}},
      {"environment", plan::environment_json(m.discovery())}};
}

json suites_json(const Catalog& c) {
  json out = json::array();
  for (const auto& [name, cases] : c.cases) {
    std::map<std::string, size_t> per_fw;
    size_t n = 0;
    for (const auto& k : cases) {
      if (std::find(c.frameworks.begin(), c.frameworks.end(), k.framework) == c.frameworks.end())
        continue;
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

std::string route_of(const std::string& path) {
  static const std::vector<std::pair<std::regex, std::string>> routes = {
      {std::regex("^/v1/runs/[^/]+/events$"), "/v1/runs/{id}/events"},
      {std::regex("^/v1/runs/[^/]+/results$"), "/v1/runs/{id}/results"},
      {std::regex("^/v1/runs/[^/]+$"), "/v1/runs/{id}"},
      {std::regex("^/v1/suites/[^/]+/cases$"), "/v1/suites/{name}/cases"},
  };
  static const std::vector<std::string> fixed = {
      "/healthz", "/readyz", "/metrics", "/v1/info", "/v1/suites", "/v1/runs", "/v1/openapi.json"};
  if (std::find(fixed.begin(), fixed.end(), path) != fixed.end()) return path;
  for (const auto& [re, name] : routes) {
    if (std::regex_match(path, re)) return name;
  }
  return "other";
}

int serve(const ServeOptions& o, store::Store& store, const std::atomic<bool>& stop) {
  if (!o.no_auth && o.token.empty()) throw FatalError("serve needs a token (or --no-auth)");
  if (o.threads < kReservedWorkers + 1) {
    throw FatalError("--threads must be at least " + std::to_string(kReservedWorkers + 1));
  }
  auto openapi = read_text(envs::data_dir() / "schemas" / "openapi.json");
  if (json::parse(openapi, nullptr, false).is_discarded()) {
    throw FatalError("schemas/openapi.json is not valid JSON");
  }
  int port = 0;
  int fd = listen_socket(o.host, o.port, o.backlog, &port);
  if (o.port_file) report::write_file_atomically(*o.port_file, std::to_string(port) + "\n");

  Metrics metrics;
  // Set once the catalog is loaded; handlers read it without a lock.
  std::atomic<RunManager*> manager{nullptr};
  std::unique_ptr<RunManager> owned;

  Http http;
  http.new_task_queue = [n = o.threads] { return new httplib::ThreadPool(n); };
  http.set_payload_max_length(o.max_body_bytes);
  // A kept-alive connection holds a worker thread: rotate them (fairness
  // when clients outnumber workers) and let idle ones go soon.
  http.set_keep_alive_max_count(100);
  http.set_keep_alive_timeout(2);
  http.set_tcp_nodelay(true);
  http.set_read_timeout(10);
  http.set_write_timeout(10);

  http.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    if (req.path == "/healthz" || req.path == "/readyz" || o.no_auth) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    auto token = bearer_token(req.get_header_value("Authorization"));
    if (!token) {
      res.set_header("WWW-Authenticate", "Bearer");
      reply_error(res, 401, "missing bearer token: send 'Authorization: Bearer <token>'");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!token_matches(*token, o.token)) {
      res.set_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      reply_error(res, 401, "invalid bearer token");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Every 4xx/5xx without a body of ours gets a JSON one (404 no route, 413
  // body too large, 400 unparsable request).
  http.set_error_handler(httplib::Server::HandlerWithResponse([&](const httplib::Request& req,
                                                                  httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message;
    switch (res.status) {
      case 404:
        message = "no such endpoint: " + req.method + " " + req.path + " (see /v1/openapi.json)";
        break;
      case 413:
        message = "request body larger than " + std::to_string(o.max_body_bytes) + " bytes";
        break;
      case 400:
        message = "malformed HTTP request";
        break;
      default:
        message = "HTTP " + std::to_string(res.status);
    }
    reply_error(res, res.status, message);
    return httplib::Server::HandlerResponse::Handled;
  }));
  http.set_exception_handler(
      [&](const httplib::Request&, httplib::Response& res, const std::exception_ptr& ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = std::string("internal error: ") + e.what();
        } catch (...) {
        }
        reply_error(res, 500, what);
      });
  http.set_logger([&](const httplib::Request& req, const httplib::Response& res) {
    double seconds = 0;
    if (t_request_start != std::chrono::steady_clock::time_point{}) {
      seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t_request_start).count();
      t_request_start = {};
    }
    metrics.observe_request(req.method, route_of(req.path), res.status, seconds);
  });

  auto ready = [&](httplib::Response& res) -> RunManager* {
    auto* m = manager.load();
    if (!m) reply_error(res, 503, "not ready: still listing suites and discovering devices");
    return m;
  };

  http.Get("/healthz", [&](const httplib::Request&, httplib::Response& res) {
    reply_json(res, 200, {{"status", "alive"}});
  });
  http.Get("/readyz", [&](const httplib::Request&, httplib::Response& res) {
    auto* m = manager.load();
    if (!m) return reply_json(res, 503, {{"status", "starting"}});
    if (m->draining()) return reply_json(res, 503, {{"status", "draining"}});
    reply_json(res, 200, {{"status", "ready"}});
  });
  http.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    auto* m = manager.load();
    Gauges g = m ? m->gauges() : Gauges{};
    g.ready = m != nullptr && !m->draining();
    res.set_content(metrics.render(g, util::version(), util::revision()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  http.Get("/v1/openapi.json", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(openapi, "application/json");
  });
  http.Get("/v1/info", [&](const httplib::Request&, httplib::Response& res) {
    if (auto* m = ready(res)) reply_json(res, 200, info_json(*m, o));
  });
  http.Get("/v1/suites", [&](const httplib::Request&, httplib::Response& res) {
    if (auto* m = ready(res)) reply_json(res, 200, suites_json(m->catalog()));
  });
  http.Get(R"(/v1/suites/([^/]+)/cases)", [&](const httplib::Request& req, httplib::Response& res) {
    auto* m = ready(res);
    if (!m) return;
    auto it = m->catalog().cases.find(req.matches[1]);
    if (it == m->catalog().cases.end()) {
      return reply_error(res, 404, "unknown suite '" + std::string(req.matches[1]) + "'");
    }
    json out = json::array();
    for (const auto& c : it->second) {
      const auto& fws = m->catalog().frameworks;
      if (std::find(fws.begin(), fws.end(), c.framework) == fws.end()) continue;
      out.push_back({{"id", c.id},
                     {"framework", c.framework},
                     {"function", c.function},
                     {"variant", c.variant},
                     {"dtype", c.dtype},
                     {"shape", c.shape},
                     {"mode", c.mode}});
    }
    reply_json(res, 200, out);
  });
  http.Post("/v1/runs", [&](const httplib::Request& req, httplib::Response& res) {
    auto* m = ready(res);
    if (!m) return;
    if (m->draining()) return reply_error(res, 503, "server is shutting down; no new runs");
    auto parsed = parse_run_request(req.body, m->catalog());
    if (!parsed) return reply_error(res, parsed.error().status, parsed.error().message);
    auto reply = m->submit(*parsed);
    if (reply.body.contains("error")) reply.body["status"] = reply.status;
    if (reply.status == 202) res.set_header("Location", "/v1/runs/" + reply.body.value("id", ""));
    reply_json(res, reply.status, reply.body);
  });
  http.Get(R"(/v1/runs/([^/]+))", [&](const httplib::Request& req, httplib::Response& res) {
    auto* m = ready(res);
    if (!m) return;
    auto reply = m->status(req.matches[1]);
    if (reply.body.contains("error")) reply.body["status"] = reply.status;
    reply_json(res, reply.status, reply.body);
  });
  http.Delete(R"(/v1/runs/([^/]+))", [&](const httplib::Request& req, httplib::Response& res) {
    auto* m = ready(res);
    if (!m) return;
    auto reply = m->cancel(req.matches[1]);
    if (reply.body.contains("error")) reply.body["status"] = reply.status;
    reply_json(res, reply.status, reply.body);
  });
  http.Get(R"(/v1/runs/([^/]+)/results)", [&](const httplib::Request& req, httplib::Response& res) {
    auto* m = ready(res);
    if (!m) return;
    auto format = req.has_param("format") ? req.get_param_value("format") : "json";
    if (std::find(report::kFormats.begin(), report::kFormats.end(), format) ==
        report::kFormats.end()) {
      return reply_error(res, 400,
                         "unknown format '" + format + "' (known: " + known_formats() + ")");
    }
    auto text = m->results(req.matches[1], format);
    if (!text) return reply_error(res, 404, "unknown run '" + std::string(req.matches[1]) + "'");
    // The shared text outlives the response: no copy for large reports.
    auto body = *text;
    res.set_content_provider(body->size(), content_type_of(format),
                             [body](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(body->data() + offset, length);
                             });
  });
  http.Get(R"(/v1/runs/([^/]+)/events)", [&](const httplib::Request& req, httplib::Response& res) {
    auto* m = ready(res);
    if (!m) return;
    std::string id = req.matches[1];
    auto after = resume_point(req);
    if (!after) return reply_error(res, 400, "Last-Event-ID (or ?after=) must be an event number");
    if (!m->events_after(id, *after, std::chrono::milliseconds(0)).known) {
      return reply_error(res, 404, "unknown run '" + id + "'");
    }
    if (m->event_streams() >= o.threads - kReservedWorkers) {
      res.set_header("Retry-After", "5");
      return reply_error(res, 503, "too many open event streams; retry later");
    }
    m->event_stream_opened();
    res.set_header("Cache-Control", "no-cache");
    auto cursor = std::make_shared<uint64_t>(*after);
    res.set_chunked_content_provider(
        "text/event-stream",
        [m, id, cursor, keepalive = o.keepalive](size_t, httplib::DataSink& sink) {
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
  });

  std::thread listener([&] { http.serve_socket(fd); });
  std::fprintf(stderr, "mudjack serve: listening on http://%s:%d (backlog %d, %zu workers)\n",
               o.host.c_str(), port, o.backlog, o.threads);

  auto shutdown_http = [&] {
    // Stop accepting: the blocked accept() returns and the loop ends (and
    // closes the socket); connections already open are still served.
    ::shutdown(fd, SHUT_RDWR);
  };
  try {
    auto discovery = plan::discover(o.frameworks, o.defaults.profile, o.defaults.python, stop);
    auto catalog = load_catalog(o, discovery);
    size_t n_cases = 0;
    for (const auto& [name, cases] : catalog.cases) n_cases += cases.size();
    owned = std::make_unique<RunManager>(store, std::move(catalog), std::move(discovery),
                                         o.defaults, metrics);
    std::string devices;
    for (const auto& d : owned->catalog().devices) devices += (devices.empty() ? "" : ", ") + d;
    std::fprintf(stderr, "mudjack serve: ready: %zu suites, %zu cases; devices: %s\n",
                 owned->catalog().suites.size(), n_cases, devices.c_str());
    manager.store(owned.get());
  } catch (...) {
    shutdown_http();
    http.mark_stopped();
    listener.join();
    throw;
  }

  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::fprintf(stderr, "mudjack serve: shutting down: no new connections; draining runs\n");
  shutdown_http();
  owned->shutdown(o.drain_grace);
  // Event streams have sent their end; let idle keep-alive connections go.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  http.mark_stopped();
  listener.join();
  std::fprintf(stderr, "mudjack serve: stopped; every finished outcome is in %s\n",
               store.path().c_str());
  return 0;
}

}  // namespace mudjack::server
