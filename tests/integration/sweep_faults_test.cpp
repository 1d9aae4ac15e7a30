// Integration tests of `mudjack sweep` against broken and hostile servers: a
// fake `mudjack serve` in this process (cpp-httplib on 127.0.0.1, a port the
// kernel picks) that replays events without progress, sends replies or
// events larger than any real one, and targets files with labels that are
// not folder names. The sweep is the real binary.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

// AddressSanitizer's shadow memory and quarantine (freed blocks kept for
// 256 MiB) raise a process's peak RSS several-fold; the bounds below are for
// a plain build and scale under ASan.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kRssScale = 4;
#else
constexpr long kRssScale = 1;
#endif

// How a sweep process ended, and the most memory it held.
struct Ended {
  int code = -1;
  long max_rss_kb = 0;
};

// A fake target: the routes a test gives it, served on a thread.
class FakeTarget {
 public:
  explicit FakeTarget(const std::function<void(httplib::Server&)>& routes,
                      std::string run_reply = R"({"id": "r1", "suite": "crafted", "planned": 2})")
      : run_reply_(std::move(run_reply)) {
    server_.Get("/v1/info", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"environment": {"machines": []}})", "application/json");
    });
    server_.Post("/v1/runs", [this](const httplib::Request&, httplib::Response& res) {
      res.status = 202;
      res.set_content(run_reply_, "application/json");
    });
    routes(server_);  // the paths a test adds (events, results)
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeTarget() {
    server_.stop();
    thread_.join();
  }
  FakeTarget(const FakeTarget&) = delete;
  FakeTarget& operator=(const FakeTarget&) = delete;
  int port() const { return port_; }

 private:
  std::string run_reply_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// An outcome event as `mudjack serve` writes it, for a case the reports accept.
std::string outcome_event(uint64_t id, size_t case_index) {
  auto crafted = json::parse(slurp(kFixtures / "crafted" / "results.json"));
  json data = {{"done", id}, {"planned", 2}, {"case", crafted["cases"][case_index]}};
  return "id: " + std::to_string(id) + "\nevent: outcome\ndata: " + data.dump() + "\n\n";
}

class SweepFaults : public Cli {
 protected:
  fs::path targets(const std::string& label, int port) {
    std::ofstream(dir_ / "token") << "test-token-0123456789abcdef\n";
    auto p = dir_ / "targets.toml";
    std::ofstream(p) << "[run]\nsuite = \"crafted\"\n\n[[target]]\nlabel = \"" << label
                     << "\"\nurl = \"http://127.0.0.1:" << port << "\"\ntoken_file = \"token\"\n";
    return p;
  }

  // Runs `mudjack sweep` to its end (at most `limit`), its output in sweep.log.
  Ended sweep(const std::vector<std::string>& args, seconds limit) {
    std::vector<std::string> argv_s = {kBinary, "sweep"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    auto log = (dir_ / "sweep.log").string();
    pid_t pid = fork();
    if (pid == 0) {  // this process has threads: only exec-safe calls
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      execv(argv[0], argv.data());
      _exit(127);
    }
    Ended e;
    auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, WNOHANG, &usage) != pid) {
      if (std::chrono::steady_clock::now() > end) {
        kill(pid, SIGKILL);
        wait4(pid, &status, 0, &usage);
        e.max_rss_kb = usage.ru_maxrss;
        return e;  // code -1: it ran on
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
    e.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    e.max_rss_kb = usage.ru_maxrss;
    return e;
  }
};

TEST_F(SweepFaults, ATargetThatReplaysWithoutProgressIsGivenUpAfterItsRetries) {
  // Every connection replays the one outcome already kept, then drops: no
  // progress. --retries 2 means two more reconnections, not 1,961.
  std::atomic<int> connections{0};
  FakeTarget target([&](httplib::Server& s) {
    s.Get("/v1/runs/r1/events", [&](const httplib::Request&, httplib::Response& res) {
      ++connections;
      res.set_content(outcome_event(1, 0), "text/event-stream");
    });
  });
  auto file = targets("replayer", target.port());
  auto out = dir_ / "sweep";
  auto e = sweep(
      {"--targets", file.string(), "--out", out.string(), "--retries", "2", "--backoff-ms", "20"},
      seconds(60));
  auto log = slurp(dir_ / "sweep.log");
  ASSERT_EQ(e.code, 1) << log;
  EXPECT_EQ(connections.load(), 3) << "one that kept an outcome, then 2 retries without progress";
  EXPECT_NE(log.find("mudjack: target replayer failed: lost the target mid-run"), std::string::npos)
      << log;
  auto state = json::parse(slurp(out / "sweep.json"));
  EXPECT_EQ(state["targets"]["replayer"]["outcomes"], 1) << "the replayed outcome is kept once";
}

TEST_F(SweepFaults, ARunThatKeepsBringingOutcomesIsNotGivenUp) {
  // Each connection brings one new outcome, then drops: progress every time,
  // so more reconnections than --retries are fine; the run then ends.
  std::atomic<int> connections{0};
  FakeTarget target([&](httplib::Server& s) {
    s.Get("/v1/runs/r1/events", [&](const httplib::Request&, httplib::Response& res) {
      int n = ++connections;
      std::string body = outcome_event(1, 0);
      if (n >= 2) body += outcome_event(2, 1);
      if (n >= 3) body += "id: 3\nevent: end\ndata: {\"state\":\"complete\"}\n\n";
      res.set_content(body, "text/event-stream");
    });
    s.Get("/v1/runs/r1/results", [&](const httplib::Request&, httplib::Response& res) {
      auto crafted = json::parse(slurp(kFixtures / "crafted" / "results.json"));
      crafted["cases"] = json::array({crafted["cases"][0], crafted["cases"][1]});
      crafted["run"]["id"] = "r1";
      res.set_content(crafted.dump(), "application/json");
    });
  });
  auto file = targets("steady", target.port());
  auto e = sweep({"--targets", file.string(), "--out", (dir_ / "sweep").string(), "--retries", "1",
                  "--backoff-ms", "20"},
                 seconds(60));
  EXPECT_EQ(e.code, 0) << slurp(dir_ / "sweep.log");
  EXPECT_EQ(connections.load(), 3);
}

TEST_F(SweepFaults, AnAnnouncedHugeReplyIsRefusedWithoutReadingIt) {
  // 400 MB announced by Content-Length: refused before a byte of it is read.
  httplib::Server huge;
  huge.Get("/v1/info", [](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider(size_t{400} << 20, "application/json",
                             [](size_t, size_t left, httplib::DataSink& sink) {
                               static const std::string zeros(1 << 20, '0');
                               return sink.write(zeros.data(), std::min(zeros.size(), left));
                             });
  });
  int port = huge.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { huge.listen_after_bind(); });
  auto file = targets("big", port);
  auto e = sweep({"--targets", file.string(), "--out", (dir_ / "sweep").string(), "--retries", "1",
                  "--backoff-ms", "20"},
                 seconds(120));
  huge.stop();
  serving.join();
  auto log = slurp(dir_ / "sweep.log");
  EXPECT_EQ(e.code, 1) << log;
  EXPECT_NE(log.find("mudjack: target big failed: GET /v1/info: reply larger than 256 MiB; "
                     "refused"),
            std::string::npos)
      << log;
  EXPECT_LT(e.max_rss_kb, kRssScale * 200 * 1024) << "the sweep buffered the reply";
}

TEST_F(SweepFaults, AnEndlessReplyIsCutAtTheLimit) {
  httplib::Server endless;
  endless.Get("/v1/info", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json",
                                     [](size_t offset, httplib::DataSink& sink) {
                                       static const std::string zeros(1 << 20, '0');
                                       if (offset >= (size_t{1} << 30)) {
                                         sink.done();  // a bound for a broken client
                                         return true;
                                       }
                                       return sink.write(zeros.data(), zeros.size());
                                     });
  });
  int port = endless.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { endless.listen_after_bind(); });
  auto file = targets("endless", port);
  auto e = sweep({"--targets", file.string(), "--out", (dir_ / "sweep").string(), "--retries", "1",
                  "--backoff-ms", "20"},
                 seconds(300));
  endless.stop();
  serving.join();
  auto log = slurp(dir_ / "sweep.log");
  EXPECT_EQ(e.code, 1) << log;
  EXPECT_NE(log.find("mudjack: target endless failed: GET /v1/info: reply larger than 256 MiB"),
            std::string::npos)
      << log;
  EXPECT_LT(e.max_rss_kb, kRssScale * 700 * 1024) << "the sweep read on past its limit";
}

TEST_F(SweepFaults, AnEventThatNeverEndsIsRefused) {
  FakeTarget target([&](httplib::Server& s) {
    s.Get("/v1/runs/r1/events", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream",
                                       [](size_t offset, httplib::DataSink& sink) {
                                         static const std::string xs(1 << 20, 'x');
                                         if (offset == 0) return sink.write("data: ", 6);
                                         if (offset >= (size_t{1} << 30)) {
                                           sink.done();
                                           return true;
                                         }
                                         return sink.write(xs.data(), xs.size());
                                       });
    });
  });
  auto file = targets("chatty", target.port());
  auto e = sweep({"--targets", file.string(), "--out", (dir_ / "sweep").string(), "--retries", "3",
                  "--backoff-ms", "20"},
                 seconds(120));
  auto log = slurp(dir_ / "sweep.log");
  EXPECT_EQ(e.code, 1) << log;
  EXPECT_NE(log.find("mudjack: target chatty failed: lost the target mid-run (an event of run r1 "
                     "is larger than 16 MiB; refused)"),
            std::string::npos)
      << log;
  EXPECT_LT(e.max_rss_kb, kRssScale * 200 * 1024);
}

TEST_F(SweepFaults, ARunIdThatIsNotAPlainNameIsRefused) {
  // The id goes into URLs and onto the terminal.
  for (const char* reply : {R"({"id": "../r1?x=\u001b[2J", "planned": 1})", R"({"id": 7})", "[]"}) {
    FakeTarget target([](httplib::Server&) {}, reply);
    auto file = targets("odd", target.port());
    auto out = dir_ / "sweep";
    fs::remove_all(out);
    auto e =
        sweep({"--targets", file.string(), "--out", out.string(), "--retries", "1"}, seconds(60));
    auto log = slurp(dir_ / "sweep.log");
    EXPECT_EQ(e.code, 1) << reply << "\n" << log;
    EXPECT_NE(log.find("mudjack: target odd failed: target answered POST /v1/runs without a "
                       "usable run id"),
              std::string::npos)
        << log;
    EXPECT_EQ(log.find('\x1b'), std::string::npos) << log;
  }
}

TEST_F(SweepFaults, LabelsThatAreNotFolderNamesAreRefusedInOneLine) {
  for (const char* label : {".", "..", "a/b"}) {
    auto file = targets(label, 1);
    auto r = mudjack({"sweep", "--targets", file.string(), "--out", (dir_ / "sweep").string()});
    EXPECT_EQ(r.code, 2) << label << "\n" << r.err;
    EXPECT_NE(r.err.find("a label is 1-64 of"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "sweep" / "sweep.json")) << "nothing written for " << label;
  }
}

}  // namespace
