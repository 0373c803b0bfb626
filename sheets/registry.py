"""The registry of sheet kinds: a dict from kind id to how to draw it.

A kind is added by a module that builds a SheetKind and calls `register`; list that
module in BUILTIN_MODULES so it is imported the first time a kind is looked up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starsheets.errors import UsageError

if TYPE_CHECKING:
    from sheets.draw import Sheet

BUILTIN_MODULES = ("sheets.career", "sheets.spacer_setting", "sheets.spacer_character",
                   "sheets.spacer_card", "sheets.odds_card_opial", "sheets.odds_card_spacer",
                   "sheets.odds_card_pool")


@dataclass(frozen=True)
class SheetKind:
    """One printable sheet.

    id: the kind as written in the sheet code (lower case, e.g. 'opial-career').
    draw: draws the sheet's content into `sheet.frame`, recording every mark region.
    editions / default_edition: the rules editions it can print.
    normalise_edition: maps a user's spelling ('000', 'old', ...) to an edition id,
        raising UsageError for an unknown one (default: exact match in `editions`).
    papers: the paper names (sheets.paper.PAPERS) it is laid out for.
    aliases: other names accepted on the command line (e.g. 'career')."""

    id: str
    title: str
    draw: Callable[[Sheet], None]
    editions: tuple[str, ...]
    default_edition: str
    papers: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    normalise_edition: Callable[[str | None], str] | None = None

    def edition(self, edition: str | None) -> str:
        if self.normalise_edition is not None:
            return self.normalise_edition(edition)
        if edition is None:
            return self.default_edition
        key = str(edition).lower()
        if key not in self.editions:
            raise UsageError(f"unknown edition '{edition}' for {self.id}",
                             f"Use one of: {', '.join(self.editions)}.")
        return key


KINDS: dict[str, SheetKind] = {}
_loaded = False


def register(kind: SheetKind) -> SheetKind:
    """Add a kind (ids and aliases must be new)."""
    for name in (kind.id, *kind.aliases):
        if name in KINDS and KINDS[name] is not kind:
            raise ValueError(f"sheet kind name {name!r} registered twice")
    for name in (kind.id, *kind.aliases):
        KINDS[name] = kind
    return kind


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN_MODULES:
            importlib.import_module(module)


def kinds() -> list[SheetKind]:
    """Every registered kind, once each."""
    _load_builtin()
    seen: dict[str, SheetKind] = {}
    for k in KINDS.values():
        seen.setdefault(k.id, k)
    return list(seen.values())


def get_kind(name: str) -> SheetKind:
    """The kind called `name` (id or alias); UsageError listing the known ones if none."""
    _load_builtin()
    key = str(name).strip().lower()
    if key not in KINDS:
        known = sorted({n for k in kinds() for n in (*k.aliases, k.id)})
        raise UsageError(f"unknown sheet kind '{name}'", f"Use one of: {', '.join(known)}.")
    return KINDS[key]
