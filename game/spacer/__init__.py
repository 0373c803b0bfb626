"""Spacer (seed 004): tables, characters, settings and task odds."""
