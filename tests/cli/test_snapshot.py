"""kgroup snapshot --at from an offsets log (--input), and whatif on the past it rebuilds."""
from __future__ import annotations

import json

from cli.test_history import logfile  # noqa: F401 (a fixture)
from conftest import run_kgroup
from unit.test_replay import MIN, T


def test_snapshot_at_then_whatif_on_the_past(logfile, tmp_path):
    out = tmp_path / "g1.json"
    r = run_kgroup("snapshot", "G1", "--at", str(T + MIN + 1500), "--input", str(logfile), "--out", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["group"]["generation"] == 2
    assert doc["group"]["offsets"]["Order"]["4"] == {"committed": 150, "log_start": None, "log_end": None,
                                                     "metadata": ""}
    assert "log-end offsets" in r.stderr
    w = run_kgroup("whatif", "G1", "--snapshot", str(out), "--remove", "c2", "-s", "range", "-o", "json")
    assert w.returncode == 0, w.stderr
    (rng,) = json.loads(w.stdout)["strategies"]
    # RangeAssignor over 6 partitions, 3 each; static members first: c3 (instance i-3), then c1
    assert rng["assignment"] == {"c3": {"Order": [0, 1, 2]}, "c1": {"Order": [3, 4, 5]}}
    assert rng["moved_partitions"] == 6  # every partition changes owner (0,1: c1→c3; 2: c2→c3; 3: c2→c1; 4,5: c3→c1)


def test_snapshot_input_without_at_is_a_usage_error(logfile):
    r = run_kgroup("snapshot", "G1", "--input", str(logfile))
    assert r.returncode == 2 and "--input needs --at" in r.stderr


def test_snapshot_at_says_which_offsets_retention_removed_before_the_moment(tmp_path):
    """G1 empties at T (tests/unit/test_replay.py's emptied_group); Order-0's tombstone 5 min after
    T + R (R: Kafka's default retention, 7 days) is retention, expired at T + R."""
    from unit.test_replay import R, emptied_group

    from kgroup.offsets_log.raw import write_jsonl

    log = emptied_group()
    log.delete_commit("G1", "Order", 0, T + R + 5 * MIN)
    path = tmp_path / "expired.jsonl"
    with open(path, "w") as f:
        write_jsonl(log.records, f)
    r = run_kgroup("snapshot", "G1", "--at", str(T + R + 6 * MIN), "--input", str(path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["group"]["offsets"] == {}
    assert ("kgroup: warning: 1 committed offset removed by retention before 2025-11-29T02:59:20.000Z, so not in "
            "the snapshot (offsets.retention.minutes 10080, Kafka's default (no cluster named)): Order-0 (expired at "
            "2025-11-29T02:53:20.000Z, removed at 2025-11-29T02:58:20.000Z)\n") in r.stderr
