#pragma once
// A generated computation graph (docs/fuzz.md, schemas/fuzz-graph-v1.schema.json):
// leaf inputs with the interval their values are drawn from, nodes with one
// output each in topological order, the outputs the graph returns. Pure
// values; `check` re-infers every node from its op's rules (gen/ops.hpp) and
// is what every graph passes before it is written, run or reduced.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mudjack::gen {

enum class DType { kFloat16, kFloat32, kFloat64, kInt32, kBool };

std::string_view to_string(DType d);
std::optional<DType> dtype_from(std::string_view name);
bool is_float(DType d);
// The largest magnitude a value of `d` may reach in a graph: far inside the
// dtype's range, so overflow is never a finding (float16 1e4, else 1e6).
double magnitude_cap(DType d);
// The smallest normal number of a floating dtype (float16 2^-14); 0 for
// integers and bools. A floating value whose whole interval lies below it
// (exactly 0 included) would have a reference at the dtype's noise floor
// (docs/fuzz.md, "Suspects"): the generator never builds one.
double smallest_normal(DType d);

using Shape = std::vector<int64_t>;
// Elements of a graph's input or node at most: 4 Mi (16 MiB of float32).
inline constexpr int64_t kMaxElements = int64_t{1} << 22;
// Elements of `s`; INT64_MAX when the product overflows (never wraps).
int64_t numel(const Shape& s);
std::string shape_text(const Shape& s);  // "[2, 3]"

// A closed interval every element of a value lies in.
struct Interval {
  double lo = 0;
  double hi = 0;
};

struct Input {
  std::string name;
  Shape shape;
  DType dtype = DType::kFloat32;
  double low = -2;  // values drawn uniformly in [low, high] (integers: inclusive)
  double high = 2;
};

struct Node {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  nlohmann::json attrs = nlohmann::json::object();
  Shape shape;
  DType dtype = DType::kFloat32;
};

struct Graph {
  int64_t seed = 0;  // the generator seed that made it (informational)
  DType dtype = DType::kFloat32;
  int64_t reduction = 1;  // the accuracy oracle's K: the sum of the nodes' reduction sizes
  std::vector<Input> inputs;
  std::vector<Node> nodes;
  std::vector<std::string> outputs;
};

inline constexpr std::string_view kGraphFormat = "mudjack.graph/1";

// A malformed graph: one line naming the fault ("node v3 (conv2d): ...").
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const Graph& g);
// Throws GraphError for a document that is not a graph (wrong format,
// missing or mistyped fields); semantic faults are check()'s.
Graph from_json(const nlohmann::json& j);
// Reads and checks a graph file; GraphError "FILE: fault" otherwise.
Graph read_file(const std::string& path);

// The type and interval of every value, by name.
struct ValueInfo {
  Shape shape;
  DType dtype = DType::kFloat32;
  Interval range;
  bool leaf = false;
};
using Values = std::map<std::string, ValueInfo>;

// Checks names, references and order, re-infers every node's shape and dtype
// from its op (they must equal what the node declares), checks every op's
// input domain and the magnitude caps on the propagated intervals, and
// recomputes `reduction`. Returns the fault, or nullopt; fills *values.
std::optional<std::string> check(Graph& g, Values* values = nullptr);

// Like check(), but writes each node's inferred shape and dtype instead of
// comparing (the reducer's edits change downstream shapes).
std::optional<std::string> reinfer(Graph& g, Values* values = nullptr);

// 16 hex digits of the SHA-256 of the graph's canonical JSON without its
// seed: equal graphs share a hash wherever they were generated.
std::string hash(const Graph& g);

// The distinct ops of a graph, sorted.
std::vector<std::string> ops_of(const Graph& g);

}  // namespace mudjack::gen
