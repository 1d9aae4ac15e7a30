// Integration test of the capability suite end to end: the real binary, the
// real NumPy probe (scripts/install.sh's numpy environment, with SciPy), run
// parameters from the command line and from mudjack.toml, and the work,
// throughput and metrics that must land in results.json, results.csv and
// summary.md.

#include "harness.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace mjtest;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class Capability : public Cli {
 protected:
  // Runs the binary; returns (exit code, stderr).
  std::pair<int, std::string> run_cli(const std::vector<std::string>& args) {
    auto r = mudjack(args);
    return {r.code, r.err};
  }

  fs::path only_run(const fs::path& out) {
    std::vector<fs::path> runs;
    for (const auto& e : fs::directory_iterator(out / "runs")) runs.push_back(e.path());
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? fs::path() : runs[0];
  }
};

TEST_F(Capability, ParamsShapeTheRunAndWorkAndMetricsLandInEveryView) {
  auto out = dir_ / "results";
  // [params] in mudjack.toml, overridden by --param for matrix_size.
  std::ofstream(dir_ / "mudjack.toml") << "[params]\nmatrix_size = 512\nscipy_points = 40\n";
  auto [code, err] =
      run_cli({"run", "--suite", "capability", "--framework", "numpy", "--config",
               (dir_ / "mudjack.toml").string(), "--param", "matrix_size=48,64", "--param",
               "jit_size=1000", "--out", out.string(), "--budget-ms", "5", "--min-samples", "2"});
  ASSERT_EQ(code, 0) << err;
  auto run = only_run(out);
  auto results = json::parse(slurp(run / "results.json"));
  EXPECT_EQ(results["schema_version"], "1.13");
  EXPECT_EQ(results["run"]["options"]["params"],
            (json{{"matrix_size", "48,64"}, {"jit_size", "1000"}, {"scipy_points", "40"}}));

  std::map<std::string, json> cases;
  for (const auto& c : results["cases"]) cases[c["id"].get<std::string>()] = c;
  std::vector<std::string> ids;
  for (const auto& [id, c] : cases) ids.push_back(id);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "numpy/jit/float32-1000-eager", "numpy/scipy/float64-n40-eager",
                     "numpy/xla/float32-n48-eager", "numpy/xla/float32-n64-eager"}));
  for (const auto& [id, c] : cases) EXPECT_EQ(c["outcome"], "pass") << id << ": " << c["error"];

  const json& xla = cases["numpy/xla/float32-n64-eager"];
  EXPECT_EQ(xla["dims"], json::array({64, 64}));
  EXPECT_EQ(xla["work"], (json{{"amount", 2.0 * 64 * 64 * 64}, {"unit", "FLOP"}}));
  EXPECT_EQ(xla["throughput"]["unit"], "FLOP/s");
  EXPECT_DOUBLE_EQ(xla["throughput"]["per_s"].get<double>(),
                   2.0 * 64 * 64 * 64 / (xla["latency"]["median_ns"].get<double>() * 1e-9));
  EXPECT_EQ(cases["numpy/jit/float32-1000-eager"]["work"]["unit"], "element");

  const json& fit = cases["numpy/scipy/float64-n40-eager"];
  EXPECT_TRUE(fit["work"].is_null());
  EXPECT_TRUE(fit["throughput"].is_null());
  EXPECT_NEAR(fit["metrics"]["gain"]["value"].get<double>(), 1.5, 0.05);
  EXPECT_NEAR(fit["metrics"]["offset"]["value"].get<double>(), 3.0, 0.2);
  EXPECT_GT(fit["metrics"]["iterations"]["value"].get<double>(), 0);
  EXPECT_GT(fit["metrics"]["function_evals"]["value"].get<double>(),
            fit["metrics"]["gradient_evals"]["value"].get<double>());

  auto csv = slurp(run / "results.csv");
  EXPECT_NE(csv.find("throughput_per_s,throughput_unit,metrics,params"), std::string::npos);
  EXPECT_NE(csv.find(",FLOP,"), std::string::npos);
  auto md = slurp(run / "summary.md");
  EXPECT_NE(md.find("## Workloads"), std::string::npos);
  EXPECT_NE(md.find("| numpy | cpu | float32-n64-eager | pass |"), std::string::npos) << md;
  EXPECT_NE(md.find("FLOP/s |"), std::string::npos);
  EXPECT_NE(md.find("iterations="), std::string::npos);
}

TEST_F(Capability, BadParamsGetOneClearLineAndExitTwo) {
  auto out = (dir_ / "results").string();
  auto [code, err] = run_cli({"run", "--suite", "capability", "--framework", "numpy", "--param",
                              "matrx_size=64", "--out", out});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("mudjack: error: no selected suite reads --param 'matrx_size'; they read: "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("matrix_size (list[int])"), std::string::npos) << err;
  std::tie(code, err) = run_cli({"run", "--suite", "capability", "--framework", "numpy", "--param",
                                 "matrix_size=big", "--out", out});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("param matrix_size='big': expected an integer"), std::string::npos) << err;
  std::tie(code, err) = run_cli({"list", "--suite", "capability", "--param", "matrix_size"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("expected NAME=VALUE"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_ / "results" / "runs")) << "nothing ran";
}

}  // namespace
