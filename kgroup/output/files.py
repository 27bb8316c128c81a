"""The files kgroup writes whole (an HTML page, a snapshot): a regular file is written beside its
path and renamed over it, so that the path holds the file it held before or the new one, never a
part of one (a Ctrl-C, a full disk, an error while writing). Anything else named (a device such
as /dev/stdout, a pipe, a symbolic link) is written in place, as named."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from kgroup.errors import UsageError


def _mode(path: Path, what: str, follow: bool) -> int | None:
    """``path``'s mode (of the link itself unless ``follow``), None where nothing is there; any other
    failure is the one UsageError ``cannot write WHAT: why``."""
    try:
        return (os.stat if follow else os.lstat)(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:
        raise UsageError(f"cannot write {what}: {e.strerror or e}") from None


def write_whole(path: Path, text: str, what: str) -> None:
    """Write ``text`` (UTF-8) to ``path``; a failure is one UsageError ``cannot write WHAT: why``."""
    mode = _mode(path, what, follow=False)
    if mode is not None and not stat.S_ISREG(mode):
        _write(path, text, what)
        return
    from kgroup import _on_interrupt

    part = path.with_name(f".{path.name}.kgroup-{os.getpid()}.part")

    def remove_part() -> None:
        part.unlink(missing_ok=True)

    _on_interrupt.append(remove_part)
    try:
        try:
            _write(part, text, what)
        except UsageError:
            if mode is None:
                raise
            _write(path, text, what)  # a file kgroup may write in a folder it may not: in place
            return
        if mode is not None:
            os.chmod(part, stat.S_IMODE(mode))  # the file keeps its permissions
        os.replace(part, path)
    except OSError as e:
        raise UsageError(f"cannot write {what}: {e.strerror or e}") from None
    finally:
        remove_part()
        _on_interrupt.remove(remove_part)


def check_writable(path: Path, what: str) -> None:
    """Prove, before any work, that :func:`write_whole` can write ``path``: a file is created and
    removed beside it (or, where the folder takes none, the file itself opened for writing without
    changing it); a failure is one UsageError ``cannot write WHAT: why``. A device or pipe named
    is written as named: nothing to try."""
    mode = _mode(path, what, follow=True)
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"cannot write {what}: a directory")
    if mode is not None and not stat.S_ISREG(mode):
        return
    trial = path.with_name(f".{path.name}.kgroup-{os.getpid()}.check")
    try:
        fd = os.open(trial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        if mode is None:
            raise UsageError(f"cannot write {what}: {e.strerror or e}") from None
        try:  # write_whole writes such a file in place
            os.close(os.open(path, os.O_WRONLY))
        except OSError as e2:
            raise UsageError(f"cannot write {what}: {e2.strerror or e2}") from None
        return
    os.close(fd)
    try:
        os.unlink(trial)
    except OSError:
        pass


def _write(path: Path, text: str, what: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except BrokenPipeError:  # a pipe named (--out /dev/stdout) whose reader went away: exit 0, as any command
        raise
    except OSError as e:
        raise UsageError(f"cannot write {what}: {e.strerror or e}") from None
