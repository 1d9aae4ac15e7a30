// How many wrong answers does the accuracy oracle catch on a real run?
//
// For every case that passed on a device other than the baseline, with
// float32 (or complex64) outputs and a baseline result that carries its
// float64 reference, this plants two wrong answers into copies of the
// device's outputs and judges them with the engine's own oracle
// (supervisor::Oracle): every value x(1+1e-3), and one NaN (at the element of
// largest magnitude). A plant that leaves the values as they were (zeros
// scaled, a NaN into all-NaN output, an empty array) is not counted. It
// prints, per framework and device, how many of each were caught, and the
// first misses with the oracle's numbers.
//
//   build/plant_oracle RUN_DIR/results.json [--baseline cpu] [--misses N]
//
// Built on demand (cmake --build build --target plant_oracle); it reads the
// run's artifacts where results.json points, so run it on the machine that
// made the run.

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "oracle/npy.hpp"
#include "report/json.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"

namespace fs = std::filesystem;
using namespace mudjack;

namespace {

enum class Plant { kScale, kNaN };

// Copies `from` to `to` with its float32 values planted; false when the file
// is not a little-endian float32 / complex64 array.
bool plant_file(const fs::path& from, const fs::path& to, Plant plant) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto parsed = oracle::parse_npy(bytes);
  if (!parsed.ok() || (parsed.array->descr != "<f4" && parsed.array->descr != "<c8")) return false;
  const size_t count = parsed.array->values.size();
  if (count == 0) return false;
  const size_t data = bytes.size() - count * sizeof(float);
  size_t largest = 0;
  for (size_t i = 0; i < count; ++i) {
    float v = 0;
    std::memcpy(&v, bytes.data() + data + i * sizeof(float), sizeof v);
    float w = 0;
    std::memcpy(&w, bytes.data() + data + largest * sizeof(float), sizeof w);
    if (std::isfinite(v) && (!std::isfinite(w) || std::fabs(v) > std::fabs(w))) largest = i;
    if (plant == Plant::kScale) {
      v *= 1.001F;
      std::memcpy(bytes.data() + data + i * sizeof(float), &v, sizeof v);
    }
  }
  if (plant == Plant::kNaN) {
    const float nan = std::nanf("");
    std::memcpy(bytes.data() + data + largest * sizeof(float), &nan, sizeof nan);
  }
  // A plant that changes nothing (zeros scaled, NaN into all-NaN) is no plant.
  auto planted = oracle::parse_npy(bytes);
  bool changed = false;
  for (size_t i = 0; i < count && !changed; ++i) {
    const double a = parsed.array->values[i], b = planted.array->values[i];
    changed = !(a == b || (std::isnan(a) && std::isnan(b)));
  }
  if (!changed) return false;
  std::ofstream(to, std::ios::binary) << bytes;
  return true;
}

struct Tally {
  int scale_cases = 0;
  int scale_caught = 0;
  int nan_cases = 0;
  int nan_caught = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: plant_oracle RESULTS_JSON [--baseline cpu] [--misses N]\n";
    return 2;
  }
  std::string baseline = "cpu";
  int show_misses = 20;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--baseline") baseline = argv[i + 1];
    if (std::string(argv[i]) == "--misses") show_misses = std::stoi(argv[i + 1]);
  }
  auto results = report::load_json(argv[1]);
  const fs::path work = fs::temp_directory_path() / ("plant-oracle-" + std::to_string(::getpid()));
  fs::create_directories(work);
  auto store = store::Store::open(work / "mudjack.db");
  std::map<std::string, const model::CaseResult*> base;
  for (const auto& r : results.cases) {
    if (r.device == baseline && !r.outputs.empty()) base[r.info.id] = &r;
  }
  std::map<std::string, Tally> tallies;
  int misses = 0;
  int n = 0;
  for (const auto& r : results.cases) {
    if (r.device == baseline || r.outcome != model::Outcome::kPass) continue;
    auto b = base.find(r.info.id);
    if (b == base.end() || !b->second->extra.contains("reference")) continue;
    for (Plant plant : {Plant::kScale, Plant::kNaN}) {
      model::CaseResult d = r;
      bool planted = false;
      for (size_t i = 0; i < d.outputs.size(); ++i) {
        if (d.outputs[i].dtype != "float32" && d.outputs[i].dtype != "complex64") continue;
        fs::path to = work / (std::to_string(n++) + ".npy");
        if (plant_file(d.outputs[i].path, to, plant)) {
          d.outputs[i].path = to.string();
          planted = true;
        }
      }
      if (!planted) continue;
      model::CaseResult bb = *b->second;
      bb.outcome = model::Outcome::kPass;  // judged afresh, as when it landed
      bb.numeric = {};
      d.numeric = {};
      d.extra.erase("strict");  // the plant is no precision setting
      supervisor::Oracle oracle(*store, "plant", baseline);
      oracle.observe(bb);
      oracle.observe(d);
      auto& t = tallies[r.info.framework + " on " + r.device];
      const bool caught = d.outcome == model::Outcome::kMismatch;
      if (plant == Plant::kScale) {
        ++t.scale_cases;
        t.scale_caught += caught ? 1 : 0;
      } else {
        ++t.nan_cases;
        t.nan_caught += caught ? 1 : 0;
      }
      if (!caught && misses++ < show_misses) {
        std::printf("missed %s: %s; error %.3g eps, bound %.3g eps\n",
                    plant == Plant::kScale ? "x(1+1e-3)" : "NaN", r.info.id.c_str(),
                    d.numeric.error_eps.value_or(-1), d.numeric.bound_eps.value_or(-1));
      }
      for (const auto& o : d.outputs) {
        if (o.path.rfind(work.string(), 0) == 0) fs::remove(o.path);
      }
    }
  }
  std::printf("%-28s %22s %22s\n", "framework on device", "x(1+1e-3) caught", "NaN caught");
  for (const auto& [key, t] : tallies) {
    std::printf("%-28s %5d of %5d (%5.1f%%) %5d of %5d (%5.1f%%)\n", key.c_str(), t.scale_caught,
                t.scale_cases, t.scale_cases ? 100.0 * t.scale_caught / t.scale_cases : 0.0,
                t.nan_caught, t.nan_cases, t.nan_cases ? 100.0 * t.nan_caught / t.nan_cases : 0.0);
  }
  fs::remove_all(work);
  return 0;
}
