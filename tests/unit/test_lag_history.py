"""Lag over time, worked by hand.

Every data partition here holds one record a second: the record at offset i was produced at
i * 1000 ms, so the log ended at moment T at offset ceil(T / 1000) (the first record at or
after T), which the tests compute with their own arithmetic, never with the code under test.
"""
from __future__ import annotations

import math

import pytest

from kgroup.lag.history import (Commit, EndsAt, Watch, by_partition, commits_from_log, document, evaluate, moments, shown,
                                time_lag_positions)
from kgroup.offsets_log.selection import Selection, select
from logbuilder import Log


def end(t: int) -> int:
    """Where a one-record-a-second log ended at t (ms)."""
    return math.ceil(t / 1000)


def ends_for(commits, since, until, until_is_now=False, now=None, unknown=()):
    """Every moment the code asks for, answered from end(t) except those in ``unknown``."""
    wanted = moments(commits, since, until, until_is_now)
    ends, reasons = {}, {}
    for (t, p), times in wanted.items():
        for m in times:
            if (t, p, m) in unknown:
                ends[(t, p, m)] = None
                reasons[(t, p, m)] = "retention removed the records of that moment"
            else:
                ends[(t, p, m)] = end(m)
    return EndsAt(by_partition(ends), by_partition(reasons), now or {tp: end(until) for tp in commits})


def by_tp(report):
    return {(p.topic, p.partition): p for p in report.partitions}


def test_points_status_and_rates_of_a_partition_worked_by_hand():
    commits = {("Order", 0): [Commit(10_500, 5), Commit(20_000, 15), Commit(20_400, 18), Commit(30_000, 30),
                              Commit(40_000, 38)]}
    report = evaluate("G", commits, ends_for(commits, 15_000, 60_000), 15_000, 60_000)
    p = by_tp(report)[("Order", 0)]
    # the commit before --since is the starting point; every later commit is a point
    assert [(pt.time_ms, pt.committed, pt.end, pt.lag) for pt in p.points] == [
        (10_500, 5, 11, 6), (20_000, 15, 20, 5), (20_400, 18, 21, 3), (30_000, 30, 30, 0), (40_000, 38, 40, 2)]
    # lag at --until: the log ended at 60 then, the last commit is 38
    assert (p.lag, p.end, p.committed) == (22, 60, 38)
    # a commit reached lag 0 in the window (at 30 s): OK; four runs (20.4 s merged into 20 s) of ten
    assert p.status == "OK" and p.complete == 0.4
    # the recent rates, over the window's last 3 intervals: its 4 runs start at 10.5 s (offset 5,
    # end 11), 20 s, 30 s and 40 s (offset 38, end 40): 33 consumed and 29 produced in 29.5 s
    assert p.consume_per_s == pytest.approx(33 / 29.5)
    assert p.produce_per_s == pytest.approx(29 / 29.5)
    # the lag of 22 shrinks by 4 every 29.5 s: gone in 22 * 29.5 / 4 = 162.25 s
    assert p.catching_up is True and p.eta_s == pytest.approx(162.25) and p.catch_up == "catching up"
    assert report.status == "OK" and not report.incomplete and report.total_lag == 22


def test_a_consumer_that_was_caught_up_and_stopped_is_stop():
    commits = {("Order", 1): [Commit(1_000, 1), Commit(2_000, 2), Commit(3_000, 3)]}
    report = evaluate("G", commits, ends_for(commits, 0, 60_000), 0, 60_000)
    p = by_tp(report)[("Order", 1)]
    # 57 s since the last commit > the window's 2 s; the log ended past offset 3 at every poll
    # after the last commit (60 s, 50 s, ..., 10 s: ends 60 ... 10)
    assert p.status == "STOP" and p.lag == 57
    assert report.status == "ERR" and report.by_status() == {"STOP": ["Order-1"]}


def test_a_stopped_consumer_whose_log_end_stood_still_is_not_stop():
    commits = {("Order", 1): [Commit(1_000, 1), Commit(2_000, 2), Commit(3_000, 3)]}
    ends = ends_for(commits, 0, 60_000)
    # the log ended at 3 until 55 s, then 4 records came: the poll at 50 s saw it caught up
    fixed = {tp: {t: (3 if 3_000 < t <= 55_000 else v) for t, v in at.items()} for tp, at in ends.ends.items()}
    report = evaluate("G", commits, EndsAt(fixed, {}, {("Order", 1): 7}), 0, 60_000)
    assert by_tp(report)[("Order", 1)].status == "OK"


@pytest.mark.parametrize("offsets, until, status, lag", [
    # lags 10, 15, 20 (never zero, never decreasing), 25 at --until: slow
    ([0, 5, 10], 35_000, "WARN", 25),
    # offsets 8 -> 4 -> 6: never back to 8
    ([8, 4, 6], 35_000, "REWIND", 29),
    # the same offset committed, lag growing
    ([5, 5, 5], 35_000, "STALL", 30),
    # lags 10, 8, 6: decreasing
    ([0, 12, 24], 35_000, "OK", 11),
])
def test_statuses_worked_by_hand(offsets, until, status, lag):
    commits = {("T", 0): [Commit(10_000 * (i + 1), o) for i, o in enumerate(offsets)]}
    p = evaluate("G", commits, ends_for(commits, 0, until), 0, until).partitions[0]
    assert (p.status, p.lag) == (status, lag)


def test_catch_up_time():
    # lags 10, 8, 6 at 10, 20, 30 s; --until at 30 s: 24 consumed and 20 produced in 20 s,
    # so the lag of 6 shrinks by 0.2 a second: gone in 30 s
    commits = {("T", 0): [Commit(10_000, 0), Commit(20_000, 12), Commit(30_000, 24)]}
    p = evaluate("G", commits, ends_for(commits, 0, 30_000), 0, 30_000).partitions[0]
    assert (p.consume_per_s, p.produce_per_s) == (pytest.approx(1.2), pytest.approx(1.0))
    assert p.catching_up is True and p.eta_s == pytest.approx(30.0)


def test_commits_closer_than_a_second_merge_keeping_the_earlier_time():
    # 10 runs are kept; 11 commits, of which the 2nd comes 999 ms after the 1st: the window
    # holds 10 runs, the first being 0 s with the offset (and lag) of the 999 ms commit
    times = [0, 999] + [10_000 * k for k in range(1, 10)]
    commits = {("T", 0): [Commit(t, i) for i, t in enumerate(times)]}
    p = evaluate("G", commits, ends_for(commits, 0, 100_000), 0, 100_000).partitions[0]
    assert p.complete == 1.0
    # the first run's lag is the 999 ms commit's: its moment is asked, the 0 ms one is not
    assert moments(commits, 99_000, 100_000)[("T", 0)][:2] == [999, 10_000]
    # a 12th commit makes 11 runs: the first falls out of the window
    commits[("T", 0)].append(Commit(100_000, 11))
    assert moments(commits, 99_000, 100_000)[("T", 0)][0] == 10_000


def test_unknown_points_are_said_and_the_status_comes_from_the_known_ones():
    commits = {("T", 0): [Commit(10_000, 0), Commit(20_000, 5), Commit(30_000, 10)]}
    report = evaluate("G", commits, ends_for(commits, 0, 35_000, unknown={("T", 0, 10_000)}), 0, 35_000)
    p = report.partitions[0]
    assert [pt.lag for pt in p.points] == [None, 15, 20]
    assert p.status == "WARN" and p.complete == 0.2
    assert report.incomplete
    assert report.problems == ["T-0: 1 of 3 points unknown: retention removed the records of that moment"]


def test_an_unknown_end_at_until_leaves_status_unknown():
    commits = {("T", 0): [Commit(10_000, 0)]}
    ends = ends_for(commits, 0, 35_000)
    report = evaluate("G", commits, EndsAt(ends.ends, {}, {("T", 0): None}), 0, 35_000, until_is_now=True)
    p = report.partitions[0]
    assert p.status is None and p.lag is None and report.incomplete
    assert report.status == "OK"  # from the known statuses: none


def test_the_starting_point_is_the_newest_commit_before_since():
    cs = [Commit(1, 1), Commit(2, 2), Commit(5, 3)]
    assert shown(cs, 3) == [Commit(2, 2), Commit(5, 3)]
    assert shown(cs, 0) == cs
    assert shown(cs, 6) == [Commit(5, 3)]


def test_commits_from_the_offsets_log():
    log = Log()
    records = [log.commit("G", "T", 0, 5, 1_000), log.commit("other", "T", 0, 99, 1_500),
               log.commit("G", "T", 1, 7, 2_000), log.commit("G", "U", 0, 1, 2_500),
               log.delete_commit("G", "T", 1, 3_000), log.commit("G", "T", 0, 9, 4_000),
               log.commit("G", "T", 0, 12, 9_000)]
    entries = list(select(records, Selection(frozenset(["G"]))))
    assert commits_from_log(entries, "G", 5_000) == {("T", 0): [Commit(1_000, 5), Commit(4_000, 9)],
                                                     ("U", 0): [Commit(2_500, 1)]}
    assert commits_from_log(entries, "G", 5_000, ["U"]) == {("U", 0): [Commit(2_500, 1)]}


def test_time_lag_at_each_point():
    commits = {("T", 0): [Commit(10_000, 4), Commit(20_000, 20)]}
    ends = ends_for(commits, 0, 20_000)
    draft = evaluate("G", commits, ends, 0, 20_000)
    # lag 6 at the first point (the record at offset 4 was produced at 4 s), 0 at the second
    assert time_lag_positions(draft) == {("T", 0): [4]}
    report = evaluate("G", commits, ends, 0, 20_000, record_times={("T", 0, 4): 4_000})
    assert [pt.time_lag_ms for pt in report.partitions[0].points] == [6_000, 0]


def test_document_keys():
    commits = {("T", 0): [Commit(10_000, 0), Commit(20_000, 12), Commit(30_000, 24)]}
    doc = document(evaluate("G", commits, ends_for(commits, 0, 30_000), 0, 30_000))
    assert doc["group"] == "G" and doc["status"] == "OK" and doc["complete"] == 0.0
    part = doc["partitions"][0]
    assert part["points"][0] == {"time_ms": 10_000, "committed": 0, "end": 10, "lag": 10}
    assert (part["lag"], part["end"], part["committed"], part["eta_s"]) == (6, 30, 24, 30.0)


def test_watch_counts_a_changed_committed_offset_as_a_commit():
    w = Watch("G")
    w.add(10_000, {("T", 0): 5}, {("T", 0): 10})
    w.add(20_000, {("T", 0): 5}, {("T", 0): 20})
    w.add(30_000, {("T", 0): 25}, {("T", 0): 30})
    report = w.report(0)
    p = report.partitions[0]
    assert [(pt.time_ms, pt.committed, pt.end, pt.lag) for pt in p.points] == [(10_000, 5, 10, 5),
                                                                                 (30_000, 25, 30, 5)]
    assert (p.lag, report.until_ms) == (5, 30_000)


def test_the_window_tail_gives_the_same_window():
    from kgroup.lag.history import tail_start

    def window_tail(cs):
        return cs[tail_start([c.time_ms for c in cs]):]

    # 0, 0.5, 0.9 s: one run; then a commit every 2 s (each its own run), then two within a second
    times = [0, 500, 900] + [2_000 * k for k in range(1, 13)] + [24_500]
    commits = [Commit(t, i) for i, t in enumerate(times)]
    tail = window_tail(commits)
    # the 10th last commit at least 1 s after the one before it: 24.5 s is not (0.5 s after 24 s);
    # 24, 22, ..., 6 s are the ten: the tail starts at 6 s
    assert tail[0] == Commit(6_000, 5) and tail[-1] == Commit(24_500, 15)
    whole = evaluate("G", {("T", 0): commits}, ends_for({("T", 0): commits}, 0, 30_000), 0, 30_000)
    part = evaluate("G", {("T", 0): tail}, ends_for({("T", 0): tail}, 0, 30_000), 0, 30_000)
    assert (whole.partitions[0].status, whole.partitions[0].complete) == \
        (part.partitions[0].status, part.partitions[0].complete)
    assert moments({("T", 0): commits}, 30_000, 30_000) == moments({("T", 0): tail}, 30_000, 30_000)
    # fewer than ten such starts: everything is kept
    assert window_tail(commits[:6]) == commits[:6]


# -- catch-up: none for a consumer that is not moving, the recent rate otherwise (issue 37) -------

def test_a_consumer_that_drained_ten_times_faster_then_stopped_has_no_catch_up_time():
    # 10,000 records were waiting at 10,000 s (committed 0, end 10,000); for ten minutes it
    # committed every 60 s, 600 records each time (10 a second, ten times the production), up to
    # offset 6,000 at 10,600 s (end 10,600: lag 4,600); then nothing until --until, 11,200 s
    commits = {("T", 0): [Commit(10_000_000 + 60_000 * k, 600 * k) for k in range(11)]}
    since, until = 10_000_000, 11_200_000
    p = evaluate("G", commits, ends_for(commits, since, until), since, until).partitions[0]
    # the window (the last 10 commits, 10,060 s to 10,600 s) spans 540 s; 600 s since the last
    # commit is longer, and the log ended past 6,000 at every poll after it: STOP
    assert (p.status, p.lag, p.end) == ("STOP", 5_200, 11_200)
    # not moving: no estimate (averaged from 10,000 s, 6,000 consumed and 1,200 produced in
    # 1,200 s gave 5,200 / (5 - 1) = 1,300 s)
    assert (p.eta_s, p.catching_up, p.catch_up) == (None, False, "none: STOP")
    # the rates are the last 3 commit intervals' (10,420 s, offset 4,200, end 10,420, to the last)
    assert (p.consume_per_s, p.produce_per_s) == (pytest.approx(1_800 / 180), pytest.approx(180 / 180))
    doc = document(evaluate("G", commits, ends_for(commits, since, until), since, until))["partitions"][0]
    assert (doc["eta_s"], doc["catching_up"], doc["catch_up"]) == (None, False, "none: STOP")


@pytest.mark.parametrize("offsets, status", [([5, 5, 5], "STALL"), ([8, 4, 6], "REWIND")])
def test_stall_and_rewind_have_no_catch_up_time(offsets, status):
    # the same commits as test_statuses_worked_by_hand (10, 20, 30 s; --until 35 s)
    commits = {("T", 0): [Commit(10_000 * (i + 1), o) for i, o in enumerate(offsets)]}
    p = evaluate("G", commits, ends_for(commits, 0, 35_000), 0, 35_000).partitions[0]
    assert (p.status, p.eta_s, p.catching_up, p.catch_up) == (status, None, False, f"none: {status}")


def test_catch_up_uses_the_last_three_commit_intervals():
    # a commit every 10 s from 10 s to 100 s: half the production rate for the first six (offsets
    # 5 ... 30: lags 5 ... 30), then 1.5 a second (45, 60, 75, 90: lags 25, 20, 15, 10)
    offsets = [5, 10, 15, 20, 25, 30, 45, 60, 75, 90]
    commits = {("T", 0): [Commit(10_000 * (i + 1), o) for i, o in enumerate(offsets)]}
    p = evaluate("G", commits, ends_for(commits, 0, 100_000), 0, 100_000).partitions[0]
    assert (p.status, p.lag) == ("OK", 10)
    # from 70 s (offset 45, end 70) to 100 s (offset 90, end 100): 45 consumed, 30 produced in 30 s
    assert (p.consume_per_s, p.produce_per_s) == (pytest.approx(1.5), pytest.approx(1.0))
    # the lag of 10 shrinks by 0.5 a second: 20 s (over the whole window, 85 consumed and 90
    # produced in 90 s: not catching up)
    assert (p.catching_up, p.eta_s, p.catch_up) == (True, pytest.approx(20.0), "catching up")


def test_a_partition_caught_up_at_its_last_commit_says_so():
    # caught up at 10, 20 and 30 s; at --until (35 s) the log has 5 more records
    commits = {("T", 0): [Commit(10_000, 10), Commit(20_000, 20), Commit(30_000, 30)]}
    p = evaluate("G", commits, ends_for(commits, 0, 35_000), 0, 35_000).partitions[0]
    assert (p.status, p.lag) == ("OK", 5)
    assert (p.catch_up, p.eta_s, p.catching_up) == ("caught up at last commit", None, True)


# -- a consumer that stopped: its lag after the last commit grows with the log end -----------------

def test_the_lag_after_the_last_commit_is_asked_at_the_sparklines_slots():
    from kgroup.output import sparkline

    # caught up at 1, 2 and 3 s, then stopped; the window 0 to 60 s in 24 slots of 2.5 s
    commits = {("T", 0): [Commit(1_000, 1), Commit(2_000, 2), Commit(3_000, 3)]}
    wanted = moments(commits, 0, 60_000)[("T", 0)]
    # the commits, then every slot end after the last commit (5 s, 7.5 s, ... 57.5 s; the polls at
    # 10 s, 20 s, ... fall on slot ends) and --until
    assert wanted == [1_000, 2_000, 3_000] + [2_500 * j for j in range(2, 25)]
    p = evaluate("G", commits, ends_for(commits, 0, 60_000), 0, 60_000).partitions[0]
    assert p.status == "STOP"
    # at 2.5 j s the log ended at ceil(2.5 j): the lag is that minus the last committed offset, 3
    assert p.after_last == tuple((2_500 * j, math.ceil(2.5 * j) - 3) for j in range(2, 24))
    series = [(pt.time_ms, pt.lag) for pt in p.points] + list(p.after_last) + [(60_000, p.lag)]
    # slot 0 holds the commits (lag 0), slot 1 ends at 5 s (lag 2), then the lag at each slot's end
    assert sparkline.slots(series, 0, 60_000) == [0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 25, 27, 30, 32, 35, 37, 40,
                                                  42, 45, 47, 50, 52, 55, 57]


def test_time_lag_at_until_is_the_age_of_the_first_record_not_consumed_then():
    # lag 6 at 10 s (offset 4); caught up at 20 s (offset 20); --until 30 s: lag 10, and the first
    # record not consumed (offset 20) was produced at 20 s: 10 s old at --until
    commits = {("T", 0): [Commit(10_000, 4), Commit(20_000, 20)]}
    ends = ends_for(commits, 0, 30_000)
    draft = evaluate("G", commits, ends, 0, 30_000)
    assert time_lag_positions(draft) == {("T", 0): [4, 20]}
    report = evaluate("G", commits, ends, 0, 30_000, record_times={("T", 0, 4): 4_000, ("T", 0, 20): 20_000})
    p = report.partitions[0]
    assert (p.lag, p.time_lag_ms) == (10, 10_000)
    assert [pt.time_lag_ms for pt in p.points] == [6_000, 0]  # the points: at their commit
    assert document(report, time_lag=True)["partitions"][0]["time_lag_ms"] == 10_000
    # the record not read: unknown, said
    report = evaluate("G", commits, ends, 0, 30_000, record_times={("T", 0, 4): 4_000})
    assert report.partitions[0].time_lag_ms is None and report.problems == [
        "T-0: time lag at --until unknown: the record at the committed offset was not read"]


# -- lag --watch: WARMING UP until the window holds enough ------------------------------------------

def test_watch_first_samples_are_warming_up_and_count_for_nothing():
    w = Watch("G")
    # a consumer 5 behind at every sample, committing between samples
    for k in range(9):
        w.add(10_000 * (k + 1), {("T", 0): 5 + 10 * k}, {("T", 0): 10 + 10 * k})
        report = w.report(0)
        p = report.partitions[0]
        # one commit (first sample) would be STALL, and the group ERR, by the rules
        assert (p.status, report.status, report.by_status()) == ("WARMING UP", "OK", {"WARMING UP": ["T-0"]}), k
        assert report.drawn_from_ms == 10_000
    # at the 9th, the last 3 intervals: from 60 s (offset 55, end 60) to 90 s (offset 85, end 90), 30
    # consumed and 30 produced: not catching up
    assert (p.catch_up, p.eta_s, p.catching_up) == ("not catching up", None, False)
    # the 10th sample: the rules apply (lag 5 at every commit, never decreasing: WARN)
    w.add(100_000, {("T", 0): 95}, {("T", 0): 100})
    report = w.report(0)
    assert (report.partitions[0].status, report.status) == ("WARN", "WARN")


def test_watch_with_a_full_window_from_the_offsets_log_is_evaluated_at_once():
    # ten commits from the log (lags 5 ... 5: WARN at the first sample)
    commits = {("T", 0): [Commit(10_000 * (k + 1), 5 + 10 * k) for k in range(10)]}
    w = Watch("G", commits, ends_for(commits, 0, 110_000, True))
    w.add(110_000, {("T", 0): 105}, {("T", 0): 110})
    assert w.report(0).partitions[0].status == "WARN"


def test_watch_draws_from_its_first_sample_and_the_lag_at_each_sample_after_the_last_commit():
    w = Watch("G")
    # the same committed offset 5 at 1,000, 1,010 and 1,020 s; the log ended at 10, 20, 30
    for k in range(3):
        w.add(1_000_000 + 10_000 * k, {("T", 0): 5}, {("T", 0): 10 + 10 * k})
    report = w.report(1_020_000 - 3_600_000)  # --since 1h
    p = report.partitions[0]
    assert report.drawn_from_ms == 1_000_000
    # the sample at 1,010 s after the only commit (1,000 s); --until (1,020 s) is the lag itself
    assert (p.after_last, p.lag) == (((1_010_000, 15),), 25)


def test_a_sentinel_committed_offset_is_no_point_and_leaves_the_partition_unknown():
    # 300 records (one a second), a commit of -1: no lag of 301, no status, one line why
    commits = {("T", 0): [Commit(100_000, 50), Commit(200_000, -1)]}
    report = evaluate("G", commits, ends_for(commits, 0, 300_000), 0, 300_000)
    p = report.partitions[0]
    assert [(pt.committed, pt.end, pt.lag) for pt in p.points] == [(50, 100, 50), (-1, 200, None)]
    assert (p.lag, p.end, p.committed, p.status) == (None, 300, -1, None)
    assert p.consume_per_s is None and p.eta_s is None and p.catching_up is None
    assert report.incomplete and report.total_lag is None
    assert report.problems == ["T-0: committed offset -1 is not an offset"]


def test_a_commit_beyond_the_log_end_is_no_point_and_not_caught_up():
    # 2^63-1 and 10000 on a log of 360 records: never "lag 0, caught up"
    for offset in (2**63 - 1, 10_000):
        commits = {("T", 0): [Commit(300_000, 290), Commit(350_000, offset)]}
        report = evaluate("G", commits, ends_for(commits, 0, 360_000), 0, 360_000)
        p = report.partitions[0]
        assert [pt.lag for pt in p.points] == [10, None]
        assert (p.lag, p.end, p.status, p.eta_s, p.catching_up) == (None, 360, None, None, None)
        assert report.problems == [f"T-0: committed {offset} is beyond the log end 360"]
    # a commit beyond the end at its moment that the log has since passed: that point unknown only
    commits = {("T", 0): [Commit(100_000, 150), Commit(200_000, 200)]}
    report = evaluate("G", commits, ends_for(commits, 0, 301_000), 0, 301_000)
    p = report.partitions[0]
    assert [pt.lag for pt in p.points] == [None, 0]
    assert (p.lag, p.status) == (101, "STOP")
    assert report.problems == ["T-0: committed 150 is beyond the log end 100"]


def test_a_status_from_no_known_point_is_unknown_never_ok():
    # every commit older than the topic's records: no end known at any commit, lag 3680 now
    commits = {("T", 0): [Commit(1_000 * k, 10 * k) for k in range(1, 11)]}
    unknown = {("T", 0, 1_000 * k) for k in range(1, 11)}
    ends = ends_for(commits, 0, 3_000_000, unknown=unknown)
    report = evaluate("G", commits, EndsAt(ends.ends, ends.reasons, {("T", 0): 3_780}), 0, 3_000_000,
                      until_is_now=True)
    p = report.partitions[0]
    assert (p.lag, p.status, p.complete) == (3_680, None, 0.0)
    assert report.problems == [
        "T-0: 10 of 10 points unknown: retention removed the records of that moment",
        "T-0: no commit of the status window has a known lag, so the status is unknown"]
    assert document(report)["partitions_by_status"] == {"UNKNOWN": ["T-0"]}
    # caught up at --until is a fact on its own: OK
    report = evaluate("G", commits, EndsAt(ends.ends, ends.reasons, {("T", 0): 100}), 0, 3_000_000,
                      until_is_now=True)
    assert (report.partitions[0].lag, report.partitions[0].status) == (0, "OK")


def test_an_undecodable_commit_record_of_the_group_makes_its_partition_unknown():
    log = Log()
    records = [log.commit("G", "T", 0, 5, 10_000), log.commit("G", "T", 1, 7, 10_000),
               log.commit("G", "T", 0, 20, 20_000), log.cut_commit("G", "T", 0, 30, 30_000),
               log.cut_commit("G", "T", 1, 12, 15_000), log.commit("G", "T", 1, 25, 25_000),
               log.cut_commit("G", "T", 2, 3, 26_000), log.cut_commit("other", "T", 0, 1, 27_000)]
    entries = list(select(records, Selection(frozenset(["G"]))))
    commits = commits_from_log(entries, "G", 40_000)
    assert commits == {("T", 0): [Commit(10_000, 5), Commit(20_000, 20)],
                       ("T", 1): [Commit(10_000, 7), Commit(25_000, 25)]}
    at = {tp: [(u.log_partition, u.log_offset, u.after) for u in us] for tp, us in commits.unreadable.items()}
    p = records[0].partition
    assert at == {("T", 0): [(p, 3, 2)], ("T", 1): [(p, 4, 1)], ("T", 2): [(p, 6, 0)]}
    report = evaluate("G", commits, ends_for(commits, 0, 40_000), 0, 40_000)
    t0, t1 = report.partitions
    # the record after T-0's last readable commit: what is committed now is unknown, not 20
    assert (t0.committed, t0.lag, t0.status, t0.end) == (None, None, None, 40)
    # one before T-1's last readable commit: the lag now is known, the history is not whole
    assert (t1.committed, t1.lag, t1.status) == (25, 15, "OK")
    why = records[3].value and "truncated value of record type 1 v3"
    assert report.problems == [
        f"T-0: the commit record at offsets-log partition {p} offset 3 cannot be decoded ({why}): "
        "the committed offset since then is unknown, so are the lag and the status",
        f"T-1: the commit record at offsets-log partition {p} offset 4 cannot be decoded ({why}): "
        "one commit of its history is unknown",
        f"T-2: the commit record at offsets-log partition {p} offset 6 cannot be decoded ({why}): "
        "the committed offset since then is unknown, so are the lag and the status"]
    assert report.incomplete and report.total_lag is None
    # a later readable commit of T-0 ends the unknown: its lag is known again, the gap still said
    later = commits_from_log(entries + list(select([log.commit("G", "T", 0, 35, 35_000)],
                                                   Selection(frozenset(["G"])))), "G", 40_000)
    t0 = evaluate("G", later, ends_for(later, 0, 40_000), 0, 40_000).partitions[0]
    assert (t0.committed, t0.lag) == (35, 5) and t0.problems[-1].endswith("one commit of its history is unknown")


def test_a_commit_with_a_negative_commit_time_is_no_commit():
    # offsets 5 at 10 s and 9 at 20 s; between them a record that decodes but says it was committed
    # at -5 ms: no moment a coordinator writes. It is not a commit to take rates from (taken as a
    # time, it made a rate of almost nothing): the partition's history has a gap, said as such
    log = Log()
    good = log.commit("G", "T", 0, 5, 10_000)
    bad = log.add("G", 15_000, 1, {"group": "G", "topic": "T", "partition": 0}, 3,
                  {"offset": 7, "leaderEpoch": -1, "metadata": "", "commitTimestamp": -5, "expireTimestamp": -1})
    last = log.commit("G", "T", 0, 9, 20_000)
    commits = commits_from_log(list(select([good, bad, last], Selection(frozenset(["G"])))), "G", 40_000)
    assert commits == {("T", 0): [Commit(10_000, 5), Commit(20_000, 9)]}
    report = evaluate("G", commits, ends_for(commits, 0, 40_000), 0, 40_000)
    p = report.partitions[0]
    assert (p.committed, p.lag) == (9, 31)
    assert report.problems == [
        f"T-0: the commit record at offsets-log partition {bad.partition} offset 1 is not a commit (commit timestamp "
        "-5 is not a time): one commit of its history is unknown"]
    assert report.incomplete


def test_many_commits_beyond_the_log_end_are_one_line():
    # commits older than every record (the log ended at 0 then), offsets 256 to 265: one line
    commits = {("T", 0): [Commit(100 * k, 255 + k) for k in range(1, 11)]}
    ends = ends_for(commits, 0, 1_100)
    report = evaluate("G", commits, EndsAt(ends.ends, ends.reasons, {("T", 0): 300}), 0, 1_100, until_is_now=True)
    p = report.partitions[0]
    assert [pt.lag for pt in p.points] == [None] * 10
    assert (p.lag, p.status) == (35, None)
    assert report.problems == ["T-0: committed 265 is beyond the log end 1 (and 9 more such commits)",
                               "T-0: no commit of the status window has a known lag, so the status is unknown"]
