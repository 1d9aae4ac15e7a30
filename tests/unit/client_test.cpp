// fleet::Client against a small cpp-httplib server on 127.0.0.1 (a port the
// kernel picks): what it reads of a busy server's Retry-After, which the
// sweep waits for before it asks again.

#include "fleet/client.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>

namespace mudjack::fleet {
namespace {

using std::chrono::milliseconds;

TEST(Client, ReadsABusyServersRetryAfterInSecondsOnly) {
  const std::map<std::string, std::string> header = {
      {"/seconds", "2"},   {"/date", "Wed, 21 Oct 2015 07:28:00 GMT"},
      {"/negative", "-1"}, {"/huge", "999999"},
      {"/garbage", "2x"},  {"/empty", ""}};
  httplib::Server server;
  server.Get(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    res.status = 429;
    if (auto it = header.find(req.path); it != header.end() && !it->second.empty()) {
      res.set_header("Retry-After", it->second);
    }
    res.set_content(R"({"error":"queue full","status":429})", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0) << "no loopback port";
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Client client("127.0.0.1", port, "token-0123456789abcdef", milliseconds(2000),
                      milliseconds(2000));
  const std::map<std::string, std::optional<int>> expected = {{"/seconds", 2},
                                                              {"/date", std::nullopt},
                                                              {"/negative", std::nullopt},
                                                              {"/huge", kMaxRetryAfterS},
                                                              {"/garbage", std::nullopt},
                                                              {"/empty", std::nullopt},
                                                              {"/absent", std::nullopt}};
  for (const auto& [path, want] : expected) {
    const auto r = client.get(path);
    EXPECT_EQ(r.status, 429) << path;
    EXPECT_EQ(r.retry_after_s, want) << path;
  }
  server.stop();
  thread.join();
}

}  // namespace
}  // namespace mudjack::fleet
