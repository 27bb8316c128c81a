"""The Typer layer: parse options, call the core or the adapter, render.

Nothing here computes anything Kafka-specific. Modules that talk to a cluster
are imported inside the commands that need one, so ``kgroup --help`` and the
offline commands never load confluent_kafka.
"""
from __future__ import annotations

import sys

import typer

from kgroup.cli.common import app
from kgroup.cli import find_coordinator, groups, log, scan, whatif  # noqa: F401  (registers the commands)
from kgroup.errors import KgroupError
from kgroup.render import error

__all__ = ["app", "main"]


def main() -> None:
    """Entry point: every expected failure becomes one line on stderr and its exit code."""
    from kgroup.cli import interrupt

    interrupt.install()
    try:
        code = app(standalone_mode=False, prog_name="kgroup")
    except typer.TyperException as e:  # bad usage: unknown option, bad value, missing argument
        ctx = getattr(e, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        if e.format_message():  # empty when help was shown for a bare command
            error(f"{e.format_message()}{hint}")
        code = 2
    except KgroupError as e:
        error(e.message)
        code = e.exit_code
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("kgroup: interrupted\n")
        code = 130
    except BrokenPipeError:
        code = 0
    if code == 130:  # Ctrl-C caught inside the CLI framework, which returns 130 without a word
        sys.stderr.write("kgroup: interrupted\n")
    sys.exit(code if isinstance(code, int) else 0)
