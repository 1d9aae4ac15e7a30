#pragma once
// The op specifications of generated graphs (docs/fuzz.md, "Ops"): per op,
// its arity and dtypes, the rule that infers its output from its inputs and
// attributes (or says why they are invalid), how an interval of each input
// maps to an interval of the output, its input domain (log wants x >= 0.1),
// and its reduction size for the accuracy oracle. The generator builds with
// these rules and check() validates with the same ones, so a graph the
// generator writes is one every rule accepts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/graph.hpp"

namespace mudjack::gen {

struct Type {
  Shape shape;
  DType dtype = DType::kFloat32;
};

// What an op accepts as its main operand's dtype.
enum class Dtypes { kFloat, kFloatInt, kAny };

struct OpSpec {
  std::string_view name;
  int min_inputs = 1;
  int max_inputs = 1;
  Dtypes dtypes = Dtypes::kFloat;
  // Operands must be graph inputs (comparisons; a float-to-int cast), so
  // that a float32 run and its float64 reference see the same operands.
  bool leaf_operands = false;
};

const std::vector<OpSpec>& op_specs();
const OpSpec* find_op(std::string_view name);
std::vector<std::string> op_names();

// The output type, or why the inputs and attributes are invalid.
std::variant<Type, std::string> infer(std::string_view op, const std::vector<Type>& in,
                                      const nlohmann::json& attrs);
// The interval of the output for inputs in `ranges` (sound: every element
// the op computes lies in it). Requires infer() to have accepted the inputs.
Interval propagate(std::string_view op, const std::vector<Interval>& ranges,
                   const std::vector<Type>& in, const nlohmann::json& attrs);
// Why inputs in `ranges` leave the op's domain (log of a value that may be
// below 0.1), or nullopt.
std::optional<std::string> domain_fault(std::string_view op, const std::vector<Interval>& ranges);
// How many input elements each output element sums over (1: elementwise).
int64_t reduction_size(std::string_view op, const std::vector<Type>& in,
                       const nlohmann::json& attrs);

// The ops whose output has the shape and dtype of their first input and
// nothing else: the elementwise unary family.
bool is_unary(std::string_view op);
bool is_binary(std::string_view op);  // add sub mul div maximum minimum pow

}  // namespace mudjack::gen
