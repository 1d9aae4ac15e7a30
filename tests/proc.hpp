#pragma once
// Process facts the unit and integration tests both need.

#include <sys/types.h>

#include <fstream>
#include <string>

namespace mjtest_proc {

// Running: neither gone nor a zombie waiting for whoever adopted it.
inline bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z' &&
         text[paren + 2] != 'X';
}

}  // namespace mjtest_proc
