"""`python -m starsheets` runs the command-line interface."""

from starsheets.cli import main

main()
