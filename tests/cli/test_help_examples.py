"""Every command's --help ends with two or three real examples: the offline ones run as
shown from the repository root, the others parse (every option and value is accepted)."""
from __future__ import annotations

import re
import shlex

import pytest
from conftest import ROOT, run_kgroup

from kgroup.cli import COMMANDS


def _examples(command: str) -> list[str]:
    r = run_kgroup(command, "--help")
    assert r.returncode == 0, r.stderr
    tail = r.stdout.split("Examples:", 1)
    assert len(tail) == 2, f"kgroup {command} --help has no examples"
    return [line.strip() for line in tail[1].splitlines() if line.strip()]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_ends_with_two_or_three_examples_of_the_command(command):
    lines = _examples(command)
    assert 2 <= len(lines) <= 3, lines  # one line each: an example never wraps at 80 columns
    assert all(re.match(rf"kgroup {re.escape(command)}( |$)", line) for line in lines), lines


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_example_parses_and_the_offline_ones_run(command):
    import typer

    from kgroup.cli import command_args, load_app

    group = typer.main.get_command(load_app())
    for line in _examples(command):
        args = shlex.split(line.split(" > ")[0])[2:]  # a shell redirection is not an argument
        offline = "-b" not in args and all(not a.endswith((".json", ".jsonl", ".parquet")) or
                                           (ROOT / a).exists() for a in args) and "--out" not in args
        if offline:
            r = run_kgroup(command, *args)  # from the repository root
            assert r.returncode == 0, (line, r.stderr)
            assert r.stdout.strip(), line
        else:
            sub = group.commands[command]
            # as the program hands it to the framework (kgroup.cli.command_args)
            sub.make_context(command, command_args(command, [command, *args])[1:])  # raises click.UsageError on a bad option or value
