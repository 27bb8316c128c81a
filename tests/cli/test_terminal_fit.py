"""Tables at a real terminal: kgroup run in a pseudo-terminal of 80 and 120 columns on the seed
snapshot and its offsets log; every line fits, the ids are cut to their unique prefix, the
columns left out are named, long notes are numbered under the table, and -o wide in the same
terminal shows everything whole."""
from __future__ import annotations

import subprocess
import sys

import pytest

import terminal
from conftest import ROOT

SEED = "examples/seed-g1.json"
LOG = "examples/offsets-log-g1.jsonl"
C1 = "C1-4f0b5a2e-7d1c-4c55-9a0e-2b7f1d3c8a01"
C2 = "C2-9b3e6c1d-2a4f-4e8b-b7c0-5d1e3f9a2b02"
C3 = "C3-1d7a2f8e-6c3b-4a9d-8e5f-0c2b4d6e8f03"
SWITCH = ["vote", "--snapshot", SEED, "--switch", "range:cooperative-sticky"]
WHATIF = ["whatif", "--snapshot", SEED, "--remove", "C3"]


def in_terminal(columns: int, *args: str, env: dict | None = None) -> list[str]:
    """stdout of ``python -m kgroup args`` on a terminal ``columns`` wide (stderr apart), as lines."""
    ran = terminal.run(*args, columns=columns, env=env)
    assert ran.code == 0, ran.other
    return ran.terminal.decode().replace("\r\n", "\n").splitlines()


def joined(lines: list[str]) -> str:
    """The text with its wrapping undone (every run of blanks one blank)."""
    return " ".join(" ".join(lines).split())


COMMANDS = {
    "whatif": WHATIF,
    "vote --switch": SWITCH,
    "offsets": ["offsets", "--snapshot", SEED],
    "history": ["history", "G1", "--input", LOG],
    "describe": ["describe", "--snapshot", SEED],
}


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", COMMANDS)
def test_every_line_fits_the_terminal_and_wide_does_not(command, columns):
    lines = in_terminal(columns, *COMMANDS[command])
    assert lines and max(map(len, lines)) <= columns, max(lines, key=len)
    assert not {C1, C2, C3} & set(" ".join(lines).split())
    wide = in_terminal(columns, *COMMANDS[command], "-o", "wide")
    piped = subprocess.run([sys.executable, "-m", "kgroup", *COMMANDS[command]], capture_output=True, text=True,
                           cwd=ROOT).stdout
    assert wide == piped.splitlines()  # -o wide at a terminal: the table whole, as piped
    if command != "history":  # the seed's member ids
        assert C1 in piped and max(map(len, wide)) > columns


def test_vote_switch_at_80_columns():
    lines = in_terminal(80, *SWITCH)
    assert lines[:5] == [
        "Rolling switch range -> cooperative-sticky",
        "STEP    RESTART    ACCEPTED    SELECTED            REBALANCE    NOTE",
        "------  ---------  ----------  ------------------  -----------  ------",
        "0       -          yes         range               -            [1]",
        "1       C1-4f0b5…  yes         range               EAGER        [2]"]
    assert lines[10] == "[1] Before any restart. Protocols every member supports: 'range'. Each member"
    assert lines[11].startswith("    votes for the first of them in its own list: C1-4f0b5… -> 'range';")
    text = joined(lines)
    assert "[7] C3-1d7a2… rejoins with ['cooperative-sticky']. Group selects 'cooperative-sticky'." in text
    assert text.endswith("left out to fit the terminal: BOUNCE, NEW-PROTOCOLS (-o wide shows every column)")


def test_vote_switch_at_120_columns_keeps_every_column_and_numbers_the_notes():
    lines = in_terminal(120, *SWITCH)
    assert lines[1].split() == ["STEP", "BOUNCE", "RESTART", "NEW-PROTOCOLS", "ACCEPTED", "SELECTED", "REBALANCE",
                                "NOTE"]
    assert lines[4] == ("1       1         C1-4f0b5…  cooperative-sticky,range  yes         range"
                        "               EAGER        [2]")
    assert "left out" not in joined(lines)
    assert sum(line.startswith("[") for line in lines) == 7


def test_whatif_leaves_out_columns_in_its_order():
    at80, at120 = joined(in_terminal(80, *WHATIF)), joined(in_terminal(120, *WHATIF))
    assert at80.startswith("What if G1: remove C3-1d7a2… [range] 5 partition(s) move")
    assert ("MEMBER-ID AFTER CHANGE ----------- ------------------- ------------------------------------- "
            "C1-4f0b5… Order:0-3 Stock:0-2 +Order:3 +Stock:2") in at80
    # range, roundrobin, server-range: NOW too; sticky, uniform (narrower CHANGE) keep it
    assert at80.count("left out to fit the terminal: CLIENT-ID, LAG, #, NOW (-o wide shows every column)") == 3
    assert at80.count("left out to fit the terminal: CLIENT-ID, LAG, # (-o wide shows every column)") == 2
    assert at80.count("left out to fit the terminal: CLIENT-ID, LAG, FIRST-ROUND, # (-o wide") == 1
    # at 120 range's table fits whole; roundrobin's (wider AFTER and CHANGE) leaves out CLIENT-ID
    assert "MEMBER-ID CLIENT-ID NOW AFTER CHANGE # LAG" in at120
    assert "[roundrobin] 7 partition(s) move, 2 member(s) change, min/max per member 6/6, unassigned: none " \
           "MEMBER-ID NOW AFTER" in at120
    assert "C1-4f0b5… -> 'range'; C2-9b3e6… -> 'range'" in at80  # the vote's note, ids as in the tables


def test_offsets_describe_and_history_at_80_columns():
    offsets = in_terminal(80, "offsets", "--snapshot", SEED)
    assert offsets[0].split() == ["GROUP", "TOPIC", "PARTITION", "COMMITTED", "LOG-END", "LAG", "MEMBER-ID"]
    assert offsets[2] == "G1       Order    0            9            10         1      C1-4f0b5…"
    assert "left out to fit the terminal: METADATA, LOG-START, HOST, CLIENT-ID" in joined(offsets)
    describe = in_terminal(80, "describe", "--snapshot", SEED)
    assert describe[:2] == ["GROUP G1  type=classic  state=Stable  assignor=range  coordinator=b1:9092 (1)",
                            "  members=3"]
    assert describe[4].split() == ["C1-4f0b5…", "-", "C1", "/10.0.0.11", "Order:0-2", "Stock:0-1"]
    assert describe[-1] == "left out to fit the terminal: #PARTITIONS (-o wide shows every column)"
    history = in_terminal(80, "history", "G1", "--input", LOG)
    assert history[1].split() == ["MEMBER", "CLIENT-ID", "HOST", "INSTANCE-ID", "RACK", "ASSIGNMENT"]
    assert history[6:8] == ["moved:  Order-0 (none) → c1; Order-1 (none) → c1; Order-2 (none) → c1; Order-3",
                            "  (none) → c2; Order-4 (none) → c2; Order-5 (none) → c2"]


def test_columns_is_honoured_and_wide_shows_full_ids():
    lines = in_terminal(80, "offsets", "--snapshot", SEED, env={"COLUMNS": "120"})
    assert 80 < max(map(len, lines)) <= 120 and "left out to fit the terminal: METADATA" in joined(lines)
    wide = in_terminal(80, "describe", "--snapshot", SEED, "-o", "wide")
    assert wide[3].split() == [C1, "-", "C1", "/10.0.0.11", "5", "Order:0-2", "Stock:0-1"]
