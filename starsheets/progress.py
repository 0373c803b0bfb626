"""Progress bars on stderr through one interface; stdout stays clean for data."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm


def enabled() -> bool:
    """Bars show on an interactive stderr, or when STARSHEETS_PROGRESS=1."""
    flag = os.environ.get("STARSHEETS_PROGRESS")
    if flag is not None:
        return flag not in ("0", "")
    return sys.stderr.isatty()


@contextmanager
def bar(total: int, desc: str, unit: str = "it") -> Iterator[tqdm]:
    """A tqdm bar on stderr, silent when progress is disabled."""
    with tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not enabled(),
              dynamic_ncols=True, leave=False) as b:
        yield b
