"""kgroup lag --watch on a real broker (Tansu, which has no offsets log: the lag is sampled
live): JSON lines when not at a terminal, one table redrawn in place in a pseudo-terminal, and
Ctrl-C ending it within a second with `kgroup: interrupted`, exit 130. The seed group G1 has
committed offsets with a lag of partition + 1 on every partition (tests/seed.py)."""
from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

pytestmark = pytest.mark.broker


def start(args, **kwargs) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "KGROUP_BOOTSTRAP_SERVERS"}
    return subprocess.Popen([sys.executable, "-m", "kgroup", *args], cwd=ROOT, env={**env, "PYTHONUNBUFFERED": "1"},
                            **kwargs)


def interrupt(proc: subprocess.Popen) -> float:
    """SIGINT; how long the process took to end."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(10)
    return time.monotonic() - sent


def test_watch_writes_json_lines_and_stops_on_ctrl_c(tansu, seed_group):
    proc = start(["lag", "G1", "-b", tansu, "--watch", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                 text=True)
    try:
        docs = [json.loads(proc.stdout.readline()) for _ in range(2)]
    finally:
        took = interrupt(proc)
    assert took < 1.0 and proc.returncode == 130
    err = proc.stderr.read()
    assert all(line.startswith("kgroup: ") for line in err.splitlines()), err
    assert err.splitlines()[-1] == "kgroup: interrupted"
    assert "the offsets log cannot be read" in err  # Tansu has none
    for doc in docs:
        lags = {(p["topic"], p["partition"]): p["lag"] for p in doc["partitions"]}
        assert lags == {(t, p): p + 1 for t, n in (("Order", 7), ("Stock", 5)) for p in range(n)}
    assert docs[1]["until_ms"] - docs[0]["until_ms"] >= 1000


def test_watch_redraws_a_table_in_a_terminal(tansu, seed_group):
    leader, follower = pty.openpty()
    proc = start(["lag", "G1", "-b", tansu, "--watch", "1"], stdin=follower, stdout=follower,
                 stderr=subprocess.PIPE, text=True)
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while seen.count(b"Ctrl-C to stop") < 2 and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1)
            if ready:
                seen += os.read(leader, 65536)
    finally:
        took = interrupt(proc)
        os.close(leader)
    assert seen.count(b"\x1b[H\x1b[2J") >= 2, seen  # the screen cleared before each table
    text = seen.decode()
    assert "group G1: " in text and "TOTAL" in text
    assert took < 1.0 and proc.returncode == 130


def test_watch_samples_a_lag_of_nothing_but_a_transaction_marker_as_none(tansu):
    """A consumer of a transactional topic that committed 3 (records 0-2, the commit marker at 3,
    end 4) is caught up at every sample: lag 0, one transaction marker; one that committed 2 of
    an ordinary partition ending at 3 keeps its lag 1 (tests/transactions.py)."""
    import uuid

    import transactions

    topic, open_ = transactions.transactional_topic(tansu)
    try:
        group = f"txn-watch-{uuid.uuid4().hex[:8]}"
        transactions.commit(tansu, group, topic, {0: 3, 1: 2})
        proc = start(["lag", group, "-b", tansu, "--watch", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
        try:
            docs = [json.loads(proc.stdout.readline()) for _ in range(2)]
        finally:
            interrupt(proc)
    finally:
        open_.abort_transaction(10)
    for doc in docs:
        got = {p["partition"]: (p["lag"], p["end"], p["committed"], p["transaction_markers"]) for p in doc["partitions"]}
        assert got == {0: (0, 4, 3, 1), 1: (1, 3, 2, None)}, got
        assert doc["total_lag"] == 1
