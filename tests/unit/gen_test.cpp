// The graph generator (src/gen/): every graph it writes passes the rules,
// the same seed gives the same graph, both solvers satisfy the constraints,
// malformed graphs are refused with one line, and the reducer shrinks a
// finding to the op that shows it.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "gen/generator.hpp"
#include "gen/ops.hpp"
#include "gen/reduce.hpp"
#include "gen/solve.hpp"
#include "util/error.hpp"

namespace mudjack::gen {
namespace {

using nlohmann::json;

TEST(GenOps, AtLeastFortyOpsEachWithAnInferRule) {
  EXPECT_GE(op_specs().size(), 40U);
  for (const auto& s : op_specs()) {
    // every op refuses an empty input list with a reason, not a crash
    auto t = infer(s.name, {}, json::object());
    EXPECT_TRUE(std::holds_alternative<std::string>(t)) << s.name;
  }
}

// The graph schema names its ops by reference to schemas/vocabulary.json,
// which the engine writes (CTest `vocabulary` holds that file).
TEST(GenOps, TheSchemaNamesEveryOp) {
  const auto read = [](const std::string& name) {
    std::ifstream in(std::string(MUDJACK_SOURCE_DIR) + "/schemas/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
  };
  const auto schema = read("fuzz-graph-v1.schema.json");
  EXPECT_EQ(schema["properties"]["nodes"]["items"]["properties"]["op"]["$ref"],
            "vocabulary.json#/$defs/fuzz_op");
  auto listed = read("vocabulary.json")["$defs"]["fuzz_op"]["enum"].get<std::vector<std::string>>();
  auto known = op_names();
  std::sort(listed.begin(), listed.end());
  std::sort(known.begin(), known.end());
  EXPECT_EQ(listed, known);
}

TEST(GenOps, ConvShapeAndDomain) {
  const std::vector<Type> in = {
      {{1, 4, 8, 8}, DType::kFloat32}, {{6, 2, 3, 3}, DType::kFloat32}, {{6}, DType::kFloat32}};
  json a = {{"stride", {2, 1}}, {"padding", {1, 0}}, {"dilation", {1, 2}}, {"groups", 2}};
  auto t = infer("conv2d", in, a);
  ASSERT_TRUE(std::holds_alternative<Type>(t)) << std::get<std::string>(t);
  EXPECT_EQ(std::get<Type>(t).shape, (Shape{1, 6, 4, 4}));
  a["groups"] = 3;  // 4 channels do not split in 3
  EXPECT_TRUE(std::holds_alternative<std::string>(infer("conv2d", in, a)));
  EXPECT_TRUE(domain_fault("log", {{0.0, 1.0}}).has_value());
  EXPECT_FALSE(domain_fault("log", {{0.5, 2.0}}).has_value());
  EXPECT_TRUE(domain_fault("div", {{-1, 1}, {-1, 1}}).has_value());
}

TEST(GenSolve, BothSolversSatisfyTheConstraints) {
  for (auto name : kSolvers) {
    auto solver = make_solver(name);
    ASSERT_NE(solver, nullptr);
    Rng rng(7);
    std::set<int64_t> seen;
    for (int i = 0; i < 50; ++i) {
      Problem p;
      auto k = p.var("k", 1, 7);
      auto s = p.var("s", 1, 3);
      auto pad = p.var("p", 0, 3);
      p.require(Expr(2) * pad <= k);
      p.require(Expr(9) + Expr(2) * pad - k >= Expr(0));
      p.require((Expr(9) + Expr(2) * pad - k) / s + Expr(1) <= Expr(4));
      auto v = solver->solve(p, rng);
      ASSERT_TRUE(v.has_value()) << name;
      for (const auto& c : p.constraints) EXPECT_TRUE(c.holds(*v)) << name;
      seen.insert((*v)[0]);
    }
    EXPECT_GE(seen.size(), 3U) << name << ": draws must vary";
    Problem impossible;
    auto x = impossible.var("x", 1, 3);
    impossible.require(x > Expr(5));
    EXPECT_FALSE(solver->solve(impossible, rng).has_value()) << name;
  }
}

TEST(GenGenerator, GraphsCheckAndAreDeterministic) {
  for (auto solver : kSolvers) {
    GenOptions o;
    o.solver = std::string(solver);
    o.dtypes = {DType::kFloat32, DType::kFloat16, DType::kInt32};
    Generator a(o);
    Generator b(o);
    Coverage cov;
    for (int64_t seed = 0; seed < 150; ++seed) {
      Graph g = a.generate(seed);
      Graph copy = g;
      ASSERT_FALSE(check(copy).has_value()) << *check(copy);
      EXPECT_EQ(g.nodes.size(), 10U);
      cov.add(g);
      // the same options and seed give the same graph
      EXPECT_EQ(to_json(g), to_json(b.generate(seed))) << seed;
    }
    EXPECT_GE(cov.nodes.size(), 40U) << solver << ": ops used in 150 graphs";
  }
}

// The generator never builds a floating value whose whole interval is 0 or
// below its dtype's smallest normal (docs/fuzz.md, "Suspects"): ops that
// shrink and underflow (exp of negated squares, relu of non-positives,
// products) in float16, where the floor is nearest.
TEST(GenGenerator, NoValueOnlyZeroOrSubnormal) {
  GenOptions o;
  o.dtypes = {DType::kFloat16, DType::kFloat32};
  o.ops = {"exp", "neg", "square", "mul", "relu", "minimum", "sigmoid", "reduce_mean"};
  Generator gen(o);
  int checked = 0;
  for (int64_t seed = 0; seed < 300; ++seed) {
    Graph g = gen.generate(seed);
    Values values;
    ASSERT_FALSE(check(g, &values).has_value());
    for (const auto& n : g.nodes) {
      const auto& v = values.at(n.name);
      if (!is_float(v.dtype)) continue;
      ++checked;
      EXPECT_GE(std::max(std::abs(v.range.lo), std::abs(v.range.hi)), smallest_normal(v.dtype))
          << n.name << " (" << n.op << ") of graph " << seed << ": " << to_json(g).dump();
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_EQ(smallest_normal(DType::kFloat16), 0x1p-14);
  EXPECT_EQ(smallest_normal(DType::kInt32), 0);
}

TEST(GenGraph, JsonRoundTripAndHash) {
  Generator gen(GenOptions{});
  Graph g = gen.generate(3);
  Graph back = from_json(json::parse(to_json(g).dump()));
  EXPECT_FALSE(check(back).has_value());
  EXPECT_EQ(hash(g), hash(back));
  EXPECT_EQ(hash(g).size(), 16U);
  back.seed = 99;  // the seed is not part of the hash
  EXPECT_EQ(hash(g), hash(back));
}

TEST(GenGraph, MalformedGraphsAreOneLine) {
  json base = {
      {"format", "mudjack.graph/1"},
      {"dtype", "float32"},
      {"inputs",
       {{{"name", "x0"}, {"shape", {2, 3}}, {"dtype", "float32"}, {"low", -1}, {"high", 1}}}},
      {"nodes",
       {{{"name", "v0"},
         {"op", "relu"},
         {"inputs", {"x0"}},
         {"shape", {2, 3}},
         {"dtype", "float32"}}}},
      {"outputs", {"v0"}}};
  Graph ok = from_json(base);
  EXPECT_FALSE(check(ok).has_value());

  auto fault = [](json j) -> std::string {
    try {
      Graph g = from_json(j);
      auto why = check(g);
      return why ? *why : "";
    } catch (const GraphError& e) {
      return e.what();
    }
  };
  json j = base;
  j["format"] = "onnx";
  EXPECT_NE(fault(j).find("format"), std::string::npos);
  j = base;
  j["nodes"][0]["op"] = "frobnicate";
  EXPECT_NE(fault(j).find("unknown op 'frobnicate'"), std::string::npos);
  j = base;
  j["nodes"][0]["shape"] = {3, 2};
  EXPECT_NE(fault(j).find("declares [3, 2]"), std::string::npos);
  j = base;
  j["nodes"][0]["inputs"] = {"x9"};
  EXPECT_NE(fault(j).find("'x9' is not defined"), std::string::npos);
  j = base;
  j["nodes"][0]["op"] = "log";  // x0 in [-1, 1]
  EXPECT_NE(fault(j).find("log needs x >= 0.1"), std::string::npos);
  j = base;
  j["inputs"][0]["shape"] = {0};
  EXPECT_NE(fault(j).find("shape dims"), std::string::npos);
  j = base;
  j.erase("outputs");
  EXPECT_NE(fault(j).find("missing 'outputs'"), std::string::npos);
}

TEST(GenReduce, ShrinksToTheOpThatShowsIt) {
  GenOptions o;
  o.nodes = 12;
  Generator gen(o);
  // a graph that has a softmax somewhere
  Graph g;
  for (int64_t seed = 0;; ++seed) {
    g = gen.generate(seed);
    const auto ops = ops_of(g);
    if (std::find(ops.begin(), ops.end(), "softmax") != ops.end()) break;
    ASSERT_LT(seed, 500);
  }
  ReduceStats st;
  const StillShows has_softmax = [](const std::vector<Graph>& cands) {
    std::vector<bool> out;
    for (const auto& c : cands) {
      const auto ops = ops_of(c);
      out.push_back(std::find(ops.begin(), ops.end(), "softmax") != ops.end());
    }
    return out;
  };
  Graph r = reduce(g, has_softmax, &st);
  EXPECT_EQ(r.nodes.size(), 1U);
  EXPECT_EQ(r.nodes[0].op, "softmax");
  EXPECT_FALSE(check(r).has_value());
  EXPECT_EQ(st.nodes_before, 12U);
  EXPECT_GT(st.batches, 0);
}

TEST(GenReduce, SubgraphTurnsDroppedProducersIntoInputs) {
  Generator gen(GenOptions{});
  Graph g = gen.generate(11);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto s = subgraph(g, {i});
    ASSERT_TRUE(s.has_value()) << i;
    EXPECT_EQ(s->nodes.size(), 1U);
    EXPECT_EQ(s->outputs, std::vector<std::string>{g.nodes[i].name});
  }
  EXPECT_FALSE(subgraph(g, {}).has_value());
}

TEST(GenGenerator, InvalidOptionsAreNamed) {
  GenOptions o;
  o.ops = {"conv3d"};
  EXPECT_NE(invalid(o)->find("unknown op 'conv3d'"), std::string::npos);
  o = {};
  o.solver = "cvc5";
  EXPECT_NE(invalid(o)->find("unknown solver"), std::string::npos);
  o = {};
  o.nodes = 0;
  EXPECT_TRUE(invalid(o).has_value());
}

}  // namespace
}  // namespace mudjack::gen
