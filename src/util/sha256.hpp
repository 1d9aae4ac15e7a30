#pragma once
// SHA-256 (FIPS 180-4), implemented here so the engine needs no crypto
// library. Used to fingerprint artifacts and inputs, not for security.

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mudjack::util {

// Incremental hasher for data that arrives in pieces. Single use: after
// finish_hex() the object must not be updated again (that aborts).
class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  // The digest as 64 lowercase hex characters.
  std::string finish_hex();

 private:
  void compress(const unsigned char* block);

  std::array<uint32_t, 8> state_;
  std::array<unsigned char, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
  bool finished_ = false;
};

// Lowercase hex digest of data.
std::string sha256_hex(std::string_view data);

// Lowercase hex digest of a file's bytes, read in chunks; nullopt if the file
// cannot be opened or a read fails.
std::optional<std::string> sha256_file_hex(const std::filesystem::path& path);

}  // namespace mudjack::util
