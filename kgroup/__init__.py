"""kgroup: read-only diagnostics for Apache Kafka consumer groups."""
# First of all, before any other statement: when this package starts the kgroup program, Ctrl-C
# ends it with the documented line and 130 (no KeyboardInterrupt traceback) from here on.
# kgroup.cli.interrupt takes over once the command runs. Only builtin or already loaded
# modules here: --help must stay fast.
#
# Python runs a signal's handler only between bytecodes that may do so (entering a frame, a
# call, a loop's jump back). Up to the call that installs the first handler below, this module
# does none of them: its imports find builtin modules the interpreter loaded before running any
# Python code, the rest builds a list, a function and compares strings; and a Ctrl-C that came
# before that call is raised inside it (signal() runs what is pending first), where it is
# caught. That handler only notes the signal; once the names kgroup's own handler needs exist,
# the note is acted on (bottom).
import _signal  # type: ignore[import-not-found]  # the builtin module `signal` wraps; no stub
import sys
TYPE_CHECKING = False  # (not typing's: no import here; type checkers take it as true)

_deferred: "list[object]" = []  # the SIGINTs that came before kgroup's handler was in place


def _defer(signum: object, frame: object) -> None:
    _deferred.append(signum)


# `python -m kgroup` imports the package while sys.argv[0] is "-m"; the console script is
# .../kgroup. Other spellings (Windows) are recognised at the bottom, without this head start.
_argv0 = sys.argv[0] if "argv" in sys.__dict__ and sys.argv else ""
_early = _argv0 == "-m" or _argv0 == "kgroup" or _argv0[-7:] == "/kgroup"
if _early:
    try:
        try:
            _signal.signal(_signal.SIGINT, _defer)
        except KeyboardInterrupt:  # one came first: signal() has the handler of then take it
            _deferred.append(_signal.SIGINT)
            _signal.signal(_signal.SIGINT, _defer)
    except ValueError:  # not the main thread
        _early = False

import _thread  # noqa: E402  (after the handler: under `python -S`, os is not loaded yet)
import os  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Callable

EXIT_INTERRUPTED = 130
_stopping = _thread.allocate_lock()
# what must end before kgroup does on Ctrl-C (the JVM kgroup scan starts); each runs once
_on_interrupt: "list[Callable[[], object]]" = []


def _interrupted(signum: object = None, frame: object = None) -> None:
    """Say ``kgroup: interrupted`` and end the process with 130, once: the signal handler and
    the watcher thread of kgroup.cli.interrupt may both get here, and a second Ctrl-C may run
    the handler inside itself; whoever comes later returns (never waits: that could be on
    itself), as the process is ending anyway."""
    if not _stopping.acquire(False):
        return
    err = 2
    if _on_interrupt:
        err = _mute_stderr()
        for hook in _on_interrupt:
            try:
                hook()
            except BaseException:  # noqa: BLE001 - ending anyway
                pass
    try:
        os.write(err, b"kgroup: interrupted\n")
    except OSError:
        pass
    os._exit(EXIT_INTERRUPTED)


_muting = _thread.allocate_lock()
_stderr: "list[int]" = []


def _mute_stderr() -> int:
    """Send what anyone writes to stderr from now on to /dev/null (what the main thread says while
    the JVM ends under it is not for the user); returns a descriptor of the real stderr, for
    kgroup's own last line. Once; the signal handler and the watcher may both ask."""
    with _muting:
        if not _stderr:
            try:
                saved = os.dup(2)
                quiet = os.open(os.devnull, os.O_WRONLY)
                os.dup2(quiet, 2)
                os.close(quiet)
                _stderr.append(saved)
            except OSError:
                _stderr.append(2)
        return _stderr[0]


def _starts_the_program() -> bool:
    """Is this import the start of the kgroup program (``python -m kgroup``, which imports the
    package while ``sys.argv[0]`` is still ``-m``, or the ``kgroup`` console script), rather
    than a library import (tests, Spark workers) whose SIGINT is not ours to change?"""
    argv0 = sys.argv[0] if getattr(sys, "argv", None) else ""
    if argv0 == "-m":
        return True
    name = os.path.basename(argv0).lower()
    return name in ("kgroup", "kgroup.exe", "kgroup-script.py")


if _early or _starts_the_program():
    try:
        _signal.signal(_signal.SIGINT, _interrupted)
    except ValueError:  # not the main thread
        pass
    if _deferred:  # a Ctrl-C while this module was starting
        _interrupted()

__version__ = "0.1.0"
