"""``--help`` without loading the CLI framework, where its rendering is known in advance.

Typer renders help with rich, whose import alone costs more than the rest of ``kgroup
--help``. When the help goes where rich would render it plain and 80 columns wide (no
terminal on stdin, stdout or stderr, UTF-8 output, no environment variable that changes
rich's or Typer's rendering), the output is a pure function of the CLI definition:
scripts/gen_completions.py (``make completions``) stores that rendering in
kgroup/cli/helptext_data.py, and tests check it against Typer's live rendering. Anywhere
else (a terminal, another width, colours forced) Typer renders the help itself.
"""
from __future__ import annotations

import os
import sys

WIDTH = 80  # rich's width when none of stdin, stdout and stderr is a terminal

# variables that change how Typer or rich render help (width, colours, markup, completion)
_RENDERING_ENV = ("COLUMNS", "TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE",
                  "TTY_INTERACTIVE", "_TYPER_FORCE_DISABLE_TERMINAL", "TYPER_USE_RICH", "TYPER_RICH_MARKUP_MODE",
                  "_KGROUP_COMPLETE")


def plain_80_columns() -> bool:
    """Would Typer's rich console render plain text 80 columns wide here?"""
    if sys.platform == "win32" or any(name in os.environ for name in _RENDERING_ENV):
        return False
    out = sys.stdout
    if out is None or (getattr(out, "encoding", None) or "").lower().replace("_", "-") not in ("utf-8", "utf8"):
        return False
    try:
        if out.isatty():
            return False
    except ValueError:
        return False
    for fd in (0, 1, 2):  # rich takes its width from the first of these that is a terminal
        try:
            os.get_terminal_size(fd)
        except (OSError, ValueError):
            continue
        return False
    return True


def stored_help(command: str) -> str | None:
    """The stored ``kgroup [COMMAND] --help`` text, if it is what Typer would print here."""
    if not plain_80_columns():
        return None
    from kgroup.cli.helptext_data import HELP

    return HELP.get(command)
