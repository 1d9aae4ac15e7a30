"""The capability suite's NumPy and SciPy cases: the host reference
implementation of each workload NumPy can express (no compiler, no autograd)."""

from __future__ import annotations

from mudjack_probe.api import Cases, Ctx, np

from _capability import (
    JIT_SHAPES,
    MATMUL_GAIN_TOL,
    SCIPY_POINTS,
    SCIPY_X0,
    XLA_SHAPES,
    calibration_data,
    f_close_libm,
    least_squares,
    matmul_close,
    matmul_every_row,
    matmul_flop,
    matmul_gain,
    matmul_reduction,
    optimum_close,
    points,
    rmse_host,
)

cases = Cases("numpy")


@cases.case("xla", dtype=["float32"], shape=XLA_SHAPES, reduction=matmul_reduction,
            note="dense matmul, the study's `xla` experiment; NumPy has no bfloat16")
def xla(t: Ctx):
    a, b = t.randn(), t.randn()
    n = t.shape[0]
    return (t.call(np.matmul, a, b).work(matmul_flop(n), "FLOP")
            .reference("rows match float64 sums of products (np.einsum loops, not BLAS; error / sqrt(A**2 @ B**2) <= 1e-4)",
                       matmul_close(t.dtype_name))
            .check("every row: C r = A (B r) for a random sign vector r, within the same bound", matmul_every_row(t.dtype_name, t.seed))
            .check(f"no systematic scale: least-squares gain of the rows within {MATMUL_GAIN_TOL} of 1", matmul_gain))


@cases.case("jit", dtype=["float32"], shape=JIT_SHAPES,
            note="f(x) = 0.2x + sin x + cos 2x on x evenly spaced on [0, 4 pi]")
def jit(t: Ctx):
    x = t.from_numpy(points(t.shape))

    def f(v):
        return 0.2 * v + np.sin(v) + np.cos(2 * v)

    return t.call(f, x).work(x.size, "element").reference("f matches float64 (libm sin and cos via math) within 1e-5", f_close_libm)


@cases.case("scipy", dtype=["float64"], shape={f"n{SCIPY_POINTS}": (SCIPY_POINTS,)},
            note="calibration fit, scipy.optimize.minimize BFGS with a finite-difference gradient, as the study ran it")
def scipy_bfgs(t: Ctx):
    from scipy.optimize import minimize

    raw, ref = calibration_data(t.seed, t.shape[0])
    exact = least_squares(raw, ref)
    x0 = np.asarray(SCIPY_X0, dtype=np.float64)

    def fit(r, y):
        res = minimize(rmse_host, x0, args=(r, y), method="BFGS")
        return res.x, np.float64(res.fun), np.int64(res.nit), np.int64(res.nfev), np.int64(res.njev)

    return (t.call(fit, raw, ref)
            .reference("optimum matches the closed-form least squares (x within 1e-3, fun within 1e-4)",
                   optimum_close(exact, rmse_host(exact, raw, ref)))
            .metric("fun", lambda o, i: o[1])
            .metric("gain", lambda o, i: o[0][0])
            .metric("offset", lambda o, i: o[0][1])
            .metric("iterations", lambda o, i: o[2])
            .metric("function_evals", lambda o, i: o[3])
            .metric("gradient_evals", lambda o, i: o[4]))
