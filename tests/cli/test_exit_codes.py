"""The exit statuses kgroup uses are one enum, and it is the README's table; a cluster that cannot be
reached (refused port, unknown host) or a bad --timeout gets its status at once, in one line."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_kgroup

import kgroup
from kgroup.errors import ClusterError, ExitCode, KgroupError, UsageError

ROOT = Path(__file__).resolve().parents[2]
GROUP = "G-fault"


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


def test_refused_port_fails_at_once():
    from brokers import free_port

    port = free_port()  # nothing listens there
    r = run_kgroup("offsets", GROUP, "-b", f"127.0.0.1:{port}", "--timeout", "20")
    assert r.returncode == 3 and r.seconds < 3, (r.seconds, r.stderr)
    assert "Connection refused" in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("command", [["log"], ["history", GROUP], ["snapshot", GROUP, "--at", "2h"],
                                     ["whatif", GROUP, "--add", "x"], ["find-coordinator", GROUP], ["list"]])
def test_refused_port_fails_at_once_for_every_command(command):
    from brokers import free_port

    r = run_kgroup(*command, "-b", f"127.0.0.1:{free_port()}", "--timeout", "20")
    assert r.returncode == 3 and r.seconds < 3, (r.seconds, r.stderr)
    (line,) = r.stderr.splitlines()
    assert "Connection refused" in line


def test_unknown_host_fails_at_once():
    r = run_kgroup("describe", GROUP, "-b", "no-such-host.invalid:9092", "--timeout", "20")
    assert r.returncode == 3 and r.seconds < 3, (r.seconds, r.stderr)
    assert "resolve" in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("value", ["3601", "inf", "nan", "-inf", "0", "-1"])
def test_timeout_out_of_range_is_one_usage_line(value):
    r = run_kgroup("offsets", GROUP, "-b", "127.0.0.1:9", "--timeout", value)
    assert r.returncode == 2
    assert r.stderr.startswith("kgroup: error: --timeout must be") and len(r.stderr.splitlines()) == 1
