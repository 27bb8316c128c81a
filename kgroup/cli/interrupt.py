"""Ctrl-C that works while the main thread is blocked inside the Kafka client.

Python runs a signal handler only between bytecodes of the main thread, so a
KeyboardInterrupt waits until a blocking C call returns (up to --timeout). The C-level
handler does write the signal number to the wakeup file descriptor at once, though: a
small daemon thread waits on it, says ``kgroup: interrupted`` and ends the process with
130. kgroup is read-only, so there is nothing to undo.
"""
from __future__ import annotations

import os
import signal
import socket
import threading

EXIT_INTERRUPTED = 130
MESSAGE = "kgroup: interrupted\n"


def _stop() -> None:
    # no flush of stdout: the main thread may hold its lock; an interrupted answer is not one
    os.write(2, MESSAGE.encode())
    os._exit(EXIT_INTERRUPTED)


def install() -> None:
    """Route SIGINT to the watcher (main thread only; a no-op where that is not possible)."""
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        reader, writer = socket.socketpair()
        reader.setblocking(True)
        writer.setblocking(False)
        signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except (ValueError, OSError):
        return  # Python's own KeyboardInterrupt stays in place

    def watch() -> None:
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            if signal.SIGINT in data:
                _stop()

    threading.Thread(target=watch, daemon=True, name="kgroup-interrupt").start()
    install.sockets = (reader, writer)  # kept alive with the process
    # only now that the watcher runs: the main thread no longer acts on SIGINT itself
    signal.signal(signal.SIGINT, lambda signum, frame: None)
