"""kgroup.lag.ends.ends_at on in-memory logs: brokers answering ListOffsets by timestamp as Kafka
does, as Tansu does (the log start for every timestamp) and as librdkafka's mock cluster does
(-1), over logs with skipped offsets, retention and compaction.

Every expected end is worked out here from the list of records by a plain linear scan (the
first record whose timestamp is >= T, else the log end; unknown where retention removed the
records of that time), not by the code under test.
"""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.group.model import LogBounds
from kgroup.lag.ends import NO_BOUNDS, NO_RECORDS, OUT_OF_ORDER, RETENTION, EndAt, ends_at

MODES = ("kafka", "start", "none")




@pytest.fixture(autouse=True, params=["pass", "search"])
def strategy(request, monkeypatch):
    """Every test runs twice: as kgroup runs (a log this short is read in one ordered pass), and
    with the passes off (every moment checked against the broker's answer and searched for in
    the records, as a long log with few moments is)."""
    if request.param == "search":
        search_only(monkeypatch)
    return request.param


def search_only(monkeypatch):
    import kgroup.lag.ends as ends

    monkeypatch.setattr(ends, "_PASS_MIN", 0)
    monkeypatch.setattr(ends, "_PER_MOMENT", 0)


class MemoryLog:
    """A RecordSource over ``{tp: [(offset, timestamp), ...]}`` (offset order; the log end of a
    partition is given by its bounds). ``mode`` is how ListOffsets by timestamp answers."""

    def __init__(self, records, bounds, mode="kafka", unreadable=()):
        self.records = records
        self.bounds = bounds
        self.mode = mode
        self.unreadable = set(unreadable)
        self.list_calls: list[dict] = []
        self.read_calls: list[dict] = []

    def offsets_for_times(self, timestamps):
        self.list_calls.append(dict(timestamps))
        out = {}
        for tp, t in timestamps.items():
            if self.mode == "none":
                out[tp] = None
            elif self.mode == "start":
                out[tp] = self.bounds[tp].start
            else:  # Kafka: the first offset whose timestamp is >= t, else -1
                out[tp] = next((o for o, ts in self.records[tp] if ts >= t), -1)
        return out

    def records_at(self, reads):
        self.read_calls.append(dict(reads))
        out = {}
        for tp, (position, count) in reads.items():
            if tp in self.unreadable:
                continue
            out[tp] = [(o, ts) for o, ts in self.records[tp] if o >= position][:count]
        return out


def linear_end(records, bounds: LogBounds, t: int) -> EndAt:
    """The end at t by a linear scan of the records; on a topic that may be compacted, unknown
    where the offsets just before it hold no record (compaction may have removed records of t)."""
    found: EndAt | None = None
    before = bounds.start - 1  # the record just before the end found
    for i, (offset, ts) in enumerate(records):
        if ts >= t:
            if i == 0 and bounds.start > 0:
                return EndAt(None, RETENTION)
            found = EndAt(offset)
            break
        before = offset
    if found is None:
        if not records and bounds.start > 0:
            return EndAt(None, RETENTION)
        found = EndAt(bounds.end)
    a = found.offset
    if bounds.compacted is False or before == a - 1:
        return found
    gone = before + 1
    why = "compacted topic" if bounds.compacted else "whether the topic is compacted could not be read"
    offsets = f"offset {gone} holds" if gone == a - 1 else f"offsets {gone}-{a - 1} hold"
    return EndAt(None, f"{why}: {offsets} no record now, so where the log ended then (from {gone} to {a}) is unknown")


def contiguous(start: int, timestamps: list[int]) -> list[tuple[int, int]]:
    return [(start + i, ts) for i, ts in enumerate(timestamps)]


def check_all(records, bounds, moments, mode):
    log = MemoryLog(records, bounds, mode)
    got, stats = ends_at(log, moments, bounds)
    expected = {(tp[0], tp[1], t): linear_end(records.get(tp, []), bounds[tp], t)
                for tp, ts in moments.items() for t in ts}
    assert got == expected
    return log, stats


# A log of 40 records, one every 10 ms from 1000, and moments before, between, equal to and after them.
TS40 = [1000 + 10 * i for i in range(40)]
MOMENTS40 = [0, 999, 1000, 1001, 1005, 1010, 1195, 1200, 1201, 1389, 1390, 1391, 5000]


@pytest.mark.parametrize("mode", MODES)
def test_contiguous_log_every_kind_of_moment(mode, strategy):
    tp = ("orders", 0)
    records = {tp: contiguous(0, TS40)}
    bounds = {tp: LogBounds(0, 40)}
    log, stats = check_all(records, bounds, {tp: MOMENTS40}, mode)
    got, _ = ends_at(MemoryLog(records, bounds, mode), {tp: MOMENTS40}, bounds)
    # worked by hand: 1000 is record 0's time, 1005 lies between records 0 and 1, 1390 is the last record's
    assert got[("orders", 0, 999)] == EndAt(0)
    assert got[("orders", 0, 1000)] == EndAt(0)
    assert got[("orders", 0, 1001)] == EndAt(1)
    assert got[("orders", 0, 1005)] == EndAt(1)
    assert got[("orders", 0, 1200)] == EndAt(20)
    assert got[("orders", 0, 1201)] == EndAt(21)
    assert got[("orders", 0, 1390)] == EndAt(39)
    assert got[("orders", 0, 1391)] == EndAt(40)  # every record older: the log end
    assert got[("orders", 0, 5000)] == EndAt(40)
    if strategy == "pass":
        # 40 records: one read of them all answers every moment; the broker is not asked
        assert log.read_calls == [{tp: (0, 40)}]
        assert stats.list_offsets_calls == stats.checked == stats.searched == 0
        return
    # the first and the last moment are asked first
    assert log.list_calls[:2] == [{tp: MOMENTS40[0]}, {tp: MOMENTS40[-1]}]
    if mode == "kafka":
        # both answers right: the other moments are asked too, in slots, and checked, never searched
        assert stats.list_offsets_calls == stats.checked <= len(MOMENTS40)
        assert stats.searched == 0
    elif mode == "start":
        # Tansu's answer (0) is right for the first moment, wrong for the last: nothing more is asked
        assert stats.list_offsets_calls == stats.checked == 2 and stats.searched == 1
    else:
        # -1 (the log end) is wrong for the first moment, right for the last: nothing more is asked
        assert stats.list_offsets_calls == stats.checked == 2 and stats.searched == 1


@pytest.mark.parametrize("mode", MODES)
def test_list_offsets_calls_grow_with_moments_per_partition_not_partitions_times_moments(mode, strategy):
    records, bounds, moments = {}, {}, {}
    for p in range(50):
        tp = ("t", p)
        n = 30 + p
        records[tp] = contiguous(0, [5000 + 7 * i + p for i in range(n)])
        bounds[tp] = LogBounds(0, n)
        moments[tp] = [4000 + 53 * k + p for k in range(1 + p % 7)]  # 1 to 7 moments
    log, stats = check_all(records, bounds, moments, mode)
    if strategy == "pass":
        assert stats.list_offsets_calls == 0 and len(log.read_calls) == 1  # every log read whole, at once
        return
    assert stats.list_offsets_calls == len(log.list_calls) <= 7
    # the first call carries every partition with its first moment, the second every partition
    # with more than one moment with its last
    assert log.list_calls[0] == {tp: ts[0] for tp, ts in moments.items()}
    assert log.list_calls[1] == {tp: ts[-1] for tp, ts in moments.items() if len(ts) > 1}
    assert stats.checked == sum(len(c) for c in log.list_calls)
    # reads are batched across partitions too: far fewer calls than the 200 moments
    longest = max(len(v) for v in records.values())
    assert stats.record_reads <= 7 * (math.ceil(math.log2(longest)) + 2)
    assert stats.positions_read == sum(len(c) for c in log.read_calls)


@pytest.mark.parametrize("mode", MODES)
def test_offsets_that_skip(mode):
    # control records (every third offset), a long stretch removed, and a control record at the end
    tp = ("tx", 0)
    offsets = [o for o in range(60) if o % 3 != 2] + list(range(200, 230))
    records = {tp: [(o, 10_000 + 4 * i) for i, o in enumerate(offsets)]}
    bounds = {tp: LogBounds(0, 231)}
    moments = sorted({ts + d for _, ts in records[tp] for d in (-1, 0, 1)} | {0, 99_999})
    check_all(records, bounds, {tp: moments}, mode)
    got, _ = ends_at(MemoryLog(records, bounds, mode), {tp: [10_000 + 4 * 40, 10_000 + 4 * 40 - 1, 99_999]}, bounds)
    assert got[("tx", 0, 10_160)] == EndAt(200)  # record 40 of the list is offset 200, after the gap
    assert got[("tx", 0, 10_159)] == EndAt(200)
    assert got[("tx", 0, 99_999)] == EndAt(231)  # the log end, past the last control record


@pytest.mark.parametrize("mode", MODES)
def test_retention_before_the_log_start_is_unknown(mode):
    tp = ("old", 0)
    records = {tp: contiguous(100, [2000 + 10 * i for i in range(30)])}
    bounds = {tp: LogBounds(100, 130)}
    moments = [0, 1999, 2000, 2001, 2010, 2150, 2290, 2291]
    log, stats = check_all(records, bounds, {tp: moments}, mode)
    got, _ = ends_at(MemoryLog(records, bounds, mode), {tp: moments}, bounds)
    assert [got[("old", 0, t)] for t in moments] == [
        EndAt(None, RETENTION), EndAt(None, RETENTION), EndAt(None, RETENTION), EndAt(101), EndAt(101),
        EndAt(115), EndAt(129), EndAt(130)]
    assert stats.unknown == 3


def test_unknown_bounds_and_empty_logs_ask_nothing(strategy):
    missing, empty, emptied, normal = ("m", 0), ("e", 0), ("x", 0), ("n", 0)
    records = {missing: contiguous(0, [1, 2, 3]), empty: [], emptied: [], normal: contiguous(0, [10, 20, 30])}
    bounds = {empty: LogBounds(0, 0), emptied: LogBounds(7, 7), normal: LogBounds(0, 3)}
    moments = {tp: [0, 15, 99] for tp in records}
    log = MemoryLog(records, bounds)
    got, stats = ends_at(log, moments, bounds)
    for t in (0, 15, 99):
        assert got[("m", 0, t)] == EndAt(None, NO_BOUNDS)
        assert got[("e", 0, t)] == EndAt(0)  # never a record: the end was 0 at every moment
        assert got[("x", 0, t)] == EndAt(None, RETENTION)  # every record removed: not known
    assert [got[("n", 0, t)] for t in (0, 15, 99)] == [EndAt(0), EndAt(1), EndAt(3)]
    assert all(set(call) == {normal} for call in log.list_calls + log.read_calls)
    assert stats.checked == (0 if strategy == "pass" else 2) and stats.unknown == 6


@pytest.mark.parametrize("mode", MODES)
def test_a_compacted_topic_is_known_where_no_record_before_the_end_is_gone(mode):
    """Compaction removes records and keeps the offsets of the others: where the record just
    before an end is there, the end is a fact; where the offsets before it hold no record now,
    records of that moment may have been among those removed, so the end is unknown, said with
    the offsets gone. A topic whose cleanup.policy cannot be read is read the same way."""
    whole, holed, policy = ("whole", 0), ("holed", 0), ("policy", 0)
    # holed: offsets 3-5 and 0 removed by compaction; records 1, 2 at 10, 20; 6, 7 at 60, 70
    records = {whole: contiguous(0, [10, 20, 30, 40]), holed: [(1, 10), (2, 20), (6, 60), (7, 70)],
               policy: [(1, 10), (2, 20), (6, 60), (7, 70)]}
    bounds = {whole: LogBounds(0, 4, compacted=True), holed: LogBounds(0, 9, compacted=True),
              policy: LogBounds(0, 9, compacted=None)}
    moments = {tp: [5, 10, 15, 20, 25, 60, 65, 70, 99] for tp in records}
    got, stats = ends_at(MemoryLog(records, bounds, mode), moments, bounds)
    assert [got[("whole", 0, t)] for t in (5, 10, 15, 20, 25, 60, 99)] == [
        EndAt(0), EndAt(0), EndAt(1), EndAt(1), EndAt(2), EndAt(4), EndAt(4)]
    gap_start = EndAt(None, "compacted topic: offset 0 holds no record now, so where the log ended then (from 0 to 1) "
                            "is unknown")
    gap_middle = EndAt(None, "compacted topic: offsets 3-5 hold no record now, so where the log ended then "
                             "(from 3 to 6) is unknown")
    gap_end = EndAt(None, "compacted topic: offset 8 holds no record now, so where the log ended then (from 8 to 9) "
                          "is unknown")
    assert [got[("holed", 0, t)] for t in moments[holed]] == [
        gap_start, gap_start, EndAt(2), EndAt(2), gap_middle, gap_middle, EndAt(7), EndAt(7), gap_end]
    assert got[("policy", 0, 25)] == EndAt(None, "whether the topic is compacted could not be read: offsets 3-5 "
                                                 "hold no record now, so where the log ended then (from 3 to 6) is "
                                                 "unknown")
    assert got[("policy", 0, 65)] == EndAt(7)
    assert stats.unknown == 5 + 5


@pytest.mark.parametrize("mode", MODES)
def test_equal_timestamps_answer_the_first_of_them(mode):
    tp = ("eq", 0)
    timestamps = [100, 200, 200, 200, 200, 300, 300, 400] + [500] * 40 + [600]
    records = {tp: contiguous(0, timestamps)}
    bounds = {tp: LogBounds(0, len(timestamps))}
    check_all(records, bounds, {tp: [99, 100, 150, 200, 201, 300, 450, 500, 501, 600, 601]}, mode)
    got, _ = ends_at(MemoryLog(records, bounds, mode), {tp: [200, 300, 500, 501]}, bounds)
    assert [got[("eq", 0, t)] for t in (200, 300, 500, 501)] == [EndAt(1), EndAt(5), EndAt(8), EndAt(48)]


def test_a_partition_whose_records_cannot_be_read_is_unknown():
    good, bad = ("g", 0), ("b", 0)
    records = {good: contiguous(0, [10, 20, 30]), bad: contiguous(0, [10, 20, 30])}
    bounds = {good: LogBounds(0, 3), bad: LogBounds(0, 3)}
    log = MemoryLog(records, bounds, mode="start", unreadable=[bad])
    got, stats = ends_at(log, {good: [15, 25], bad: [15, 25]}, bounds)
    assert got == {("g", 0, 15): EndAt(1), ("g", 0, 25): EndAt(2),
                   ("b", 0, 15): EndAt(None, NO_RECORDS), ("b", 0, 25): EndAt(None, NO_RECORDS)}
    assert stats.unknown == 2


def test_a_kafka_answer_is_taken_where_the_records_around_it_confirm_it_even_out_of_order():
    # CreateTime set by producers: offset 3 is older than offset 2. Kafka answers 2 for t=50.
    tp = ("ooo", 0)
    records = {tp: contiguous(0, [10, 20, 60, 30, 70, 80])}
    bounds = {tp: LogBounds(0, 6)}
    got, stats = ends_at(MemoryLog(records, bounds, "kafka"), {tp: [50]}, bounds)
    assert got == {("ooo", 0, 50): EndAt(2)} and stats.searched == 0


def test_out_of_order_timestamps_seen_by_the_search_are_unknown_not_guessed():
    tp = ("ooo", 0)
    # every record read is inside the small interval read whole: 60 at offset 2 before 30 at offset 3
    records = {tp: contiguous(0, [10, 20, 60, 30, 70, 80])}
    bounds = {tp: LogBounds(0, 6)}
    got, _ = ends_at(MemoryLog(records, bounds, "none"), {tp: [50]}, bounds)
    assert got == {("ooo", 0, 50): EndAt(None, OUT_OF_ORDER)}


def test_reads_after_the_end_read_are_not_part_of_the_log_of_then():
    # two records were written after the bounds were read; one is newer than every moment
    tp = ("live", 0)
    records = {tp: contiguous(0, [10, 20, 30, 40, 50])}
    bounds = {tp: LogBounds(0, 3)}
    got, _ = ends_at(MemoryLog(records, bounds, "none"), {tp: [35, 45, 25]}, bounds)
    assert got == {("live", 0, 35): EndAt(3), ("live", 0, 45): EndAt(3), ("live", 0, 25): EndAt(2)}


@st.composite
def logs(draw):
    n_parts = draw(st.integers(1, 4))
    records, bounds, moments = {}, {}, {}
    for p in range(n_parts):
        tp = ("h", p)
        start = draw(st.sampled_from([0, 0, 5, 1000]))
        steps = draw(st.lists(st.integers(1, 4), max_size=120))  # offset steps: > 1 where offsets skip
        deltas = draw(st.lists(st.integers(0, 30), min_size=len(steps), max_size=len(steps)))
        offsets, o = [], start
        for s in steps:
            offsets.append(o)
            o += s
        ts, t = [], 1_000
        for d in deltas:
            t += d
            ts.append(t)
        records[tp] = list(zip(offsets, ts))
        end = (offsets[-1] + draw(st.integers(1, 3))) if offsets else start
        bounds[tp] = LogBounds(start, end, compacted=draw(st.sampled_from([False, False, True, None])))
        moments[tp] = draw(st.lists(st.integers(900, t + 40), max_size=12))
    return records, bounds, moments, draw(st.sampled_from(MODES))


@settings(max_examples=300, deadline=None)
@given(logs())
def test_any_log_any_broker_answers_as_the_linear_scan(case):
    records, bounds, moments, mode = case
    log, stats = check_all(records, bounds, moments, mode)
    asked = [tp for tp, ts in moments.items() if ts and bounds[tp].start < bounds[tp].end]
    assert stats.list_offsets_calls <= max((len(set(moments[tp])) for tp in asked), default=0)
    # the check reads from two before the answer: with at most one offset skipped at a time, it confirms every answer
    if mode == "kafka" and all(b.end - (r[-1][0] if r else b.start) <= 2 and all(q - o <= 2 for (o, _), (q, _) in zip(r, r[1:]))
                               for r, b in ((records[tp], bounds[tp]) for tp in asked)):
        assert stats.searched == 0


def test_record_times_one_read_per_slot():
    from kgroup.lag.ends import record_times

    # offsets 3 and 4 of b are gone (compaction): offset 3 stands for the next record, 5
    records = {("a", 0): contiguous(0, [100, 200, 300, 400]), ("b", 0): [(0, 10), (1, 20), (2, 30), (5, 60)]}
    source = MemoryLog(records, {})
    got = record_times(source, {("a", 0): [3, 1], ("b", 0): [3]})
    assert got == {("a", 0, 1): 200, ("a", 0, 3): 400, ("b", 0, 3): 60}
    # two slots: a's two offsets, b's one; one record asked each
    assert source.read_calls == [{("a", 0): (1, 1), ("b", 0): (3, 1)}, {("a", 0): (3, 1)}]
    source.unreadable = {("a", 0)}
    assert record_times(source, {("a", 0): [1]}) == {}



class MemoryCluster:
    """kgroup.lag.ends' LogSource over a MemoryLog: the bounds it was given (and problems), and a
    new reader for each search, which names the partitions it could not read and records its closing."""

    def __init__(self, records, bounds, problems=(), unreadable=()):
        self.records, self.bounds, self.problems, self.unreadable = records, bounds, list(problems), set(unreadable)
        self.asked: list[list] = []
        self.readers: list[MemoryLog] = []

    def log_bounds(self, partitions):
        self.asked.append(list(partitions))
        return {tp: b for tp, b in self.bounds.items() if tp in partitions}, list(self.problems)

    def record_reader(self):
        class Reader(MemoryLog):
            problems: list[str] = []
            closed = False

            def records_at(self, reads):
                got = super().records_at(reads)
                self.problems = self.problems + [f"{t}-{p}: its records could not be read" for t, p in reads
                                                 if (t, p) not in got]
                return got

            def close(self):
                self.closed = True

        reader = Reader(self.records, self.bounds, unreadable=self.unreadable)
        self.readers.append(reader)
        return reader


def test_log_ends_at_asks_the_cluster_for_bounds_then_searches_its_records():
    from kgroup.lag.ends import log_ends_at

    good, bad, lost = ("a", 0), ("a", 1), ("b", 0)
    records = {good: contiguous(0, [10, 20, 30]), bad: contiguous(0, [10, 20, 30])}
    bounds = {good: LogBounds(0, 3), bad: LogBounds(0, 3)}
    cluster = MemoryCluster(records, bounds, ["b-0: no earliest offset"], unreadable={bad})
    answer = log_ends_at(cluster, {bad: [15], lost: [15], good: [15, 25]})
    assert cluster.asked == [[good, bad, lost]]  # in partition order
    reader, = cluster.readers
    assert reader.closed
    assert answer.ends == {(*good, 15): EndAt(1), (*good, 25): EndAt(2), (*bad, 15): EndAt(None, NO_RECORDS),
                           (*lost, 15): EndAt(None, NO_BOUNDS)}
    assert answer.bounds == bounds and answer.stats.unknown == 2
    # the cluster's problems, then the reader's
    assert answer.problems == ["b-0: no earliest offset", "a-1: its records could not be read"]


def test_record_timestamps_reads_through_a_reader_it_closes():
    from kgroup.lag.ends import record_timestamps

    cluster = MemoryCluster({("a", 0): contiguous(0, [100, 200, 300])}, {})
    assert record_timestamps(cluster, {("a", 0): [2, 0]}) == {("a", 0, 0): 100, ("a", 0, 2): 300}
    assert [r.closed for r in cluster.readers] == [True]
