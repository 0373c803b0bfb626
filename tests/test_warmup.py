"""starsheets.warmup: the install-time runs that compile the numba code."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from starsheets import warmup


def test_the_sample_photo_is_shipped_and_reads() -> None:
    assert warmup.SAMPLE.exists()
    assert warmup.warm_scanner() > 0


def test_a_photo_that_does_not_read_fails_the_warmup(tmp_path: Path) -> None:
    cat = tmp_path / "grey.png"
    cv2.imwrite(str(cat), np.full((600, 800), 128, np.uint8))
    with pytest.raises(RuntimeError, match=r"warm-up read of .* failed"):
        warmup.warm_scanner(cat)


def test_the_engine_warms() -> None:
    assert warmup.warm_engine() > 0
