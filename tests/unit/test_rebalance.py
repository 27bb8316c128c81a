"""What a rebalance is (kgroup/offsets_log/rebalance.py), and the two readings of it that stay
apart: a group's history (replay.py: ``history``, ``report``) and the fleet scan's count
(scan/merge.py). The same records go to both; every expected value is worked out by hand."""
from __future__ import annotations

from logbuilder import Log, kip848_epoch

from kgroup.offsets_log.rebalance import GENERATION_TYPES, FirstSeen, generation_of
from kgroup.offsets_log.records import decode
from kgroup.offsets_log.replay import GroupReplay
from kgroup.offsets_log.selection import Entry
from kgroup.scan.fold import fold_columns
from kgroup.scan.merge import combine, merge_columns

M = [{"id": "m1", "topics": ["T"], "assignment": {"T": [0]}}]


def test_the_records_that_carry_a_generation_and_where():
    assert GENERATION_TYPES == {2: "classic", 3: "consumer", 11: "share", 17: "streams"}
    assert generation_of(2, {"generation": 4, "epoch": 9}) == 4
    assert [generation_of(t, {"epoch": 9}) for t in (3, 11, 17)] == [9, 9, 9]
    assert generation_of(2, None) is None and generation_of(5, {"epoch": 9}) is None


def test_first_seen_counts_each_type_and_generation_once_at_its_earliest_time():
    seen = FirstSeen()
    for t, gen, ts in [(2, 1, 50), (2, 1, 40), (3, 1, 60), (2, 2, 70), (2, 1, 90)]:
        seen.add(t, gen, ts)
    assert seen.times() == [40, 60, 70]


def replay(log: Log, group: str) -> GroupReplay:
    r = GroupReplay(group)
    for raw in log.records:
        r.apply(Entry(raw, decode(raw.key, raw.value)))
    r.finish()
    return r


def scan_rebalances(log: Log, group: str) -> list[int]:
    records = sorted(log.records, key=lambda r: (r.partition, r.offset))
    cols = [[r.partition for r in records], [r.offset for r in records], [r.timestamp for r in records],
            [r.key for r in records], [r.value for r in records]]
    facts = combine(merge_columns(fold_columns([cols], None, None, 3), want_committed=False, latest=3), 3).facts
    return sorted(next(f for f in facts if f.group == group).rebalance_times)


def test_history_and_scan_agree_on_new_generations():
    log = Log()
    for gen, ts in [(1, 1000), (2, 2000), (3, 3000)]:
        log.generation("G", gen, ts, M)
    kip848_epoch(log, "K", 1500, 1, {})
    kip848_epoch(log, "K", 2500, 2, {})
    assert [(r.generation, r.timestamp) for r in replay(log, "G").rebalances] == [(1, 1000), (2, 2000), (3, 3000)]
    assert scan_rebalances(log, "G") == [1000, 2000, 3000]
    assert [(r.generation, r.timestamp) for r in replay(log, "K").rebalances] == [(1, 1500), (2, 2500)]
    assert scan_rebalances(log, "K") == [1500, 2500]


def test_where_history_and_scan_differ_kept_as_each_command_shows_it():
    """A classic generation written again (the coordinator rewrites GroupMetadata with the
    generation unchanged) and a group deleted and made again from generation 1: the history
    shows every record (and the deletion), the scan counts each generation once, at its
    earliest timestamp."""
    log = Log()
    log.generation("G", 1, 1000, M)
    log.generation("G", 1, 1200, M)  # the same generation again
    log.generation("G", 2, 2000, M)
    log.delete_group("G", 3000)
    log.generation("G", 1, 4000, M)  # made again
    history = [(r.type, r.generation, r.timestamp) for r in replay(log, "G").rebalances]
    assert history == [("classic", 1, 1000), ("classic", 1, 1200), ("classic", 2, 2000), ("deleted", None, 3000),
                       ("classic", 1, 4000)]
    assert scan_rebalances(log, "G") == [1000, 2000]
