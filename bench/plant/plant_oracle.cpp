// How sensitive is the accuracy oracle? Three questions, one tool
// (bench/plant/README.md):
//
//   plant_oracle synthetic [--trials T] [--n N] [--k K] [--seed S]
//     Plants of a known size, in the oracle's own unit (eps of |reference| +
//     its RMS, src/oracle/accuracy.hpp), into synthetic outputs: float64
//     references for elementwise ops, reductions and matmuls (and an
//     ill-conditioned family), the device's output the reference rounded to
//     float16, bfloat16 or float32, then planted. Judged by the oracle's own
//     measure and bounds, alone (as the baseline device) and against a
//     correctly rounded baseline. Prints the catch rate per (plant, family)
//     and (dtype, mode). No run needed.
//
//   plant_oracle rejudge RESULTS.json...
//     The false alarms the oracle's bounds would raise on a run's passes,
//     re-judged offline from the error each carries (numeric.error_eps, and
//     baseline_error_eps for a device judged against a baseline), with the
//     measured error distribution per op family that the constants rest on.
//     A file ending in .gz is read through gzip -dc.
//
//   plant_oracle real RESULTS.json [--baseline cpu] [--misses N]
//     Plants into a real run's float32 (and bfloat16, saved as float32)
//     outputs of every pass whose baseline result carries its float64
//     reference: 4 and 8 eps everywhere (in the oracle's unit, against that
//     reference), x(1+1e-4), x(1+1e-3), one NaN. Judged by the engine's
//     supervisor::Oracle: alone on the baseline device, against the baseline
//     on the others. Prints the catch rate per (framework on device, op
//     family) and plant. Reads the artifacts results.json points to, so run
//     it on the machine that made the run.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracle/accuracy.hpp"
#include "oracle/npy.hpp"
#include "report/json.hpp"
#include "stats/timing.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"

namespace fs = std::filesystem;
using namespace mudjack;

namespace {

// ---------------------------------------------------------------------------
// The oracle's bounds for an op, as the supervisor applies them.
// ---------------------------------------------------------------------------

oracle::OpClass op_class(const std::string& function, const nlohmann::json& dims,
                         std::optional<int64_t> declared, bool composition) {
  return oracle::op_class(function, dims, declared, composition);
}

// A stored case is a whole model by the engine's own rule (stats::whole_model).
bool whole_model_json(const nlohmann::json& c) {
  model::CaseInfo info;
  for (const auto& t : c.value("tags", nlohmann::json::array())) {
    if (t.is_string()) info.tags.push_back(t.get<std::string>());
  }
  return stats::whole_model(info);
}

double alone_for(const std::string& dtype, const oracle::OpClass& op) {
  return oracle::alone_bound(dtype, op);
}

// The supervisor's judge_output: the baseline's error sets the device's
// bound, within or beyond its own (oracle::device_bound caps what it lends).
double device_for(const std::string& dtype, const oracle::OpClass& op, double baseline_error) {
  return oracle::device_bound(dtype, op, baseline_error);
}

// ---------------------------------------------------------------------------
// synthetic
// ---------------------------------------------------------------------------

struct Format {
  const char* name;
  int digits;   // significand bits, the implicit one included: eps = 2^(1 - digits)
  int min_exp;  // exponent of the smallest normal number
  double max;   // largest finite value
  const char* descr;
};

constexpr Format kFormats[] = {
    {"float16", 11, -14, 65504, "<f2"},
    {"bfloat16", 8, -126, 3.3895313892515355e38, "<f4"},  // saved as float32, as probes do
    {"float32", 24, -126, 3.4028234663852886e38, "<f4"},
};

// x rounded to nearest (ties to even) in the format, subnormals included.
double round_to(double x, const Format& f) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  std::frexp(x, &e);  // x = m 2^e, 0.5 <= |m| < 1
  const int lead = std::max(e - 1, f.min_exp);
  const double ulp = std::ldexp(1.0, lead - (f.digits - 1));
  const double y = std::nearbyint(x / ulp) * ulp;
  return std::fabs(y) > f.max ? std::copysign(std::numeric_limits<double>::infinity(), x) : y;
}

double eps_of(const Format& f) {
  return std::ldexp(1.0, 1 - f.digits);
}

enum class Shape { kElementwise, kReduction, kMatmul };

struct Family {
  const char* name;
  Shape shape;
  bool ill;  // judged as an ill-conditioned op (a solve): the floor applies
};

constexpr Family kFamilies[] = {
    {"elementwise", Shape::kElementwise, false},
    {"reduction (sum)", Shape::kReduction, false},
    {"matmul", Shape::kMatmul, false},
    {"ill-conditioned (solve)", Shape::kElementwise, true},
};

struct Sizes {
  int64_t n = 4096;   // elementwise outputs
  int64_t k = 65536;  // terms per reduction / matmul output
  int64_t outputs = 16;
};

// One synthetic case: each output is the sum of its terms (elementwise: one
// term), every term already rounded to the dtype, as the device saw them.
struct Sample {
  std::vector<std::vector<double>> terms;  // per output
};

Sample make_sample(const Family& fam, const Format& f, const Sizes& s, std::mt19937_64& rng) {
  Sample out;
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  std::bernoulli_distribution coin(0.5);
  if (fam.shape == Shape::kElementwise) {
    // Values spread over a few decades, both signs: exp, log, tanh outputs.
    out.terms.resize(static_cast<size_t>(s.n));
    for (auto& t : out.terms) t = {(coin(rng) ? 1 : -1) * std::exp(2 * normal(rng))};
    return out;
  }
  out.terms.resize(static_cast<size_t>(s.outputs));
  for (auto& t : out.terms) {
    t.resize(static_cast<size_t>(s.k));
    for (auto& v : t) {
      // A sum of positive terms (no cancellation: a dropped term always shows);
      // a dot product of two rows of normal inputs, each rounded to the dtype.
      v = fam.shape == Shape::kReduction ? round_to(unit(rng), f)
                                         : round_to(normal(rng), f) * round_to(normal(rng), f);
    }
  }
  return out;
}

// The float64 value of each output over its first `keep` fraction of terms.
oracle::Array exact(const Sample& smp, double keep) {
  oracle::Array a;
  a.descr = "<f8";
  a.shape = {static_cast<int64_t>(smp.terms.size())};
  for (const auto& t : smp.terms) {
    const auto used = static_cast<size_t>(std::llround(static_cast<double>(t.size()) * keep));
    double sum = 0;
    for (size_t i = 0; i < used; ++i) sum += t[i];
    a.values.push_back(sum);
  }
  return a;
}

oracle::Array rounded(oracle::Array a, const Format& f) {
  a.descr = f.descr;
  for (auto& v : a.values) v = round_to(v, f);
  return a;
}

double rms(const oracle::Array& r) {
  double sum = 0;
  for (double v : r.values) sum += v * v;
  const double q = std::sqrt(sum / static_cast<double>(std::max<size_t>(1, r.values.size())));
  return q > 0 ? q : 1;
}

enum class Kind { kNone, kEpsEverywhere, kOneElement, kDrop, kRelative, kNaN, kInf };

struct Plant {
  std::string name;
  Kind kind;
  double size;  // eps, fraction of terms dropped, or relative error
};

std::vector<Plant> plants() {
  std::vector<Plant> p{{"none (false alarm)", Kind::kNone, 0}};
  for (double k : {1, 2, 4, 8, 16}) {
    p.push_back({std::to_string(static_cast<int>(k)) + " eps everywhere", Kind::kEpsEverywhere, k});
  }
  p.push_back({"one element 64 eps off", Kind::kOneElement, 64});
  p.push_back({"0.01% of terms dropped", Kind::kDrop, 1e-4});
  p.push_back({"0.1% of terms dropped", Kind::kDrop, 1e-3});
  p.push_back({"1% of terms dropped", Kind::kDrop, 1e-2});
  for (double r : {1e-5, 1e-4, 1e-3, 1e-2}) {
    char name[32];
    std::snprintf(name, sizeof name, "relative %.0e everywhere", r);
    p.push_back({name, Kind::kRelative, r});
  }
  p.push_back({"NaN at one index", Kind::kNaN, 0});
  p.push_back({"inf at one index", Kind::kInf, 0});
  return p;
}

// The device's planted output; nullopt where the plant does not apply (a
// dropped term of an elementwise op).
std::optional<oracle::Array> planted(const Plant& p, const Family& fam, const Sample& smp,
                                     const oracle::Array& ref, const Format& f,
                                     std::mt19937_64& rng) {
  if (p.kind == Kind::kDrop) {
    if (fam.shape == Shape::kElementwise) return std::nullopt;
    return rounded(exact(smp, 1 - p.size), f);
  }
  oracle::Array x = ref;
  const double s = rms(ref);
  const auto where = static_cast<size_t>(rng() % x.values.size());
  std::bernoulli_distribution coin(0.5);
  for (size_t i = 0; i < x.values.size(); ++i) {
    const double sign = coin(rng) ? 1 : -1;
    const double unit = eps_of(f) * (std::fabs(ref.values[i]) + s);  // one eps, the oracle's unit
    if (p.kind == Kind::kEpsEverywhere) x.values[i] += sign * p.size * unit;
    if (p.kind == Kind::kOneElement && i == where) x.values[i] += sign * p.size * unit;
    if (p.kind == Kind::kRelative) x.values[i] *= 1 + p.size;
  }
  if (p.kind == Kind::kNaN) x.values[where] = std::nan("");
  if (p.kind == Kind::kInf) x.values[where] = std::numeric_limits<double>::infinity();
  return rounded(x, f);
}

bool same(const oracle::Array& a, const oracle::Array& b) {
  for (size_t i = 0; i < a.values.size(); ++i) {
    const double x = a.values[i], y = b.values[i];
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
  }
  return true;
}

struct Cell {
  int caught = 0;
  int of = 0;
};

// [plant][family][format][mode]: mode 0 alone, 1 against a baseline.
using Table = std::map<std::string, std::map<std::string, std::map<std::string, Cell[2]>>>;

void trial(const Family& fam, const Format& f, const Sizes& sizes, uint64_t seed, Table& table) {
  std::mt19937_64 rng(seed);
  const Sample smp = make_sample(fam, f, sizes, rng);
  const oracle::Array ref = exact(smp, 1);
  const oracle::Array device = rounded(ref, f);  // correctly rounded: the best a device can do
  const oracle::OpClass op{fam.shape == Shape::kElementwise ? 1 : sizes.k, fam.ill};
  const double alone = alone_for(f.name, op);
  const double base_error = oracle::measure(device, ref, eps_of(f), alone).eps;
  const double with_base = device_for(f.name, op, base_error);
  for (const Plant& p : plants()) {
    auto x = p.kind == Kind::kNone ? std::optional(device) : planted(p, fam, smp, ref, f, rng);
    if (!x || (p.kind != Kind::kNone && same(*x, device))) continue;  // no plant: not counted
    const double err = oracle::measure(*x, ref, eps_of(f), alone).eps;
    auto& cells = table[p.name][fam.name][f.name];
    for (int mode = 0; mode < 2; ++mode) {
      ++cells[mode].of;
      cells[mode].caught += err > (mode == 0 ? alone : with_base) ? 1 : 0;
    }
  }
}

std::string rate(const Cell& c) {
  if (c.of == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * c.caught / c.of);
  return buf;
}

void print_table(const Table& table, const Sizes& sizes, int trials) {
  std::printf(
      "Catch rate over %d trials; elementwise: %lld outputs; reduction and matmul: %lld "
      "outputs of K = %lld terms. alone: judged as the baseline device; base: against a "
      "correctly rounded baseline. -: the plant does not apply or changes nothing.\n\n",
      trials, static_cast<long long>(sizes.n), static_cast<long long>(sizes.outputs),
      static_cast<long long>(sizes.k));
  std::printf("| plant | family |");
  for (const auto& f : kFormats) std::printf(" %s alone | %s base |", f.name, f.name);
  std::printf("\n|---|---|---|---|---|---|---|---|\n");
  for (const Plant& p : plants()) {
    for (const auto& fam : kFamilies) {
      std::printf("| %s | %s |", p.name.c_str(), fam.name);
      for (const auto& f : kFormats) {
        Cell none[2];
        const Cell* c = none;
        auto a = table.find(p.name);
        if (a != table.end() && a->second.count(fam.name) && a->second.at(fam.name).count(f.name)) {
          c = a->second.at(fam.name).at(f.name);
        }
        std::printf(" %s | %s |", rate(c[0]).c_str(), rate(c[1]).c_str());
      }
      std::printf("\n");
    }
  }
  std::printf("\nBounds (eps):");
  for (const auto& fam : kFamilies) {
    const oracle::OpClass op{fam.shape == Shape::kElementwise ? 1 : sizes.k, fam.ill};
    for (const auto& f : kFormats) {
      std::printf(" %s/%s alone %.4g, base %.4g;", fam.name, f.name, alone_for(f.name, op),
                  device_for(f.name, op, 0.5));
    }
  }
  std::printf("\n");
}

int synthetic(const std::vector<std::string>& args) {
  Sizes sizes;
  int trials = 20;
  uint64_t seed = 1;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    const long long v = std::stoll(args[i + 1]);
    if (v < 1) throw std::invalid_argument(args[i] + " must be at least 1");
    if (args[i] == "--trials")
      trials = static_cast<int>(v);
    else if (args[i] == "--n")
      sizes.n = v;
    else if (args[i] == "--k")
      sizes.k = v;
    else if (args[i] == "--seed")
      seed = static_cast<uint64_t>(v);
    else
      throw std::invalid_argument("unknown flag " + args[i]);
  }
  Table table;
  for (const auto& fam : kFamilies) {
    for (const auto& f : kFormats) {
      for (int t = 0; t < trials; ++t) trial(fam, f, sizes, seed * 1000003 + t, table);
    }
  }
  print_table(table, sizes, trials);
  return 0;
}

// ---------------------------------------------------------------------------
// rejudge
// ---------------------------------------------------------------------------

std::optional<double> number(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string() && j.get<std::string>() == "inf")
    return std::numeric_limits<double>::infinity();
  return std::nullopt;
}

struct Seen {
  std::string id;
  double per_sqrt_k = 0;  // error / sqrt(K)
};

struct Rejudged {
  int alone = 0, alone_fail = 0, device = 0, device_fail = 0, undetermined = 0, mixed = 0;
  std::vector<std::string> alarms;
  // Per (mode, family, K = 1 or more, dtype class): errors over sqrt(K); for
  // a device, only where the error exceeds kBaselineFactor x the baseline's.
  std::map<std::string, std::vector<Seen>> spread;
};

std::string dtype_class(const std::string& dtype) {
  if (dtype.find("complex") != std::string::npos) return "complex64";
  if (dtype.find("float32") != std::string::npos) return "float32";
  return "float16/bfloat16";
}

// The bound the oracle holds a case to. error_eps is the largest over its
// outputs, and which output it came from is not recorded: with outputs of
// several dtypes the strictest of their bounds is taken, so a false alarm
// is never missed (it may be one that would not happen).
void rejudge_case(const nlohmann::json& c, Rejudged& out) {
  const auto& n = c.value("numeric", nlohmann::json::object());
  if (c.value("outcome", "") != "pass" || !n.contains("error_eps")) return;
  const auto e = number(n["error_eps"]);
  if (!e) return;
  std::optional<double> eb;
  if (n.contains("baseline_error_eps")) eb = number(n["baseline_error_eps"]);
  std::optional<int64_t> declared;
  if (c.contains("reduction") && c["reduction"].is_number_integer()) declared = c["reduction"];
  const auto op = op_class(c.value("function", ""), c.value("dims", nlohmann::json::array()),
                           declared, whole_model_json(c));
  double bound = 0, low = std::numeric_limits<double>::infinity();
  std::string dtype;
  for (const auto& o : c.value("outputs", nlohmann::json::array())) {
    const std::string d = o.value("dtype", "");
    if (!oracle::reference_epsilon(d)) continue;
    const double b = eb ? device_for(d, op, *eb) : alone_for(d, op);
    if (b < low) dtype = d;
    bound = std::max(bound, b);
    low = std::min(low, b);
  }
  if (dtype.empty()) return;
  out.mixed += low < bound ? 1 : 0;
  bound = low;
  const bool base_ok = !eb || *eb <= alone_for(dtype, op);
  (eb ? out.device : out.alone) += 1;
  if (*e > bound) {
    if (!base_ok) {
      ++out.undetermined;  // passes if it agrees with its baseline: not knowable offline
    } else {
      (eb ? out.device_fail : out.alone_fail) += 1;
      char line[256];
      std::snprintf(line, sizeof line, "%s on %s: %.3g eps > bound %.3g (baseline %.3g, K %lld)",
                    c.value("id", "").c_str(), c.value("device", "").c_str(), *e, bound,
                    eb.value_or(-1), static_cast<long long>(op.reduction));
      out.alarms.push_back(line);
    }
  }
  if (std::isinf(*e) || (eb && *e <= oracle::kBaselineFactor * *eb)) return;
  const std::string key = std::string(eb ? "device" : "alone") + " | " +
                          (op.ill_conditioned ? "ill" : "well") + " | " +
                          (op.reduction == 1 ? "K=1" : "K>1") + " | " + dtype_class(dtype);
  out.spread[key].push_back({c.value("id", "") + " on " + c.value("device", ""),
                             *e / std::sqrt(static_cast<double>(op.reduction))});
}

void print_spread(const std::map<std::string, std::vector<Seen>>& spread) {
  std::printf("\n| mode | family | K | dtype | n | p50 | p99 | max e/sqrt(K) | at |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (auto [key, v] : spread) {
    std::sort(v.begin(), v.end(),
              [](const Seen& a, const Seen& b) { return a.per_sqrt_k < b.per_sqrt_k; });
    const auto at = [&](double q) {
      return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))].per_sqrt_k;
    };
    std::printf("| %s | %zu | %.3g | %.3g | %.3g | %s |\n", key.c_str(), v.size(), at(0.5),
                at(0.99), v.back().per_sqrt_k, v.back().id.c_str());
  }
}

nlohmann::json read_json(const std::string& file) {
  if (!file.ends_with(".gz")) {
    std::ifstream in(file);
    return nlohmann::json::parse(in, nullptr, false);
  }
  std::string text, quoted = "'";
  for (char c : file) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  FILE* pipe = ::popen(("gzip -dc -- " + quoted + "'").c_str(), "r");
  if (pipe == nullptr) return nlohmann::json::value_t::discarded;
  char buf[65536];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, got);
  ::pclose(pipe);
  return nlohmann::json::parse(text, nullptr, false);
}

int rejudge(const std::vector<std::string>& files) {
  Rejudged all;
  for (const auto& file : files) {
    const auto doc = read_json(file);
    if (doc.is_discarded() || !doc.contains("cases")) {
      std::cerr << "plant_oracle: " << file << ": not a results.json\n";
      return 2;
    }
    Rejudged one;
    for (const auto& c : doc["cases"]) rejudge_case(c, one);
    std::printf(
        "%s: alone %d passes, %d would fail; against a baseline %d passes, %d would fail; "
        "%d undetermined (baseline beyond its bound); %d with outputs of several dtypes\n",
        file.c_str(), one.alone, one.alone_fail, one.device, one.device_fail, one.undetermined,
        one.mixed);
    for (const auto& a : one.alarms) std::printf("  false alarm: %s\n", a.c_str());
    for (auto& [k, v] : one.spread) all.spread[k].insert(all.spread[k].end(), v.begin(), v.end());
  }
  print_spread(all.spread);
  return 0;
}

// ---------------------------------------------------------------------------
// real
// ---------------------------------------------------------------------------

struct RealPlant {
  const char* name;
  double eps_everywhere;  // k eps in the oracle's unit, against the reference; 0: none
  double relative;        // x(1 + relative); 0: none
  bool nan;               // one NaN, at the element of largest magnitude
};

constexpr RealPlant kRealPlants[] = {
    {"4 eps everywhere", 4, 0, false},
    {"8 eps everywhere", 8, 0, false},
    {"x(1+1e-4)", 0, 1e-4, false},
    {"x(1+1e-3)", 0, 1e-3, false},
    {"NaN", 0, 0, true},
};

// Copies the output `from` to `to` planted; false when it is not a
// little-endian float32 array (float32, or bfloat16 as probes save it) with a
// reference of its shape, or when the plant changes nothing.
bool plant_file(const fs::path& from, const fs::path& ref, const std::string& dtype,
                const fs::path& to, const RealPlant& plant) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto parsed = oracle::parse_npy(bytes);
  const auto r = oracle::read_npy(ref);
  const auto eps = oracle::reference_epsilon(dtype);
  if (!parsed.ok() || parsed.array->descr != "<f4" || !r.ok() || !eps ||
      r.array->values.size() != parsed.array->values.size() || r.array->values.empty()) {
    return false;
  }
  const auto& x = parsed.array->values;
  const auto& rv = r.array->values;
  const double s = rms(*r.array);
  const size_t data = bytes.size() - x.size() * sizeof(float);
  size_t largest = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i]) &&
        (!std::isfinite(x[largest]) || std::fabs(x[i]) > std::fabs(x[largest]))) {
      largest = i;
    }
  }
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    if (plant.eps_everywhere > 0 && std::isfinite(rv[i])) {
      v = rv[i] + (i % 2 == 0 ? 1 : -1) * plant.eps_everywhere * *eps * (std::fabs(rv[i]) + s);
    }
    if (plant.relative > 0) v *= 1 + plant.relative;
    if (plant.nan && i == largest) v = std::nan("");
    const auto f = static_cast<float>(v);
    std::memcpy(bytes.data() + data + i * sizeof(float), &f, sizeof f);
  }
  if (same(*parsed.array, *oracle::parse_npy(bytes).array)) return false;
  std::ofstream(to, std::ios::binary) << bytes;
  return true;
}

struct RealArgs {
  std::string results;
  std::string baseline = "cpu";
  int show_misses = 20;
};

// One pass planted and judged afresh, as when it landed: alone when it is
// the baseline's, else against the baseline's result. nullopt: no plant.
std::optional<model::CaseResult> judge_planted(const model::CaseResult& r,
                                               const model::CaseResult& base,
                                               const RealPlant& plant, const fs::path& work,
                                               store::Store& store, const std::string& baseline) {
  auto refs = base.extra.at("reference").value("outputs", nlohmann::json::array());
  model::CaseResult d = r;
  bool planted_any = false;
  for (size_t i = 0; i < d.outputs.size() && i < refs.size(); ++i) {
    const std::string ref = refs[i].value("path", "");
    fs::path to = work / (std::to_string(i) + ".npy");
    if (!ref.empty() && plant_file(d.outputs[i].path, ref, d.outputs[i].dtype, to, plant)) {
      d.outputs[i].path = to.string();
      planted_any = true;
    }
  }
  if (!planted_any) return std::nullopt;
  d.numeric = {};
  d.extra.erase("strict");  // the plant is no precision setting
  supervisor::Oracle oracle(store, "plant", baseline);
  if (r.device != baseline) {
    model::CaseResult bb = base;
    bb.outcome = model::Outcome::kPass;
    bb.numeric = {};
    oracle.observe(bb);
  }
  oracle.observe(d);
  return d;
}

RealArgs real_args(const std::vector<std::string>& args) {
  if (args.empty()) throw std::invalid_argument("real needs a results.json");
  RealArgs a{args[0]};
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    if (args[i] == "--baseline")
      a.baseline = args[i + 1];
    else if (args[i] == "--misses")
      a.show_misses = std::stoi(args[i + 1]);
    else
      throw std::invalid_argument("unknown flag " + args[i]);
  }
  return a;
}

int real(const std::vector<std::string>& args) {
  const RealArgs a = real_args(args);
  auto results = report::load_json(a.results);
  const fs::path work = fs::temp_directory_path() / ("plant-oracle-" + std::to_string(::getpid()));
  fs::create_directories(work);
  auto store = store::Store::open(work / "mudjack.db");
  std::map<std::string, const model::CaseResult*> base;
  for (const auto& r : results.cases) {
    if (r.device == a.baseline && r.extra.contains("reference")) base[r.info.id] = &r;
  }
  // [framework on device (mode) | family][plant]
  std::map<std::string, std::map<std::string, Cell>> tallies;
  int misses = 0;
  for (const auto& r : results.cases) {
    auto b = base.find(r.info.id);
    if (r.outcome != model::Outcome::kPass || b == base.end()) continue;
    const auto op = oracle::op_class(r.info.function, r.info.dims, r.info.reduction,
                                     stats::whole_model(r.info));
    const std::string row = r.info.framework + " on " + r.device +
                            (r.device == a.baseline ? " (alone)" : " (beside " + a.baseline + ")") +
                            " | " + (op.ill_conditioned ? "ill" : "well") +
                            (op.reduction == 1 ? ", K=1" : ", K>1");
    for (const RealPlant& plant : kRealPlants) {
      auto d = judge_planted(r, *b->second, plant, work, *store, a.baseline);
      if (!d) continue;
      const bool caught = d->outcome == model::Outcome::kMismatch;
      auto& c = tallies[row][plant.name];
      ++c.of;
      c.caught += caught ? 1 : 0;
      if (!caught && misses++ < a.show_misses) {
        std::printf("missed %s: %s on %s; error %.3g eps, bound %.3g eps\n", plant.name,
                    r.info.id.c_str(), r.device.c_str(), d->numeric.error_eps.value_or(-1),
                    d->numeric.bound_eps.value_or(-1));
      }
    }
  }
  std::printf("\n| framework on device | family |");
  for (const auto& p : kRealPlants) std::printf(" %s |", p.name);
  std::printf("\n|---|---|---|---|---|---|---|\n");
  for (const auto& [row, cells] : tallies) {
    std::printf("| %s |", row.c_str());
    for (const auto& p : kRealPlants) {
      const auto it = cells.find(p.name);
      const Cell c = it == cells.end() ? Cell{} : it->second;
      std::printf(" %d/%d (%s) |", c.caught, c.of, rate(c).c_str());
    }
    std::printf("\n");
  }
  fs::remove_all(work);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: plant_oracle synthetic [--trials T] [--n N] [--k K] [--seed S]\n"
      "       plant_oracle rejudge RESULTS.json...\n"
      "       plant_oracle real RESULTS.json [--baseline cpu] [--misses N]\n";
  if (argc < 2) {
    std::cerr << usage;
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "synthetic") return synthetic(args);
    if (command == "rejudge" && !args.empty()) return rejudge(args);
    if (command == "real") return real(args);
  } catch (const std::exception& e) {
    std::cerr << "plant_oracle: " << e.what() << "\n";
    return 2;
  }
  std::cerr << usage;
  return 2;
}
