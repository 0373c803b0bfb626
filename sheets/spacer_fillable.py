"""Reading a filled fillable Spacer form (from `starsheets print character|setting
--fillable`) back into a Character or a Setting.

The fields are named by the manifest's region ids (docs/sheets.md, "Fillable forms"):
a radio group per bubble group (attr.agility, level, species, setting.employer, ...), a
check box per tick box, study circle and tally diamond, a text field per write-in line
and a comb field per digit comb. sheets.fillable.read_fillable turns them into region
values; game.spacer.marks turns those into the model.
"""

from __future__ import annotations

from pathlib import Path

from game.spacer.character import Character
from game.spacer.marks import marks_to_character, marks_to_setting
from game.spacer.setting import Setting
from sheets.fillable import read_fillable
from starsheets.errors import NotASheetError

CHARACTER_KIND = "spacer-character"
SETTING_KIND = "spacer-setting"


def read_spacer_fillable(path: str | Path) -> Character | Setting:
    """The character or setting a filled fillable Spacer form holds (NotASheetError if
    the PDF is another sheet or not a starsheets form; InputFileError if unreadable)."""
    kind, _edition, values = read_fillable(path)
    if kind == CHARACTER_KIND:
        return marks_to_character(values)
    if kind == SETTING_KIND:
        return marks_to_setting(values)
    raise NotASheetError(f"{path} is a {kind} form, not a Spacer character or setting form",
                         "Give a form printed with `starsheets print character --fillable` "
                         "or `starsheets print setting --fillable`.")


def read_character_form(path: str | Path) -> Character:
    """A filled fillable Character Form (NotASheetError for any other form)."""
    got = read_spacer_fillable(path)
    if not isinstance(got, Character):
        raise NotASheetError(f"{path} is a Spacer setting form, not a character form",
                             "Use `starsheets validate setting` for it.")
    return got


def read_setting_form(path: str | Path) -> Setting:
    """A filled fillable Setting Form (NotASheetError for any other form)."""
    got = read_spacer_fillable(path)
    if not isinstance(got, Setting):
        raise NotASheetError(f"{path} is a Spacer character form, not a setting form",
                             "Use `starsheets validate character` for it.")
    return got
