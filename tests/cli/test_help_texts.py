"""What `kgroup --help` tells: every exit code, and one line per command in its table (a
summary sentence, not a docstring wrapped where its source lines break); no type label after
a flag, which takes no value."""
from __future__ import annotations

import re

import pytest
from conftest import run_kgroup

from kgroup.cli import COMMANDS


def _help(*command: str) -> str:
    r = run_kgroup(*command, "--help", env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    return r.stdout


TOP = _help()


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


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_flags_carry_no_type_label(command):
    text = _help(command) if command else TOP
    assert "<bool>" not in text
    assert re.search(r"--help +-h +Show this message", text), text
