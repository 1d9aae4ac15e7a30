// bench/fuzz/generator: the graph generator alone (src/gen/), per solver:
// valid graphs per second for graphs of N nodes, and the coverage it
// reaches (ops used, distinct attribute values, (rank, dtype) combinations
// per op). Numbers go in closing notes; no CI test reads them.
//
//   build/fuzz_generator [--graphs N] [--nodes K] [--dtypes float32,float16,int32] [--write DIR]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "gen/ops.hpp"
#include "gen/solve.hpp"

namespace {

using mudjack::gen::Coverage;
using mudjack::gen::DType;
using mudjack::gen::Generator;
using mudjack::gen::GenOptions;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int graphs = 20000;
  int nodes = 10;
  std::string dtypes = "float32";
  std::string write;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--graphs")
      graphs = std::atoi(argv[i + 1]);
    else if (flag == "--nodes")
      nodes = std::atoi(argv[i + 1]);
    else if (flag == "--dtypes")
      dtypes = argv[i + 1];
    else if (flag == "--write")
      write = argv[i + 1];
  }
  std::printf("graphs of %d nodes, dtypes %s, %zu ops specified\n", nodes, dtypes.c_str(),
              mudjack::gen::op_specs().size());
  std::printf("%-6s %8s %10s %12s %6s %10s %12s\n", "solver", "graphs", "seconds", "graphs/s",
              "ops", "attr vals", "rank:dtype");
  for (auto solver : mudjack::gen::kSolvers) {
    GenOptions o;
    o.nodes = nodes;
    o.solver = std::string(solver);
    o.dtypes.clear();
    for (const auto& d : split(dtypes)) o.dtypes.push_back(*mudjack::gen::dtype_from(d));
    Generator gen(o);
    std::vector<mudjack::gen::Graph> made;
    made.reserve(static_cast<size_t>(graphs));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < graphs; ++i) made.push_back(gen.generate(i));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Coverage cov;
    for (const auto& g : made) cov.add(g);
    size_t attrs = 0;
    size_t rank_dtype = 0;
    for (const auto& [op, v] : cov.attrs) attrs += v.size();
    for (const auto& [op, v] : cov.rank_dtype) rank_dtype += v.size();
    std::printf("%-6s %8d %10.2f %12.0f %6zu %10zu %12zu\n", std::string(solver).c_str(), graphs, s,
                graphs / s, cov.nodes.size(), attrs, rank_dtype);
    if (!write.empty() && solver == std::string_view("own")) {
      std::filesystem::create_directories(write);
      for (size_t i = 0; i < made.size() && i < 200; ++i) {
        std::ofstream(std::filesystem::path(write) / (mudjack::gen::hash(made[i]) + ".json"))
            << mudjack::gen::to_json(made[i]).dump(1) << "\n";
      }
    }
  }
  return 0;
}
