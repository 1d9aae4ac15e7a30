// What a probe inherits from the engine's environment: the allow-list, the
// names an operator adds, and never a secret-looking name in any case.

#include <gtest/gtest.h>

#include "supervisor/probe_session.hpp"

namespace mudjack::supervisor {
namespace {

class ProbeEnv : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_FALSE(keep_probe_environment({})); }
};

TEST_F(ProbeEnv, AGpuHostsSafetySwitchesReachEveryProbe) {
  for (const char* name : {"NCCL_NVLS_ENABLE", "NVSHMEM_DISABLE_NVLS",
                           "TORCH_SYMM_MEM_DISABLE_MULTICAST", "CUDA_VISIBLE_DEVICES", "PATH"}) {
    EXPECT_TRUE(probe_may_inherit(name)) << name;
  }
  EXPECT_FALSE(probe_may_inherit("SITE_LICENSE_SERVER"));
}

TEST_F(ProbeEnv, SecretLookingNamesAreDroppedInAnyCase) {
  for (const char* name : {"MUDJACK_TOKEN", "TF_VAR_db_password", "HF_api_token", "AWS_SECRET",
                           "TORCH_api_key", "XLA_auth_header", "CUDA_Credential"}) {
    EXPECT_FALSE(probe_may_inherit(name)) << name;
    EXPECT_TRUE(looks_secret(name)) << name;
  }
}

TEST_F(ProbeEnv, AnOperatorAddsNamesAndPrefixes) {
  ASSERT_FALSE(keep_probe_environment({"SITE_*", "MY_LICENSE_SERVER"}));
  EXPECT_TRUE(probe_may_inherit("SITE_LICENSE_SERVER"));
  EXPECT_TRUE(probe_may_inherit("SITE_"));
  EXPECT_TRUE(probe_may_inherit("MY_LICENSE_SERVER"));
  EXPECT_FALSE(probe_may_inherit("MY_LICENSE_SERVER_2")) << "a name without * is exact";
  EXPECT_FALSE(probe_may_inherit("SITE_token")) << "a kept prefix never lets a secret through";
}

TEST_F(ProbeEnv, AnOperatorCannotKeepASecretOrANonName) {
  auto why = keep_probe_environment({"HF_TOKEN"});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("looks like a secret"), std::string::npos) << *why;
  EXPECT_TRUE(keep_probe_environment({"db_Password*"}));
  EXPECT_TRUE(keep_probe_environment({"A=B"}));
  EXPECT_TRUE(keep_probe_environment({"*"})) << "everything is not a name";
  EXPECT_TRUE(keep_probe_environment({""}));
  EXPECT_FALSE(probe_may_inherit("A=B"));
}

}  // namespace
}  // namespace mudjack::supervisor
