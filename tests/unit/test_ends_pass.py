"""kgroup.lag.ends' ordered passes against its per-moment search, on random logs: the same ends.

Each scenario is answered three ways: as kgroup runs (passes on, with the real budget, and with a
tiny budget so that short logs go through the same choices as long ones: groups of moments,
reads in the middle before a pass), with the passes off (every moment checked against the
broker's answer and searched for one by one, as before the passes), and by a linear scan of the
records written here (the first record whose timestamp is >= T, else the log end; unknown where
retention removed the records of that time). All three must agree on every moment.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kgroup.lag.ends as ends
from kgroup.group.model import LogBounds
from kgroup.lag.ends import EndAt, ends_at
from unit.test_log_ends import MODES, MemoryLog, linear_end


def answered(records, bounds, moments, mode, monkeypatch, pass_min=None, per_moment=None):
    with monkeypatch.context() as m:
        if pass_min is not None:
            m.setattr(ends, "_PASS_MIN", pass_min)
        if per_moment is not None:
            m.setattr(ends, "_PER_MOMENT", per_moment)
        log = MemoryLog(records, bounds, mode)
        got, stats = ends_at(log, moments, bounds)
    return got, stats, log


def expected(records, bounds, moments):
    return {(tp[0], tp[1], t): linear_end(records.get(tp, []), bounds[tp], t) for tp, ts in moments.items() for t in ts}


@st.composite
def scenarios(draw):
    """Up to 3 partitions of up to 400 records in offset order (timestamps never decrease; some
    offsets skipped), a log start above 0 now and then, and up to 60 moments each: spread over
    the log, or in a cluster at its end (a window at the end of a long log)."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    records, bounds, moments = {}, {}, {}
    for p in range(draw(st.integers(1, 3))):
        tp = ("r", p)
        start = rnd.choice([0, 0, 0, 7, 300])
        n = rnd.choice([0, 1, 5, 40, 150, 400])
        offsets, o = [], start
        for _ in range(n):
            offsets.append(o)
            o += 1 if rnd.random() < 0.9 else rnd.randint(2, 4)
        ts, t = [], 10_000
        for _ in offsets:
            t += rnd.choice([0, 1, 1, 5, 20, 300])
            ts.append(t)
        records[tp] = list(zip(offsets, ts))
        bounds[tp] = LogBounds(start, (offsets[-1] + rnd.randint(1, 3)) if offsets else start, False)
        last = ts[-1] if ts else 10_000
        k = rnd.randint(0, 60)
        if rnd.random() < 0.5:
            moments[tp] = [rnd.randint(9_000, last + 500) for _ in range(k)]
        else:  # a cluster in the last tenth of the log's time
            moments[tp] = [rnd.randint(last - (last - 10_000) // 10, last + 50) for _ in range(k)]
    return records, bounds, moments, draw(st.sampled_from(MODES))


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_passes_give_the_ends_of_the_per_moment_search(case):
    records, bounds, moments, mode = case
    with pytest.MonkeyPatch.context() as monkeypatch:
        linear = expected(records, bounds, moments)
        searched, _, _ = answered(records, bounds, moments, mode, monkeypatch, pass_min=0, per_moment=0)
        assert searched == linear
        passed, _, _ = answered(records, bounds, moments, mode, monkeypatch)
        assert passed == linear
        for pass_min, per_moment in ((4, 2), (16, 8), (32, 1)):
            small, _, _ = answered(records, bounds, moments, mode, monkeypatch, pass_min, per_moment)
            assert small == linear, (pass_min, per_moment)


def test_twenty_thousand_moments_over_ten_partitions_take_a_few_rounds(monkeypatch):
    """The bench's lag case, in memory: 10 partitions of 8,010 records (one every 250 ms), 2,000
    commit moments each (one a second): the answers equal the linear scan, nothing is asked by
    time, and the reads are a read in the middle, then one pass over each log: 2 rounds, where
    a search per moment took at least one round per moment."""
    records, bounds, moments = {}, {}, {}
    for p in range(10):
        tp = ("busy", p)
        records[tp] = [(i, 1_000_000 + 250 * i + p) for i in range(8_010)]
        bounds[tp] = LogBounds(0, 8_010, False)
        moments[tp] = [1_000_000 + 1_000 * (k + 1) + 3 * p + 1 for k in range(2_000)]
    got, stats, log = answered(records, bounds, moments, "start", monkeypatch)
    # worked by hand: the first moment of partition 0 (1,001,001) lies after record 4 (1,001,000)
    assert got[("busy", 0, 1_001_001)] == EndAt(5)
    assert got == expected(records, bounds, moments)
    assert stats.list_offsets_calls == 0 and stats.record_reads == 2
    assert log.read_calls[0] == {tp: (4_005, 1) for tp in records}  # the middle of each log
    assert log.read_calls[1] == {tp: (0, 8_010) for tp in records}  # then all of it


def test_a_window_at_the_end_of_a_long_log_is_found_by_halving_then_read_in_one_pass(monkeypatch):
    """200,000 records and 100 moments in the last 2,000: the broker (Tansu) answers the log start,
    wrong; the search halves towards the window, then one pass reads it: far fewer records
    read than the log holds, and only the first and the last moment asked."""
    tp = ("long", 0)
    records = {tp: [(i, 5_000_000 + 10 * i) for i in range(200_000)]}
    bounds = {tp: LogBounds(0, 200_000, False)}
    window = 5_000_000 + 10 * 198_000
    moments = {tp: [window + 200 * k for k in range(100)]}
    got, stats, log = answered(records, bounds, moments, "start", monkeypatch)
    assert got == expected(records, bounds, moments)
    assert got[(tp[0], tp[1], window)] == EndAt(198_000)
    assert stats.list_offsets_calls == 2 and stats.searched == 2
    assert stats.records_read < 10_000 and stats.record_reads < 25
    # the last read is the pass: it starts at or before the window's first answer and reads past its last
    position, count = log.read_calls[-1][tp]
    assert position <= 198_000 and position + count > 198_000 + 20 * 99


def test_a_long_log_with_few_moments_whose_broker_answers_right_is_checked_not_read(monkeypatch):
    """As Kafka answers: 100,000 records, 5 moments far apart: every answer asked (first and last,
    then, both right, the other three) and checked by a read of a few records around it."""
    tp = ("sparse", 0)
    records = {tp: [(i, 1_000 + i) for i in range(100_000)]}
    bounds = {tp: LogBounds(0, 100_000, False)}
    moments = {tp: [1_000 + 20_000 * k + 5 for k in range(5)]}
    got, stats, log = answered(records, bounds, moments, "kafka", monkeypatch)
    assert got == expected(records, bounds, moments)
    assert [got[(tp[0], tp[1], t)] for t in moments[tp]] == [EndAt(20_000 * k + 5) for k in range(5)]
    assert stats.list_offsets_calls == 5 and stats.searched == 0
    assert stats.records_read <= 5 * 3
    assert log.list_calls[:2] == [{tp: moments[tp][0]}, {tp: moments[tp][-1]}]


def test_the_progress_hears_every_moment_answered():
    tp = ("p", 0)
    records = {tp: [(i, 100 * i) for i in range(50)]}
    bounds = {tp: LogBounds(0, 50, False), ("gone", 0): LogBounds(0, 0, True)}
    heard = []
    ends_at(MemoryLog(records, bounds), {tp: [5, 150, 4_000], ("gone", 0): [1]},
            bounds, lambda stage, done, total: heard.append((stage, done, total)))
    # the compacted partition's moment is unknown at once, before the one read (a pass over the
    # 50 records); the three others once it is read; then the end
    assert heard == [("log ends", 1, 4), ("log ends", 4, 4), ("log ends", 4, 4)]
