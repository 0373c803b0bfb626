"""Subcommands. Each module defines click commands; list them here once."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
