"""Ctrl-C that works while the main thread is blocked inside the Kafka client.

Python runs a signal handler only between bytecodes of the main thread, so a
KeyboardInterrupt waits until a blocking C call returns (up to --timeout). The C-level
handler does write the signal number to the wakeup file descriptor at once, though: a
small daemon thread waits on it, says ``kgroup: interrupted`` and ends the process with
130. kgroup is read-only, so there is nothing to undo. Until the watcher runs, the Python-level
handler of kgroup/__init__.py does the same from the main thread (installed as the package's
first statement when it starts the program, and again here for any other caller of main).
"""
from __future__ import annotations

import os
import signal
import threading

from kgroup import _interrupted

MESSAGE = "kgroup: interrupted\n"


def _stop() -> None:
    # no flush of stdout: the main thread may hold its lock; an interrupted answer is not one.
    # Shared with the main-thread handler, so the line is written once even if both run.
    _interrupted()


def install() -> None:
    """Route SIGINT to the watcher (main thread only; a no-op where that is not possible, or
    once it is installed). Commands install it before they first talk to a cluster or start
    Spark; an offline command runs Python code only, which the main-thread handler interrupts."""
    if threading.current_thread() is not threading.main_thread() or getattr(install, "fds", None):
        return
    # a SIGINT from here until the no-op below reaches the main thread too: it must stop, not raise
    signal.signal(signal.SIGINT, _interrupted)
    try:
        # a pipe, not a socket pair: importing socket costs more than the rest of this module
        reader, writer = os.pipe()
        os.set_blocking(writer, False)
        signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
    except (ValueError, OSError, AttributeError):  # AttributeError: no os.set_blocking (Windows)
        return  # the main-thread handler stays in place

    def watch() -> None:
        while True:
            try:
                data = os.read(reader, 64)
            except OSError:
                return
            if not data:
                return
            if signal.SIGINT in data:
                _stop()

    threading.Thread(target=watch, daemon=True, name="kgroup-interrupt").start()
    install.fds = (reader, writer)  # type: ignore[attr-defined]  # open for the life of the process
    # only now that the watcher runs: the main thread no longer acts on SIGINT itself, but for
    # silencing stderr at once when something must end first (the JVM of kgroup scan): the main
    # thread may be interrupted in the middle of a call to it and say so before the watcher runs
    signal.signal(signal.SIGINT, _on_main_thread)


def _on_main_thread(signum: object, frame: object) -> None:
    from kgroup import _mute_stderr, _on_interrupt

    if _on_interrupt:
        _mute_stderr()
