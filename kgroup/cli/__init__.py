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
from kgroup.errors import EXIT_INTERNAL, EXIT_USAGE, KgroupError
from kgroup.render import error, printable

__all__ = ["app", "main"]


def main() -> None:
    """Entry point: every expected failure becomes one line on stderr and its exit code."""
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
    except MemoryError:
        error("out of memory: the input is larger than this machine can examine")
        code = EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - the last guard: never a traceback without -v
        code = _internal_error(e)
    if code == 130:  # Ctrl-C caught inside the CLI framework, which returns 130 without a word
        sys.stderr.write("kgroup: interrupted\n")
    sys.exit(code if isinstance(code, int) else 0)


def _internal_error(e: Exception) -> int:
    """One line for a failure kgroup did not expect (a bug); the trace only with -v."""
    from kgroup.settings import redact_patterns

    detail = redact_patterns(f"{type(e).__name__}: {e}")
    if len(detail) > 300:
        detail = detail[:300] + "..."
    verbose = any(a in ("-v", "--verbose") for a in sys.argv[1:sys.argv.index("--") if "--" in sys.argv else None])
    if verbose:
        import traceback

        sys.stderr.write(printable(redact_patterns("".join(traceback.format_exception(e)))).replace("\\x0a", "\n"))
    sys.stderr.write(f"kgroup: internal error: {printable(detail)} (a bug in kgroup: please report it with the "
                     "command line" + (" and the trace above" if verbose else "; -v prints the trace") + ")\n")
    return EXIT_INTERNAL
