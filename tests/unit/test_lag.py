"""The lag arithmetic decides what is a fact: sentinel offsets, missing answers and
inconsistent offsets make a row unknown and the answer incomplete; never a negative lag."""
from __future__ import annotations

from typing import NamedTuple

import pytest

from kgroup.lag.now import lag_verdict, offsets_document
from kgroup.lag.now import lag, offset_table
from kgroup.group.model import GroupDescription, GroupState, Member, PartitionOffsets, TopicLayout


class Row(NamedTuple):
    """A row of offset_table by name, with why it is unknown."""
    topic: str
    partition: int
    committed: int | None
    log_start: int | None
    log_end: int | None
    lag: int | None
    member_id: str | None
    client_id: str | None
    host: str | None
    metadata: str | None
    time_lag_ms: int | None
    unknown: str | None


def offset_rows(state: GroupState, record_timestamps=None, now_ms=None) -> list[Row]:
    rows, reasons, per_topic, group_lag = offset_table(state, None, record_timestamps, now_ms)
    named = [Row(*r, unknown=reasons.get(i)) for i, r in enumerate(rows)]
    assert (per_topic, group_lag) == totals(named)  # its own totals are the rows' sums
    return named


def unknown_rows(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.unknown is not None]


def over_threshold(rows: list[Row], threshold: int) -> list[Row]:
    return [r for r in rows if r.lag is not None and r.lag > threshold]


def totals(rows: list[Row]) -> tuple[dict[str, int | None], int | None]:
    """Lag per topic and for the group, summed here from the rows: None for a topic with an
    unknown row, and for the group when any topic is unknown."""
    per_topic: dict[str, int | None] = {}
    for r in rows:
        so_far = per_topic.setdefault(r.topic, 0)
        if so_far is None or r.unknown is not None and r.lag is None:
            per_topic[r.topic] = None
        elif r.lag is not None:
            per_topic[r.topic] = so_far + r.lag
    known = [v for v in per_topic.values() if v is not None]
    return per_topic, None if len(known) < len(per_topic) else sum(known)


def _state(offsets: dict[int, PartitionOffsets], partitions: int = 3) -> GroupState:
    member = Member("m1", assignment={"T": list(range(partitions))})
    return GroupState(GroupDescription("G", state="Stable", members=[member]), {"T": TopicLayout(partitions)},
                      offsets={"T": offsets})


def test_lag_is_never_negative_and_never_from_a_sentinel():
    assert lag(10, 25) == 15
    assert lag(25, 25) == 0
    assert lag(26, 25) is None  # a commit past the log end: no number
    assert lag(10, -1001) is None
    assert lag(-1001, 25) is None
    assert lag(None, 25) is None and lag(10, None) is None


@pytest.mark.parametrize("offsets,reason", [
    (PartitionOffsets(5, -1001, -1001), "log-start offset -1001 is not an offset"),
    (PartitionOffsets(5, 0, -1), "log-end offset -1 is not an offset"),
    (PartitionOffsets(-50, 0, 10), "committed offset -50 is not an offset"),
    (PartitionOffsets(5, 12, 10), "log-start offset 12 is past the log-end offset 10"),
    (PartitionOffsets(11, 0, 10), "committed offset 11 is past the log-end offset 10"),
    (PartitionOffsets(5, None, None), "log-end offset unknown"),
])
def test_a_row_that_is_not_all_facts_is_unknown(offsets, reason):
    good = PartitionOffsets(3, 0, 10)
    rows = offset_rows(_state({0: good, 1: offsets, 2: PartitionOffsets(None, 0, 4)}))
    assert [(r.partition, r.lag) for r in rows] == [(0, 7), (1, None), (2, None)]
    (bad,) = unknown_rows(rows)
    assert bad.partition == 1 and bad.unknown.startswith(reason)
    # no negative value is handed on as a fact
    assert all(v is None or v >= 0 for r in rows for v in (r.committed, r.log_start, r.log_end, r.lag))
    assert totals(rows) == ({"T": None}, None)


def test_never_committed_partitions_are_not_unknown():
    rows = offset_rows(_state({0: PartitionOffsets(3, 0, 10), 1: PartitionOffsets(None, 0, 4)}))
    assert unknown_rows(rows) == []
    assert totals(rows) == ({"T": 7}, 7)  # partition 2 has no offsets at all: nothing to add


def test_totals_only_unknown_for_the_topic_concerned():
    state = _state({0: PartitionOffsets(3, 0, 10)})
    state.topics["U"] = TopicLayout(1)
    state.offsets["U"] = {0: PartitionOffsets(1, -1001, -1001)}
    state.group.members[0].assignment["U"] = [0]
    assert totals(offset_rows(state)) == ({"T": 7, "U": None}, None)


def test_time_lag_missing_record_is_unknown_but_lag_stays():
    offsets = {0: PartitionOffsets(3, 0, 10), 1: PartitionOffsets(4, 0, 4), 2: PartitionOffsets(1, 0, 9)}
    now = 1_000_000
    rows = offset_rows(_state(offsets), record_timestamps={("T", 0): now - 2500}, now_ms=now)
    assert [(r.lag, r.time_lag_ms) for r in rows] == [(7, 2500), (0, 0), (8, None)]
    (bad,) = unknown_rows(rows)
    assert bad.partition == 2 and bad.unknown.startswith("time lag unknown")
    assert totals(rows) == ({"T": 15}, 15)  # the offsets themselves are facts


def test_threshold_cannot_pass_on_incomplete_data():
    complete = _state({0: PartitionOffsets(3, 0, 10), 1: PartitionOffsets(9, 0, 10), 2: PartitionOffsets(0, 0, 0)})
    doc = offsets_document([complete], None, None, 0, lag_above=5)
    assert lag_verdict(doc, 5) == "over"
    assert doc["groups"][0]["over_threshold"] == [{"topic": "T", "partition": 0, "lag": 7}]
    assert lag_verdict(doc, None) == "ok"
    assert [r.partition for r in over_threshold(offset_rows(complete), 0)] == [0, 1]
    assert lag_verdict(offsets_document([complete], None, None, 0, lag_above=7), 7) == "ok"
    # the same group with one partition's log end missing: neither pass nor flag
    partial = _state({0: PartitionOffsets(3, 0, 10), 1: PartitionOffsets(9, -1001, -1001),
                      2: PartitionOffsets(0, 0, 0)})
    doc = offsets_document([complete, partial], None, None, 0, lag_above=100)
    assert lag_verdict(doc, 100) == "incomplete"
    assert lag_verdict(doc, None) == "incomplete"
    g = doc["groups"][1]
    assert (g["incomplete"], g["total_lag"], g["unknown"][0]["partition"]) == (True, None, 1)


def test_time_lag_reads_the_first_unconsumed_record_where_there_is_one():
    from kgroup.lag.now import time_lag_positions

    state = _state({0: PartitionOffsets(5, 0, 10),     # records 5..9 unconsumed: read offset 5
                    1: PartitionOffsets(10, 0, 10),    # caught up: nothing to read
                    2: PartitionOffsets(None, 0, 10),  # never committed
                    3: PartitionOffsets(-1, 0, 10),    # a sentinel, not an offset
                    4: PartitionOffsets(5, 0, None)},  # log end unknown
                   partitions=5)
    assert time_lag_positions([state]) == {("T", 0): 5}
    assert time_lag_positions([]) == {}
