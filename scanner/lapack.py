"""Two things numpy's own OpenBLAS can do that numpy does not expose, reached through ctypes.

    single_thread_blas() -> bool        hold its thread pool to one thread
    solve_banded_spd(ab, b) -> x        solve a symmetric positive-definite system given
                                        by its band (band_of: the entries within kd of
                                        the diagonal)

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


def band_of(a: np.ndarray, kd: int) -> np.ndarray:
    """The upper band of a symmetric (n, n) matrix as LAPACK stores it (column-major):
    ab (n, kd + 1) with ab[j, kd + i - j] = a[i, j] for j - kd <= i <= j."""
    n = a.shape[0]
    rows = np.arange(n)[:, None] - kd + np.arange(kd + 1)[None, :]
    return np.where(rows >= 0, a[np.maximum(rows, 0), np.arange(n)[:, None]], 0.0)


def dense_of(ab: np.ndarray) -> np.ndarray:
    """The symmetric (n, n) matrix whose upper band `ab` is (band_of's inverse)."""
    n, kd = ab.shape[0], ab.shape[1] - 1
    a = np.zeros((n, n))
    j = np.repeat(np.arange(n), kd + 1)
    i = j - kd + np.tile(np.arange(kd + 1), n)
    ok = i >= 0
    a[i[ok], j[ok]] = ab.ravel()[ok]
    a[j[ok], i[ok]] = ab.ravel()[ok]
    return a


def solve_banded_spd(ab: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with a @ x = b, for a symmetric positive-definite matrix `a` given by its upper
    band `ab` (band_of); `b` (n,) or (n, k). Raises numpy.linalg.LinAlgError when `a` is
    not positive definite (banded) or singular (dense)."""
    fn = _dpbsv()
    n, kd = ab.shape[0], ab.shape[1] - 1
    if fn is None or n == 0:
        return np.linalg.solve(dense_of(ab), b)
    band = np.array(ab, dtype=np.float64, order="C", copy=True)  # (LAPACK overwrites both)
    x = np.array(b, dtype=np.float64, order="F", copy=True)
    info = fn(_COL_MAJOR, b"U", n, kd, 1 if x.ndim == 1 else x.shape[1], band.ctypes.data,
              kd + 1, x.ctypes.data, n)
    if info != 0:
        raise np.linalg.LinAlgError(f"banded Cholesky solve failed (LAPACK info {info})")
    return x
