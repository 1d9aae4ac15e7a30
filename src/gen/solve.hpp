#pragma once
// Attribute constraints of generated ops and the two solvers that satisfy
// them. An op states its integer attributes as variables with bounds and its
// rules as constraints over them and the input's (known) dims, once; a
// solver picks a random satisfying assignment:
//   "z3"  — Z3 (libz3, its C++ API): every variable asked to take a random
//           value as an assumption; assumptions in the unsat core are dropped
//           one at a time until the rest is satisfiable.
//   "own" — random sampling with forward checking: variables drawn in order,
//           each constraint checked as soon as its variables are drawn, a
//           variable redrawn a few times, the whole draw restarted a few
//           times.
// Both are deterministic from the generator's random engine. bench/fuzz
// compares them (graphs per second, attribute coverage).

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace mudjack::gen {

using Rng = std::mt19937_64;

// An integer expression over the problem's variables.
class Expr {
 public:
  enum class Kind { kConst, kVar, kAdd, kSub, kMul, kDiv, kMod };
  Expr(int64_t value);  // NOLINT(google-explicit-constructor): constants read as numbers
  static Expr var(int index);
  Kind kind() const { return node_->kind; }
  int64_t value() const { return node_->value; }
  const Expr& left() const { return *node_->a; }
  const Expr& right() const { return *node_->b; }
  // The highest variable index it reads (-1: none).
  int last_var() const { return node_->last; }
  // Its value under `assignment` (nullopt: division by zero).
  std::optional<int64_t> eval(const std::vector<int64_t>& assignment) const;

  friend Expr operator+(const Expr& a, const Expr& b) { return binary(Kind::kAdd, a, b); }
  friend Expr operator-(const Expr& a, const Expr& b) { return binary(Kind::kSub, a, b); }
  friend Expr operator*(const Expr& a, const Expr& b) { return binary(Kind::kMul, a, b); }
  friend Expr operator/(const Expr& a, const Expr& b) { return binary(Kind::kDiv, a, b); }
  friend Expr operator%(const Expr& a, const Expr& b) { return binary(Kind::kMod, a, b); }

 private:
  struct Node {
    Kind kind = Kind::kConst;
    int64_t value = 0;  // constant, or variable index
    std::shared_ptr<const Expr> a;
    std::shared_ptr<const Expr> b;
    int last = -1;
  };
  static Expr binary(Kind k, const Expr& a, const Expr& b);
  explicit Expr(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
};

struct Constraint {
  enum class Rel { kLe, kLt, kEq, kGe, kGt, kNe };
  Expr a;
  Rel rel;
  Expr b;
  bool holds(const std::vector<int64_t>& assignment) const;
};

Constraint operator<=(const Expr& a, const Expr& b);
Constraint operator<(const Expr& a, const Expr& b);
Constraint operator>=(const Expr& a, const Expr& b);
Constraint operator>(const Expr& a, const Expr& b);
Constraint operator==(const Expr& a, const Expr& b);
Constraint operator!=(const Expr& a, const Expr& b);

struct Problem {
  struct Var {
    std::string name;
    int64_t lo;
    int64_t hi;
  };
  std::vector<Var> vars;
  std::vector<Constraint> constraints;
  // A new variable in [lo, hi].
  Expr var(std::string name, int64_t lo, int64_t hi);
  void require(Constraint c) { constraints.push_back(std::move(c)); }
};

class Solver {
 public:
  virtual ~Solver() = default;
  // A random assignment satisfying every constraint, or nullopt when none
  // was found (unsatisfiable, or the sampler gave up).
  virtual std::optional<std::vector<int64_t>> solve(const Problem& p, Rng& rng) = 0;
  virtual std::string_view name() const = 0;
};

inline constexpr std::string_view kSolvers[] = {"own", "z3"};
// nullptr for an unknown name, and for "z3" in an engine built without it
// (cmake -DMUDJACK_Z3=OFF).
std::unique_ptr<Solver> make_solver(std::string_view name);

}  // namespace mudjack::gen
