#include "gen/graph.hpp"

#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gen/ops.hpp"
#include "util/sha256.hpp"

namespace mudjack::gen {
namespace {

using nlohmann::json;

constexpr std::pair<DType, std::string_view> kNames[] = {{DType::kFloat16, "float16"},
                                                         {DType::kFloat32, "float32"},
                                                         {DType::kFloat64, "float64"},
                                                         {DType::kInt32, "int32"},
                                                         {DType::kBool, "bool"}};

Shape shape_of(const json& j, const std::string& where) {
  if (!j.is_array()) throw GraphError(where + ": shape must be a list of integers");
  Shape s;
  for (const auto& d : j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > (1 << 20)) {
      throw GraphError(where + ": shape dims must be integers from 1 to 1048576");
    }
    s.push_back(d.get<int64_t>());
  }
  if (s.empty() || s.size() > 6) throw GraphError(where + ": rank must be 1 to 6");
  return s;
}

DType dtype_of(const json& j, const std::string& where) {
  auto d = j.is_string() ? dtype_from(j.get<std::string>()) : std::nullopt;
  if (!d) {
    throw GraphError(where + ": dtype must be one of float16, float32, float64, int32, bool");
  }
  return *d;
}

std::string name_of(const json& j, const std::string& where) {
  static const std::regex kName("[a-z][a-z0-9_]{0,63}");
  if (!j.is_string() || !std::regex_match(j.get<std::string>(), kName)) {
    throw GraphError(where + ": name must match [a-z][a-z0-9_]*");
  }
  return j.get<std::string>();
}

const json& field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) {
    throw GraphError(where + ": missing '" + key + "'");
  }
  return j[key];
}

std::optional<std::string> walk(Graph& g, Values* out, bool rewrite) {
  Values values;
  if (g.inputs.empty()) return "a graph needs at least one input";
  for (const auto& in : g.inputs) {
    if (values.count(in.name) != 0) return "name '" + in.name + "' is used twice";
    if (!(in.low <= in.high) || !std::isfinite(in.low) || !std::isfinite(in.high)) {
      return "input " + in.name + ": low must not exceed high";
    }
    if (std::max(std::abs(in.low), std::abs(in.high)) > magnitude_cap(in.dtype)) {
      return "input " + in.name + ": its range exceeds the magnitude cap of its dtype";
    }
    // Inputs have the nodes' element cap: a replayed graph.json is a file
    // anyone may write, and the probe materializes every input.
    if (numel(in.shape) > kMaxElements) {
      return "input " + in.name + ": more than " + std::to_string(kMaxElements) + " elements";
    }
    values[in.name] = {in.shape, in.dtype, {in.low, in.high}, true};
  }
  int64_t reduction = 0;
  for (auto& n : g.nodes) {
    const std::string where = "node " + n.name + " (" + n.op + ")";
    if (values.count(n.name) != 0) return "name '" + n.name + "' is used twice";
    const OpSpec* spec = find_op(n.op);
    if (spec == nullptr) return where + ": unknown op '" + n.op + "'";
    std::vector<Type> in;
    std::vector<Interval> ranges;
    for (const auto& name : n.inputs) {
      auto it = values.find(name);
      if (it == values.end()) return where + ": input '" + name + "' is not defined before it";
      if (spec->leaf_operands && !it->second.leaf) {
        return where + ": its operands must be graph inputs";
      }
      in.push_back({it->second.shape, it->second.dtype});
      ranges.push_back(it->second.range);
    }
    auto t = infer(n.op, in, n.attrs);
    if (const auto* why = std::get_if<std::string>(&t)) return where + ": " + *why;
    const Type& type = std::get<Type>(t);
    if (n.op == "cast" && type.dtype == DType::kInt32 && is_float(in[0].dtype) &&
        !values[n.inputs[0]].leaf) {
      return where + ": a float-to-int cast takes a graph input only";
    }
    if (rewrite) {
      n.shape = type.shape;
      n.dtype = type.dtype;
    } else if (type.shape != n.shape || type.dtype != n.dtype) {
      return where + ": declares " + shape_text(n.shape) + " " + std::string(to_string(n.dtype)) +
             " but its inputs give " + shape_text(type.shape) + " " +
             std::string(to_string(type.dtype));
    }
    if (numel(type.shape) > kMaxElements) {
      return where + ": more than " + std::to_string(kMaxElements) + " elements";
    }
    if (auto why = domain_fault(n.op, ranges)) return where + ": " + *why;
    const Interval r = propagate(n.op, ranges, in, n.attrs);
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi) ||
        std::max(std::abs(r.lo), std::abs(r.hi)) > magnitude_cap(type.dtype)) {
      return where + ": its values may exceed the magnitude cap of " +
             std::string(to_string(type.dtype));
    }
    reduction += reduction_size(n.op, in, n.attrs);
    values[n.name] = {type.shape, type.dtype, r, false};
  }
  if (g.outputs.empty()) return "a graph needs at least one output";
  std::set<std::string> seen;
  for (const auto& o : g.outputs) {
    if (values.count(o) == 0) return "output '" + o + "' is not defined";
    if (!seen.insert(o).second) return "output '" + o + "' is listed twice";
  }
  g.reduction = std::max<int64_t>(reduction, 1);
  if (out != nullptr) *out = std::move(values);
  return std::nullopt;
}

}  // namespace

std::string_view to_string(DType d) {
  for (const auto& [k, v] : kNames) {
    if (k == d) return v;
  }
  return "?";
}

std::optional<DType> dtype_from(std::string_view name) {
  for (const auto& [k, v] : kNames) {
    if (v == name) return k;
  }
  return std::nullopt;
}

bool is_float(DType d) {
  return d == DType::kFloat16 || d == DType::kFloat32 || d == DType::kFloat64;
}

double magnitude_cap(DType d) {
  return d == DType::kFloat16 ? 1e4 : 1e6;
}

double smallest_normal(DType d) {
  switch (d) {
    case DType::kFloat16:
      return 0x1p-14;
    case DType::kFloat32:
      return 0x1p-126;
    case DType::kFloat64:
      return 0x1p-1022;
    default:
      return 0;
  }
}

int64_t numel(const Shape& s) {
  // Saturating: six dims of up to 2^20 overflow int64, and a wrapped product
  // passed the element cap.
  int64_t n = 1;
  for (auto d : s) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  }
  return n;
}

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

nlohmann::json to_json(const Graph& g) {
  json j;
  j["format"] = kGraphFormat;
  j["seed"] = g.seed;
  j["dtype"] = to_string(g.dtype);
  j["reduction"] = g.reduction;
  j["inputs"] = json::array();
  for (const auto& in : g.inputs) {
    j["inputs"].push_back({{"name", in.name},
                           {"shape", in.shape},
                           {"dtype", to_string(in.dtype)},
                           {"low", in.low},
                           {"high", in.high}});
  }
  j["nodes"] = json::array();
  for (const auto& n : g.nodes) {
    j["nodes"].push_back({{"name", n.name},
                          {"op", n.op},
                          {"inputs", n.inputs},
                          {"attrs", n.attrs},
                          {"shape", n.shape},
                          {"dtype", to_string(n.dtype)}});
  }
  j["outputs"] = g.outputs;
  return j;
}

Graph from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw GraphError("a graph is a JSON object");
  const auto& format = field(j, "format", "graph");
  if (!format.is_string() || format.get<std::string>() != kGraphFormat) {
    throw GraphError("format must be '" + std::string(kGraphFormat) + "'");
  }
  Graph g;
  if (j.contains("seed")) {
    if (!j["seed"].is_number_integer()) throw GraphError("seed must be an integer");
    g.seed = j["seed"].get<int64_t>();
  }
  g.dtype = dtype_of(field(j, "dtype", "graph"), "graph");
  const auto& inputs = field(j, "inputs", "graph");
  const auto& nodes = field(j, "nodes", "graph");
  const auto& outputs = field(j, "outputs", "graph");
  if (!inputs.is_array() || !nodes.is_array() || !outputs.is_array()) {
    throw GraphError("inputs, nodes and outputs must be lists");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string where = "inputs[" + std::to_string(i) + "]";
    const auto& x = inputs[i];
    Input in;
    in.name = name_of(field(x, "name", where), where);
    in.shape = shape_of(field(x, "shape", where), where);
    in.dtype = dtype_of(field(x, "dtype", where), where);
    const auto& low = field(x, "low", where);
    const auto& high = field(x, "high", where);
    if (!low.is_number() || !high.is_number())
      throw GraphError(where + ": low and high are numbers");
    in.low = low.get<double>();
    in.high = high.get<double>();
    g.inputs.push_back(std::move(in));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = "nodes[" + std::to_string(i) + "]";
    const auto& x = nodes[i];
    Node n;
    n.name = name_of(field(x, "name", where), where);
    const auto& op = field(x, "op", where);
    if (!op.is_string()) throw GraphError(where + ": op must be a string");
    n.op = op.get<std::string>();
    const auto& ins = field(x, "inputs", where);
    if (!ins.is_array()) throw GraphError(where + ": inputs must be a list of names");
    for (const auto& name : ins) n.inputs.push_back(name_of(name, where));
    if (x.contains("attrs")) {
      if (!x["attrs"].is_object()) throw GraphError(where + ": attrs must be an object");
      n.attrs = x["attrs"];
    }
    n.shape = shape_of(field(x, "shape", where), where);
    n.dtype = dtype_of(field(x, "dtype", where), where);
    g.nodes.push_back(std::move(n));
  }
  for (const auto& o : outputs) g.outputs.push_back(name_of(o, "outputs"));
  if (j.contains("reduction") && j["reduction"].is_number_integer()) {
    g.reduction = j["reduction"].get<int64_t>();
  }
  return g;
}

Graph read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw GraphError(path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw GraphError(path + ": not JSON (" + std::string(e.what()) + ")");
  }
  try {
    Graph g = from_json(j);
    if (auto why = check(g)) throw GraphError(*why);
    return g;
  } catch (const GraphError& e) {
    throw GraphError(path + ": " + e.what());
  }
}

std::optional<std::string> check(Graph& g, Values* values) {
  return walk(g, values, false);
}
std::optional<std::string> reinfer(Graph& g, Values* values) {
  return walk(g, values, true);
}

std::string hash(const Graph& g) {
  json j = to_json(g);
  j.erase("seed");
  util::Sha256 h;
  h.update(j.dump());
  return h.finish_hex().substr(0, 16);
}

std::vector<std::string> ops_of(const Graph& g) {
  std::set<std::string> ops;
  for (const auto& n : g.nodes) ops.insert(n.op);
  return {ops.begin(), ops.end()};
}

}  // namespace mudjack::gen
