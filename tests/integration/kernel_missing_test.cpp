// A kernel refused on the second device only (docs/design.md, "domain vs
// device gap"): a two-device run, cpu and cuda:0, as results.json stores
// it, re-judged by the real binary's `mudjack report` into every view. The
// cuda:0 refusal names its kernel ("_thnn_fused_lstm_cell_cuda"): a failure
// there, kernel_missing, none on cpu, and the gap listed; a domain refusal
// (grad on integers) on both is unsupported on both, never a gap.

#include "harness.hpp"

namespace mjtest {
namespace {

json case_of(const std::string& dtype, const std::string& device, const std::string& message) {
  const bool pass = message.empty();
  json c = {
      {"id", "torch/torch.nn.LSTMCell/" + dtype + "-small-eager"},
      {"framework", "torch"},
      {"function", "torch.nn.LSTMCell"},
      {"variant", dtype + "-small-eager"},
      {"device", device},
      {"dtype", dtype},
      {"shape", "small"},
      {"mode", "eager"},
      {"grid", dtype != "float32"},
      {"outcome", pass ? "pass" : "fail"},
      {"error", pass ? json(nullptr) : json{{"kind", "unsupported_dtype"}, {"message", message}}},
      {"latency", {{"median_ns", 100.0}, {"n", 1}, {"samples_ns", {100.0}}}},
      {"extra", json::object()}};
  if (pass) {
    c["extra"]["checks"] = json::array({{{"name", "ref"}, {"kind", "reference"}, {"ok", true}}});
  }
  return c;
}

// cpu and cuda:0; `reached_complex` false: the cpu lane never reached the
// complex64 case (an incomplete run).
json two_devices(bool reached_complex = true) {
  const std::string lstm = R"(NotImplementedError: "_thnn_fused_lstm_cell_cuda" )"
                           R"(not implemented for 'ComplexFloat')";
  const std::string grad =
      "RuntimeError: Only Tensors of floating point and complex dtype can "
      "require gradients";
  json cases = json::array();
  for (const std::string device : {"cpu", "cuda:0"}) {
    cases.push_back(case_of("float32", device, ""));
    if (device == "cuda:0" || reached_complex) {
      cases.push_back(case_of("complex64", device, device == "cpu" ? "" : lstm));
    }
    cases.push_back(case_of("int8", device, grad));
  }
  return {{"schema_version", "1.9"},
          {"run",
           {{"id", "two"},
            {"suite", "paper"},
            {"state", "complete"},
            {"created_at", ""},
            {"finished_at", ""},
            {"baseline", "cpu"},
            {"options", json::object()}}},
          {"environment", json::object()},
          {"cases", cases},
          {"verdicts", json::array()},
          {"counts", json::object()}};
}

class KernelMissing : public Cli {
 protected:
  fs::path write(const json& doc) {
    auto path = dir_ / "results.json";
    std::ofstream(path) << doc.dump();
    return path;
  }
  Result report(const fs::path& file, const std::string& format) {
    return mudjack({"report", file.string(), "--format", format});
  }
};

const json& row(const json& doc, const std::string& device) {
  for (const auto& v : doc["verdicts"]) {
    if (v["device"] == device) return v;
  }
  throw std::runtime_error("no verdict row on " + device);
}

TEST_F(KernelMissing, AKernelRefusedOnTheSecondDeviceIsAFailureThereOnlyInEveryView) {
  const auto file = write(two_devices());
  auto r = report(file, "json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], "1.13");
  const auto& cpu = row(doc, "cpu");
  const auto& cuda = row(doc, "cuda:0");
  EXPECT_EQ(cpu["verdict"], "portable") << cpu["reason"];
  EXPECT_TRUE(cpu["kernel_missing"].empty());
  ASSERT_EQ(cpu["unsupported"].size(), 1U);
  EXPECT_EQ(cpu["unsupported"][0]["dtype"], "int8");
  EXPECT_EQ(cpu["unsupported"][0]["source"], "message");
  EXPECT_EQ(cuda["verdict"], "partial_failure") << cuda["reason"];
  ASSERT_EQ(cuda["kernel_missing"].size(), 1U);
  EXPECT_EQ(cuda["kernel_missing"][0]["dtype"], "complex64");
  EXPECT_EQ(cuda["kernel_missing"][0]["documented"], false);
  EXPECT_EQ(cuda["failing"], json::array({"torch/torch.nn.LSTMCell/complex64-small-eager"}));
  ASSERT_EQ(doc["portability_gaps"].size(), 1U);
  EXPECT_EQ(doc["portability_gaps"][0]["device"], "cuda:0");
  EXPECT_EQ(doc["portability_gaps"][0]["what"], "kernel_missing");
  EXPECT_TRUE(doc["gaps_unreached"].empty());
  int refused = 0;
  for (const auto& c : doc["cases"]) {
    if (c["refusal"].is_null()) continue;
    ++refused;
    EXPECT_EQ(c["refusal"]["refusal"],
              c["dtype"] == "complex64" ? "kernel_missing" : "unsupported");
  }
  EXPECT_EQ(refused, 3);

  r = report(file, "csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cuda:0,complex64,small,eager,fail,unsupported_dtype"), std::string::npos);
  EXPECT_NE(r.out.find(",kernel_missing,message,false\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",unsupported,message,false\r\n"), std::string::npos) << r.out;
  for (const std::string format : {"md", "html"}) {
    r = report(file, format);
    ASSERT_EQ(r.code, 0) << r.err;
    // summary.md escapes its underscores.
    const bool md = format == "md";
    EXPECT_NE(r.out.find(md ? R"(kernel\_missing x1)" : "kernel_missing x1"), std::string::npos)
        << format;
    EXPECT_NE(r.out.find(md ? R"(\_thnn\_fused\_lstm\_cell\_cuda)" : "_thnn_fused_lstm_cell_cuda"),
              std::string::npos)
        << format;
  }
}

TEST_F(KernelMissing, ACaseTheOtherLaneNeverReachedSaysSoInsteadOfAnEmptyGapTable) {
  const auto file = write(two_devices(false));
  auto r = report(file, "json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_TRUE(doc["portability_gaps"].empty());
  ASSERT_EQ(doc["gaps_unreached"].size(), 1U);
  EXPECT_EQ(doc["gaps_unreached"][0]["device"], "cuda:0");
  EXPECT_EQ(doc["gaps_unreached"][0]["other"], "cpu");
  EXPECT_EQ(doc["gaps_unreached"][0]["cases"], 1);
  r = report(file, "md");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("that `cpu` never ran"), std::string::npos) << r.out;
}

TEST_F(KernelMissing, ClaimsThatAreNotBooleansSayNothingAndAreNoError) {
  auto doc = two_devices();
  for (auto& c : doc["cases"]) {
    c["claims"] = {{"cpu", "yes"}, {"cuda", 1}};
    c["extra"]["kernels"] = "garbage";
  }
  auto r = report(write(doc), "json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(row(json::parse(r.out), "cuda:0")["verdict"], "partial_failure");
}

}  // namespace
}  // namespace mjtest
