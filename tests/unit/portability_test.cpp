// Unit tests for portability weighted by use (src/portability, docs/
// portability.md): aten ops mapped to OpInfo entries, an op's status from
// pooled cases, and the whole join on the fixture corpus and surface
// (tests/fixtures/portability/make.py says what they hold), whose numbers
// studies/portability/portability.py prints too.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "portability/join.hpp"
#include "portability/render.hpp"
#include "report/json.hpp"
#include "util/error.hpp"

namespace mudjack {
namespace {

using portability::Actual;
using portability::Prediction;
using portability::Status;

const std::string kDir = std::string(MUDJACK_FIXTURES) + "/portability/";

portability::Manifest fixture_manifest() {
  return portability::load_manifest(kDir + "manifest.json");
}

portability::Portability fixture_join() {
  portability::Inputs in;
  in.manifest = fixture_manifest();
  for (const char* name : {"corpus.json", "corpus-rerun.json"}) {
    in.corpus_origins.emplace_back(name);
    in.corpus.push_back(report::load_json(kDir + name).cases);
  }
  auto surface = report::load_json(kDir + "surface.json");
  in.surface_origin = "surface.json";
  in.surface_run = surface.run.id;
  in.surface = std::move(surface.cases);
  return portability::join(in);
}

const portability::DeviceView& view(const portability::Portability& p, const std::string& device,
                                    const std::string& dtype = "float32") {
  const auto it = std::find_if(
      p.views.begin(), p.views.end(),
      [&](const portability::DeviceView& v) { return v.device == device && v.dtype == dtype; });
  if (it == p.views.end()) std::abort();  // the fixture has cpu and cuda:0, float16 and float32
  return *it;
}

int64_t calls(const portability::DeviceView& v, Status s) {
  return v.calls_by_status[static_cast<size_t>(s)];
}

int confusion(const portability::DeviceView& v, Prediction p, Actual a) {
  return v.confusion[static_cast<size_t>(p)][static_cast<size_t>(a)];
}

std::vector<std::string> ops_of(const std::vector<portability::OpRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.op);
  return out;
}

TEST(PortabilityMapper, EachRuleInOrderAndInPlaceOpsByTheirFunctionalName) {
  const portability::Mapper m(fixture_manifest().entries);
  // The table of internal ops: convolution is what conv2d dispatches (the
  // table's other convolutions are not in this manifest, so not named).
  EXPECT_EQ(m.map("aten.convolution").functions, std::vector<std::string>{"nn.functional.conv2d"});
  EXPECT_EQ(m.map("aten.convolution").how, "table");
  EXPECT_EQ(m.map("aten._softmax").functions, std::vector<std::string>{"softmax"});
  // aten_name, every variant of the entry.
  EXPECT_EQ(m.map("aten.var").functions, (std::vector<std::string>{"var", "var.unbiased"}));
  EXPECT_EQ(m.map("aten.var").how, "aten_name");
  EXPECT_EQ(m.map("aten.relu").functions, std::vector<std::string>{"nn.functional.relu"});
  // An alias names the op.
  EXPECT_EQ(m.map("aten.special.softmax").how, "alias");
  // The dotted name's last part, where no aten_name says it.
  EXPECT_EQ(m.map("aten.silu").functions, std::vector<std::string>{"nn.functional.silu"});
  EXPECT_EQ(m.map("aten.silu").how, "name");
  // In place: the functional op's entries.
  EXPECT_EQ(m.map("aten.relu_").functions, std::vector<std::string>{"nn.functional.relu"});
  EXPECT_EQ(m.map("aten.relu_").how, "inplace+aten_name");
  // Unmapped: no entry, a dunder, another namespace, a table row whose
  // entries the manifest lacks.
  EXPECT_TRUE(m.map("aten.lift_fresh").functions.empty());
  EXPECT_EQ(m.map("aten.lift_fresh").how, "");
  EXPECT_TRUE(m.map("aten.add__").functions.empty());
  EXPECT_TRUE(m.map("prims.add").functions.empty());
  EXPECT_TRUE(m.map("aten.native_group_norm").functions.empty());
}

TEST(PortabilityMapper, TheTableNamesInternalOpsOnceEach) {
  std::vector<std::string> ops;
  for (const auto& d : portability::dispatched_by()) {
    ops.emplace_back(d.op);
    EXPECT_FALSE(d.functions.empty()) << d.op;
    EXPECT_FALSE(d.op.starts_with("aten.")) << d.op;
  }
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_EQ(std::adjacent_find(ops.begin(), ops.end()), ops.end());
}

TEST(PortabilityStatus, PooledCasesReadFirstRuleThatApplies) {
  using portability::Evidence;
  using portability::status_of;
  EXPECT_EQ(status_of(Evidence{}).status, Status::kUnverified);
  EXPECT_EQ(status_of(Evidence{}).why, "no case attempted");
  EXPECT_EQ(status_of(Evidence{0, 0, 0, 3}).why,
            "outside the domain: 3 cases refused as unsupported");
  EXPECT_EQ(status_of(Evidence{2, 2, 0, 0}).status, Status::kFailing);
  EXPECT_EQ(status_of(Evidence{4, 1, 3, 0}).status, Status::kPartial);  // a failure outranks
  EXPECT_EQ(status_of(Evidence{4, 1, 3, 0}).why, "1 of 4 cases failed");
  EXPECT_EQ(status_of(Evidence{4, 0, 1, 0}).status, Status::kUnverified);
  EXPECT_EQ(status_of(Evidence{4, 0, 0, 2}).status, Status::kPortable);
}

TEST(PortabilityManifest, AManifestWithoutAtenNamesIsRefusedWithTheFix) {
  const auto old =
      nlohmann::json::parse(R"({"torch": "2.11", "ops": [{"name": "add", "variant": ""}]})");
  try {
    portability::manifest_from_json(old, "old.json");
    FAIL() << "no FatalError";
  } catch (const util::FatalError& e) {
    EXPECT_NE(std::string(e.what()).find("--names-only"), std::string::npos) << e.what();
  }
  EXPECT_THROW(portability::manifest_from_json(nlohmann::json::array(), "x.json"),
               util::FatalError);
}

TEST(PortabilityJoin, TheFixtureCorpusOnCpu) {
  const auto p = fixture_join();
  EXPECT_EQ(p.models, 4);  // broken has no histogram; mlp is a check's model
  EXPECT_EQ(p.blind.at(model::Outcome::kFail), 1);
  EXPECT_EQ(p.calls, 33);
  EXPECT_EQ(p.ops.size(), 11u);
  EXPECT_EQ(p.unmapped_calls(), 1);
  EXPECT_EQ(p.torch, "2.11.0+fixture");
  ASSERT_EQ(p.views.size(), 4u);  // (cpu, cuda:0) x (float16, float32)
  EXPECT_EQ(p.views[0].device, "cpu");
  EXPECT_EQ(p.views[0].dtype, "float16");
  const auto& cpu = view(p, "cpu");
  EXPECT_EQ(cpu.models, 3);
  EXPECT_EQ(cpu.calls, 30);
  EXPECT_EQ(calls(cpu, Status::kPortable), 24);
  EXPECT_EQ(calls(cpu, Status::kPartial), 1);
  EXPECT_EQ(calls(cpu, Status::kFailing), 0);
  EXPECT_EQ(calls(cpu, Status::kUnverified), 4);
  EXPECT_EQ(calls(cpu, Status::kUnmapped), 1);
  EXPECT_DOUBLE_EQ(cpu.share(Status::kPortable), 0.8);
  EXPECT_EQ(ops_of(cpu.top), std::vector<std::string>{"aten.var"});
  EXPECT_DOUBLE_EQ(cpu.top[0].failing_calls, 0.5);
  EXPECT_EQ(ops_of(cpu.unknown), (std::vector<std::string>{"aten._softmax", "aten.bitwise_not",
                                                           "aten.empty", "aten.lift_fresh"}));
  // tiny-attn: at risk (var), and the rerun's mismatch is its outcome.
  EXPECT_EQ(confusion(cpu, Prediction::kRisk, Actual::kNotFine), 1);
  EXPECT_EQ(confusion(cpu, Prediction::kFine, Actual::kFine), 1);     // tiny-cnn
  EXPECT_EQ(confusion(cpu, Prediction::kUnknown, Actual::kFine), 1);  // tiny-mlp
  ASSERT_EQ(cpu.verdicts.size(), 3u);
  EXPECT_EQ(cpu.verdicts[0].model, "tiny-attn");
  EXPECT_EQ(cpu.verdicts[0].failing_ops, std::vector<std::string>{"aten.var"});
  ASSERT_TRUE(cpu.verdicts[0].outcome.has_value());
  EXPECT_TRUE(*cpu.verdicts[0].outcome == model::Outcome::kMismatch);
}

TEST(PortabilityJoin, TheFixtureCorpusOnCudaWeighsTheHistogramRecordedThere) {
  const auto p = fixture_join();
  const auto& cuda = view(p, "cuda:0");
  // tiny-cnn's cuda:0 histogram (convolution 4, relu 4) replaces its cpu
  // one (11 calls) there: 13 + 8 + 6.
  EXPECT_EQ(cuda.calls, 27);
  EXPECT_EQ(calls(cuda, Status::kPortable), 6);
  EXPECT_EQ(calls(cuda, Status::kPartial), 4);
  EXPECT_EQ(calls(cuda, Status::kFailing), 4);
  EXPECT_EQ(calls(cuda, Status::kUnverified), 12);  // addmm has no float32 case here
  EXPECT_EQ(calls(cuda, Status::kUnmapped), 1);
  EXPECT_EQ(ops_of(cuda.top), (std::vector<std::string>{"aten.relu", "aten.convolution"}));
  EXPECT_EQ(confusion(cuda, Prediction::kFail, Actual::kNotFine), 1);  // tiny-cnn
  EXPECT_EQ(confusion(cuda, Prediction::kUnknown, Actual::kNotRun), 2);
  const auto addmm = std::find_if(cuda.ops.begin(), cuda.ops.end(),
                                  [](const portability::OpRow& r) { return r.op == "aten.addmm"; });
  ASSERT_NE(addmm, cuda.ops.end());
  EXPECT_EQ(addmm->status.why, "no case attempted");
}

TEST(PortabilityJoin, AModelIsJudgedAtItsOwnDtype) {
  const auto p = fixture_join();
  // mlp (float16): no float16 case on cpu; on cuda:0 addmm's float16 case passed.
  const auto& cpu = view(p, "cpu", "float16");
  EXPECT_EQ(cpu.models, 1);
  EXPECT_EQ(calls(cpu, Status::kUnverified), 3);
  EXPECT_EQ(confusion(cpu, Prediction::kUnknown, Actual::kFine), 1);
  const auto& cuda = view(p, "cuda:0", "float16");
  EXPECT_EQ(calls(cuda, Status::kPortable), 2);
  EXPECT_EQ(calls(cuda, Status::kUnverified), 1);
  EXPECT_EQ(confusion(cuda, Prediction::kUnknown, Actual::kNotRun), 1);
}

TEST(PortabilityJoin, ADeviceTheSurfaceLacksIsRefused) {
  portability::Inputs in;
  in.manifest = fixture_manifest();
  in.corpus.push_back(report::load_json(kDir + "corpus.json").cases);
  in.surface = report::load_json(kDir + "surface.json").cases;
  in.surface_origin = "surface.json";
  in.devices = {"cuda:0"};
  EXPECT_EQ(portability::join(in).views.size(), 2u);  // float16 and float32
  in.devices = {"xla:0"};
  EXPECT_THROW(portability::join(in), util::FatalError);
}

TEST(PortabilityViews, EveryViewRendersTheOneJoin) {
  const auto p = fixture_join();
  const auto j = portability::to_json(p);
  EXPECT_EQ(j["schema_version"], "1.0");
  EXPECT_EQ(j["calls"], 33);
  EXPECT_EQ(j["unmapped"].size(), 1u);
  EXPECT_EQ(j["unmapped"][0]["op"], "aten.lift_fresh");
  EXPECT_EQ(j["views"][3]["device"], "cuda:0");
  EXPECT_EQ(j["views"][3]["dtype"], "float32");
  EXPECT_EQ(j["views"][3]["calls_by_status"]["failing"], 4);
  EXPECT_EQ(j["views"][3]["confusion"]["fail"]["not_fine"], 1);
  EXPECT_EQ(j["views"][1]["models_list"][0]["failing_ops"][0], "aten.var");
  const std::string md = portability::to_markdown(p);
  EXPECT_NE(md.find("## Portability weighted by use"), std::string::npos);
  EXPECT_NE(md.find("| cuda:0 | float32 | 3 | 27 | 22.2% | 14.8% | 14.8% | 44.4% | 3.7% |"),
            std::string::npos)
      << md;
  const std::string text = portability::to_terminal(p);
  EXPECT_NE(text.find("aten.relu  failing  4 calls in 1 models; all 2 cases failed"),
            std::string::npos)
      << text;
  const std::string html = portability::to_html(p);
  EXPECT_NE(html.find("data-chart=\"stacked\""), std::string::npos);
  EXPECT_NE(html.find("failing 14.8% (4 calls)"), std::string::npos);
}

}  // namespace
}  // namespace mudjack
