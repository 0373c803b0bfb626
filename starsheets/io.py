"""Reading and writing the user's files with clear errors (inputs are never modified)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from starsheets.errors import InputFileError, OutputError, StateFormatError


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """Read an input file, turning OS errors into one-line messages."""
    p = Path(path)
    if not p.exists():
        raise InputFileError(f"{what} not found: {p}", "Check the path and try again.")
    if p.is_dir():
        article = "an" if what[:1].lower() in "aeiou" else "a"
        raise InputFileError(f"{p} is a directory, not {article} {what}",
                             "Give the path of a file.")
    try:
        return p.read_bytes()
    except PermissionError:
        raise InputFileError(f"cannot read {p}: permission denied",
                             "Check the file's permissions.") from None
    except OSError as e:
        raise InputFileError(f"cannot read {p}: {e.strerror}", "Check the file.") from None


def load_data_file(path: str | Path, what: str = "state file") -> Any:
    """Parse a JSON or YAML file (JSON is YAML, but JSON errors read better)."""
    raw = read_bytes(path, what)
    if not raw.strip():
        raise StateFormatError(f"{path} is empty", f"Give a {what} in JSON or YAML.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise StateFormatError(f"{path} is not a text file",
                               f"Give a {what} in JSON or YAML.") from None
    try:
        if Path(path).suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise StateFormatError(f"{path} is not valid JSON (line {e.lineno}: {e.msg})",
                               "Fix the file or regenerate it.") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise StateFormatError(f"{path} is not valid YAML{where}",
                               "Fix the file or regenerate it.") from None


def write_text(path: str | Path, text: str) -> None:
    """Write an output file, creating its folder."""
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    except OSError as e:
        raise OutputError(f"cannot write {p}: {e.strerror}",
                          "Choose a writable output path.") from None


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write a binary output file, creating its folder."""
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    except OSError as e:
        raise OutputError(f"cannot write {p}: {e.strerror}",
                          "Choose a writable output path.") from None


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
