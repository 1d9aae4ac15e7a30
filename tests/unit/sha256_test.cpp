// FIPS 180-4 / NIST test vectors, plus the block-boundary cases that padding
// gets wrong most often.

#include "util/sha256.hpp"

#include <unistd.h>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace mudjack::util {
namespace {

TEST(Sha256, EmptyString) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// The FIPS 180-2 448-bit vector (56 bytes: its padding spills into a second block).
TEST(Sha256, TwoBlockMessage448Bits) {
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, OneMillionA) {
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // 55 bytes fit the length in the same block; 56 and 64 need another one.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256, IncrementalEqualsOneShot) {
  const std::string data(1000, 'x');
  Sha256 h;
  for (size_t i = 0; i < data.size(); i += 7) {
    h.update(std::string_view(data).substr(i, 7));
  }
  EXPECT_EQ(h.finish_hex(), sha256_hex(data));
}

TEST(Sha256, FileDigestAndMissingFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("mudjack_sha256_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "abc.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out << "abc";
  }
  EXPECT_EQ(sha256_file_hex(file),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_file_hex(dir / "missing.bin"), std::nullopt);
  EXPECT_EQ(sha256_file_hex(dir), std::nullopt);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mudjack::util
