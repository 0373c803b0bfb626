"""Subcommands. Each module defines click commands; list them here once."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []

from starsheets.commands.booklet import booklet as booklet_command  # noqa: E402

COMMANDS.append(booklet_command)
from starsheets.commands.odds import odds as odds_command  # noqa: E402

COMMANDS.append(odds_command)
from starsheets.commands.spacer import new as new_command  # noqa: E402

COMMANDS.append(new_command)
from starsheets.commands.sheets import SHEET_COMMANDS  # noqa: E402

COMMANDS.extend(SHEET_COMMANDS)
from starsheets.commands.career import CAREER_COMMANDS  # noqa: E402

COMMANDS.extend(CAREER_COMMANDS)
import starsheets.commands.odds_opial  # noqa: E402, F401  (adds `odds opial`)
from starsheets.commands.demo import demo as demo_command  # noqa: E402

COMMANDS.append(demo_command)
from starsheets.commands.scan import scan as scan_command  # noqa: E402

COMMANDS.append(scan_command)
