"""Load a Spacer character or setting from a file: YAML, JSON, or a filled fillable PDF.

`starsheets validate character|setting FILE` reads its FILE through these, so a form
filled in a PDF viewer validates like a character file:

    load_character(path) -> Character     YAML/JSON (docs/character.md) or a filled form
    load_setting(path) -> Setting

A file is taken for a PDF when it starts with the PDF header, whatever its name.
"""

from __future__ import annotations

from pathlib import Path

from game.spacer.character import Character
from game.spacer.setting import Setting
from starsheets.io import load_data_file, read_bytes


def is_pdf(path: str | Path, what: str = "file") -> bool:
    """True if the file starts like a PDF (InputFileError, naming `what`, if it cannot
    be read)."""
    return read_bytes(path, what)[:1024].lstrip().startswith(b"%PDF-")


def load_character(path: str | Path) -> Character:
    """Read and check a character: a YAML/JSON character file (schema-checked), or a
    fillable Character Form filled in a PDF viewer."""
    if is_pdf(path, "character file"):
        from sheets.spacer_fillable import read_character_form

        return read_character_form(path)
    return Character.from_dict(load_data_file(path, "character file"), source=str(path))


def load_setting(path: str | Path) -> Setting:
    """Read and check a setting: a YAML/JSON setting file, or a filled Setting Form."""
    if is_pdf(path, "setting file"):
        from sheets.spacer_fillable import read_setting_form

        return read_setting_form(path)
    return Setting.from_dict(load_data_file(path, "setting file"), source=str(path))
