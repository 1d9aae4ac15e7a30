#include "util/time.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

namespace mudjack::util {

std::string now_iso8601() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string new_run_id() {
  std::time_t secs = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::random_device rd;
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d%02d%02d-%02d%02d%02d-%04x", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rd() & 0xffffu);
  return buf;
}

}  // namespace mudjack::util
