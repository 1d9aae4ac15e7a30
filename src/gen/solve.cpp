#include "gen/solve.hpp"

#include <algorithm>

#ifdef MUDJACK_WITH_Z3
#include <z3++.h>
#endif

namespace mudjack::gen {

Expr::Expr(int64_t value)
    : node_(std::make_shared<const Node>(Node{Kind::kConst, value, {}, {}, -1})) {}

Expr Expr::var(int index) {
  return Expr(std::make_shared<const Node>(Node{Kind::kVar, index, {}, {}, index}));
}

Expr Expr::binary(Kind k, const Expr& a, const Expr& b) {
  return Expr(std::make_shared<const Node>(Node{k, 0, std::make_shared<const Expr>(a),
                                                std::make_shared<const Expr>(b),
                                                std::max(a.last_var(), b.last_var())}));
}

std::optional<int64_t> Expr::eval(const std::vector<int64_t>& v) const {
  switch (kind()) {
    case Kind::kConst:
      return value();
    case Kind::kVar:
      return v[static_cast<size_t>(value())];
    default:
      break;
  }
  const auto a = left().eval(v);
  const auto b = right().eval(v);
  if (!a || !b) return std::nullopt;
  switch (kind()) {
    case Kind::kAdd:
      return *a + *b;
    case Kind::kSub:
      return *a - *b;
    case Kind::kMul:
      return *a * *b;
    case Kind::kDiv:
    case Kind::kMod: {
      if (*b == 0) return std::nullopt;
      // Euclidean, as Z3's integer div and mod
      int64_t q = *a / *b;
      int64_t r = *a % *b;
      if (r < 0) {
        r += std::abs(*b);
        q += *b > 0 ? -1 : 1;
      }
      return kind() == Kind::kDiv ? q : r;
    }
    default:
      return std::nullopt;
  }
}

bool Constraint::holds(const std::vector<int64_t>& v) const {
  const auto x = a.eval(v);
  const auto y = b.eval(v);
  if (!x || !y) return false;
  switch (rel) {
    case Rel::kLe:
      return *x <= *y;
    case Rel::kLt:
      return *x < *y;
    case Rel::kEq:
      return *x == *y;
    case Rel::kGe:
      return *x >= *y;
    case Rel::kGt:
      return *x > *y;
    case Rel::kNe:
      return *x != *y;
  }
  return false;
}

Constraint operator<=(const Expr& a, const Expr& b) {
  return {a, Constraint::Rel::kLe, b};
}
Constraint operator<(const Expr& a, const Expr& b) {
  return {a, Constraint::Rel::kLt, b};
}
Constraint operator>=(const Expr& a, const Expr& b) {
  return {a, Constraint::Rel::kGe, b};
}
Constraint operator>(const Expr& a, const Expr& b) {
  return {a, Constraint::Rel::kGt, b};
}
Constraint operator==(const Expr& a, const Expr& b) {
  return {a, Constraint::Rel::kEq, b};
}
Constraint operator!=(const Expr& a, const Expr& b) {
  return {a, Constraint::Rel::kNe, b};
}

Expr Problem::var(std::string name, int64_t lo, int64_t hi) {
  vars.push_back({std::move(name), lo, std::max(lo, hi)});
  return Expr::var(static_cast<int>(vars.size()) - 1);
}

namespace {

int64_t draw(const Problem::Var& v, Rng& rng) {
  return std::uniform_int_distribution<int64_t>(v.lo, v.hi)(rng);
}

class OwnSolver final : public Solver {
 public:
  std::optional<std::vector<int64_t>> solve(const Problem& p, Rng& rng) override {
    // Constraints grouped by the last variable they read: checked as soon
    // as that variable is drawn.
    std::vector<std::vector<const Constraint*>> at(p.vars.size() + 1);
    for (const auto& c : p.constraints) {
      const int last = std::max(c.a.last_var(), c.b.last_var());
      at[static_cast<size_t>(last) + 1].push_back(&c);
    }
    std::vector<int64_t> v(p.vars.size(), 0);
    auto ok = [&](size_t slot) {
      return std::all_of(at[slot].begin(), at[slot].end(),
                         [&](const Constraint* c) { return c->holds(v); });
    };
    if (!ok(0)) return std::nullopt;  // constant constraints that fail
    for (int restart = 0; restart < kRestarts; ++restart) {
      size_t i = 0;
      for (; i < p.vars.size(); ++i) {
        bool placed = false;
        for (int t = 0; t < kTries && !placed; ++t) {
          v[i] = draw(p.vars[i], rng);
          placed = ok(i + 1);
        }
        if (!placed) break;
      }
      if (i == p.vars.size()) return v;
    }
    return std::nullopt;
  }
  std::string_view name() const override { return "own"; }

 private:
  static constexpr int kRestarts = 24;
  static constexpr int kTries = 12;
};

#ifdef MUDJACK_WITH_Z3
class Z3Solver final : public Solver {
 public:
  std::optional<std::vector<int64_t>> solve(const Problem& p, Rng& rng) override {
    z3::solver s(ctx_);
    std::vector<z3::expr> vars;
    for (size_t i = 0; i < p.vars.size(); ++i) {
      vars.push_back(ctx_.int_const(("v" + std::to_string(i)).c_str()));
      s.add(vars.back() >= ctx_.int_val(p.vars[i].lo));
      s.add(vars.back() <= ctx_.int_val(p.vars[i].hi));
    }
    for (const auto& c : p.constraints) s.add(convert(c, vars));
    // Every variable asked to take a random value; the assumptions in the
    // unsat core are dropped one at a time.
    std::vector<z3::expr> wish;
    for (size_t i = 0; i < p.vars.size(); ++i) {
      wish.push_back(vars[i] == ctx_.int_val(draw(p.vars[i], rng)));
    }
    while (true) {
      z3::expr_vector assumptions(ctx_);
      for (const auto& w : wish) assumptions.push_back(w);
      const auto r = s.check(assumptions);
      if (r == z3::sat) break;
      if (r != z3::unsat || wish.empty()) return std::nullopt;
      const auto core = s.unsat_core();
      if (core.empty()) return std::nullopt;
      const int pick =
          std::uniform_int_distribution<int>(0, static_cast<int>(core.size()) - 1)(rng);
      const auto drop = core[pick];
      wish.erase(std::remove_if(wish.begin(), wish.end(),
                                [&](const z3::expr& w) { return z3::eq(w, drop); }),
                 wish.end());
    }
    const auto model = s.get_model();
    std::vector<int64_t> v;
    for (const auto& x : vars) v.push_back(model.eval(x, true).get_numeral_int64());
    return v;
  }
  std::string_view name() const override { return "z3"; }

 private:
  z3::expr convert(const Expr& e, const std::vector<z3::expr>& vars) {
    using K = Expr::Kind;
    switch (e.kind()) {
      case K::kConst:
        return ctx_.int_val(e.value());
      case K::kVar:
        return vars[static_cast<size_t>(e.value())];
      case K::kAdd:
        return convert(e.left(), vars) + convert(e.right(), vars);
      case K::kSub:
        return convert(e.left(), vars) - convert(e.right(), vars);
      case K::kMul:
        return convert(e.left(), vars) * convert(e.right(), vars);
      case K::kDiv:
        return convert(e.left(), vars) / convert(e.right(), vars);
      case K::kMod:
        return z3::mod(convert(e.left(), vars), convert(e.right(), vars));
    }
    return ctx_.int_val(0);
  }
  z3::expr convert(const Constraint& c, const std::vector<z3::expr>& vars) {
    const auto a = convert(c.a, vars);
    const auto b = convert(c.b, vars);
    switch (c.rel) {
      case Constraint::Rel::kLe:
        return a <= b;
      case Constraint::Rel::kLt:
        return a < b;
      case Constraint::Rel::kEq:
        return a == b;
      case Constraint::Rel::kGe:
        return a >= b;
      case Constraint::Rel::kGt:
        return a > b;
      case Constraint::Rel::kNe:
        return a != b;
    }
    return a == b;
  }
  z3::context ctx_;
};
#endif

}  // namespace

std::unique_ptr<Solver> make_solver(std::string_view name) {
  if (name == "own") return std::make_unique<OwnSolver>();
#ifdef MUDJACK_WITH_Z3
  if (name == "z3") return std::make_unique<Z3Solver>();
#endif
  return nullptr;
}

}  // namespace mudjack::gen
