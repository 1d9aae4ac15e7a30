#pragma once
// The integration tests' harness: the real mudjack binary run in a fresh
// folder per test, its exit code and output captured.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace mjtest {

namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kBinary = MUDJACK_BINARY;
inline const fs::path kFixtures = MUDJACK_FIXTURES;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("mudjack-it-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  Result mudjack(const std::vector<std::string>& args) {
    std::string cmd = quote(kBinary);
    for (const auto& a : args) cmd += " " + quote(a);
    auto out = dir_ / "stdout.txt";
    auto err = dir_ / "stderr.txt";
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
    int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  // Starts mudjack in the background; returns its pid.
  pid_t spawn(const std::vector<std::string>& args) {
    pid_t pid = fork();
    if (pid == 0) {
      std::vector<std::string> argv_s = {kBinary};
      argv_s.insert(argv_s.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& s : argv_s) argv.push_back(s.data());
      argv.push_back(nullptr);
      auto log = (dir_ / "background.txt").string();
      FILE* f = std::fopen(log.c_str(), "a");
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
      execv(kBinary.c_str(), argv.data());
      _exit(127);
    }
    return pid;
  }

  json runs(const fs::path& out) {
    auto r = mudjack({"runs", "--out", out.string(), "--json"});
    if (r.code != 0) return json::array();
    return json::parse(r.out);
  }

  // Waits until the only run in `out` has at least n results.
  bool wait_results(const fs::path& out, size_t n, std::chrono::seconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (fs::exists(out / "mudjack.db")) {
        auto list = runs(out);
        if (!list.empty() && list[0]["results"].get<size_t>() >= n) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

  fs::path dir_;
};

}  // namespace mjtest
