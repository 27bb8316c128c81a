"""Every command exits 0, without a word more, when the reader of its output goes away (a closed
pipe: `kgroup ... | head -1`), in a real process: the reader closes the pipe before reading
anything, or after the first line (a race with the writer: run a few times). Commands that need
a broker: tests/integration/test_closed_pipe_live.py."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT
from logbuilder import Log

from kgroup.offsets_log.raw import write_jsonl

T = 1763780000000  # 2025-11-22T02:53:20Z
SEED = "examples/seed-g1.json"


def closed_early(args: list[str], lines: int) -> tuple[int, str]:
    """Run kgroup with stdout a pipe whose reader reads ``lines`` lines, then closes it; the exit
    code and stderr. Buffered as a shell's pipe is (no PYTHONUNBUFFERED)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KGROUP_BOOTSTRAP_SERVERS", "PYTHONUNBUFFERED")}
    proc = subprocess.Popen([sys.executable, "-m", "kgroup", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=ROOT, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    for _ in range(lines):
        proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(60), err


def full_stderr(args: list[str]) -> list[str]:
    """What the command says on stderr when its output is read to the end."""
    proc = subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, text=True, cwd=ROOT,
                          stdin=subprocess.DEVNULL, timeout=60)
    return proc.stderr.splitlines()


def assert_exits_0_quietly(args: list[str], runs: int = 3) -> None:
    said = full_stderr(args)
    for lines in [0] + [1] * runs:
        code, err = closed_early(args, lines)
        assert code == 0, (lines, err)
        # nothing but what the command says anyway (its warnings): no traceback, no "Exception ignored"
        assert all(line in said for line in err.splitlines()), err


@pytest.fixture(scope="module")
def big_log(tmp_path_factory):
    """A saved log whose `kgroup log` output is far larger than a pipe holds (64 KiB)."""
    log = Log(partitions=50)
    for i in range(6000):
        log.commit(f"G{i % 7}", "Order", i % 12, i, T + i)
    path = tmp_path_factory.mktemp("pipe") / "big.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        write_jsonl(log.records, f)
    return str(path)


@pytest.mark.parametrize("args", [
    ["--help"],
    [],  # the root's help
    ["lag", "--help"],
    ["describe", "--snapshot", SEED],
    ["describe", "--snapshot", SEED, "-o", "json"],
    ["offsets", "--snapshot", SEED],
    ["offsets", "--snapshot", SEED, "-o", "csv"],
    ["whatif", "--snapshot", SEED],
    ["vote", "--snapshot", SEED, "--switch", "range:cooperative-sticky"],
    ["history", "G1", "--input", "examples/offsets-log-g1.jsonl"],
    ["snapshot", "G1", "--at", "2025-11-22T02:54Z", "--input", "examples/offsets-log-g1.jsonl"],
    ["snapshot", "G1", "--at", "2025-11-22T02:54Z", "--input", "examples/offsets-log-g1.jsonl", "--out", "/dev/stdout"],
], ids=lambda a: " ".join(a) or "kgroup")
def test_a_command_whose_reader_goes_away_exits_0(args):
    assert_exits_0_quietly(args)


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_log_of_a_large_saved_input_exits_0_when_its_reader_goes_away(big_log, fmt):
    args = ["log", "--input", big_log, "-o", fmt]
    full = subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, cwd=ROOT, timeout=60)
    assert full.returncode == 0 and len(full.stdout) > 4 * 65536  # the pipe fills: the writer meets the closed end
    assert_exits_0_quietly(args)
