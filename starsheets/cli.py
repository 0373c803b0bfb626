"""The `starsheets` command: one group, subcommands registered from starsheets.commands."""

from __future__ import annotations

import logging
import sys
import traceback

import click

from starsheets.errors import ExitCode, StarsheetsError


class Context:
    """Options shared by every subcommand."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks and extra detail.")
@click.version_option(package_name="starsheets")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Print, scan, score and play the OPIAL career page and the Spacer RPG forms."""
    ctx.obj = Context(verbose)


def _register() -> None:
    from starsheets.commands import COMMANDS

    for command in COMMANDS:
        cli.add_command(command)


_register()


def _quiet_libraries(verbose: bool) -> None:
    """Libraries' log lines (pypdf's "EOF marker not found" on a damaged PDF) stay off
    stderr, where the one-line error says what is wrong; with -v they show."""
    root = logging.getLogger()
    if verbose:
        logging.basicConfig(level=logging.WARNING, format="starsheets: %(name)s: %(message)s")
    elif not root.handlers:
        root.addHandler(logging.NullHandler())


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; user errors become one line on stderr and an exit code."""
    args = sys.argv[1:] if argv is None else argv
    verbose = "-v" in args or "--verbose" in args
    _quiet_libraries(verbose)
    try:
        rv = cli.main(args=args, prog_name="starsheets", standalone_mode=False)
    except StarsheetsError as e:
        if verbose:
            traceback.print_exc()
        click.echo(f"starsheets: error: {e.one_line()}", err=True)
        sys.exit(int(e.exit_code))
    except click.exceptions.Abort:
        click.echo("starsheets: interrupted.", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("starsheets: interrupted.", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    except BrokenPipeError:
        sys.exit(int(rv) if isinstance(rv, int) else int(ExitCode.OK))
    except Exception as e:  # a bug: one line unless -v
        if verbose:
            traceback.print_exc()
        click.echo(f"starsheets: internal error: {type(e).__name__}: {e} "
                   "(run with -v for the traceback, and please report it).", err=True)
        sys.exit(int(ExitCode.INTERNAL))
    sys.exit(int(rv) if isinstance(rv, int) else int(ExitCode.OK))
