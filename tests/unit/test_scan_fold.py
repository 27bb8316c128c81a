"""kgroup scan's two pure halves, without Spark: the read tasks' fold (kgroup/scan/fold.py)
and the per-group merge (kgroup/scan/merge.py). Every expected value is worked out by hand
from the records written here."""
from __future__ import annotations

import random

from kgroup.offsets_log.records import encode
from kgroup.scan.fold import fold_columns
from kgroup.scan.merge import combine, merge_columns

P = 7  # the offsets-log partition of every record below


def commit(group, topic, partition, offset, ts):
    return encode(1, {"group": group, "topic": topic, "partition": partition}, 3,
                  {"offset": offset, "leaderEpoch": -1, "metadata": "", "commitTimestamp": ts})


def delete(group, topic, partition):
    return encode(1, {"group": group, "topic": topic, "partition": partition}, None, None)


def generation(group, gen, members=1):
    return encode(2, {"group": group}, 3, {
        "protocolType": "consumer", "generation": gen, "protocol": "range", "leader": "m0",
        "currentStateTimestamp": 0, "members": [
            {"memberId": f"m{i}", "groupInstanceId": None, "clientId": "c", "clientHost": "/h",
             "rebalanceTimeout": 1, "sessionTimeout": 1, "subscription": b"", "assignment": b""}
            for i in range(members)]})


# (offset, timestamp, (key, value)) of partition P, in log order
LOG = [
    (0, 1000, generation("g", 1, members=2)),
    (1, 1001, commit("g", "t", 0, 10, 5001)),
    (2, 1002, commit("g", "t", 0, 20, 5002)),
    (3, 1003, commit("g", "t", 1, 7, 5003)),
    (4, 1004, commit("g", "t", 0, 15, 5004)),    # a rewind: 15 < 20
    (5, 1005, delete("g", "t", 0)),
    (6, 1006, (b"\x00\x01\xff", b"junk")),       # undecodable
    (7, 1007, commit("g", "t", 0, 12, 5007)),    # a rewind across the tombstone: 12 < 15
    (8, 1008, generation("g", 2, members=3)),
    (9, 1009, commit("h", "u", 0, 1, 5009)),
    (10, 1010, delete("h", "u", 0)),             # h's only key ends deleted: nothing committed
]


def columns(entries):
    return [[P] * len(entries), [e[0] for e in entries], [e[1] for e in entries],
            [e[2][0] for e in entries], [e[2][1] for e in entries]]


def scan(tasks, latest=3, since=None, until=None, shuffle=None):
    """Fold each task's records, then merge everything in one merge task (as the shuffle
    would for these two groups) and combine on the driver."""
    parts: dict[str, list] = {}
    for entries in tasks:
        out = fold_columns([columns(entries)], since, until, latest)
        for name, col in out.items():
            parts.setdefault(name, []).extend(col)
    if shuffle is not None:  # the merge must not depend on the order rows arrive in
        order = list(range(len(parts["row"])))
        random.Random(shuffle).shuffle(order)
        parts = {name: [col[i] for i in order] for name, col in parts.items()}
    return combine(merge_columns(parts, want_committed=True, latest=latest), latest)


def facts_of(m):
    return {f.group: f for f in m.facts}


def check_whole_log(m):
    f = facts_of(m)
    g, h = f["g"], f["h"]
    assert (g.commits, g.partitions, g.rewinds) == (5, 2, 2)
    assert (g.first_commit_ms, g.last_commit_ms) == (5001, 5007)
    assert (g.generation, g.classic_members, g.classic_protocol, g.last_kind) == (2, 3, "range", "group")
    assert sorted(g.rebalance_times) == [1000, 1008]
    assert (h.commits, h.partitions, h.rewinds, h.generation, h.last_kind) == (1, 1, 0, None, None)
    assert sorted(m.committed) == [("g", "t", 0, 12), ("g", "t", 1, 7)]
    assert m.per_partition == {P: {"groups": 2, "records": 11, "commits": 6,
                                   "bytes": sum(len(k) + len(v or b"") for _, _, (k, v) in LOG)}}
    assert (m.read, m.bad, m.first_ms, m.last_ms, m.overlaps) == (11, 1, 1000, 1010, 0)
    assert [(e["partition"], e["offset"]) for e in m.errors] == [(P, 6)]
    assert [c["offset"] for c in m.latest_commits] == [7, 9, 10]       # newest three offset records, oldest first
    assert [c["committed_offset"] for c in m.latest_commits] == [12, 1, None]
    assert [e["offset"] for e in m.latest_events] == [0, 8]


def test_one_task_in_log_order():
    check_whole_log(scan([LOG]))


def test_split_into_ranges_gives_the_same_answer_wherever_the_cut_falls():
    for cut in range(1, len(LOG)):
        check_whole_log(scan([LOG[:cut], LOG[cut:]], shuffle=cut))
    check_whole_log(scan([LOG[i:i + 2] for i in range(0, len(LOG), 2)], shuffle=99))


def test_a_task_reading_its_ranges_out_of_order_starts_new_segments_and_stays_exact():
    # a saved dataset read back with its second half first, inside one task
    check_whole_log(scan([LOG[5:] + LOG[:5]]))
    fold = fold_columns([columns(LOG[5:] + LOG[:5])], None, None, 0)
    segments = [(g, t, p) for r, g, t, p in zip(fold["row"], fold["group"], fold["topic"], fold["topic_partition"])
                if r == "key"]
    assert sorted(segments) == [("g", "t", 0), ("g", "t", 0), ("g", "t", 1), ("h", "u", 0)]


def test_interleaved_tasks_are_reported_as_overlaps_not_merged():
    evens, odds = LOG[0::2], LOG[1::2]
    m = scan([evens, odds])
    assert m.overlaps > 0


def test_window_counts_every_record_read_but_aggregates_only_the_window():
    m = scan([LOG], since=1002, until=1007)
    f = facts_of(m)
    assert set(f) == {"g"}
    g = f["g"]
    # in the window: commits 20, 7, 15, tombstone, 12 (offsets 2..7); rewinds 15<20 and 12<15
    assert (g.commits, g.rewinds, g.first_commit_ms, g.last_commit_ms) == (4, 2, 5002, 5007)
    assert g.generation is None and g.rebalance_times == []
    assert (m.read, m.per_partition[P]["records"], m.bad, m.first_ms, m.last_ms) == (11, 6, 1, 1002, 1007)


def test_latest_breaks_timestamp_ties_by_position():
    same = [(i, 42, commit("g", "t", i % 3, i, 42)) for i in range(20)]
    m = scan([same[:10], same[10:]], latest=4)
    assert [c["offset"] for c in m.latest_commits] == [16, 17, 18, 19]
    m = scan([same], latest=0)
    assert m.latest_commits == [] and m.latest_events == []


def test_members_of_kip848_groups_and_deletion():
    member = {"instanceId": None, "rackId": None, "clientId": "c", "clientHost": "/h",
              "subscribedTopicNames": ["t"], "subscribedTopicRegex": None, "serverAssignor": "uniform",
              "rebalanceTimeoutMs": 1, "classicMemberMetadata": None}
    log = [
        (0, 1, encode(3, {"groupId": "k"}, 0, {"epoch": 4, "metadataHash": 0})),
        (1, 2, encode(5, {"groupId": "k", "memberId": "a"}, 0, member)),
        (2, 3, encode(5, {"groupId": "k", "memberId": "b"}, 0, {**member, "serverAssignor": "range"})),
        (3, 4, encode(5, {"groupId": "k", "memberId": "b"}, None, None)),   # b left
        (4, 5, encode(3, {"groupId": "k"}, 0, {"epoch": 5, "metadataHash": 0})),
        (5, 6, encode(2, {"group": "c"}, None, None)),                      # classic group c deleted
    ]
    f = facts_of(scan([log[:2], log[2:]]))
    k, c = f["k"], f["c"]
    assert (k.last_kind, k.generation, k.live_members, k.member_protocol, k.last_meta_tombstone) == (
        "consumer", 5, 1, "uniform", False)
    assert sorted(k.rebalance_times) == [1, 5]
    assert (c.last_meta_type, c.last_meta_tombstone, c.generation) == (2, True, None)


def test_status_tails_span_tasks_in_log_order_and_start_again_after_a_deletion():
    from kgroup.lag.history import Commit

    # key (g, t, 0) across two tasks; (g, t, 1) has 80 commits a second apart in one task (trimmed
    # to the ten runs its window needs); records before --since still count for the tails
    log = [(o, 1000 + o, commit("g", "t", 0, 100 + o, 10_000 * o)) for o in range(4)]
    log += [(4, 1004, delete("g", "t", 0)), (5, 1005, commit("g", "t", 0, 50, 60_000)),
            (6, 1006, commit("g", "t", 0, 55, 70_000))]
    log += [(7 + i, 1007 + i, commit("g", "t", 1, i, 100_000 + 1000 * i)) for i in range(80)]
    first, second = log[:3], log[3:]
    parts = [fold_columns([columns(first)], since_ms=1002), fold_columns([columns(second)], since_ms=1002)]
    merged = combine(merge_columns({k: parts[0][k] + parts[1][k] for k in parts[0]}))
    tails = merged.tails["g"]
    # the deletion at offset 4 ends (g, t, 0)'s history: only the two commits after it
    assert tails[("t", 0)] == [Commit(60_000, 50), Commit(70_000, 55)]
    # ten runs of one commit each: the last ten commits
    assert tails[("t", 1)] == [Commit(100_000 + 1000 * i, i) for i in range(70, 80)]
    # without the deletion, the first task's commits (two of them before --since) come first
    parts = [fold_columns([columns(log[:3])], since_ms=1002), fold_columns([columns(log[3:4])], since_ms=1002)]
    merged = combine(merge_columns({k: parts[0][k] + parts[1][k] for k in parts[0]}))
    assert merged.tails["g"][("t", 0)] == [Commit(10_000 * o, 100 + o) for o in range(4)]


def test_a_tail_of_commits_too_close_to_trim_is_kept_whole_up_to_its_window():
    """Commits 100 ms apart start no run of their own, so no trim can drop them: the task keeps
    them (its trim point grows) and the window starts where the hand count says."""
    from kgroup.lag.history import Commit

    # 20 commits 2 s apart, 500 commits 100 ms apart (the first 2 s after the 20th), 5 more 2 s apart
    times = [2_000 * i for i in range(20)]
    times += [times[-1] + 2_000 + 100 * i for i in range(500)]
    times += [times[-1] + 2_000 * (i + 1) for i in range(5)]
    log = [(o, 1000 + o, commit("g", "t", 0, o, t)) for o, t in enumerate(times)]
    merged = combine(merge_columns(fold_columns([columns(log)])))
    # runs that start whatever came before, from the end: the 5 sparse commits, the first dense
    # one, then the 20th, 19th, 18th and 17th sparse ones: the tenth is commit 16
    assert merged.tails["g"][("t", 0)] == [Commit(t, o) for o, t in enumerate(times)][16:]


def test_without_tails_the_fold_keeps_everything_but_the_status_tails():
    """A saved log (no log ends, so no status): the tasks keep no tails, and nothing else changes."""
    log = [(o, 1000 + o, commit("g", "t", o % 2, 100 + o, 10_000 * o)) for o in range(6)]
    log += [(6, 1006, delete("g", "t", 0)), (7, 1007, generation("g", 1))]
    with_tails = fold_columns([columns(log)], since_ms=1002)
    without = fold_columns([columns(log)], since_ms=1002, keep_tails=False)
    assert with_tails["row"].count("tail") == 2 and "tail" not in without["row"]
    keep = [i for i, kind in enumerate(with_tails["row"]) if kind != "tail"]
    assert {name: [col[i] for i in keep] for name, col in with_tails.items()} == without
    assert combine(merge_columns(without)).tails == {}


def test_a_read_task_folds_with_the_cyclic_collector_paused_then_restores_it(monkeypatch):
    """The fold builds hundreds of thousands of small acyclic lists: collection passes over them
    tripled a live scan's fold (docs/benchmarks.md). Paused while folding, as it was afterwards."""
    import gc

    import kgroup.scan.fold as fold

    seen = []
    real = fold.fold_columns

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(fold, "fold_columns", spy)
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            batches = list(fold.fold_task([columns(LOG)]))
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
        assert sum(b.num_rows for b in batches) == len(real([columns(LOG)])["row"])
    assert seen == [False, False]


def cut_commit(group, topic, partition, offset, ts):
    """A commit whose key decodes and whose value is cut short."""
    k, v = commit(group, topic, partition, offset, ts)
    return k, v[:len(v) // 2]


def test_a_commit_record_that_is_no_commit_is_kept_with_its_position_and_whether_it_is_the_last():
    """A commit record whose key decodes but whose value does not, or whose value says a negative
    commit time, is no commit: not counted as one, never taken for the committed offset, kept with
    its position for the report (what ``kgroup lag`` reads as kgroup.lag.history.Unreadable)."""
    log = [
        (0, 1000, commit("g", "t", 0, 10, 5000)),
        (1, 1001, cut_commit("g", "t", 0, 20, 5001)),   # cut, then a readable commit: not the last
        (2, 1002, commit("g", "t", 0, 30, 5002)),
        (3, 1003, commit("g", "t", 1, 5, 5003)),
        (4, 1004, cut_commit("g", "t", 1, 9, 5004)),    # cut, the last of g t-1: what is committed is unknown
        (5, 1005, commit("g", "t", 2, 7, -5)),          # a negative commit time, the last of g t-2
        (6, 1006, cut_commit("h", "u", 0, 1, 5006)),    # h's only commit record
        (7, 1007, cut_commit("k", "v", 0, 1, 5007)),    # deleted after: gone with what it committed
        (8, 1008, delete("k", "v", 0)),
    ]
    for tasks in ([log], [log[:2], log[2:5], log[5:]]):
        m = scan(tasks)
        cuts = sorted((c["group"], c["topic"], c["topic_partition"], c["partition"], c["offset"], c["detail"],
                       c["last"]) for c in m.cuts)
        assert cuts == [("g", "t", 0, P, 1, "cannot be decoded", False), ("g", "t", 1, P, 4, "cannot be decoded", True),
                        ("g", "t", 2, P, 5, "is not a commit", True), ("h", "u", 0, P, 6, "cannot be decoded", True)]
        assert {c["offset"]: c["error"] for c in m.cuts}[5] == "commit timestamp -5 is not a time"
        assert sorted(m.committed) == [("g", "t", 0, 30)]  # never t-1's 5 as if it were still committed
        f = facts_of(m)
        assert (f["g"].commits, f["g"].partitions, f["g"].first_commit_ms, f["g"].last_commit_ms) == (3, 2, 5000, 5003)
        assert "h" in f and f["h"].commits == 0
