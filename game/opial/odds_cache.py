"""A persistent cache of exact OPIAL roll odds (`game.opial.odds.success_by_rerolls`).

The exact re-roll DP of a large pool with rich skills takes up to a few seconds; a whole
odds card needs a few hundred of them. The results are small (five floats: 0..4 Computer
re-rolls) and depend only on the rules data and the odds engine, so they are kept in a
JSON file under `$XDG_CACHE_HOME/starsheets/` (`game.opial.simulate.cache_dir`), named by
a hash of templates/opial.yaml and of the engine's source (odds.py, kernel.py): editing
either starts a new file, and a stale one is never read. Floats are written with repr,
so a cached value is bit-for-bit the engine's.

    cache = OddsCache.open()
    cache.fill(keys, workers=None, on_done=None)   # compute what is missing (in parallel)
    cache.success(reqs, pool, mods) -> (p0, ..., p4)
    cache.mission_success(mission, pool, mods, computer) -> float
    cache.medal_success(targets, courage, computer) -> float
    cache.save()                                    # atomic; merges with a concurrent writer

The cache is an optimisation only: an unreadable or unwritable file is ignored and the
odds are computed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import astuple
from pathlib import Path

import templates
from game.opial import kernel, odds
from game.opial.odds import FACES, Mods, canonical_mods, success_by_rerolls
from game.opial.rules import Mission

CACHE_VERSION = "1"
FORMAT = "starsheets/opial-odds-cache@1"

Reqs = tuple[tuple[int, str], ...]
Pool = tuple[int, int, int]
Key = tuple[Reqs, Pool, Mods]


def cache_key() -> str:
    """Hash of the rules data and the engine's source: the cache file's name."""
    h = hashlib.sha256(CACHE_VERSION.encode())
    h.update(Path(templates.__file__).with_name("opial.yaml").read_bytes())
    for module in (odds, kernel):
        h.update(Path(module.__file__ or "").read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/starsheets (~/.cache/starsheets): the directory of
    game.opial.simulate.cache_dir, without importing the simulator."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "starsheets"


def default_path() -> Path:
    return cache_dir() / f"opial-odds-{cache_key()}.json"


def mission_key(mission: Mission, pool: Pool, mods: Mods) -> Key:
    """The key `odds.mission_success` prices a mission roll under (sorted requirements,
    canonical modifiers), so equal rolls share one entry."""
    reqs = tuple(sorted(((r.target, r.colour) for r in mission.roll), reverse=True))
    return reqs, pool, canonical_mods(reqs, pool, mods)


def medal_key(targets: tuple[int, ...], courage: int) -> Key | None:
    """The key `odds.medal_success` prices a medal roll under (each die's number less
    Courage, any colour); None when some number stays above a die's faces."""
    reqs = tuple((max(1, t - courage), "K") for t in targets)
    if any(t > FACES for t, _ in reqs):
        return None
    return reqs, (0, 0, len(targets)), Mods()


def encode_key(key: Key) -> str:
    """`5K,5K,6R|0,0,7|lead=2,...`: readable, stable, one string per key."""
    reqs, pool, mods = key
    return ("|".join([",".join(f"{t}{c}" for t, c in reqs), ",".join(map(str, pool)),
                      ",".join(map(str, astuple(mods)))]))


def _compute(key: Key) -> tuple[Key, tuple[float, ...]]:
    reqs, pool, mods = key
    return key, success_by_rerolls(reqs, pool, mods)


def _cost(key: Key) -> int:
    """A rough cost (bigger pools first keeps the parallel workers busy to the end)."""
    return sum(key[1]) * 16 + len(key[0])


class OddsCache:
    """success_by_rerolls results by key, backed by a JSON file (None: memory only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.values: dict[str, tuple[float, ...]] = {}
        self.dirty = False
        self.computed = 0  # entries computed (not read) since opening
        if path is not None:
            self.values.update(self._read(path))

    @classmethod
    def open(cls, path: Path | None = None) -> OddsCache:
        return cls(path or default_path())

    @staticmethod
    def _read(path: Path) -> dict[str, tuple[float, ...]]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return {}
        out = {}
        for k, v in data.get("values", {}).items():
            if isinstance(v, list) and len(v) == odds.MAX_REROLLS + 1:
                out[k] = tuple(float(x) for x in v)
        return out

    def __contains__(self, key: Key) -> bool:
        return encode_key(key) in self.values

    def __len__(self) -> int:
        return len(self.values)

    def missing(self, keys: Iterable[Key]) -> list[Key]:
        seen: dict[str, Key] = {}
        for k in keys:
            e = encode_key(k)
            if e not in self.values:
                seen.setdefault(e, k)
        return list(seen.values())

    def put(self, key: Key, value: tuple[float, ...]) -> None:
        self.values[encode_key(key)] = tuple(float(x) for x in value)
        self.dirty = True
        self.computed += 1

    def success(self, reqs: Reqs, pool: Pool, mods: Mods) -> tuple[float, ...]:
        """success_by_rerolls(reqs, pool, mods), computed on a miss."""
        key = (reqs, pool, mods)
        e = encode_key(key)
        if e not in self.values:
            self.put(key, success_by_rerolls(reqs, pool, mods))
        return self.values[e]

    def mission_success(self, mission: Mission, pool: Pool, mods: Mods, computer: int) -> float:
        """The same number as odds.mission_success, from the cache when it can."""
        return self.success(*mission_key(mission, pool, mods))[computer]

    def medal_success(self, targets: tuple[int, ...], courage: int, computer: int) -> float:
        """The same number as odds.medal_success, from the cache when it can."""
        key = medal_key(targets, courage)
        return 0.0 if key is None else self.success(*key)[computer]

    def fill(self, keys: Iterable[Key], workers: int | None = None,
             on_done: Callable[[int], None] | None = None) -> int:
        """Compute every missing key; `workers` > 1 uses that many processes (default:
        the CPU count when there is real work). Returns how many were computed."""
        todo = sorted(self.missing(keys), key=_cost, reverse=True)
        if not todo:
            return 0
        if workers is None:
            workers = min(os.cpu_count() or 1, 8) if len(todo) > 8 else 1
        if workers <= 1:
            for key in todo:
                self.put(*_compute(key))
                if on_done:
                    on_done(1)
            return len(todo)
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for fut in as_completed([ex.submit(_compute, k) for k in todo]):
                self.put(*fut.result())
                if on_done:
                    on_done(1)
        return len(todo)

    def save(self) -> bool:
        """Write the file (atomically, merged with what another process wrote meanwhile);
        False when it cannot be written (the cache is then memory only)."""
        if self.path is None or not self.dirty:
            return False
        merged = {**self._read(self.path), **self.values}
        payload = {"format": FORMAT, "key": self.path.stem,
                   "values": {k: list(v) for k, v in sorted(merged.items())}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".opial-odds-", dir=self.path.parent)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, indent=0)
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            return False
        self.values = merged
        self.dirty = False
        return True
