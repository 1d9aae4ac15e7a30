// The numeric oracle: the NPY reader against files laid out byte for byte as
// numpy.save writes them (data bytes taken from numpy 2.4 output), and the
// comparison rules at their boundaries. No Python needed.

#include <unistd.h>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "oracle/compare.hpp"
#include "oracle/npy.hpp"

namespace mudjack::oracle {
namespace {

using namespace std::string_literals;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// An NPY file as numpy.save lays it out: magic, version, little-endian header
// length, the header dict padded with spaces so the data starts on a 64-byte
// boundary, a newline, then the data.
std::string npy(std::string_view descr, std::string_view shape, const std::string& data,
                int major = 1, std::string_view fortran = "False") {
  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': " + std::string(fortran) +
                     ", 'shape': " + std::string(shape) + ", }";
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) {
    dict += ' ';
  }
  dict += '\n';
  std::string out = "\x93NUMPY"s;
  out += static_cast<char>(major);
  out += '\0';
  const size_t len = dict.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += "\0\0"s;
  }
  return out + dict + data;
}

Array parse_ok(const std::string& bytes) {
  ReadResult r = parse_npy(bytes);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.ok() ? *r.array : Array{};
}

std::string parse_error(const std::string& bytes) {
  ReadResult r = parse_npy(bytes);
  EXPECT_FALSE(r.ok());
  return r.error;
}

Array real(std::vector<int64_t> shape, std::vector<double> values) {
  return Array{.descr = "<f8",
               .shape = std::move(shape),
               .is_complex = false,
               .values = std::move(values),
               .ints = {},
               .is_unsigned = false};
}

Array cplx(std::vector<int64_t> shape, std::vector<double> values) {
  return Array{.descr = "<c16",
               .shape = std::move(shape),
               .is_complex = true,
               .values = std::move(values),
               .ints = {},
               .is_unsigned = false};
}

class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("mudjack_oracle_test_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path write(const std::string& name, const std::string& bytes) const {
    auto p = path_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// ---- reader ---------------------------------------------------------------

TEST(NpyRead, ExactNumpyOutputFloat32) {
  // numpy 2.4: np.save(f, np.array([1.5, -2.0], dtype='<f4')), 136 bytes; the
  // header is padded to 118 bytes (numpy leaves room for the shape to grow).
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header += std::string(117 - header.size(), ' ') + "\n";
  const std::string file = "\x93NUMPY\x01\x00\x76\x00"s + header + from_hex("0000c03f000000c0");
  ASSERT_EQ(file.size(), 136u);
  const Array a = parse_ok(file);
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
  EXPECT_FALSE(a.is_complex);
  EXPECT_EQ(a.values, (std::vector<double>{1.5, -2.0}));
}

TEST(NpyRead, Float16IncludingSubnormalsInfinityAndNaN) {
  const Array a = parse_ok(npy("<f2", "(7,)", from_hex("003cff7bff0301000080007c007e")));
  ASSERT_EQ(a.values.size(), 7u);
  EXPECT_EQ(a.values[0], 1.0);
  EXPECT_EQ(a.values[1], 65504.0);                // largest half
  EXPECT_EQ(a.values[2], 6.097555160522461e-05);  // largest subnormal
  EXPECT_EQ(a.values[3], 5.960464477539063e-08);  // smallest subnormal
  EXPECT_EQ(a.values[4], 0.0);
  EXPECT_TRUE(std::signbit(a.values[4]));
  EXPECT_EQ(a.values[5], kInf);
  EXPECT_TRUE(std::isnan(a.values[6]));
}

TEST(NpyRead, Float64ZeroDimensional) {
  const Array a = parse_ok(npy("<f8", "()", from_hex("0000000000000a40")));
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.element_count(), 1);
  EXPECT_EQ(a.values, (std::vector<double>{3.25}));
}

TEST(NpyRead, Complex64Interleaved) {
  const Array a = parse_ok(npy("<c8", "(2,)", from_hex("0000803f00000040000000bf000080be")));
  EXPECT_TRUE(a.is_complex);
  EXPECT_EQ(a.element_count(), 2);
  EXPECT_EQ(a.values, (std::vector<double>{1.0, 2.0, -0.5, -0.25}));
}

TEST(NpyRead, Complex128) {
  const Array a = parse_ok(npy("<c16", "(1,)", from_hex("000000000000f03f00000000000000c0")));
  EXPECT_TRUE(a.is_complex);
  EXPECT_EQ(a.values, (std::vector<double>{1.0, -2.0}));
}

TEST(NpyRead, Int64SignExtended) {
  const Array a =
      parse_ok(npy("<i8", "(3,)", from_hex("ffffffffffffffff000000000001000000000000000000c0")));
  EXPECT_EQ(a.values, (std::vector<double>{-1.0, 1099511627776.0, -4611686018427387904.0}));
}

TEST(NpyRead, BoolTwoDimensional) {
  const Array a = parse_ok(npy("|b1", "(1, 3)", from_hex("010001")));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(a.values, (std::vector<double>{1.0, 0.0, 1.0}));
}

TEST(NpyRead, SmallIntegerKinds) {
  EXPECT_EQ(parse_ok(npy("|i1", "(2,)", from_hex("807f"))).values,
            (std::vector<double>{-128, 127}));
  EXPECT_EQ(parse_ok(npy("|u1", "(2,)", from_hex("ff00"))).values, (std::vector<double>{255, 0}));
  EXPECT_EQ(parse_ok(npy("<i2", "(2,)", from_hex("0080ff7f"))).values,
            (std::vector<double>{-32768, 32767}));
  EXPECT_EQ(parse_ok(npy("<u2", "(1,)", from_hex("ffff"))).values, (std::vector<double>{65535}));
  EXPECT_EQ(parse_ok(npy("<i4", "(1,)", from_hex("feffffff"))).values, (std::vector<double>{-2}));
  EXPECT_EQ(parse_ok(npy("<u4", "(1,)", from_hex("ffffffff"))).values,
            (std::vector<double>{4294967295.0}));
  EXPECT_EQ(parse_ok(npy("<u8", "(1,)", from_hex("0000000000000080"))).values,
            (std::vector<double>{9223372036854775808.0}));
  EXPECT_EQ(parse_ok(npy("=f4", "(1,)", from_hex("0000c03f"))).values, (std::vector<double>{1.5}));
}

TEST(NpyRead, EmptyArray) {
  const Array a = parse_ok(npy("<i8", "(0,)", ""));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{0}));
  EXPECT_EQ(a.element_count(), 0);
  EXPECT_TRUE(a.values.empty());
  EXPECT_EQ(parse_ok(npy("<f4", "(3, 0, 2)", "")).element_count(), 0);
}

TEST(NpyRead, Versions2And3HaveFourByteHeaderLength) {
  const std::string data = from_hex("000000000000f03f0000000000000040");
  EXPECT_EQ(parse_ok(npy("<f8", "(2,)", data, 2)).values, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(parse_ok(npy("<f8", "(2,)", data, 3)).values, (std::vector<double>{1.0, 2.0}));
  const std::string v4 = npy("<f8", "(2,)", data, 4);
  EXPECT_EQ(parse_error(v4), "unsupported NPY version 4.0");
}

TEST(NpyRead, HeaderVariantsAreAccepted) {
  const std::string data = from_hex("0000c03f");
  for (std::string_view dict :
       {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1,)}",
        "{'shape': (1,), 'descr': '<f4', 'fortran_order': False}",
        "{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 1 , ) , }"}) {
    const std::string header = std::string(dict) + "\n";
    std::string file = "\x93NUMPY\x01\x00"s;
    file += static_cast<char>(header.size());
    file += '\0';
    file += header;
    file += data;
    EXPECT_EQ(parse_ok(file).values, (std::vector<double>{1.5})) << dict;
  }
}

TEST(NpyRead, TruncatedData) {
  EXPECT_EQ(parse_error(npy("<f4", "(3,)", from_hex("0000c03f000000c0"))),
            "truncated data: expected 12 bytes, got 8");
}

TEST(NpyRead, TruncatedHeader) {
  const std::string whole = npy("<f4", "(1,)", from_hex("0000c03f"));
  EXPECT_EQ(parse_error(whole.substr(0, 40)), "truncated header");
  EXPECT_EQ(parse_error(whole.substr(0, 9)), "truncated header");
}

TEST(NpyRead, BadMagic) {
  EXPECT_EQ(parse_error("PK\x03\x04 this is a zip file, not an array"), "not an NPY file");
  EXPECT_EQ(parse_error(""), "not an NPY file");
  std::string wrong = npy("<f4", "(1,)", from_hex("0000c03f"));
  wrong[1] = 'n';
  EXPECT_EQ(parse_error(wrong), "not an NPY file");
}

TEST(NpyRead, BigEndianIsRejected) {
  const std::string error = parse_error(npy(">f4", "(2,)", from_hex("3fc00000c0000000")));
  EXPECT_EQ(error.rfind("unsupported dtype '>f4'", 0), 0u) << error;
  EXPECT_NE(error.find("big-endian"), std::string::npos) << error;
  // Byte order does not apply to one-byte kinds.
  EXPECT_EQ(parse_ok(npy(">i1", "(1,)", from_hex("ff"))).values, (std::vector<double>{-1}));
}

TEST(NpyRead, UnsupportedDtypes) {
  EXPECT_EQ(parse_error(npy("<U3", "(1,)", std::string(12, 'a'))), "unsupported dtype '<U3'");
  EXPECT_EQ(parse_error(npy("|O", "(1,)", std::string(8, '\0'))), "unsupported dtype '|O'");
  EXPECT_EQ(parse_error(npy("<f16", "(1,)", std::string(16, '\0'))), "unsupported dtype '<f16'");
  EXPECT_EQ(parse_error(npy("<M8[ns]", "(1,)", std::string(8, '\0'))),
            "unsupported dtype '<M8[ns]'");
  EXPECT_EQ(parse_error(npy("<i3", "(1,)", std::string(3, '\0'))), "unsupported dtype '<i3'");
}

TEST(NpyRead, FortranOrderIsRejected) {
  EXPECT_EQ(parse_error(npy("<f4", "(1, 1)", from_hex("0000c03f"), 1, "True")),
            "fortran_order arrays are not supported");
}

TEST(NpyRead, MalformedHeader) {
  std::string header = "{'descr': '<f4', 'fortran_order': False}\n";
  std::string file = "\x93NUMPY\x01\x00"s;
  file += static_cast<char>(header.size());
  file += '\0';
  EXPECT_EQ(parse_error(file + header),
            "bad NPY header: descr, fortran_order and shape are all required");
  EXPECT_EQ(parse_error(npy("<f4", "(-1,)", "")).rfind("bad NPY header", 0), 0u);
}

TEST(NpyRead, FileErrorsNameTheFile) {
  const TempDir dir;
  const auto good = dir.write("good.npy", npy("<f4", "(1,)", from_hex("0000c03f")));
  const auto bad = dir.write("bad.npy", "not numpy at all");
  ReadResult r = read_npy(good);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.array->values, (std::vector<double>{1.5}));
  EXPECT_EQ(read_npy(bad).error, bad.string() + ": not an NPY file");
  const auto missing = dir.path() / "missing.npy";
  EXPECT_EQ(read_npy(missing).error, missing.string() + ": cannot open file");
}

TEST(NpyRead, FormatShapeLikePython) {
  EXPECT_EQ(format_shape(std::vector<int64_t>{}), "()");
  EXPECT_EQ(format_shape(std::vector<int64_t>{5}), "(5,)");
  EXPECT_EQ(format_shape(std::vector<int64_t>{2, 3}), "(2, 3)");
}

// ---- tolerances -----------------------------------------------------------

void expect_tolerance(std::string_view name, double rtol, double atol) {
  const Tolerance t = default_tolerance(name);
  EXPECT_EQ(t.rtol, rtol) << name;
  EXPECT_EQ(t.atol, atol) << name;
}

TEST(OracleTolerance, CrossDeviceDefaults) {
  expect_tolerance("float16", 1e-3, 1e-3);
  expect_tolerance("bfloat16", 1.6e-2, 1e-2);
  expect_tolerance("float32", 1e-3, 1e-3);
  expect_tolerance("float64", 1e-7, 1e-7);
  expect_tolerance("complex64", 1e-3, 1e-3);
  expect_tolerance("complex128", 1e-7, 1e-7);
  for (std::string_view exact :
       {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}) {
    expect_tolerance(exact, 0, 0);
  }
}

TEST(OracleTolerance, PrefixesAliasesAndUnknownNames) {
  expect_tolerance("torch.float16", 1e-3, 1e-3);
  expect_tolerance("tf.float64", 1e-7, 1e-7);
  expect_tolerance("torch.bfloat16", 1.6e-2, 1e-2);
  expect_tolerance("torch.half", 1e-3, 1e-3);
  expect_tolerance("torch.double", 1e-7, 1e-7);
  expect_tolerance("torch.long", 0, 0);
  expect_tolerance("torch.bool", 0, 0);
  expect_tolerance("float8_e4m3fn", 1e-3, 1e-3);
  expect_tolerance("", 1e-3, 1e-3);
}

// ---- comparison -----------------------------------------------------------

TEST(OracleCompare, IdenticalArraysAreEqual) {
  const Array a = real({2, 2}, {1, 2, 3, 4});
  const Comparison c = compare(a, a, default_tolerance("float32"));
  EXPECT_TRUE(c.equal);
  EXPECT_EQ(c.max_abs_err, 0.0);
  EXPECT_EQ(c.max_rel_err, 0.0);
  EXPECT_EQ(c.message, "");
}

TEST(OracleCompare, ShapeMismatch) {
  const Comparison c = compare(real({2, 3}, std::vector<double>(6, 1.0)),
                               real({3, 2}, std::vector<double>(6, 1.0)), {});
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "shape (2, 3) vs baseline (3, 2)");
  EXPECT_EQ(compare(real({}, {1}), real({1}, {1}), {}).message, "shape () vs baseline (1,)");
}

TEST(OracleCompare, NaNMatchesNaNOnly) {
  EXPECT_TRUE(compare(real({2}, {kNaN, 1}), real({2}, {kNaN, 1}), {}).equal);
  const Comparison c = compare(real({2}, {kNaN, 1}), real({2}, {1, 1}), {0.5, 0.5});
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "1 of 2 elements beyond rtol=0.5 atol=0.5; worst at [0]: nan vs 1");
  EXPECT_EQ(c.max_abs_err, 0.0);  // the NaN pair is not finite, so it has no error size
  EXPECT_FALSE(compare(real({1}, {1}), real({1}, {kNaN}), {}).equal);
}

TEST(OracleCompare, InfinitiesMustMatchExactly) {
  EXPECT_TRUE(compare(real({2}, {kInf, -kInf}), real({2}, {kInf, -kInf}), {}).equal);
  const Comparison c = compare(real({1}, {kInf}), real({1}, {-kInf}), {1, 1});
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "1 of 1 element beyond rtol=1 atol=1; worst at [0]: inf vs -inf");
  EXPECT_FALSE(compare(real({1}, {kInf}), real({1}, {1e308}), {1, 1}).equal);
}

TEST(OracleCompare, ToleranceBoundaryIsInclusive) {
  // allowed = atol + rtol * |e| = 0.25 + 0.5 * 2 = 1.25, exact in binary.
  const Tolerance tol{0.5, 0.25};
  EXPECT_TRUE(compare(real({1}, {3.25}), real({1}, {2}), tol).equal);
  EXPECT_TRUE(compare(real({1}, {0.75}), real({1}, {2}), tol).equal);
  EXPECT_FALSE(compare(real({1}, {3.25 + 0x1p-40}), real({1}, {2}), tol).equal);
  EXPECT_FALSE(compare(real({1}, {0.75 - 0x1p-40}), real({1}, {2}), tol).equal);
  // rtol scales with the baseline's magnitude, not the actual value's.
  EXPECT_TRUE(compare(real({1}, {-1}), real({1}, {-2}), {0.5, 0}).equal);
  EXPECT_FALSE(compare(real({1}, {-2}), real({1}, {-1}), {0.5, 0}).equal);
}

TEST(OracleCompare, ExactToleranceForIntegers) {
  const Tolerance exact = default_tolerance("int64");
  EXPECT_TRUE(compare(real({3}, {1, 2, 3}), real({3}, {1, 2, 3}), exact).equal);
  const Comparison c = compare(real({3}, {1, 2, 4}), real({3}, {1, 2, 3}), exact);
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "1 of 3 elements beyond rtol=0 atol=0; worst at [2]: 4 vs 3");
}

TEST(OracleCompare, MessageNamesCountAndWorstMultiDimensionalIndex) {
  const Comparison c = compare(real({2, 3}, {0, 1, 2, 3.5, 0.5, 5}),
                               real({2, 3}, {0, 1.1, 2, 3, 0.5001, 5}), Tolerance{1.3e-6, 1e-5});
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "3 of 6 elements beyond rtol=1.3e-06 atol=1e-05; worst at [1, 0]: 3.5 vs 3");
}

TEST(OracleCompare, ErrorMagnitudes) {
  const Comparison c = compare(real({4}, {1, 2.5, 0, 7}), real({4}, {1, 2, 0.25, 0}), {0, 10});
  EXPECT_TRUE(c.equal);
  EXPECT_EQ(c.max_abs_err, 7.0);  // the pair with e == 0 counts for abs only
  EXPECT_EQ(c.max_rel_err, 1.0);  // 0.25 / 0.25; 0.5 / 2 is smaller
}

TEST(OracleCompare, ComplexUsesModulusOfDifference) {
  // Each part differs by 0.75 <= atol, but the modulus 1.06 exceeds it.
  const Comparison c = compare(cplx({1}, {0.75, 0.75}), cplx({1}, {0, 0}), {0, 1});
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "1 of 1 element beyond rtol=0 atol=1; worst at [0]: (0.75+0.75j) vs (0+0j)");
  EXPECT_DOUBLE_EQ(c.max_abs_err, std::hypot(0.75, 0.75));
  EXPECT_TRUE(compare(cplx({1}, {0.75, 0}), cplx({1}, {0, 0}), {0, 1}).equal);
  // rtol scales with |e| = 5.
  EXPECT_TRUE(compare(cplx({1}, {3, 5}), cplx({1}, {3, 4}), {0.2, 0}).equal);
  EXPECT_FALSE(compare(cplx({1}, {3, 6.5}), cplx({1}, {3, 4}), {0.2, 0}).equal);
  EXPECT_EQ(compare(cplx({1}, {1, -0.5}), cplx({1}, {1, 0.5}), {}).message,
            "1 of 1 element beyond rtol=0 atol=0; worst at [0]: (1-0.5j) vs (1+0.5j)");
}

TEST(OracleCompare, ComplexNaNAndInfinity) {
  EXPECT_TRUE(compare(cplx({1}, {kNaN, 0}), cplx({1}, {1, kNaN}), {}).equal);
  EXPECT_TRUE(compare(cplx({1}, {kInf, 1}), cplx({1}, {kInf, 1}), {}).equal);
  EXPECT_FALSE(compare(cplx({1}, {kInf, 1}), cplx({1}, {kInf, 2}), {1, 1}).equal);
}

TEST(OracleCompare, RealAgainstComplexComparesAsComplex) {
  EXPECT_TRUE(compare(real({2}, {1, 2}), cplx({2}, {1, 0, 2, 0}), {}).equal);
  EXPECT_FALSE(compare(real({1}, {1}), cplx({1}, {1, 0.5}), {}).equal);
}

TEST(OracleCompare, ZeroDimensionalArrays) {
  EXPECT_TRUE(compare(real({}, {2}), real({}, {2}), {}).equal);
  EXPECT_EQ(compare(real({}, {2}), real({}, {3}), {}).message,
            "1 of 1 element beyond rtol=0 atol=0; worst at []: 2 vs 3");
}

TEST(OracleCompare, EmptyArrays) {
  const Comparison c = compare(real({0}, {}), real({0}, {}), {});
  EXPECT_TRUE(c.equal);
  EXPECT_EQ(c.message, "");
  EXPECT_EQ(compare(real({0}, {}), real({1}, {1}), {}).message, "shape (0,) vs baseline (1,)");
}

TEST(OracleCompare, FilesEndToEnd) {
  const TempDir dir;
  const auto device = dir.write("cuda.npy", npy("<f4", "(2,)", from_hex("0000c03f000000c0")));
  const auto baseline =
      dir.write("cpu.npy", npy("<f8", "(2,)", from_hex("000000000000f83f00000000000000c0")));
  const auto half = dir.write("half.npy", npy("<f2", "(2,)", from_hex("003e00c0")));  // 1.5, -2
  EXPECT_TRUE(compare_files(device, baseline, default_tolerance("float32")).equal);
  EXPECT_TRUE(compare_files(half, baseline, default_tolerance("float16")).equal);

  const auto broken = dir.write("broken.npy", npy("<f4", "(3,)", from_hex("0000c03f")));
  const Comparison c = compare_files(broken, baseline, default_tolerance("float32"));
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, broken.string() + ": truncated data: expected 12 bytes, got 4");
  const Comparison missing = compare_files(device, dir.path() / "none.npy", {});
  EXPECT_FALSE(missing.equal);
  EXPECT_EQ(missing.message, (dir.path() / "none.npy").string() + ": cannot open file");
}

}  // namespace
}  // namespace mudjack::oracle
