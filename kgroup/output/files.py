"""The files kgroup writes whole (an HTML page, a snapshot): a regular file is written beside its
path and renamed over it, so that the path holds the file it held before or the new one, never a
part of one (a Ctrl-C, a full disk, an error while writing). Anything else named (a device such
as /dev/stdout, a pipe, a symbolic link) is written in place, as named."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from kgroup.errors import UsageError


def write_whole(path: Path, text: str, what: str) -> None:
    """Write ``text`` (UTF-8) to ``path``; a failure is one UsageError ``cannot write WHAT: why``."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise UsageError(f"cannot write {what}: {e.strerror or e}") from None
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


def _write(path: Path, text: str, what: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except BrokenPipeError:  # a pipe named (--out /dev/stdout) whose reader went away: exit 0, as any command
        raise
    except OSError as e:
        raise UsageError(f"cannot write {what}: {e.strerror or e}") from None
