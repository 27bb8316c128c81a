"""kgroup lag run in process against an in-memory cluster: what the command shows, its exit codes
(INCOMPLETE before --fail-on), the unreadable offsets log, --watch as JSON lines and its
--watch default. The real broker runs are in tests/integration/test_lag_live.py.

The in-memory cluster's partitions hold one record a second from 0 on, so its log ended at
moment T (ms) at offset ceil(T / 1000), computed here independently of kgroup.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import re
import sys

import pytest
from logbuilder import Log
from reportcase import OneCoordinator
from schemas import validate

from kgroup.cli import main
from kgroup.errors import NotAuthorized, Unreachable
from kgroup.group.model import LogBounds, PartitionOffsets
from kgroup.lag.ends import RETENTION

NOW_MS = 200_000


def end(t: int) -> int:
    return math.ceil(t / 1000)


class FakeCluster(OneCoordinator):
    """Answers as a cluster whose partitions got one record a second from 0 to NOW_MS (the record
    at offset o written at o s): the primitive reads kgroup.lag.ends asks of a cluster (its
    LogSource). A moment in ``unknown`` is before the log start: retention removed its records."""

    def __init__(self, unknown=(), committed=None, markers=()):
        self.members: list = []  # the group's members now (kgroup.group.model.Member)
        self.layouts: dict = {}  # topic -> its partition count
        self.unknown = set(unknown)
        self.committed = committed or {}
        self.markers = set(markers)  # partitions whose offsets after the committed one hold no record
        self.deliverable_asked: list = []

    def deliverable(self, partitions):
        self.deliverable_asked.append(dict(partitions))
        return {tp: tp not in self.markers for tp in partitions}

    def log_bounds(self, partitions):
        starts = {tp: max((end(m) for t, p, m in self.unknown if (t, p) == tp), default=0) for tp in partitions}
        return {tp: LogBounds(starts[tp], end(NOW_MS)) for tp in partitions}, []

    def record_reader(self):
        return OneRecordASecond(end(NOW_MS))

    # the tests' commits are from 1970: a retention of 100,000,000 minutes (190 years) keeps them
    # from expiring in the tests that are not about expiry; those set their own
    configs: dict = {"offsets.retention.minutes": "100000000"}


class OneRecordASecond:
    """Records at offsets 0 to ``end`` - 1, the one at offset o written at o s."""

    def __init__(self, end_offset: int):
        self.end = end_offset
        self.problems: list[str] = []

    def offsets_for_times(self, timestamps):
        return {tp: end(t) if end(t) < self.end else None for tp, t in timestamps.items()}

    def records_at(self, reads):
        return {tp: [(o, o * 1000) for o in range(position, min(position + count, self.end))]
                for tp, (position, count) in reads.items()}

    def close(self):
        pass


@pytest.fixture
def cluster(monkeypatch):
    fake = FakeCluster()
    monkeypatch.setattr("kgroup.kafka.cluster.connect", lambda settings: fake)
    monkeypatch.setattr("time.time", lambda: NOW_MS / 1000)

    def capture(cluster, groups, topics=None):
        """What kgroup.group.capture makes of the group: its committed offsets and the log ends."""
        from kgroup.group.capture import Capture
        from kgroup.group.model import GroupDescription, GroupState, TopicLayout

        offsets = {}
        for (t, p), o in cluster.committed.items():
            offsets.setdefault(t, {})[p] = PartitionOffsets(o, 0, end(NOW_MS))
        for t, n in cluster.layouts.items():  # every partition's log end, committed or not
            for p in range(n):
                offsets.setdefault(t, {}).setdefault(p, PartitionOffsets(None, 0, end(NOW_MS)))
        layouts = {t: TopicLayout(n) for t, n in cluster.layouts.items()}
        state = "Stable" if cluster.members else "Empty"
        return Capture({g: GroupState(GroupDescription(g, state=state, members=list(cluster.members)), layouts,
                                      offsets=offsets) for g in groups})

    monkeypatch.setattr("kgroup.group.capture.capture", capture)
    return fake


@pytest.fixture
def log(monkeypatch):
    log = Log()
    from kgroup.offsets_log.selection import Selection, select

    def entries(group, input_, offsets_topic, settings, until_ms, progress, warn):
        return (e for e in select(log.records, Selection(frozenset([group]))) if e.record is not None)

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries", entries)
    return log


def run(*args: str) -> tuple[int, str, str]:
    argv, sys.argv = sys.argv, ["kgroup", *args]
    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as e:
        code = e.code
    finally:
        sys.argv = argv
    return int(code or 0), out.getvalue(), err.getvalue()


def test_json_of_a_caught_up_and_a_slow_partition(cluster, log):
    for k in range(1, 5):
        log.commit("G", "T", 0, 10 * k, 10_000 * k)  # caught up at each commit
        log.commit("G", "T", 1, 2 * k, 10_000 * k)  # a fifth of the production rate
    code, out, err = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "160s", "-o", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    validate("lag", doc)
    t0, t1 = doc["partitions"]
    assert [p["lag"] for p in t0["points"]] == [0, 0, 0, 0]
    assert [p["lag"] for p in t1["points"]] == [8, 16, 24, 32]
    # --until is 40 s: the log ended at 40
    assert (t0["lag"], t1["lag"], t1["end"]) == (0, 32, 40)
    # t1: never caught up, lag growing: WARN
    assert (t0["status"], t1["status"], doc["status"]) == ("OK", "WARN", "WARN")
    assert doc["partitions_by_status"] == {"OK": ["T-0"], "WARN": ["T-1"]}
    # now (200 s): both stopped 160 s ago while the log moved on
    code, out, err = run("lag", "G", "-b", "x:1", "--since", "200s", "-o", "json")
    doc = json.loads(out)
    assert [(p["status"], p["lag"], p["end"]) for p in doc["partitions"]] == [("STOP", 160, 200), ("STOP", 192, 200)]
    assert (code, doc["status"]) == (0, "ERR")


def test_a_lag_of_nothing_but_transaction_markers_is_none_and_the_status_follows(cluster, log):
    # both partitions commit offset 100 every 10 s while the log moves on: STALL, lag 100 now;
    # the cluster's read finds nothing a read_committed consumer gets after T-0's committed offset
    cluster.markers = {("T", 0)}
    for k in range(11, 20):
        log.commit("G", "T", 0, 100, 10_000 * k)
        log.commit("G", "T", 1, 100, 10_000 * k)
    code, out, err = run("lag", "G", "-b", "x:1", "--since", "200s", "-o", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    validate("lag", doc)
    assert cluster.deliverable_asked == [{("T", 0): (100, 200), ("T", 1): (100, 200)}]
    t0, t1 = doc["partitions"]
    assert (t0["lag"], t0["status"], t0["transaction_markers"], t0["catch_up"]) == (0, "OK", 100, "caught up")
    assert (t1["lag"], t1["status"], t1["transaction_markers"]) == (100, "STALL", None)
    assert (doc["status"], doc["total_lag"]) == ("ERR", 100)
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s")
    assert "T-0: caught up; 100 offsets are transaction markers or aborted records, never consumed" in out.splitlines()
    # at a past --until (195 s) the log may have changed since (compacted): not read, the lag stays
    cluster.deliverable_asked.clear()
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "5s", "-o", "json")
    assert cluster.deliverable_asked == []
    assert [(p["lag"], p["transaction_markers"]) for p in json.loads(out)["partitions"]] == [(95, None), (95, None)]


def test_a_lag_over_the_bound_is_not_read(cluster, log):
    for k in range(1, 3):
        log.commit("G", "T", 0, 1, 1_000 * k)
    cluster.markers = {("T", 0)}
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "-o", "json")
    # a lag of 199 is read; the bound is 1,000 offsets: one of 1,001 would not be
    assert cluster.deliverable_asked == [{("T", 0): (1, 200)}]
    from kgroup.lag.now import MARKER_CHECK_MAX

    assert MARKER_CHECK_MAX == 1000


def test_the_table_has_a_sparkline_and_names_the_partitions_per_status(cluster, log):
    for k in range(1, 5):
        log.commit("G", "T", 1, 2 * k, 10_000 * k)
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "160s")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["TOPIC", "PARTITION", "STATUS", "COMPLETE", "LAG", "COMMITTED", "END", "CONSUME/S",
                                "PRODUCE/S", "CATCH-UP", "EXPIRES", "LAG", "OVER", "WINDOW"]
    # lags 8, 16, 24, 32 over [0, 40 s] in 24 slots: blank before the first commit, then rising
    row = lines[2]
    # 6 offsets consumed and 30 produced in the 30 s from the first commit
    assert row.split()[:12] == ["T", "1", "WARN", "0.4", "32", "8", "40", "0.2", "1", "not", "catching", "up"]
    # (not a UTF-8 stream: ASCII levels) 5 slots before 10 s dotted, then 8 (level 2 of 7), 16 (4),
    # 24 (5) six slots each, 32 (7) in the last
    assert row.endswith(".....======******######@")
    # a standalone consumer (commits, no group record): its last commit (40 s) + 100,000,000 minutes
    assert " 2160-02-18T10:40:40.000Z " in row
    assert lines[-3] == "group G: WARN (WARN: T-1); window 1970-01-01T00:00:00.000Z to 1970-01-01T00:00:40.000Z"
    assert lines[-2] == ("EXPIRES: when Kafka deletes the committed offset under the group's state at --until "
                         "(offsets.retention.minutes 100000000: broker 1)")
    assert lines[-1] == "no member owns any of these partitions now (the group is Empty)"


def test_unknown_points_make_the_answer_incomplete_even_with_fail_on(cluster, log):
    cluster.unknown = {("T", 0, 10_000)}
    for k in range(1, 4):
        log.commit("G", "T", 0, k, 10_000 * k)
    code, out, err = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "165s", "--fail-on", "warn",
                         "-o", "json")
    assert code == 3
    assert json.loads(out)["partitions"][0]["points"][0] == {"time_ms": 10_000, "committed": 1, "end": None,
                                                              "lag": None}
    assert err.splitlines() == [
        f"kgroup: warning: T-0: 1 of 3 points unknown: {RETENTION}",
        "kgroup: warning: INCOMPLETE: some values are unknown (shown as -); the status is computed from the "
        "known points"]


def test_fail_on(cluster, log):
    for k in range(1, 4):
        log.commit("G", "T", 0, k, 10_000 * k)  # lags 9, 18, 27: WARN
    assert run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "165s", "--fail-on", "err")[0] == 0
    code, _, err = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "165s", "--fail-on", "warn")
    assert (code, err) == (1, "kgroup: warning: group G is WARN\n")


def test_time_lag(cluster, log):
    log.commit("G", "T", 0, 4, 10_000)  # lag 6: the record at offset 4 was produced at 4 s
    log.commit("G", "T", 0, 20, 20_000)  # caught up
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "180s", "--time-lag", "-o", "json")
    assert code == 0
    assert [p["time_lag_ms"] for p in json.loads(out)["partitions"][0]["points"]] == [6_000, 0]


def test_no_commit_of_the_group(cluster, log):
    log.commit("other", "T", 0, 1, 1_000)
    assert run("lag", "G", "-b", "x:1") == (
        2, "", "kgroup: error: the offsets log holds no commit of group G at or before --until\n")


def test_an_unreadable_offsets_log_names_watch(cluster, monkeypatch):
    def refused(*args):
        raise NotAuthorized("not authorized to read topic __consumer_offsets (Broker: Topic authorization failed)")

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries", refused)
    code, out, err = run("lag", "G", "-b", "x:1")
    assert (code, out) == (3, "")
    assert err == ("kgroup: error: cannot read the offsets log __consumer_offsets: not authorized to read topic "
                   "__consumer_offsets (Broker: Topic authorization failed); 'kgroup lag G --watch' samples the "
                   "lag live without it\n")


def test_watch_writes_a_json_line_per_sample_without_the_offsets_log(cluster, monkeypatch):
    def refused(*args):
        raise NotAuthorized("not authorized to read topic __consumer_offsets (Broker: Topic authorization failed)")

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries", refused)
    samples = iter([(NOW_MS, 150), (NOW_MS + 10_000, 160), (NOW_MS + 20_000, 160)])
    sleeps = []

    def clock():
        return samples_now[0] / 1000

    samples_now = [NOW_MS]

    def sleep(seconds):
        sleeps.append(seconds)
        try:
            samples_now[0], cluster.committed[("T", 0)] = next(samples)
        except StopIteration:
            raise KeyboardInterrupt from None

    cluster.committed[("T", 0)] = 150
    monkeypatch.setattr("time.time", clock)
    monkeypatch.setattr("time.sleep", sleep)
    code, out, err = run("lag", "G", "-b", "x:1", "--watch")
    assert code == 130 and sleeps == [10.0] * 4
    assert err.splitlines()[0].startswith("kgroup: warning: the offsets log cannot be read")
    docs = [json.loads(line) for line in out.splitlines()]
    assert len(docs) == 4
    for d in docs:
        validate("lag", d)
    # the log ends at 200 throughout; commits seen: 150 (first sample), 160 (at +10 s)
    assert [d["partitions"][0]["lag"] for d in docs] == [50, 50, 40, 40]
    assert [len(d["partitions"][0]["points"]) for d in docs] == [1, 1, 2, 2]


def test_watch_takes_an_interval(cluster, log, monkeypatch):
    log.commit("G", "T", 0, 150, 150_000)
    cluster.committed[("T", 0)] = 150

    def sleep(seconds):
        assert seconds == 2.5
        raise KeyboardInterrupt

    monkeypatch.setattr("time.sleep", sleep)
    code, out, _ = run("lag", "G", "-b", "x:1", "--watch", "2.5", "-o", "json")
    assert code == 130 and json.loads(out)["partitions"][0]["lag"] == 50


@pytest.mark.parametrize("args, message", [
    (["--watch", "0.5"], "Invalid value for '--watch'"),
    (["--watch", "--until", "1h"], "--watch runs until now; it takes no --until"),
    (["--since", "1h", "--until", "2h"], "--since is later than --until"),
])
def test_usage_errors(cluster, log, args, message):
    code, out, err = run("lag", "G", "-b", "x:1", *args)
    assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_commits_from_a_saved_log_with_the_ends_from_the_cluster(cluster, tmp_path):
    from kgroup.offsets_log.raw import write_jsonl

    log = Log()
    for k in range(1, 4):
        log.commit("G", "T", 0, 10 * k - 5, 10_000 * k)  # lag 5 at each commit
    path = tmp_path / "saved.jsonl"
    with open(path, "w") as f:
        write_jsonl(log.records, f)
    code, out, err = run("lag", "G", "--input", str(path), "-b", "x:1", "--since", "200s", "--until", "170s",
                         "-o", "json")
    assert (code, err) == (0, "")
    assert [p["lag"] for p in json.loads(out)["partitions"][0]["points"]] == [5, 5, 5]


def test_watch_says_a_cluster_out_of_reach_as_such(cluster, monkeypatch):
    def unreachable(*args):
        raise Unreachable("cannot reach the cluster at x:1 within 10 s while trying to read cluster metadata")

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries", unreachable)
    assert run("lag", "G", "-b", "x:1", "--watch") == (
        3, "", "kgroup: error: cannot reach the cluster at x:1 within 10 s while trying to read cluster metadata\n")


# -- offset expiry (the moment each offset goes, Kafka's rule; now is 200 s) ----------------------

def _classic(log, members_topics: list[str] | None, emptied_ms: int | None = None) -> None:
    """Group G as a classic consumer group: one member subscribed to ``members_topics`` at 1 s, then
    (``emptied_ms``) the generation written when the last member left."""
    log.generation("G", 1, 1_000, [{"id": "c1", "topics": members_topics or ["T"], "assignment": {"T": [0]}}])
    if emptied_ms is not None:
        log.generation("G", 2, emptied_ms, [])


def test_an_empty_classic_group_expires_retention_after_it_emptied_and_fail_on_expiry_flags_it(cluster, log):
    cluster.configs = {"offsets.retention.minutes": "1"}  # one minute
    _classic(log, ["T"], emptied_ms=150_000)
    for k in range(1, 4):
        log.commit("G", "T", 0, k, 10_000 * k)
    code, out, err = run("lag", "G", "-b", "x:1", "--since", "200s", "-o", "json")
    doc = json.loads(out)
    validate("lag", doc)
    p = doc["partitions"][0]
    # Empty since 150 s (currentStateTimestamp), retention 60 s: 210 s, after now (200 s), within 24 h
    assert p["expires_ms"] == 210_000
    assert p["expiry"] == ("offsets.retention.minutes (1 min) after the group became Empty "
                           "(1970-01-01T00:02:30.000Z)")
    assert doc["expiry"] == {"retention_ms": 60_000, "check_interval_ms": 600_000, "retention_source": "broker 1",
                             "first_expires_ms": 210_000}
    assert code == 0 and err == (
        "kgroup: warning: committed offsets of group G expire within 24h: T-0 at 1970-01-01T00:03:30.000Z "
        "(offsets.retention.minutes 1: broker 1); consumers that start after that begin at auto.offset.reset\n")
    code, _, err = run("lag", "G", "-b", "x:1", "--since", "200s", "--fail-on", "expiry")
    assert code == 1 and "expire within 24h" in err
    # 5 s is too short a warning for a moment 10 s away: no line, no flag
    assert run("lag", "G", "-b", "x:1", "--since", "200s", "--fail-on", "expiry", "--expiry-warn", "5s")[:3:2] == (0, "")


def test_a_stable_group_keeps_the_offsets_of_what_it_consumes(cluster, log):
    cluster.configs = {"offsets.retention.minutes": "1"}
    _classic(log, ["T"])
    log.commit("G", "T", 0, 5, 20_000)
    code, out, err = run("lag", "G", "-b", "x:1", "--since", "200s", "--fail-on", "expiry", "-o", "json")
    p = json.loads(out)["partitions"][0]
    assert (code, err, p["expires_ms"], p["expiry"]) == (0, "", None, "not while the group consumes it")
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s")
    assert " not while consumed " in out.splitlines()[2]


def test_kafkas_default_retention_is_said_where_the_broker_reports_none(cluster, log):
    cluster.configs = {}
    log.commit("G", "T", 0, 5, 20_000)  # a standalone consumer: 20 s + 7 days
    doc = json.loads(run("lag", "G", "-b", "x:1", "--since", "200s", "-o", "json")[1])
    assert doc["partitions"][0]["expires_ms"] == 20_000 + 604_800_000
    assert doc["expiry"]["retention_source"] == (
        "Kafka's default (broker 1 does not report offsets.retention.minutes)")


# -- issue 37: problems first, time lag at --until, --watch's first samples -------------------------

def test_the_table_shows_problems_first_then_by_lag_and_json_keeps_partition_order(cluster, log):
    for k in range(1, 5):
        log.commit("G", "T", 0, 10 * k, 10_000 * k)  # caught up: OK, lag 0
        log.commit("G", "T", 1, 2 * k, 10_000 * k)  # lags 8, 16, 24, 32: WARN
        log.commit("G", "T", 2, 9 * k, 10_000 * k)  # lags 1, 2, 3, 4: WARN
        log.commit("G", "T", 3, 3, 10_000 * k)  # the same offset, lags 7 ... 37: STALL
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "160s")
    assert code == 0
    rows = [line.split()[:5] for line in out.splitlines()[2:7]]
    assert rows == [["T", "3", "STALL", "0.4", "37"], ["T", "1", "WARN", "0.4", "32"],
                    ["T", "2", "WARN", "0.4", "4"], ["T", "0", "OK", "0.4", "0"], ["TOTAL", "-", "ERR", "0.0", "73"]]
    # STALL: no catch-up time, said
    assert " none: STALL " in out.splitlines()[2]
    doc = json.loads(run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "160s", "-o", "json")[1])
    assert [p["partition"] for p in doc["partitions"]] == [0, 1, 2, 3]
    assert [p["catch_up"] for p in doc["partitions"]] == ["caught up", "not catching up", "not catching up",
                                                          "none: STALL"]
    csv = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "160s", "-o", "csv")[1]
    assert [line.split(",")[1] for line in csv.splitlines()[1:]] == ["0", "1", "2", "3"]


def test_time_lag_and_lag_are_both_at_until(cluster, log):
    log.commit("G", "T", 0, 4, 10_000)  # lag 6
    log.commit("G", "T", 0, 20, 20_000)  # caught up
    # --until 30 s: the log ended at 30, lag 10; the record at offset 20 was produced at 20 s
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "170s", "--time-lag", "-o", "json")
    part = json.loads(out)["partitions"][0]
    validate("lag", json.loads(out))
    assert (code, part["lag"], part["time_lag_ms"]) == (0, 10, 10_000)
    code, out, _ = run("lag", "G", "-b", "x:1", "--since", "200s", "--until", "170s", "--time-lag")
    lines = out.splitlines()
    # the cells of a row, cut where the dashes under the headers say
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[1])]
    row = {lines[0][a:b].strip(): lines[2][a:b + 2].strip() for a, b in spans}
    # at its last commit (20 s) the partition was caught up: TIME-LAG there was 0, LAG 10 at --until
    assert (row["LAG"], row["TIME-LAG"]) == ("10", "10.0s")
    assert " caught up at last commit " in lines[2]
    assert "LAG and TIME-LAG at --until: TIME-LAG is --until minus the timestamp of the first record not " \
           "consumed" in lines


def test_watch_first_samples_are_warming_up_not_stall(cluster, monkeypatch):
    def refused(*args):
        raise NotAuthorized("not authorized to read topic __consumer_offsets (Broker: Topic authorization failed)")

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries", refused)
    cluster.committed[("T", 0)] = 150

    def sleep(seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr("time.sleep", sleep)
    code, out, _ = run("lag", "G", "-b", "x:1", "--watch", "--fail-on", "err", "-o", "json")
    doc = json.loads(out)
    validate("lag", doc)
    # one sample, one commit of lag 50: the rules would say STALL and the group ERR
    assert (code, doc["status"], doc["partitions"][0]["status"]) == (130, "OK", "WARMING UP")
    assert doc["partitions_by_status"] == {"WARMING UP": ["T-0"]}


def test_watch_table_draws_the_watched_period(cluster, monkeypatch):
    from kgroup.cli.lag import _tables
    from kgroup.lag.history import Watch
    from kgroup.output.render import OutputFormat

    monkeypatch.setattr("kgroup.output.render.utf8_output", lambda stream=None: False)
    w = Watch("G")
    # committed 5 at 1,000, 1,010 and 1,020 s; the log ended at 10, 20, 30: lags 5, 15, 25
    for k in range(3):
        w.add(1_000_000 + 10_000 * k, {("T", 0): 5}, {("T", 0): 10 + 10 * k})
    table = _tables(w.report(1_020_000 - 3_600_000), OutputFormat.table, False)[0]
    row = table.rows[0]
    assert row[2] == "WARMING UP"
    # 24 slots over the 20 s watched (not the hour of --since): 5 until 1,010 s (11 slots), 15 (12),
    # 25 in the last; ASCII levels 1 + v * 6 // 25: 2, 4, 7
    assert row[-1] == "=" * 11 + "*" * 12 + "@"
    assert table.notes[-1] == "WARMING UP: fewer than 10 commits and 10 samples so far; not evaluated yet"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_table_fits_80_columns(cluster, log, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    for k in range(1, 5):
        log.commit("G", "T", 0, 10 * k, 10_000 * k)
        log.commit("G", "T", 1, 3, 10_000 * k)
    argv, sys.argv = sys.argv, ["kgroup", "lag", "G", "-b", "x:1", "--since", "200s", "--until", "160s", "--time-lag"]
    out = Terminal()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main()
    except SystemExit as e:
        assert not e.code
    finally:
        sys.argv = argv
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= 80
    assert lines[0].split() == ["TOPIC", "PARTITION", "STATUS", "LAG", "CATCH-UP", "LAG", "OVER", "WINDOW"]
    assert lines[2].split()[:6] == ["T", "1", "STALL", "37", "none:", "STALL"]
    assert lines[3].split()[:5] == ["T", "0", "OK", "0", "caught"]


def test_the_owner_now_of_each_partition_and_the_partitions_never_committed(cluster, log):
    """As kafka-consumer-groups.sh --describe: the member owning each partition now (client id,
    host), and every partition of the subscribed topic, those never committed too: their end
    now, no lag (it depends on auto.offset.reset), neither in TOTAL nor INCOMPLETE."""
    from kgroup.group.model import Member

    cluster.layouts = {"T": 3}
    cluster.members = [Member("m-1", "app-1", "/10.0.0.1", subscription=["T"], assignment={"T": [0, 2]}),
                       Member("m-2", "app-2", "/10.0.0.2", subscription=["T"], assignment={"T": [1]})]
    cluster.committed = {("T", 0): 200}
    log.commit("G", "T", 0, 200, 200_000)
    code, out, err = run("lag", "G", "-b", "x:1", "-o", "json")
    assert (code, err) == (0, ""), err
    doc = json.loads(out)
    validate("lag", doc)
    assert [(p["topic"], p["partition"], p["lag"], p["owner"]) for p in doc["partitions"]] == [
        ("T", 0, 0, {"member_id": "m-1", "client_id": "app-1", "host": "/10.0.0.1"})]
    assert doc["never_committed"] == [
        {"topic": "T", "partition": 1, "end": 200, "lag": None, "committed": None,
         "owner": {"member_id": "m-2", "client_id": "app-2", "host": "/10.0.0.2"}},
        {"topic": "T", "partition": 2, "end": 200, "lag": None, "committed": None,
         "owner": {"member_id": "m-1", "client_id": "app-1", "host": "/10.0.0.1"}}]
    assert (doc["owners_unknown"], doc["incomplete"], doc["total_lag"]) == (None, False, 0)

    code, out, _ = run("lag", "G", "-b", "x:1", "-o", "wide")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[-5:] == ["CLIENT-ID", "HOST", "LAG", "OVER", "WINDOW"]
    rows = [line.split() for line in lines[2:5]]
    assert [r[:2] + r[-3:-1] for r in rows] == [["T", "0", "app-1", "/10.0.0.1"], ["T", "1", "app-2", "/10.0.0.2"],
                                               ["T", "2", "app-1", "/10.0.0.1"]]
    assert rows[1][:9] == ["T", "1", "-", "-", "-", "-", "200", "-", "-"] and "never committed" in lines[3]
    assert lines[5].split()[:5] == ["TOTAL", "-", "OK", "0.0", "0"]  # one commit of a window of ten
    assert ("never committed: 2 partitions of the subscribed topics with no commit: where a consumer starts there "
            "depends on its auto.offset.reset, so their lag is not known (not in TOTAL, not INCOMPLETE)") in lines

    code, out, _ = run("lag", "G", "-b", "x:1", "-o", "csv")
    assert code == 0
    import csv

    table = list(csv.reader(io.StringIO(out)))
    assert table[0][-2:] == ["client_id", "host"]
    assert [r[:3] + [r[4], r[6]] + r[-2:] for r in table[1:]] == [
        ["T", "0", "OK", "0", "200", "app-1", "/10.0.0.1"], ["T", "1", "never committed", "", "200", "app-2", "/10.0.0.2"],
        ["T", "2", "never committed", "", "200", "app-1", "/10.0.0.1"]]


def test_owners_that_cannot_be_read_are_said_unknown(cluster, log, monkeypatch):
    from kgroup.errors import NotAuthorized

    def refused(cluster, groups, topics=None):
        raise NotAuthorized("DescribeGroups on G: not authorized")

    monkeypatch.setattr("kgroup.group.capture.capture", refused)
    log.commit("G", "T", 0, 200, 200_000)
    code, out, err = run("lag", "G", "-b", "x:1", "-o", "json")
    assert (code, err) == (0, ""), err
    doc = json.loads(out)
    validate("lag", doc)
    assert doc["owners_unknown"] == "the group's description could not be read: DescribeGroups on G: not authorized"
    assert doc["never_committed"] == [] and doc["partitions"][0]["owner"] is None
    code, out, _ = run("lag", "G", "-b", "x:1")
    assert "CLIENT-ID" not in out.splitlines()[0]
    assert out.splitlines()[-1] == ("the owners now and the partitions never committed are unknown: the group's "
                                    "description could not be read: DescribeGroups on G: not authorized")


def test_watch_shows_the_owner_now_and_the_partitions_never_committed(cluster, monkeypatch):
    """lag --watch, as lag: each sample names the member owning each partition (from the same
    description the sample reads) and lists the subscribed partitions with no commit."""
    from kgroup.group.model import Member

    def refused(*args):
        raise NotAuthorized("not authorized to read topic __consumer_offsets (Broker: Topic authorization failed)")

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries", refused)
    cluster.layouts = {"T": 2}
    cluster.members = [Member("m-1", "app-1", "/10.0.0.1", subscription=["T"], assignment={"T": [0]}),
                       Member("m-2", "app-2", "/10.0.0.2", subscription=["T"], assignment={"T": [1]})]
    cluster.committed = {("T", 0): 150}
    moves = iter([{"T": [0, 1]}])

    def sleep(seconds):
        try:  # m-2 leaves; m-1 takes T-1 over before the second sample
            cluster.members = [Member("m-1", "app-1", "/10.0.0.1", subscription=["T"], assignment=next(moves))]
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr("time.sleep", sleep)
    code, out, _ = run("lag", "G", "-b", "x:1", "--watch", "-o", "json")
    docs = [json.loads(line) for line in out.splitlines()]
    assert code == 130 and len(docs) == 2
    for d in docs:
        validate("lag", d)
        assert d["owners_unknown"] is None
        assert [(p["topic"], p["partition"], p["owner"]["client_id"]) for p in d["partitions"]] == [("T", 0, "app-1")]
    assert [[(n["partition"], n["end"], n["owner"]["member_id"]) for n in d["never_committed"]] for d in docs] == [
        [(1, 200, "m-2")], [(1, 200, "m-1")]]
