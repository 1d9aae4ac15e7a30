#pragma once
// The numeric oracle: does a device's output match the baseline device's
// within the dtype's tolerance? Pure functions over decoded arrays.
//
// Element rule (torch.testing.assert_close / torch.isclose, equal_nan=True):
// - NaN matches NaN. A complex element counts as NaN when either part is.
// - An infinite value matches only the identical value (same sign; for
//   complex, both parts identical).
// - Otherwise |a - e| <= atol + rtol * |e|. For complex elements |.| is the
//   modulus, so the test applies to the complex difference as a whole, as
//   torch.isclose and numpy.isclose do, not to each part separately.
// A real array compared with a complex one is compared as complex with zero
// imaginary parts.
//
// Only shape and values are compared. Whether a dtype difference between two
// outputs is itself a mismatch is the caller's policy (it knows both
// framework dtypes; bfloat16 is saved as float32, and a cross-framework
// comparison with numpy may legitimately differ in width).

#include <filesystem>
#include <string>
#include <string_view>

#include "oracle/npy.hpp"

namespace mudjack::oracle {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// Tolerances for comparing one device's output with another's, keyed by the
// framework's dtype name. A module prefix is dropped ("torch.float32",
// "tf.float32", "jnp.float32" all mean "float32"); torch's aliases (half,
// float, double, cfloat, cdouble, long, int, short) are understood.
// Devices legitimately reorder reductions and use other libraries (cuSOLVER
// against LAPACK), so single- and half-precision outputs get the 1e-3 that
// PyTorch's own CPU-against-accelerator OpInfo comparison allows, not
// torch.testing's same-device defaults (1.3e-6 for float32); a case can ask
// for tighter or looser bounds (rtol=, atol=).
//   float16, float32, complex32, complex64   rtol 1e-3    atol 1e-3
//   bfloat16                                 rtol 1.6e-2  atol 1e-2
//   float64, complex128                      rtol 1e-7    atol 1e-7
//   bool, (u)int8..64                        exact (0, 0)
// Any other name gets float32's tolerance.
Tolerance default_tolerance(std::string_view dtype_name);

struct Comparison {
  bool equal = false;
  // Largest |a - e| over element pairs where both are finite; 0 when there
  // are none or nothing was compared (shape mismatch, read error).
  double max_abs_err = 0;
  // Largest |a - e| / |e| over finite pairs with e != 0; 0 when there are none.
  double max_rel_err = 0;
  // Why the arrays differ; empty when equal. E.g.
  // "shape (2, 3) vs baseline (3, 2)" or
  // "3 of 4096 elements beyond rtol=1.3e-06 atol=1e-05; worst at [17]: 0.5 vs 0.50001".
  // The worst element is the one furthest beyond its allowance (a NaN or
  // infinity mismatch counts as furthest; ties go to the first); its index
  // is the multi-dimensional one, "[]" for a 0-d array.
  std::string message;
};

// actual is the device's output, expected the baseline's. Both arrays must be
// well formed (values.size() matches shape); a malformed one aborts.
Comparison compare(const Array& actual, const Array& expected, Tolerance tol);

// Reads both files and compares them; a read error of either gives
// equal = false with the reader's message (which names the file).
Comparison compare_files(const std::filesystem::path& actual, const std::filesystem::path& expected,
                         Tolerance tol);

}  // namespace mudjack::oracle
