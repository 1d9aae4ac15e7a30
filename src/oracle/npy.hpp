#pragma once
// Reader for the arrays probes save with numpy.save: NPY format versions 1.0,
// 2.0 and 3.0, C order, one plain numeric dtype. Everything a probe cannot be
// trusted to have written correctly (a bad magic, a truncated file, a dtype we
// do not decode) is an expected failure and comes back as an error string.
//
// Supported descr values (kind and item size):
//   f2 f4 f8  (f2 is IEEE half, converted exactly)
//   c8 c16    (complex; stored as interleaved re, im)
//   b1        (bool, as 0.0 / 1.0)
//   i1 i2 i4 i8 u1 u2 u4 u8
// Byte order: '<' always; '=' when this host is little-endian; for one-byte
// kinds any of '<', '=', '|', '>' (byte order does not apply). Big-endian
// multi-byte data, structured and object dtypes, and fortran_order arrays are
// rejected. Integers wider than 53 bits lose precision in the conversion to
// double, so 64-bit integers are also kept exactly (Array::ints), and the
// oracle compares those as integers. Bytes after the data are ignored, as
// numpy does.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mudjack::oracle {

struct Array {
  std::string descr;           // as written in the header, e.g. "<f4", "|b1"
  std::vector<int64_t> shape;  // empty for a 0-d array
  bool is_complex = false;
  // Row-major element values; complex elements as interleaved re, im, so
  // values.size() == element_count() * (is_complex ? 2 : 1).
  std::vector<double> values;
  // i8 / u8 arrays only: the exact 64-bit values (u8 as its bit pattern,
  // is_unsigned set), one per element; empty for every other dtype.
  std::vector<uint64_t> ints;
  bool is_unsigned = false;

  // Product of shape: 1 for a 0-d array, 0 when any dimension is 0.
  int64_t element_count() const;
};

// Exactly one of array and error is set.
struct ReadResult {
  std::optional<Array> array;
  std::string error;

  bool ok() const { return array.has_value(); }
};

// Decodes a whole .npy file's bytes. Errors carry no file name, e.g.
// "not an NPY file", "unsupported dtype '>f4' (big-endian)",
// "fortran_order arrays are not supported",
// "truncated data: expected 48 bytes, got 40".
ReadResult parse_npy(std::string_view bytes);

// Reads and decodes a .npy file. Every error is prefixed with the path:
// "out/x.npy: not an NPY file".
ReadResult read_npy(const std::filesystem::path& path);

// A shape as Python prints a tuple: "()", "(5,)", "(2, 3)".
std::string format_shape(std::span<const int64_t> shape);

}  // namespace mudjack::oracle
