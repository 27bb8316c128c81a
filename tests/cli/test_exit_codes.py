"""The exit statuses kgroup uses are one enum, and it is the README's table."""
from __future__ import annotations

import re
from pathlib import Path

import kgroup
from kgroup.errors import ClusterError, ExitCode, KgroupError, UsageError

ROOT = Path(__file__).resolve().parents[2]


def test_enum_is_the_documented_table():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| exit code | meaning |"):]
    table = table[:table.index("\n\n")]
    documented = [int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M)]
    assert documented == [0, 1, 2, 3, 4, 130]
    assert sorted(int(c) for c in ExitCode) == documented


def test_errors_carry_their_codes_and_the_early_handler_agrees():
    assert (UsageError("x").exit_code, ClusterError("x").exit_code, KgroupError("x").exit_code) == (2, 3, 2)
    assert kgroup.EXIT_INTERRUPTED == ExitCode.INTERRUPTED == 130


def test_no_bare_exit_numbers_in_the_cli():
    for f in (ROOT / "kgroup" / "cli").glob("*.py"):
        text = f.read_text()
        assert not re.search(r"(typer\.Exit|sys\.exit|os\._exit)\(\d", text), f.name
