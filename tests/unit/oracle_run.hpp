#pragma once
// What the oracle tests share: .npy files as numpy.save writes them, and a
// store holding run "r1" that plans one case on cpu and cuda:0.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace mudjack::testing {

// A 1-D .npy (version 1.0, 64-byte aligned header) of descr '<f4', '<f8' or '<i8'.
inline void write_npy(const std::filesystem::path& path, const std::string& descr,
                      const std::vector<double>& values) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(values.size()) + ",), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<uint16_t>(header.size());
  f.put(static_cast<char>(len & 0xff));
  f.put(static_cast<char>(len >> 8));
  f << header;
  for (double v : values) {
    if (descr == "<f4") {
      const auto x = static_cast<float>(v);
      f.write(reinterpret_cast<const char*>(&x), sizeof x);
    } else if (descr == "<i8") {
      const auto x = static_cast<int64_t>(v);
      f.write(reinterpret_cast<const char*>(&x), sizeof x);
    } else {
      f.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
}

// A store in `dir` with run "r1" planning `info` on cpu and cuda:0.
inline std::unique_ptr<store::Store> run_store(const std::filesystem::path& dir,
                                               const model::CaseInfo& info) {
  std::filesystem::create_directories(dir);
  auto store = store::Store::open(dir / "mudjack.db");
  model::RunInfo run;
  run.id = "r1";
  run.suite = "t";
  run.state = "running";
  run.created_at = "2026-11-26T00:00:00.000Z";
  store->create_run(run);
  store->add_plan("r1", {info}, {{info.id, "cpu"}, {info.id, "cuda:0"}});
  return store;
}

}  // namespace mudjack::testing
