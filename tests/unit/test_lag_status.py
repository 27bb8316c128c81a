"""Burrow's evaluation rules: every case of Burrow's own evaluator test set
(linkedin/Burrow, core/internal/evaluator/caching_test.go, the ``tests`` table), unchanged: its
commits (time in ms, offset, lag or unknown), log-end polls, current lag, "now" (in seconds, as
Burrow's table gives it), allowed lag, and what each rule and the status must say. Then kgroup's
own additions: the window (min-distance merge, last 10), the poll moments, completeness and the
group's status."""
from __future__ import annotations

from typing import NamedTuple

import pytest

from kgroup.lag import status as ls
from kgroup.lag.status import OK, REWIND, STALL, STOP, WARN, Sample


class Case(NamedTuple):
    offsets: list[tuple[int, int, int | None]]  # (timestamp ms, offset, lag)
    log_ends: list[int]
    current_lag: int
    now_s: int
    allowed_lag: int
    lag_always_not_zero: bool
    offsets_rewind: int
    offsets_stopped: bool
    offsets_stalled: bool
    lag_not_decreasing: bool
    recent_lag_zero: bool
    status: str


BURROW = [
    # 0: zero lag at one commit: OK
    Case([[100000, 1000, 0], [200000, 2000, 50], [300000, 3000, 100], [400000, 4000, 150], [500000, 5000, 200]],
         [5200], 200, 600, 0, False, -1, False, False, True, False, OK),
    # 1: time since the last commit equals the span: not stopped
    Case([[100000, 1000, 0], [200000, 2000, 50], [300000, 3000, 100], [400000, 4000, 150], [500000, 5000, 200]],
         [5200], 200, 900, 0, False, -1, False, False, True, False, OK),
    # 2: time since the last commit exceeds the span: STOP although lag was once zero
    Case([[100000, 1000, 0], [200000, 2000, 50], [300000, 3000, 100], [400000, 4000, 150], [500000, 5000, 200]],
         [5200], 200, 1000, 0, False, -1, True, False, True, False, STOP),
    # 3: STOP with lag never zero
    Case([[100000, 1000, 50], [200000, 2000, 100], [300000, 3000, 150], [400000, 4000, 200], [500000, 5000, 250]],
         [5250], 250, 1000, 0, True, -1, True, False, True, False, STOP),
    # 4: offsets unchanged but lag was zero once: OK
    Case([[100000, 1000, 0], [200000, 1000, 50], [300000, 1000, 100], [400000, 1000, 150], [500000, 1000, 200]],
         [1200], 200, 600, 0, False, -1, False, True, True, False, OK),
    # 5: offsets unchanged, lag never zero: STALL
    Case([[100000, 1000, 100], [200000, 1000, 150], [300000, 1000, 200], [400000, 1000, 250], [500000, 1000, 300]],
         [1300], 300, 600, 0, True, -1, False, True, True, False, STALL),
    # 6: STALL with a constant lag
    Case([[100000, 1000, 100], [200000, 1000, 100], [300000, 1000, 100], [400000, 1000, 100], [500000, 1000, 100]],
         [1100], 100, 600, 0, True, -1, False, True, True, False, STALL),
    # 7: a rewind that climbed back: OK
    Case([[100000, 1000, 100], [200000, 2000, 150], [300000, 3000, 200], [400000, 2000, 1250], [500000, 4000, 300]],
         [4300], 300, 600, 0, True, 3, False, False, False, False, OK),
    # 8: current lag zero: OK whatever else
    Case([[100000, 1000, 50], [200000, 2000, 100], [300000, 3000, 150], [400000, 4000, 200], [500000, 5000, 250]],
         [5250], 0, 1000, 0, True, -1, True, False, True, False, OK),
    # 9: stopped, and the log end moved past the last commit at every poll: STOP
    Case([[1512224618356, 792748079, 0], [1512224619362, 792748080, 0], [1512224620366, 792748081, 0], [1512224621367, 792748082, 0], [1512224622370, 792748083, 0], [1512224623373, 792748084, 0], [1512224624378, 792748085, 0], [1512224625379, 792748086, 0], [1512224626383, 792748087, 0], [1512224627383, 792748088, 0], [1512224628383, 792748089, 0], [1512224629388, 792748090, 0], [1512224630391, 792748091, 0], [1512224631394, 792748092, 0], [1512224632397, 792748093, 0]],
         [792749024, 792749000, 792748800, 792748600, 792748500], 931, 1512224650, 0, False, -1, True, False, True, False, STOP),
    # 10: stopped, but caught up at a recent poll: OK
    Case([[1512224618356, 792748079, 0], [1512224619362, 792748080, 0], [1512224620366, 792748081, 0], [1512224621367, 792748082, 0], [1512224622370, 792748083, 0], [1512224623373, 792748084, 0], [1512224624378, 792748085, 0], [1512224625379, 792748086, 0], [1512224626383, 792748087, 0], [1512224627383, 792748088, 0], [1512224628383, 792748089, 0], [1512224629388, 792748090, 0], [1512224630391, 792748091, 0], [1512224631394, 792748092, 0], [1512224632397, 792748093, 0]],
         [792748094, 792748093, 792748093, 792748093], 1, 1512224650, 0, False, -1, True, False, True, True, OK),
    # 11: unknown lags among the commits change nothing
    Case([[100000, 1000, 0], [150000, 1500, None], [200000, 2000, 50], [250000, 2500, None], [300000, 3000, 100], [350000, 3500, None], [400000, 4000, 150], [450000, 4500, None], [500000, 5000, 200], [550000, 5500, None]],
         [5700], 200, 600, 0, False, -1, False, False, True, False, OK),
    # 12: allowed lag makes a lag of 1 count as zero
    Case([[100000, 1000, 2], [200000, 2000, 1], [300000, 2000, 1]],
         [2001], 1, 550, 1, False, -1, True, False, False, False, OK),
    # 13: STALL with an allowed lag
    Case([[100000, 1000, 100], [200000, 1000, 150], [300000, 1000, 200], [400000, 1000, 250], [500000, 1000, 300]],
         [1300], 300, 600, 99, True, -1, False, True, True, False, STALL),
    # 14: recovered rewind with an allowed lag
    Case([[100000, 1000, 100], [200000, 2000, 150], [300000, 3000, 200], [400000, 2000, 1250], [500000, 4000, 300]],
         [4300], 300, 600, 99, True, 3, False, False, False, False, OK),
    # 15: a rewind that did not climb back: REWIND
    Case([[100000, 1000, 100], [200000, 2000, 150], [300000, 3000, 200], [400000, 2000, 1250], [500000, 2500, 300]],
         [4300], 300, 600, 0, True, 3, False, False, False, False, REWIND),
]


@pytest.mark.parametrize("index", range(len(BURROW)))
def test_burrow_caching_evaluator_cases(index):
    case = BURROW[index]
    offsets = [Sample(*o) for o in case.offsets]
    assert ls.lag_always_not_zero(offsets, case.allowed_lag) is case.lag_always_not_zero
    assert ls.offsets_rewind(offsets) == case.offsets_rewind
    assert ls.offsets_stopped(offsets, case.now_s * 1000) is case.offsets_stopped
    assert ls.offsets_stalled(offsets) is case.offsets_stalled
    assert ls.lag_not_decreasing(offsets) is case.lag_not_decreasing
    assert ls.recent_lag_zero(offsets, case.log_ends) is case.recent_lag_zero
    assert ls.partition_status(offsets, case.log_ends, case.current_lag, case.now_s * 1000,
                               case.allowed_lag) == case.status


def test_burrow_table_covers_every_status():
    assert {c.status for c in BURROW} == {OK, STOP, STALL, REWIND}
    assert len(BURROW) == 16


def test_lag_never_zero_and_never_decreasing_is_warn():
    # commits advance (no stall), lags 10, 10, 12: never zero, never lower than the one before
    offsets = [Sample(10_000, 100, 10), Sample(20_000, 200, 10), Sample(30_000, 300, 12)]
    assert ls.partition_status(offsets, [312], 12, 30_000) == WARN
    # one lag going down (12 -> 11) is progress: OK
    offsets.append(Sample(40_000, 400, 11))
    assert ls.partition_status(offsets, [411], 11, 40_000) == OK


def test_the_poll_moments_after_the_last_commit():
    assert ls.sample_moments(100_000, 55_000) == [100_000, 90_000, 80_000, 70_000, 60_000]
    assert ls.sample_moments(200_000, 0) == [200_000 - 10_000 * k for k in range(10)]
    assert ls.sample_moments(100_000, 100_000) == []


def test_group_status():
    assert ls.group_status([OK, WARN, OK]) == WARN
    assert ls.group_status([WARN, STALL]) == "ERR"
    assert ls.group_status([OK, REWIND]) == "ERR"
    assert ls.group_status([]) == OK


def test_warming_up_until_a_full_window_or_the_samples_burrow_keeps():
    # fewer than 10 commits in the window and fewer than 10 samples: too little for the rules
    assert ls.warming_up(1, 1) and ls.warming_up(9, 9)
    assert not ls.warming_up(10, 1)  # a full window (from the offsets log)
    assert not ls.warming_up(1, 10)  # ten samples: the polls Burrow keeps
    assert ls.WARMING_UP == "WARMING UP" and ls.group_status([ls.WARMING_UP, OK]) == OK
