"""Spacer: characters, settings and their validation (pure logic, tables from
templates/spacer.yaml)."""
