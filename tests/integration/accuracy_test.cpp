// The accuracy oracle through the real binary and a real numpy probe, on one
// device (tests/fixtures/suites/accuracy): each floating case is judged
// against its own float64 reference, with the error reported in eps.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"

using namespace mjtest;
using nlohmann::json;

namespace {

class Accuracy : public Cli {
 protected:
  std::map<std::string, json> run_cases(json* verdicts, const std::string& suite = "accuracy") {
    auto out = dir_ / "results";
    auto r = mudjack({"run", "--suite-dir", (kFixtures / "suites" / suite).string(), "--out",
                      out.string(), "--budget-ms", "2"});
    EXPECT_EQ(r.code, 0) << r.err;
    terminal_ = r.out;
    std::map<std::string, json> cases;
    auto list = runs(out);
    if (list.empty()) return cases;
    auto doc = json::parse(slurp(out / "runs" / list[0]["id"].get<std::string>() / "results.json"));
    for (const auto& c : doc["cases"])
      cases[c["variant"].get<std::string>() + " " + c["function"].get<std::string>()] = c;
    *verdicts = doc["verdicts"];
    return cases;
  }
  std::string terminal_;
};

TEST_F(Accuracy, OneDeviceIsJudgedAgainstItsFloat64Reference) {
  json verdicts;
  auto cases = run_cases(&verdicts);
  const auto& off = cases["float32-default-eager accuracy.off_by_1e-2"];
  EXPECT_EQ(off["outcome"], "mismatch");
  EXPECT_EQ(off["checked"], "none");
  EXPECT_EQ(off["numeric"]["cause"], "full_precision");
  EXPECT_EQ(off["numeric"]["reference"], "float64 on cpu");
  EXPECT_GT(off["numeric"]["error_eps"].get<double>(), off["numeric"]["bound_eps"].get<double>());
  const auto message = off["error"]["message"].get<std::string>();
  EXPECT_NE(message.find("eps of the float64 reference"), std::string::npos) << message;
  EXPECT_NE(message.find("at [3]"), std::string::npos) << message;
  EXPECT_EQ(off["extra"]["reference"]["outputs"].size(), 1U);

  const auto& nan = cases["float32-default-eager accuracy.nan"];
  EXPECT_EQ(nan["outcome"], "mismatch");
  EXPECT_EQ(nan["numeric"]["error_eps"], "inf");

  for (const char* ok :
       {"float16-default-eager accuracy.right", "float32-default-eager accuracy.right",
        "float16-default-eager accuracy.float16_overflow"}) {
    EXPECT_EQ(cases[ok]["outcome"], "pass") << ok << ": " << cases[ok]["numeric"]["message"];
    EXPECT_LT(cases[ok]["numeric"]["error_eps"].get<double>(), 16) << ok;
  }
  const auto& integer = cases["int64-default-eager accuracy.int"];
  EXPECT_EQ(integer["outcome"], "pass");
  EXPECT_EQ(integer["numeric"]["reference"], "");  // integers need no float64 reference
  EXPECT_FALSE(integer["extra"].contains("reference"));

  for (const auto& v : verdicts) {
    if (v["function"] == "accuracy.off_by_1e-2") {
      EXPECT_EQ(v["verdict"], "divergent");
      EXPECT_EQ(v["causes"]["full_precision"], 1);
      EXPECT_EQ(v["cause"], "full_precision");
    }
  }
  EXPECT_NE(terminal_.find("divergent functions by cause"), std::string::npos) << terminal_;
}

// A function whose answer changes call to call is not wrong in its numbers:
// its second call on the same inputs says so (protocol 1.13 `again`).
TEST_F(Accuracy, AStatefulFunctionIsNondeterministicNotAMismatch) {
  json verdicts;
  auto cases = run_cases(&verdicts, "stateful");
  const auto& counter = cases["float32-default-eager stateful.counter"];
  EXPECT_EQ(counter["outcome"], "fail") << counter.dump();
  EXPECT_EQ(counter["error"]["kind"], "nondeterministic");
  const auto message = counter["error"]["message"].get<std::string>();
  EXPECT_EQ(message.rfind("not deterministic: a second call on the same inputs differs", 0), 0u)
      << message;
  EXPECT_EQ(counter["extra"]["again"]["outputs"].size(), 1U);
  const auto& steady = cases["float32-default-eager stateful.steady"];
  EXPECT_EQ(steady["outcome"], "pass") << steady.dump();
  EXPECT_EQ(steady["extra"]["again"]["identical"], true);
  for (const auto& v : verdicts) {
    if (v["function"] == "stateful.counter") {
      EXPECT_NE(v["verdict"], "portable") << v.dump();
    }
  }
}

TEST_F(Accuracy, ListingCarriesReductionExcusesAndGrid) {
  auto r = mudjack({"list", "--suite-dir", (kFixtures / "suites" / "accuracy").string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto list = json::parse(r.out);
  ASSERT_FALSE(list.empty());
  EXPECT_TRUE(list[0].contains("reduction"));
  EXPECT_TRUE(list[0]["excused"].is_object());
  EXPECT_EQ(list[0]["grid"], false);
}

}  // namespace
