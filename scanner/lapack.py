"""Two things numpy's own OpenBLAS can do that numpy does not expose, reached through ctypes.

    single_thread_blas() -> bool        hold its thread pool to one thread
    solve_banded_spd(a, b, kd) -> x     solve a symmetric positive-definite system whose
                                        entries lie within kd of the diagonal

The scanner's residual field (scanner.rectify.fit_field) is a grid of a few hundred
nodes, each coupled only to nodes two grid rows away at most: a banded Cholesky solve
(LAPACK dpbsv) costs a twentieth of numpy's dense LU solve there. Where the library is
not numpy's bundled OpenBLAS (another BLAS, another platform), the dense solve is used:
the same answer, only slower.
"""

from __future__ import annotations

import ctypes
import os
from functools import cache

import numpy as np

BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_COL_MAJOR = 102  # LAPACKE's LAPACK_COL_MAJOR


@cache
def _openblas() -> tuple[ctypes.CDLL, ...]:
    """The OpenBLAS libraries loaded into this process (Linux: found in /proc/self/maps)."""
    import numpy.linalg  # noqa: F401  (loads the library)

    try:
        with open("/proc/self/maps") as f:
            paths = {ln.split()[-1] for ln in f if "openblas" in ln.lower() and "/" in ln}
    except OSError:
        return ()
    libs = []
    for path in sorted(paths):
        try:
            libs.append(ctypes.CDLL(path))
        except OSError:
            continue
    return tuple(libs)


def _symbol(names: tuple[str, ...]) -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    for lib in _openblas():
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                return fn
    return None


def single_thread_blas() -> bool:
    """Hold numpy's OpenBLAS to one thread in this process (unless the user set a thread
    count): the scanner's linear algebra is small (3x3 homographies, a grid of a few
    hundred nodes), and a BLAS thread pool on a busy machine only spins, doubling the CPU
    a sheet costs; parallelism comes from `scan --jobs` (one process per core). Returns
    whether the limit was set."""
    if any(os.environ.get(k) for k in BLAS_ENV):
        return False
    fn = _symbol(("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                  "openblas_set_num_threads", "scipy_openblas_set_num_threads"))
    if fn is None:
        return False
    fn(1)
    return True


@cache
def _dpbsv() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    """LAPACKE_dpbsv of numpy's 64-bit-integer OpenBLAS, or None."""
    fn = _symbol(("scipy_LAPACKE_dpbsv64_", "LAPACKE_dpbsv64_"))
    if fn is None:
        return None
    i64 = ctypes.c_int64
    fn.restype = i64
    fn.argtypes = [ctypes.c_int, ctypes.c_char, i64, i64, i64, ctypes.c_void_p, i64,
                   ctypes.c_void_p, i64]
    return fn


def banded_available() -> bool:
    """Whether solve_banded_spd runs the banded solve (else it falls back to dense)."""
    return _dpbsv() is not None


def solve_banded_spd(a: np.ndarray, b: np.ndarray, kd: int) -> np.ndarray:
    """x with a @ x = b, for a symmetric positive-definite `a` (n, n) with a[i, j] = 0
    wherever |i - j| > kd; `b` (n,) or (n, k). Raises numpy.linalg.LinAlgError when `a`
    is not positive definite (banded) or singular (dense)."""
    fn = _dpbsv()
    n = a.shape[0]
    if fn is None or n == 0:
        return np.linalg.solve(a, b)
    kd = max(0, min(int(kd), n - 1))
    # upper band, column-major: ab[j, kd + i - j] = a[i, j] for j - kd <= i <= j
    rows = np.arange(n)[:, None] - kd + np.arange(kd + 1)[None, :]
    ab = np.where(rows >= 0, a[np.maximum(rows, 0), np.arange(n)[:, None]], 0.0)
    ab = np.ascontiguousarray(ab, dtype=np.float64)
    x = np.array(b, dtype=np.float64, order="F", copy=True)
    info = fn(_COL_MAJOR, b"U", n, kd, 1 if x.ndim == 1 else x.shape[1], ab.ctypes.data,
              kd + 1, x.ctypes.data, n)
    if info != 0:
        raise np.linalg.LinAlgError(f"banded Cholesky solve failed (LAPACK info {info})")
    return x
