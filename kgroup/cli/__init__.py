"""The Typer layer: parse options, call the core or the adapter, render.

Nothing here computes anything Kafka-specific. Commands register lazily: ``main`` imports
only the module of the command named on the command line (``kgroup.cli.app``, the whole
application, imports them all), modules that talk to a cluster are imported inside the
commands that need one. So ``kgroup --help`` and the offline commands never load
confluent_kafka, pyspark or plotly; parsing, coercing values and rendering help are Typer's
own (kgroup.cli.params: the commands' classes, through Typer's public ``cls=``).
"""
from __future__ import annotations

import sys

__all__ = ["app", "main", "run", "COMMANDS"]

# every command, in the order `kgroup --help` lists them -> the module under kgroup.cli defining it
COMMANDS = {
    "find-coordinator": "find_coordinator",
    "list": "groups",
    "describe": "groups",
    "offsets": "groups",
    "lag": "lag",
    "snapshot": "groups",
    "log": "log",
    "history": "log",
    "scan": "scan",
    "report": "report",
    "whatif": "whatif",
    "vote": "whatif",
}


def load_app(only: str | None = None):
    """The Typer app with every command registered (in ``COMMANDS`` order), or with the
    single command ``only`` (a copy of the app: the full one stays complete)."""
    import copy
    import importlib

    from kgroup.cli.common import app

    modules = [COMMANDS[only]] if only else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(f"kgroup.cli.{module}")
    rank = {name: i for i, name in enumerate(COMMANDS)}
    app.registered_commands.sort(key=lambda c: rank.get(c.name or "", len(rank)))
    if only is None:
        return app
    single = copy.copy(app)
    single.registered_commands = [c for c in app.registered_commands if c.name == only]
    return single


def __getattr__(name: str):
    if name == "app":
        return load_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run() -> None:
    """The program's entry point (console script, ``python -m kgroup``): the command, then an
    exit that skips the interpreter's teardown of native clients. librdkafka handles destroyed
    during that teardown, after a failed SASL handshake, were seen to crash the process (SIGSEGV)
    after kgroup had printed its answer; exit handlers still run and output is flushed first."""
    import atexit
    import os

    from kgroup.errors import ExitCode

    try:
        _main()  # not main(): the process ends here, so the garbage collector is not restored
        code: object = ExitCode.OK
    except SystemExit as e:
        code = e.code
    except BrokenPipeError:  # the reader of stderr went away while kgroup said why it ends
        code = ExitCode.OK
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # its reader went away before the end: exit 0, as if it had sooner
            _nowhere(stream)
            code = ExitCode.OK
        except (OSError, ValueError):  # closed: nothing more to say there
            pass
    atexit._run_exitfuncs()
    from kgroup import _stopping

    if code is None:
        code = ExitCode.OK
    elif not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = ExitCode.FLAGGED  # 1, as the interpreter ends a sys.exit(message)
    # a Ctrl-C said at the last moment ends the process with its own code; from here one is not said
    if not _stopping.acquire(timeout=5):
        code = ExitCode.INTERRUPTED
    os._exit(code)


def _nowhere(stream) -> None:
    """What is still buffered for ``stream``, whose reader went away, and whatever is written to it
    from now on (an exit handler), goes to the null device: no failed flush is reported later."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError):
        pass


def main() -> None:
    """The command line run inside a caller's process (tests; the program itself runs
    :func:`run`): as the program, then the garbage collector as it was found, since a command
    turns it off and freezes what it has built for the rest of its process's life."""
    import gc

    enabled = gc.isenabled()
    gc.freeze()  # the caller's objects, out of the collection below (a test run's heap: 80 ms a pass)
    try:
        _main()
    finally:
        # what the command left in reference cycles (a client kept by an exception's traceback)
        # is freed here, on this thread: freed later by a collection that happens to run on one
        # of librdkafka's own threads, a client handle aborts the process. Before unfreezing:
        # what existed when the command started is frozen, so only what it built is examined
        gc.collect()
        gc.unfreeze()
        (gc.enable if enabled else gc.disable)()


def _main() -> None:
    """Every expected failure becomes one line on stderr and its exit code."""
    import gc

    gc.disable()  # until the command runs (see kgroup.cli.params.KgroupCommand)
    args = sys.argv[1:]
    command = args[0] if args and args[0] in COMMANDS else None
    _run(command, command_args(command, args))


def command_args(command: str | None, args: list[str]) -> list[str]:
    """The command line as the CLI framework should parse it: ``lag --watch`` may come without
    its value (the framework has no option whose value is optional)."""
    if command == "lag":
        from kgroup.cli.lag import optional_watch_value

        return optional_watch_value(args)
    return args


def _run(command: str | None, args: list[str] | None = None) -> None:
    """Run the app with the one command ``command`` registered (None: all of them)."""
    import typer

    from kgroup.cli.params import ReaderGone
    from kgroup.errors import ExitCode, KgroupError
    from kgroup.output.render import error

    try:
        code = load_app(command)(args=args, standalone_mode=False, prog_name="kgroup")
    except typer.TyperException as e:  # bad usage: unknown option, bad value, missing argument
        ctx = getattr(e, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        if e.format_message():  # empty when help was shown for a bare command
            error(f"{e.format_message()}{hint}")
        code = ExitCode.USAGE
    except KgroupError as e:
        error(e.message)
        code = e.exit_code
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("kgroup: interrupted\n")
        code = ExitCode.INTERRUPTED
    except (ReaderGone, BrokenPipeError):  # the reader of the output went away: no more is wanted
        code = ExitCode.OK
    except MemoryError:
        error("out of memory: the input is larger than this machine can examine")
        code = ExitCode.USAGE
    except Exception as e:  # noqa: BLE001 - the last guard: never a traceback without -v
        code = _internal_error(e)
    if code == ExitCode.INTERRUPTED:  # Ctrl-C caught inside the CLI framework, which returns 130 without a word
        sys.stderr.write("kgroup: interrupted\n")
    sys.exit(code if isinstance(code, int) else ExitCode.OK)


def _internal_error(e: Exception) -> int:
    """One line for a failure kgroup did not expect (a bug); the trace only with -v."""
    from kgroup.errors import ExitCode
    from kgroup.text import printable
    from kgroup.kafka.settings import redact_patterns

    detail = redact_patterns(f"{type(e).__name__}: {e}")
    if len(detail) > 300:
        detail = detail[:300] + "..."
    verbose = any(a in ("-v", "--verbose") for a in sys.argv[1:sys.argv.index("--") if "--" in sys.argv else None])
    if verbose:
        import traceback

        sys.stderr.write(printable(redact_patterns("".join(traceback.format_exception(e)))).replace("\\x0a", "\n"))
    sys.stderr.write(f"kgroup: internal error: {printable(detail)} (a bug in kgroup: please report it with the "
                     "command line" + (" and the trace above" if verbose else "; -v prints the trace") + ")\n")
    return ExitCode.INTERNAL
