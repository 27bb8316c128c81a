"""Raw offsets-log records and the raw-record file format (JSON Lines).

One record a line::

    {"partition": int, "offset": int, "timestamp": int ms, "key": base64|null, "value": base64|null}

``kgroup log --save`` writes it; every command reads it through kgroup.offsets_log.saved (which
imports this module, never the other way).
"""
from __future__ import annotations

import base64
import json
import os
import stat
from dataclasses import dataclass
from typing import IO, Any, Iterable


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record of the offsets log as stored: bytes, not yet decoded."""

    partition: int
    offset: int
    timestamp: int  # ms since the epoch, as the record carries it
    key: bytes | None
    value: bytes | None  # None: a tombstone

    def to_json(self) -> dict[str, Any]:
        return {"partition": self.partition, "offset": self.offset, "timestamp": self.timestamp,
                "key": None if self.key is None else base64.b64encode(self.key).decode("ascii"),
                "value": None if self.value is None else base64.b64encode(self.value).decode("ascii")}


def jsonl_line(r: RawRecord) -> str:
    """One record as its line of the file, newline included."""
    return json.dumps(r.to_json(), separators=(",", ":")) + "\n"


def write_jsonl(records: Iterable[RawRecord], stream: IO[str]) -> int:
    n = 0
    for r in records:
        stream.write(jsonl_line(r))
        n += 1
    return n


class JsonlSave:
    """``log --save``: records written to a JSON Lines file in whole lines only, so that the file
    is a saved log however the process ends (a Ctrl-C ends it at once, with no buffer flushed):
    lines are kept and written ``every`` records at a time and on :meth:`flush`, each write whole
    lines. A file already at the path is replaced only once a record comes (or the read ends
    whole, with none): a read that fails first (a cluster not reached) leaves it as it was, and
    removes the file it made. :meth:`flush` may come from another thread (kgroup's Ctrl-C
    watcher) with ``last=True``: it writes what is kept, waiting at most ``wait`` seconds for a
    write under way, and keeps the file from any later write (the process is about to end)."""

    def __init__(self, path: str, every: int = 1000):
        import threading

        self._path = path
        self._existed = os.path.lexists(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)  # checked now, replaced later
        self._started = False
        self._kept: list[str] = []
        self._lock = threading.Lock()
        self._every = every

    def add(self, r: RawRecord) -> None:
        line = jsonl_line(r)
        with self._lock:
            self._kept.append(line)
            if len(self._kept) >= self._every:
                self._write()

    def flush(self, last: bool = False, wait: float = 2.0) -> None:
        if not self._lock.acquire(timeout=wait if last else -1):
            return
        try:
            self._write()
            if last:
                self._untouched_unless_started()
        finally:
            if not last:  # held to the end: no line begun after the last one written
                self._lock.release()

    def close(self, whole: bool = True) -> None:
        """``whole``: the read ended (the file is the log read, even empty); otherwise it failed."""
        with self._lock:
            self._write()
            if whole:
                self._start()
            else:
                self._untouched_unless_started()
        os.close(self._fd)

    def _start(self) -> None:
        if not self._started:
            if stat.S_ISREG(os.fstat(self._fd).st_mode):  # not a pipe or a device (>(gzip > f.gz))
                os.ftruncate(self._fd, 0)
            self._started = True

    def _untouched_unless_started(self) -> None:
        if not self._started and not self._existed:
            try:
                os.unlink(self._path)
            except OSError:
                pass

    def _write(self) -> None:
        if not self._kept:
            return
        self._start()
        data = memoryview("".join(self._kept).encode("utf-8"))
        self._kept.clear()
        while data:
            data = data[os.write(self._fd, data):]
