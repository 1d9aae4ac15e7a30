#include "oracle/npy.hpp"

#include <bit>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace mudjack::oracle {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

ReadResult failure(std::string message) {
  ReadResult r;
  r.error = std::move(message);
  return r;
}

// Little-endian unsigned integer of n <= 8 bytes.
uint64_t load_le(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    v |= uint64_t{p[i]} << (8 * i);
  }
  return v;
}

// IEEE 754 binary16 to double; exact, since every half is a double.
double half_to_double(uint16_t h) {
  const bool negative = (h & 0x8000) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v = 0;
  if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 31) {
    v = mantissa == 0 ? std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::quiet_NaN();
  } else {
    v = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
  }
  return negative ? -v : v;
}

enum class Kind { kFloat, kComplex, kBool, kSigned, kUnsigned };

struct Dtype {
  Kind kind = Kind::kFloat;
  size_t item_bytes = 0;
};

std::optional<Dtype> parse_descr(std::string_view descr, std::string& error) {
  const auto unsupported = [&](std::string_view why) {
    error = "unsupported dtype '" + std::string(descr) + "'";
    if (!why.empty()) {
      error += " (" + std::string(why) + ")";
    }
    return std::nullopt;
  };
  if (descr.size() < 3) {
    return unsupported("");
  }
  const char order = descr[0];
  const char kind_char = descr[1];
  size_t item_bytes = 0;
  for (char c : descr.substr(2)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return unsupported("");
    }
    item_bytes = item_bytes * 10 + static_cast<size_t>(c - '0');
    if (item_bytes > 16) {
      return unsupported("");
    }
  }
  Dtype d;
  d.item_bytes = item_bytes;
  switch (kind_char) {
    case 'f':
      if (item_bytes != 2 && item_bytes != 4 && item_bytes != 8) {
        return unsupported("");
      }
      d.kind = Kind::kFloat;
      break;
    case 'c':
      if (item_bytes != 8 && item_bytes != 16) {
        return unsupported("");
      }
      d.kind = Kind::kComplex;
      break;
    case 'b':
      if (item_bytes != 1) {
        return unsupported("");
      }
      d.kind = Kind::kBool;
      break;
    case 'i':
    case 'u':
      if (item_bytes != 1 && item_bytes != 2 && item_bytes != 4 && item_bytes != 8) {
        return unsupported("");
      }
      d.kind = kind_char == 'i' ? Kind::kSigned : Kind::kUnsigned;
      break;
    default:
      return unsupported("");
  }
  if (order != '<' && order != '>' && order != '=' && order != '|') {
    return unsupported("");
  }
  if (item_bytes > 1) {
    if (order == '>') {
      return unsupported("big-endian");
    }
    if (order == '|') {
      return unsupported("byte order missing");
    }
    if (order == '=' && std::endian::native != std::endian::little) {
      return unsupported("big-endian");
    }
  }
  return d;
}

// The header is a Python dict literal as numpy writes it, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// This parser accepts exactly the three keys numpy requires, in any order,
// with either quote style, and whitespace anywhere between tokens.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<int64_t> shape;
  };

  std::optional<Header> parse(std::string& error) {
    Header h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    if (!eat('{')) {
      return fail(error, "expected '{'");
    }
    while (true) {
      skip_space();
      if (eat('}')) {
        break;
      }
      std::string key;
      if (!string_literal(key)) {
        return fail(error, "expected a quoted key");
      }
      if (!eat(':')) {
        return fail(error, "expected ':' after '" + key + "'");
      }
      skip_space();
      if (key == "descr") {
        if (peek() == '[') {
          error = "unsupported dtype: structured arrays are not supported";
          return std::nullopt;
        }
        if (!string_literal(h.descr)) {
          return fail(error, "descr is not a string");
        }
        seen_descr = true;
      } else if (key == "fortran_order") {
        if (word("True")) {
          h.fortran_order = true;
        } else if (word("False")) {
          h.fortran_order = false;
        } else {
          return fail(error, "fortran_order is not True or False");
        }
        seen_order = true;
      } else if (key == "shape") {
        if (!tuple_of_ints(h.shape)) {
          return fail(error, "shape is not a tuple of integers");
        }
        seen_shape = true;
      } else {
        return fail(error, "unexpected key '" + key + "'");
      }
      skip_space();
      if (eat(',')) {
        continue;
      }
      skip_space();
      if (eat('}')) {
        break;
      }
      return fail(error, "expected ',' or '}'");
    }
    skip_space();
    if (pos_ != text_.size()) {
      return fail(error, "text after the closing '}'");
    }
    if (!seen_descr || !seen_order || !seen_shape) {
      return fail(error, "descr, fortran_order and shape are all required");
    }
    return h;
  }

 private:
  static std::nullopt_t fail(std::string& error, const std::string& why) {
    error = "bad NPY header: " + why;
    return std::nullopt;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }

  bool eat(char c) {
    skip_space();
    if (peek() != c) {
      return false;
    }
    ++pos_;
    return true;
  }

  bool word(std::string_view w) {
    skip_space();
    if (text_.substr(pos_, w.size()) != w) {
      return false;
    }
    pos_ += w.size();
    return true;
  }

  // A quoted string without escapes (numpy's keys and descrs have none).
  bool string_literal(std::string& out) {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') {
      return false;
    }
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) {
      return false;
    }
    out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }

  // (), (5,), (2, 3) — and, leniently, a trailing comma or "L" suffixes that
  // Python 2 wrote for long integers.
  bool tuple_of_ints(std::vector<int64_t>& out) {
    if (!eat('(')) {
      return false;
    }
    while (true) {
      skip_space();
      if (eat(')')) {
        return true;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) {
        return false;
      }
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const int digit = text_[pos_++] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          return false;
        }
        v = v * 10 + digit;
      }
      if (peek() == 'L') {
        ++pos_;
      }
      out.push_back(v);
      skip_space();
      if (eat(',')) {
        continue;
      }
      if (eat(')')) {
        return true;
      }
      return false;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

void decode(const unsigned char* p, uint64_t count, Dtype d, std::vector<double>& out) {
  const size_t n = d.item_bytes;
  for (uint64_t i = 0; i < count; ++i, p += n) {
    switch (d.kind) {
      case Kind::kFloat:
        if (n == 2) {
          out.push_back(half_to_double(static_cast<uint16_t>(load_le(p, 2))));
        } else if (n == 4) {
          out.push_back(std::bit_cast<float>(static_cast<uint32_t>(load_le(p, 4))));
        } else {
          out.push_back(std::bit_cast<double>(load_le(p, 8)));
        }
        break;
      case Kind::kComplex:
        if (n == 8) {
          out.push_back(std::bit_cast<float>(static_cast<uint32_t>(load_le(p, 4))));
          out.push_back(std::bit_cast<float>(static_cast<uint32_t>(load_le(p + 4, 4))));
        } else {
          out.push_back(std::bit_cast<double>(load_le(p, 8)));
          out.push_back(std::bit_cast<double>(load_le(p + 8, 8)));
        }
        break;
      case Kind::kBool:
        out.push_back(*p != 0 ? 1.0 : 0.0);
        break;
      case Kind::kSigned: {
        // Sign-extend from n bytes by shifting the value to the top.
        const unsigned shift = static_cast<unsigned>(64 - 8 * n);
        const auto v = static_cast<int64_t>(load_le(p, n) << shift) >> shift;
        out.push_back(static_cast<double>(v));
        break;
      }
      case Kind::kUnsigned:
        out.push_back(static_cast<double>(load_le(p, n)));
        break;
    }
  }
}

}  // namespace

int64_t Array::element_count() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  return n;
}

ReadResult parse_npy(std::string_view bytes) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) {
    return failure("not an NPY file");
  }
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = u[6];
  const int minor = u[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return failure("unsupported NPY version " + std::to_string(major) + "." +
                   std::to_string(minor));
  }
  // Version 1.0 stores the header length in two bytes, 2.0 and 3.0 in four
  // (3.0 differs from 2.0 only in allowing UTF-8 in the header).
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + length_bytes;
  if (bytes.size() < prefix) {
    return failure("truncated header");
  }
  const size_t header_len = static_cast<size_t>(load_le(u + 8, length_bytes));
  if (bytes.size() - prefix < header_len) {
    return failure("truncated header");
  }
  const std::string_view header_text = bytes.substr(prefix, header_len);

  std::string error;
  const auto header = HeaderParser(header_text).parse(error);
  if (!header) {
    return failure(error);
  }
  const auto dtype = parse_descr(header->descr, error);
  if (!dtype) {
    return failure(error);
  }
  if (header->fortran_order) {
    return failure("fortran_order arrays are not supported");
  }

  // Element count and byte size, refusing shapes whose size overflows.
  const uint64_t limit = std::numeric_limits<uint64_t>::max() / 16;
  uint64_t count = 1;
  for (int64_t dim : header->shape) {
    const auto d = static_cast<uint64_t>(dim);
    if (d != 0 && count > limit / d) {
      return failure("bad NPY header: shape too large");
    }
    count *= d;
  }
  const uint64_t data_bytes = count * dtype->item_bytes;
  const uint64_t available = bytes.size() - prefix - header_len;
  if (available < data_bytes) {
    return failure("truncated data: expected " + std::to_string(data_bytes) + " bytes, got " +
                   std::to_string(available));
  }

  Array a;
  a.descr = header->descr;
  a.shape = header->shape;
  a.is_complex = dtype->kind == Kind::kComplex;
  a.values.reserve(static_cast<size_t>(count) * (a.is_complex ? 2 : 1));
  decode(u + prefix + header_len, count, *dtype, a.values);
  if (dtype->item_bytes == 8 && (dtype->kind == Kind::kSigned || dtype->kind == Kind::kUnsigned)) {
    a.is_unsigned = dtype->kind == Kind::kUnsigned;
    a.ints.reserve(static_cast<size_t>(count));
    const unsigned char* p = u + prefix + header_len;
    for (uint64_t i = 0; i < count; ++i, p += 8) a.ints.push_back(load_le(p, 8));
  }
  ReadResult r;
  r.array = std::move(a);
  return r;
}

ReadResult read_npy(const std::filesystem::path& path) {
  const std::string where = path.string() + ": ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return failure(where + "is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return failure(where + "cannot open file");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return failure(where + "read error");
  }
  ReadResult r = parse_npy(buffer.view());
  if (!r.ok()) {
    r.error = where + r.error;
  }
  return r;
}

std::string format_shape(std::span<const int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) {
      s += ", ";
    }
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) {
    s += ",";
  }
  return s + ")";
}

}  // namespace mudjack::oracle
