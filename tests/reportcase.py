"""The group the report tests examine, worked by hand, and kgroup run in process against an
in-memory cluster whose partitions got one record a second from 0 on (so the log ended at moment
T ms at offset ceil(T / 1000)).

Group HOSTILE (its id is HTML) with two members until 25 s, then one:

- generation 1 at 5 s: c1 owns T-0, member M2 (its id is HTML too) owns T-1;
- generation 2 at 25 s: c1 owns T-0 and T-1 (M2 left; T-1 moved from M2 to c1);
- commits at 10, 20, 30, 40 s: T-0 at 10, 20, 30, 40 (caught up each time), T-1 at 2, 4, 6, 8.

The window is 0 to 40 s (``--since 200s --until 160s`` with the clock at 200 s):

- lag of T-0 at its commits 0, 0, 0, 0; of T-1 8, 16, 24, 32 (ends 10, 20, 30, 40); status T-0 OK, T-1
  WARN (never caught up, lag never falling); the group WARN; total lag over time 8, 16, 24, 32;
- commits per member in 1 s buckets (40 buckets): c1 six (one at 10 s, one at 20 s, two at 30 s,
  two in the last bucket, 39, for 40 s), M2 two (10 s, 20 s); both rebalances in the window;
- offset expiry: the group's coordinator (broker 1) reports no retention setting: Kafka's default;
  the group is Stable and consumes T: neither offset expires.

Group EMPTIED (:func:`emptied_log`): c1 owns T-0 from 5 s, commits offset 10 at 10 s, leaves at
20 s (Empty from then: GroupMetadata generation 2 with no member); with a coordinator keeping
offsets a minute (:data:`ONE_MINUTE`) its offset expires at 20 + 60 = 80 s, inside the window 0 to
100 s (``--since 200s --until 100s``).
"""
from __future__ import annotations

import contextlib
import io
import math
import sys
from pathlib import Path

from logbuilder import Log

from kgroup.group.model import LogBounds

NOW_MS = 200_000
HOSTILE = "<script>alert(1)</script>"
M2 = "<img src=x onerror=alert(2)>"
WINDOW = ["--since", "200s", "--until", "160s"]
SINCE_MS, UNTIL_MS = 0, 40_000
T0_LAGS, T1_LAGS = [0, 0, 0, 0], [8, 16, 24, 32]
TOTAL_LAGS = [8, 16, 24, 32]
COMMIT_TIMES = [10_000, 20_000, 30_000, 40_000]


def end(t: int) -> int:
    return math.ceil(t / 1000)


class OneCoordinator:
    """What offset expiry asks of a cluster: the group's coordinator (broker 1, b1:9092) and its
    offset retention settings (``configs``: as broker 1 reports them)."""

    configs: dict = {}

    def metadata(self):
        from kgroup.group.broker import Broker
        from kgroup.group.metadata import ClusterMetadata

        return ClusterMetadata({1: Broker(1, "b1", 9092)}, {})

    def find_coordinators(self, groups, brokers):
        from kgroup.group.metadata import CoordinatorLookup

        return {g: CoordinatorLookup(g, brokers[1]) for g in groups}

    def broker_configs(self, broker_id, names):
        return dict(self.configs) if broker_id == 1 else {}


class FakeCluster(OneCoordinator):
    """Answers what kgroup.lag.ends asks of a cluster (its LogSource: the bounds, a record reader)
    as the cluster described above would: the record at offset o written at o s, up to NOW_MS."""

    def __init__(self):
        self.problems: list[str] = []  # its records are always read

    def log_bounds(self, partitions):
        return {tp: LogBounds(0, end(NOW_MS)) for tp in partitions}, []

    def record_reader(self):
        return self

    def offsets_for_times(self, timestamps):
        return {tp: end(t) if end(t) < end(NOW_MS) else None for tp, t in timestamps.items()}

    def records_at(self, reads):
        return {tp: [(o, o * 1000) for o in range(position, min(position + count, end(NOW_MS)))]
                for tp, (position, count) in reads.items()}

    def close(self):
        pass


def build_log(group: str = HOSTILE) -> Log:
    log = Log()
    log.generation(group, 1, 5_000, [{"id": "c1", "topics": ["T"], "assignment": {"T": [0]}},
                                     {"id": M2, "client": "<b>app</b>", "topics": ["T"], "assignment": {"T": [1]}}])
    log.generation(group, 2, 25_000, [{"id": "c1", "topics": ["T"], "assignment": {"T": [0, 1]}}])
    for k, t in enumerate(COMMIT_TIMES, 1):
        log.commit(group, "T", 0, 10 * k, t)
        log.commit(group, "T", 1, 2 * k, t)
    return log


EMPTIED = "emptied"
EMPTIED_WINDOW = ["--since", "200s", "--until", "100s"]
EMPTIED_EXPIRES_MS = 80_000
ONE_MINUTE = {"offsets.retention.minutes": "1"}  # broker 1's configs for EMPTIED


def emptied_log() -> Log:
    log = Log()
    log.generation(EMPTIED, 1, 5_000, [{"id": "c1", "topics": ["T"], "assignment": {"T": [0]}}])
    log.commit(EMPTIED, "T", 0, 10, 10_000)
    log.generation(EMPTIED, 2, 20_000, [])
    return log


def write_log(path: Path, log: Log) -> Path:
    from kgroup.offsets_log.raw import write_jsonl

    with open(path, "w", encoding="utf-8") as f:
        write_jsonl(sorted(log.records, key=lambda r: (r.partition, r.offset)), f)
    return path


def use_fake_cluster(monkeypatch) -> FakeCluster:
    fake = FakeCluster()
    monkeypatch.setattr("kgroup.kafka.cluster.connect", lambda settings: fake)
    from kgroup.lag.collect import GroupNow

    # lag's owners now: this cluster has no group to describe (the report's group now is its snapshot)
    monkeypatch.setattr("kgroup.lag.collect.group_now",
                        lambda cluster, group, topics, committed: GroupNow({}, {}, "not described here"))
    monkeypatch.setattr("time.time", lambda: NOW_MS / 1000)
    return fake


def run(*args: str) -> tuple[int, str, str]:
    """kgroup in process: (exit code, stdout, stderr)."""
    from kgroup.cli import main

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
