"""The residual field's solve: numpy's LAPACK banded Cholesky (scanner.lapack) against its
dense solve, and the field it fits (scanner.rectify.fit_field)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner import lapack
from scanner.rectify import fit_field


def _banded_spd(rng: np.random.Generator, n: int, kd: int) -> np.ndarray:
    """A symmetric positive-definite matrix with nothing beyond kd of its diagonal."""
    half = (kd + 1) // 2  # B banded by half: B^T B banded by kd at most
    b = np.triu(np.tril(rng.normal(size=(n, n)), half)) if half else np.zeros((n, n))
    a = b.T @ b + np.diag(rng.uniform(0.5, 2.0, n))
    i, j = np.indices(a.shape)
    a[np.abs(i - j) > kd] = 0.0
    return (a + a.T) / 2 + np.eye(n) * n * 0.1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy's OpenBLAS is "
                    "found through /proc/self/maps")
def test_the_banded_solve_is_found_in_numpys_own_openblas() -> None:
    assert lapack.banded_available()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 120), kd=st.integers(0, 50), k=st.integers(1, 3),
       seed=st.integers(0, 2**32 - 1))
def test_banded_solve_matches_the_dense_solve(n: int, kd: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    kd = min(kd, n - 1)
    a = _banded_spd(rng, n, kd)
    b = rng.normal(size=(n, k))
    ab = lapack.band_of(a, kd)
    assert np.array_equal(lapack.dense_of(ab), a)
    x = lapack.solve_banded_spd(ab, b)
    assert x.shape == b.shape
    assert np.allclose(x, np.linalg.solve(a, b), rtol=1e-9, atol=1e-9)
    assert np.allclose(lapack.solve_banded_spd(ab, b[:, 0]), np.linalg.solve(a, b[:, 0]))


def test_banded_solve_leaves_its_inputs_alone_and_refuses_a_matrix_not_positive() -> None:
    rng = np.random.default_rng(1)
    a = _banded_spd(rng, 30, 4)
    b = rng.normal(size=(30, 2))
    ab = lapack.band_of(a, 4)
    ab0, b0 = ab.copy(), b.copy()
    lapack.solve_banded_spd(ab, b)
    assert np.array_equal(ab, ab0) and np.array_equal(b, b0)
    with pytest.raises(np.linalg.LinAlgError):
        lapack.solve_banded_spd(lapack.band_of(np.zeros((30, 30)), 4), b)


def _curl(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """A smooth displacement like a curled page's: pixels, over a 1700 x 2200 canvas."""
    return np.stack([3 * np.sin(u / 700) + 0.5 * v / 2200, 2 * np.cos(v / 900) - u / 1700], -1)


def _measurements(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pts = rng.uniform((0, 0), (1700, 2200), size=(300, 2))
    shifts = _curl(pts[:, 0], pts[:, 1]) + rng.normal(0, 0.2, (300, 2))
    shifts[:6] += 25.0  # a few gross outliers (a box matched on its neighbour)
    return pts, shifts, rng.uniform(0.5, 1.0, 300)


def test_the_field_follows_a_curled_page_and_drops_outliers() -> None:
    pts, shifts, w = _measurements(3)
    fld = fit_field(pts, shifts, w, (1700, 2200), 94.5, smooth=0.5, outlier=3.0)
    u, v = np.meshgrid(np.linspace(100, 1600, 12), np.linspace(100, 2100, 15))
    err = np.abs(fld(u, v) - _curl(u, v))
    assert err.max() < 0.5
    assert 250 <= fld.used <= 294  # the six outliers are not kept (nor bend the field)


def test_the_field_is_the_same_with_the_dense_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    pts, shifts, w = _measurements(4)
    banded = fit_field(pts, shifts, w, (1700, 2200), 94.5, smooth=0.5, outlier=3.0)
    monkeypatch.setattr(lapack, "_dpbsv", lambda: None)
    dense = fit_field(pts, shifts, w, (1700, 2200), 94.5, smooth=0.5, outlier=3.0)
    assert np.allclose(banded.nodes, dense.nodes, atol=1e-9)
    assert banded.used == dense.used
