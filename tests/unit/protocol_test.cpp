#include "protocol/protocol.hpp"

#include <gtest/gtest.h>

namespace mudjack::protocol {
namespace {

TEST(Protocol, ParsesHelloWithDevices) {
  auto h = parse_hello(
      R"({"type":"hello","protocol":1,"probe_version":"0.1.0","framework":"torch","framework_version":"2.11.0",)"
      R"("python":"3.12.3","executable":"/x/python","pid":42,"unavailable":null,"devices":[)"
      R"({"id":"cpu","kind":"cpu","vendor":"AuthenticAMD","model":"EPYC","memory_bytes":1024,)"
      R"("driver_version":"","runtime_version":"6.1","clocks":{}},)"
      R"({"id":"cuda:0","kind":"cuda","vendor":"NVIDIA","model":"NVIDIA H100 80GB HBM3","memory_bytes":85000000000,)"
      R"("driver_version":"580.1","runtime_version":"13.0","clocks":{"max_sm_mhz":1980}}]})");
  ASSERT_TRUE(h.ok()) << h.error;
  EXPECT_EQ(h.value->framework_version, "2.11.0");
  EXPECT_EQ(h.value->pid, 42);
  ASSERT_EQ(h.value->devices.size(), 2u);
  EXPECT_EQ(h.value->devices[1].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h.value->devices[1].memory_bytes, 85000000000);
  EXPECT_EQ(h.value->devices[1].raw["clocks"]["max_sm_mhz"], 1980);
  EXPECT_TRUE(h.value->unavailable.empty());
}

TEST(Protocol, RejectsAnotherProtocolVersionNamingBoth) {
  auto h = parse_hello(R"({"type":"hello","protocol":2,"devices":[]})");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error, "probe speaks protocol 2, this mudjack speaks protocol 1");
  h = parse_hello(R"({"type":"hello","devices":[]})");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error.find("protocol ?"), std::string::npos);
}

TEST(Protocol, MalformedLinesAreValuesNotExceptions) {
  for (const char* line :
       {"", "garbage", "{\"type\":", "[1,2,3]", "42", "{\"type\":\"hello\"", "\xff\xfe not utf8"}) {
    EXPECT_FALSE(parse_hello(line).ok()) << line;
    EXPECT_FALSE(parse_cases(line).ok()) << line;
    EXPECT_FALSE(parse_result(line, "x").ok()) << line;
  }
  EXPECT_NE(parse_hello("garbage").error.find("not JSON: 'garbage'"), std::string::npos);
  EXPECT_NE(parse_hello(R"({"type":"cases","cases":[]})").error.find("not a hello"),
            std::string::npos);
}

TEST(Protocol, ParsesAResult) {
  auto r = parse_result(
      R"({"type":"result","case":"torch/torch.sum/float32-vec-eager","device":"cpu","status":"pass",)"
      R"("cold_ns":1200,"samples_ns":[10.5,11.0,9.5],"calls_per_sample":100,"warmup_calls":7,)"
      R"("memory":{"peak_device_bytes":null,"peak_host_bytes":4096},)"
      R"("outputs":[{"path":"/a/b.0.npy","dtype":"bfloat16","saved_dtype":"float32","shape":[2,3]}],)"
      R"("output_device":"cpu","checks":[{"name":"sorted","ok":true}]})",
      "torch/torch.sum/float32-vec-eager");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->outcome, model::Outcome::kPass);
  EXPECT_EQ(r.value->latency.cold_ns, 1200);
  EXPECT_EQ(r.value->latency.samples_ns, (std::vector<double>{10.5, 11.0, 9.5}));
  EXPECT_EQ(r.value->latency.calls_per_sample, 100);
  EXPECT_FALSE(r.value->memory.peak_device_bytes.has_value());
  EXPECT_EQ(r.value->memory.peak_host_bytes, 4096);
  ASSERT_EQ(r.value->outputs.size(), 1u);
  EXPECT_EQ(r.value->outputs[0].dtype, "bfloat16");
  EXPECT_EQ(r.value->outputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.value->extra["warmup_calls"], 7);
  EXPECT_EQ(r.value->extra["output_device"], "cpu");
}

// 1.11: whether a compiled case's compile came from the persistent compile
// cache is kept in its extra (results.json's case extra).
TEST(Protocol, KeepsACompilesCacheState) {
  auto r = parse_result(R"({"type":"result","case":"c","device":"cpu","status":"pass","cold_ns":5,)"
                        R"("samples_ns":[1.0],"calls_per_sample":1,"compile_cache":"warm"})",
                        "c");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->extra["compile_cache"], "warm");
}

TEST(Protocol, ClassifiesFailureStatusAndErrorKind) {
  auto r = parse_result(
      R"({"type":"result","case":"c","status":"fail","error":{"kind":"unsupported_dtype","message":"no Half"}})",
      "c");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->outcome, model::Outcome::kFail);
  EXPECT_EQ(r.value->error.kind, model::ErrorKind::kUnsupportedDtype);
  EXPECT_EQ(r.value->error.message, "no Half");
  // An error kind outside the closed list becomes `other`, not a crash.
  r = parse_result(
      R"({"type":"result","case":"c","status":"fail","error":{"kind":"weird","message":"m"}})",
      "c");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value->error.kind, model::ErrorKind::kOther);
}

TEST(Protocol, ProbesCannotClaimEngineOutcomesOrAnswerForAnotherCase) {
  EXPECT_FALSE(parse_result(R"({"type":"result","case":"c","status":"crash"})", "c").ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","case":"c","status":"timeout"})", "c").ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","case":"c","status":"great"})", "c").ok());
  auto other = parse_result(R"({"type":"result","case":"d","status":"pass"})", "c");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error.find("expected 'c'"), std::string::npos);
  EXPECT_FALSE(
      parse_result(R"({"type":"result","case":"c","status":"pass","samples_ns":["x"]})", "c").ok());
  auto refused = parse_result(R"({"type":"error","message":"unknown case 'c'"})", "c");
  EXPECT_NE(refused.error.find("refused"), std::string::npos);
}

TEST(Protocol, AnEngineFaultIsNoOutcomeAndOneLine) {
  // 1.1: the machine failed around the case (outputs could not be saved).
  auto r = parse_result(
      R"({"type":"result","case":"c","device":"cpu","engine_fault":"cannot save outputs: [Errno 30] )"
      R"(Read-only file system\nTraceback (most recent call last): ..."})",
      "c");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->engine_fault, "cannot save outputs: [Errno 30] Read-only file system");
  auto long_fault = parse_result(
      R"({"type":"result","case":"c","engine_fault":")" + std::string(5000, 'x') + R"("})", "c");
  ASSERT_TRUE(long_fault.ok()) << long_fault.error;
  EXPECT_EQ(long_fault.value->engine_fault.size(), kMaxFaultBytes);
  // Still the expected case, and a string.
  EXPECT_FALSE(
      parse_result(R"({"type":"result","case":"d","engine_fault":"disk full"})", "c").ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","case":"c","engine_fault":42})", "c").ok());
  // The older form (1.0: no field, or null) is an ordinary result.
  auto plain =
      parse_result(R"({"type":"result","case":"c","status":"pass","engine_fault":null})", "c");
  ASSERT_TRUE(plain.ok()) << plain.error;
  EXPECT_TRUE(plain.value->engine_fault.empty());
  EXPECT_EQ(plain.value->outcome, model::Outcome::kPass);
}

TEST(Protocol, AcceptsEveryMinorOfVersionOneAndReadsAHelloFault) {
  auto old = parse_hello(R"({"type":"hello","protocol":1,"devices":[]})");
  ASSERT_TRUE(old.ok()) << old.error;
  EXPECT_EQ(old.value->protocol_minor, 0);
  EXPECT_TRUE(old.value->engine_fault.empty());
  auto h = parse_hello(
      R"({"type":"hello","protocol":1,"protocol_minor":7,"devices":[],)"
      R"("unavailable":"numpy could not load","engine_fault":"failed to map segment from shared object"})");
  ASSERT_TRUE(h.ok()) << h.error;
  EXPECT_EQ(h.value->protocol_minor, 7);
  EXPECT_EQ(h.value->engine_fault, "failed to map segment from shared object");
  EXPECT_FALSE(parse_hello(R"({"type":"hello","protocol":1,"engine_fault":[1]})").ok());
}

TEST(Protocol, ReadsTheAcceleratorsAbsentFromAHello) {
  // 1.10: one line per accelerator the build targets that is not here.
  auto h = parse_hello(
      R"({"type":"hello","protocol":1,"protocol_minor":10,"devices":[],)"
      R"("accelerators_absent":["tpu: libtpu 0.0.21 is installed for torch_xla, but no TPU chip",7,)"
      R"("cuda: torch 2.9.0+cu128 is a CUDA 12.8 build, but the NVIDIA driver is not here"]})");
  ASSERT_TRUE(h.ok()) << h.error;
  ASSERT_EQ(h.value->accelerators_absent.size(), 2u) << "a line that is not a string is dropped";
  EXPECT_EQ(h.value->accelerators_absent[0],
            "tpu: libtpu 0.0.21 is installed for torch_xla, but no TPU chip");
  EXPECT_EQ(h.value->accelerators_absent[1].rfind("cuda: ", 0), 0u);
  auto old = parse_hello(R"({"type":"hello","protocol":1,"protocol_minor":9,"devices":[]})");
  ASSERT_TRUE(old.ok()) << old.error;
  EXPECT_TRUE(old.value->accelerators_absent.empty()) << "before 1.10 a hello has none";
}

TEST(Protocol, ParsesCaseMetadata) {
  auto c = parse_cases(
      R"({"type":"cases","cases":[{"id":"jax/jax.lax.all_gather/float32-rows-pmap-eager","framework":"jax",)"
      R"("function":"jax.lax.all_gather","variant":"float32-rows-pmap-eager","dtype":"float32","shape":"rows",)"
      R"("dims":[2,4],"mode":"eager","compiler":"","params":{"form":"pmap"},"requires":{"devices":2},)"
      R"("note":"","rtol":1e-3,"atol":null,"successor":null,"tags":["collective"]}]})");
  ASSERT_TRUE(c.ok()) << c.error;
  ASSERT_EQ(c.value->size(), 1u);
  const auto& info = c.value->front();
  EXPECT_EQ(info.function, "jax.lax.all_gather");
  EXPECT_EQ(info.requires_["devices"], 2);
  EXPECT_EQ(info.rtol, 1e-3);
  EXPECT_FALSE(info.atol.has_value());
  EXPECT_EQ(info.tags, std::vector<std::string>{"collective"});
  auto bad = parse_cases(R"({"type":"cases","cases":[{"id":5}]})");
  EXPECT_FALSE(bad.ok());
  auto err = parse_cases(R"({"type":"error","message":"suite.py: SyntaxError"})");
  EXPECT_EQ(err.error, "suite.py: SyntaxError");
}

TEST(Protocol, RequestsAreSingleLines) {
  Policy p;
  p.budget_ms = 50;
  auto line = run_request("numpy/a/b", "cuda:0", 7, p, "/tmp/with space");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["type"], "run");
  EXPECT_EQ(j["device"], "cuda:0");
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["policy"]["budget_ms"], 50.0);
  EXPECT_EQ(nlohmann::json::parse(list_request("torch"))["framework"], "torch");
  EXPECT_EQ(nlohmann::json::parse(shutdown_request())["type"], "shutdown");
}

TEST(Protocol, TheMinorIsElevenAndEverySideDoorIsARequest) {
  // 1.9: the requests that replaced the engine's side doors into Python;
  // 1.10: repro's bound_eps and minimal, repro_graph's eager and
  // accelerators_absent in hello; 1.11: the slow-call rule in the policy
  // and a result's compile_cache; 1.12 device_wait_ns and phases_ns; 1.13 a
  // result's `again`; 1.14 again's `skipped` (the probe's PROTOCOL_MINOR,
  // tests/python/test_machine_faults.py, holds the same number).
  EXPECT_EQ(kMinorVersion, 14);
  Policy slow;
  slow.slow_call_ms = 500;
  slow.slow_min_samples = 3;
  slow.slow_spread = 0.1;
  auto p = slow.to_json();
  EXPECT_EQ(p["slow_call_ms"], 500.0);
  EXPECT_EQ(p["slow_min_samples"], 3);
  EXPECT_EQ(p["slow_spread"], 0.1);
  GraphScriptRequest g;
  g.graph = "/tmp/a b.json";
  g.backend = "torch-compile";
  g.device = "cuda:0";
  g.seed = 4;
  g.symptom = "slow";
  auto j = nlohmann::json::parse(repro_graph_request(g));
  EXPECT_EQ(j["type"], "repro_graph");
  EXPECT_TRUE(j["bound_eps"].is_null());
  EXPECT_EQ(j["symptom"], "slow");
  g.bound_eps = 8.5;
  EXPECT_EQ(nlohmann::json::parse(repro_graph_request(g))["bound_eps"], 8.5);
  auto r = nlohmann::json::parse(reference_request("/g.json", 3));
  EXPECT_EQ(r["type"], "reference");
  EXPECT_EQ(r["seed"], 3);
  BuildRequest b;
  b.cases = {"torch/x/y"};
  b.jobs = 2;
  auto bj = nlohmann::json::parse(build_request(b));
  EXPECT_EQ(bj["type"], "build");
  EXPECT_EQ(bj["cases"], nlohmann::json::array({"torch/x/y"}));
  EXPECT_EQ(bj["jobs"], 2);
}

TEST(Protocol, BuildLinesReferencesAndTheirErrorsAreValues) {
  auto built = parse_built(
      R"({"type":"built","case":"torch/m/c","status":"timeout","seconds":2.5,"message":"not built"})");
  ASSERT_TRUE(built.ok()) << built.error;
  EXPECT_FALSE(built.value->done);
  EXPECT_EQ(built.value->status, "timeout");
  EXPECT_EQ(built.value->seconds, 2.5);
  auto done = parse_built(R"({"type":"build_done","count":1})");
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done.value->done);
  EXPECT_EQ(parse_built(R"({"type":"error","message":"no framework"})").error, "no framework");
  EXPECT_FALSE(parse_built(R"({"type":"built","case":"x"})").ok());
  EXPECT_FALSE(parse_built("not json").ok());
  auto ref = parse_reference(R"({"type":"reference","graph":"/g.json","outputs":[]})", "/g.json");
  ASSERT_TRUE(ref.ok()) << ref.error;
  EXPECT_FALSE(parse_reference(R"({"type":"reference","graph":"/h.json"})", "/g.json").ok());
  EXPECT_EQ(parse_reference(R"({"type":"error","message":"m"})", "/g.json").error, "m");
}

}  // namespace
}  // namespace mudjack::protocol
