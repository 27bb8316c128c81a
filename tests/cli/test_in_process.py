"""kgroup.cli.main run inside a caller's process: a command turns the garbage collector off
and freezes what exists for its process's life (the program, kgroup.cli.run, ends right
after); main hands the caller's process back with the collector as it was."""
from __future__ import annotations

import contextlib
import gc
import io
import sys
from pathlib import Path

import pytest

from kgroup.cli import main

# whatif turns the collector off for its own life, every command freezes what start-up built
# (arguments, exit code): a failure leaves the collector as found too
COMMANDS = [(["whatif", "--snapshot", "examples/seed-g1.json", "--remove", "C3", "-o", "json"], 0),
            (["find-coordinator", "--offline", "--offsets-partitions", "50", "G1"], 0),
            (["whatif", "--snapshot", "no-such-file.json"], 2)]


def _main(args: list[str]) -> object:
    argv, sys.argv = sys.argv, ["kgroup", *args]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main()
    except SystemExit as e:
        return e.code
    finally:
        sys.argv = argv
    return None


@pytest.mark.parametrize(("args", "code"), COMMANDS, ids=[" ".join(a[:3]) for a, _ in COMMANDS])
def test_the_collector_is_on_and_nothing_frozen_afterwards(args, code, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert _main(args) == code
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_collector_the_caller_had_off_stays_off():
    gc.disable()
    try:
        assert _main(COMMANDS[1][0]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()

