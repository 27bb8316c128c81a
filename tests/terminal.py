"""kgroup run with one of its streams on a pseudo-terminal (the other a file), as a user at a prompt
runs it: what the terminal got, what went to the file, the exit code. Used by the tests of tables
that fit the terminal and of progress shown on a terminal only."""
from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from typing import NamedTuple

from conftest import ROOT


class Ran(NamedTuple):
    terminal: bytes  # what the pseudo-terminal got, as bytes
    other: str  # the other stream (stdout when stderr is the terminal, else stderr), decoded
    code: int


def run(*args: str, on: str = "stdout", columns: int | None = None, env: dict | None = None,
        timeout: float = 60) -> Ran:
    """``python -m kgroup args`` with ``on`` ("stdout" or "stderr") on a terminal ``columns`` wide
    (40 rows), stdin the terminal too when it is stdout. COLUMNS, LINES and the bootstrap variable
    of the environment running the tests are not passed on."""
    leader, follower = os.openpty()
    if columns is not None:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    full_env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "KGROUP_BOOTSTRAP_SERVERS")}
    full_env.update(env or {})
    other = tempfile.TemporaryFile()
    streams = ({"stdin": follower, "stdout": follower, "stderr": other} if on == "stdout"
               else {"stdin": subprocess.DEVNULL, "stdout": other, "stderr": follower})
    proc = subprocess.Popen([sys.executable, "-m", "kgroup", *args], cwd=ROOT, env=full_env, **streams)
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
        code = proc.wait(10)
    other.seek(0)
    return Ran(seen, other.read().decode(), code)
