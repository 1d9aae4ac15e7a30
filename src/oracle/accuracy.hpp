#pragma once
// The accuracy oracle (docs/design.md, "accuracy oracle"): a floating or
// complex output is judged by its error against a high-precision reference
// (the case widened to float64/complex128), not by agreement with another
// device at one fixed tolerance. Pure functions over decoded arrays.
//
// Error unit. Element i of an output x with reference r has the error
//   e_i = |x_i - r_i| / (eps * (|r_i| + s))
// where eps is the output dtype's machine epsilon (float16 2^-10, bfloat16
// 2^-7, float32 2^-23, float64 2^-52) and s the root mean square of the
// reference's finite values (1 when that is 0): an error near the output's
// own scale, so cancellation near zero in a sum is not read as a huge
// relative error. Complex arrays are judged part by part (a NaN real part
// must stay NaN). The output's error is the largest e_i.
//
// Non-finite elements: where r_i is NaN, x_i must be NaN; where r_i is
// infinite, or finite but beyond the dtype's largest value (a correct
// overflow), x_i must be the infinity (or the largest finite value) of the
// same sign; where r_i is within range, a non-finite x_i is an infinite
// error.
//
// Bounds, for reduction size K (how many input elements each output element
// sums over), the op's conditioning (OpClass) and the constants below:
//   well-conditioned, real outputs:
//     alone(dtype, K)   = kWellAlonePerSqrtK * sqrt(K)
//     device(K, e_base) = max(kWellDevicePerSqrtK * sqrt(K), kBaselineFactor * e_base)
//   ill-conditioned (ill_conditioned(function): solves, inverses,
//   factorizations, eigen and singular values, special functions, grid
//   sampling, rounding, generated graphs), and every complex output (a complex
//   product's parts can cancel: its error is relative to |a||b|, not to the
//   part):
//     alone(dtype, K)   = max(kPerSqrtK * sqrt(K), floor(dtype))
//     device(K, e_base) = max(kPerSqrtK * sqrt(K), kBaselineFactor * e_base)
// The baseline device, judged alone, may be off by `alone` (the floor is
// what it takes for an ill-conditioned case, a solve or an eigenproblem, to
// pass on a correct CPU). Any other device is held to the baseline's own
// error times kBaselineFactor, or the sqrt(K) term, whichever is larger: a
// device that rounds in TF32 (2^-10) where the baseline has float32 (2^-23)
// is thousands of eps off, and caught at every size. Also beside a baseline
// beyond its own bound: the float64 reference judges every device, and the
// baseline's error lends at most kBaselineFactor x alone (e_base is capped
// there), so a NaN baseline lends no licence.
//
// Where the constants come from: the errors of every pass the oracle judged
// in the published whole-surface runs (results/2026-11-27-nvidia-h100-surface
// and results/2026-11-27-amd-epyc-surface, opinfo and jax-primitives: 11,814
// passes judged alone on two CPUs, 5,840 on an H100 against its CPU),
// measured by `plant_oracle rejudge` (bench/results/plant-epyc-2cpu-oracle-before-after.md has
// the table), and the paper suite on this CPU (an AMD EPYC, 2026-11-28).
// Largest error / sqrt(K), well-conditioned real outputs, judged alone: 4.38
// (K = 1, float32: tf.signal.idct counted K = 1 before transforms got their
// axis as K), 4.25 (K = 1, float32: torch gelu), 3.06 (K = 1, float16: jax
// exp2), 2.75 (K > 1: torch Conv2d float32). Against the baseline, where the
// device is more than kBaselineFactor times the baseline's error: 1.32
// (K = 1), 0.37 (K > 1). Ill-conditioned ops reach 177 (grid_sampler_3d),
// 93 (polygamma) and 55 sqrt(K) (jax eigh) alone, 4.1 sqrt(K) (jax svd) on
// the H100 against the baseline, torch.round with decimals=3 61.5 on this
// CPU; complex64 outputs 13.6 (K = 1, torch
// __rpow__) and 13.8 sqrt(K) (jax.vjp of a complex64 matmul) alone, 11.3
// (torch pinv of a singular matrix) against the baseline: they keep
// kPerSqrtK and the floor.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "oracle/compare.hpp"
#include "oracle/npy.hpp"

namespace mudjack::oracle {

// Ill-conditioned ops, alone and against a baseline (3.9x the largest
// measured 4.1 sqrt(K) of a device beyond kBaselineFactor x its baseline).
inline constexpr double kPerSqrtK = 16;
inline constexpr double kBaselineFactor = 4;
// Well-conditioned real outputs alone: 1.4x the largest measured error
// (4.38 eps, K = 1), and below 7.5, so an error of 8 eps everywhere (at
// least 7.5 eps once rounded) is caught; with K > 1, 2.2x the largest
// measured 2.75 sqrt(K).
inline constexpr double kWellAlonePerSqrtK = 6;
// Well-conditioned real outputs against a baseline: 2.3x the largest
// measured error beyond kBaselineFactor x the baseline's (1.32 eps, K = 1),
// and below 3.5, so 4 eps everywhere (at least 3.5 eps once rounded) is
// caught beside a correctly rounded baseline.
inline constexpr double kWellDevicePerSqrtK = 3;

// Machine epsilon of a floating or complex dtype name (module prefixes and
// torch aliases as default_tolerance); nullopt for integers, bools and
// names it does not know.
std::optional<double> dtype_epsilon(std::string_view dtype_name);
// The epsilon of an output a float64 reference can judge: floating and
// complex dtypes narrower than float64; nullopt for float64 and complex128
// (no reference is more precise; they are compared with the baseline's) and
// for everything dtype_epsilon refuses.
std::optional<double> reference_epsilon(std::string_view dtype_name);
// True for every dtype name the oracle knows (floating, complex, integer,
// bool, and their aliases).
bool known_dtype(std::string_view dtype_name);

// The floor of `alone` for an ill-conditioned op, in eps: float32/complex64
// 2^13 (about 1e-3, the cross-device tolerance it replaces); float16 and
// bfloat16 16.
double floor_eps(std::string_view dtype_name);

// How an op's error grows: its reduction size K, and whether it is
// ill-conditioned (a small error in its inputs or steps can grow large in
// its output, so a correct implementation's error is not bounded by its
// rounding and K alone).
struct OpClass {
  int64_t reduction = 1;
  bool ill_conditioned = true;
};
// A case's class: its declared reduction size, else default_reduction's;
// its conditioning by ill_conditioned(function), and loose for a
// composition (a whole model: hundreds of ops, whose error is no one op's;
// bert's float32 output is 21 eps off float64 on a CPU).
OpClass op_class(std::string_view function, const nlohmann::json& dims,
                 std::optional<int64_t> declared_reduction, bool composition);
// True for a function whose name (any dotted part, lowercased) names an
// ill-conditioned op: solves, inverses, determinants, condition numbers
// (linalg.cond), factorizations (qr,
// lu, ldl, cholesky), eigen and singular values, matrix functions (expm,
// matrix_exp, matrix_power), special functions (gamma, polygamma, zeta,
// bessel, airy, incomplete gamma and beta, erfinv), grid sampling, rounding
// to decimals (round: a step function); and a
// generated graph ("fuzz/..."), a composition whose conditioning is the
// product of its ops'.
bool ill_conditioned(std::string_view function);

// The bounds, in eps, by the formulas above (dtype_name: the output's).
double alone_bound(std::string_view dtype_name, const OpClass& op);
double device_bound(std::string_view dtype_name, const OpClass& op, double baseline_error);

struct Error {
  double eps = 0;      // the largest element error, in eps (infinity: a non-finite miss)
  int64_t beyond = 0;  // elements beyond the bound given to measure()
  int64_t count = 0;   // elements judged (complex: parts)
  // The largest |x - r| and |x - r| / |r| over elements where both are
  // finite (relative: where r != 0), for the views' max_abs_err/max_rel_err;
  // infinity when a finite reference element got a non-finite value.
  double max_abs = 0;
  double max_rel = 0;
  double ref_peak = 0;  // the largest finite |r| (oracle::unstable_output)
  std::string worst;    // "[17]: 0.51 vs reference 0.5" for the largest error
  std::string problem;  // shape or read trouble; eps is then infinity
};

// Is a composition's float64 output no ground to judge a device on? Its
// largest |value| (`ref_peak`) at the model's random weights is beyond
// kUnstablePeak (activations that blew up: 1e13 in float64 beside 5e11 in
// float32 was seen) or below the smallest normal number of the output's
// dtype `epsilon_of` (everything subnormal or zero: the device's answer is
// rounding noise). nullopt when it is ground, else the phrase that says why.
inline constexpr double kUnstablePeak = 1e10;
std::optional<std::string> unstable_output(const Error& e, std::string_view dtype);

// The error of x against reference r, counting elements beyond `bound` eps
// (or within the case's own tolerance `loosen`, which clears them).
Error measure(const Array& x, const Array& r, double eps, double bound,
              std::optional<Tolerance> loosen = std::nullopt);
Error measure_files(const std::filesystem::path& x, const std::filesystem::path& r, double eps,
                    double bound, std::optional<Tolerance> loosen = std::nullopt);

// "3 of 4096 elements beyond 64 eps of the float64 reference; worst 812 eps at [17]: ..."
std::string describe(const Error& e, double bound, std::string_view against);

// The default reduction size of a function, by op family, from its name and
// the case's input dims (model::CaseInfo::dims, the shape the case declares):
// contractions (matmul, dot, einsum, linear, conv, attention, recurrent
// layers, linalg) and reductions (sum, mean, norm, softmax, cumsum, losses)
// get the largest dim of the declared shape, at least 16; everything else 1.
int64_t default_reduction(std::string_view function, const nlohmann::json& dims);
// True for an operator of a composition's histogram ("aten.convolution",
// "aten._native_batch_norm_legit", "dot_general", "reduce_sum") that sums
// over many inputs: default_reduction's families, read past a namespace,
// leading underscores and "native_", and XLA's contractions.
bool reduces(std::string_view op);

}  // namespace mudjack::oracle
