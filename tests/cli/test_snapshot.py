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


def test_snapshot_at_keeps_pending_revocations_and_describe_names_their_holders(tmp_path):
    # examples/offsets-log-kip848.jsonl at 02:54:21Z: epoch 2 moves Order-2 from A and Order-4
    # from C to B; A and C have written them pending revocation (at .100 and .200 s), B waits
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "offsets-log-kip848.jsonl"
    out = tmp_path / "k.json"
    r = run_kgroup("snapshot", "K", "--at", "2025-11-22T02:54:21Z", "--input", str(example), "--out", str(out))
    assert r.returncode == 0, r.stderr
    members = json.loads(out.read_text())["group"]["members"]
    assert [(m["member_id"], m["assignment"], m.get("pending_revocation")) for m in members] == [
        ("A", {"Order": [0, 1]}, {"Order": [2]}), ("B", {"Order": [3]}, {}), ("C", {"Order": [5]}, {"Order": [4]})]
    d = run_kgroup("describe", "--snapshot", str(out))
    assert d.returncode == 0, d.stderr
    assert d.stdout.splitlines()[-3:] == [
        "  A: epoch 1 (group epoch 2, assignment epoch 2); to revoke Order:2",
        "  B: epoch 2 (group epoch 2, assignment epoch 2); waiting for Order:2 (held by A), Order:4 (held by C)",
        "  C: epoch 1 (group epoch 2, assignment epoch 2); to revoke Order:4"]
    # a file without the key (written before kgroup kept it, or from a describe answer): not known
    doc = json.loads(out.read_text())
    for m in doc["group"]["members"]:
        del m["pending_revocation"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    d = run_kgroup("describe", "--snapshot", str(old))
    assert d.returncode == 0, d.stderr
    assert d.stdout.splitlines()[-2] == (
        "  B: epoch 2 (group epoch 2, assignment epoch 2); waiting for Order:2 (held by no member), "
        "Order:4 (held by no member)")
