"""What `kgroup --help` tells: every exit code, and one line per command in its table (a
summary sentence, not a docstring wrapped where its source lines break)."""
from __future__ import annotations

import re

from kgroup.cli import COMMANDS
from kgroup.cli.helptext_data import HELP  # Typer's rendering (test_cli_startup.py checks it is)

TOP = HELP[""]


def test_top_help_names_every_exit_code():
    text = " ".join(line.strip() for line in TOP.splitlines())
    codes = text[text.index("Exit codes:"):text.index("╭")]
    assert re.findall(r"(?:^|; )(\d+) ", codes.removeprefix("Exit codes: ")) == ["0", "1", "2", "3", "4", "130"]
    assert "INCOMPLETE" in codes and "130 interrupted (Ctrl-C)" in codes


def test_each_command_is_one_line_of_one_sentence():
    table = TOP[TOP.index("─ Commands ─"):]
    rows = [line.strip("│ ") for line in table.splitlines() if line.startswith("│")]
    assert [row.split()[0] for row in rows] == list(COMMANDS)  # no continuation line
    for row in rows:
        summary = row.split(None, 1)[1]
        assert summary.endswith(".") and summary.count(". ") == 0, row
