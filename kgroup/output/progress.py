"""A small progress line on stderr, shown only when stderr is a terminal."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

#: the callback a progress line is updated through: (stage, done, total)
Progress = Callable[[str, int, int], None]


@contextmanager
def progress_bar(stream: TextIO | None = None) -> Iterator[Progress]:
    stream = stream or sys.stderr
    if not stream.isatty():
        yield lambda stage, done, total: None
        return
    shown = [0.0, False]

    def update(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - shown[0] < 0.1:
            return
        shown[0], shown[1] = now, True
        width = 30
        filled = width if not total else int(width * done / total)
        stream.write(f"\r{stage:<18} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}\x1b[K")
        stream.flush()

    try:
        yield update
    finally:
        if shown[1]:
            stream.write("\r\x1b[K")
            stream.flush()
