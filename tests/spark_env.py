"""Spark test environment: a session-scoped local[2] session, a standalone master and
worker started from the pyspark package on 127.0.0.1, and a realistic offsets log
built with the project's codec writer (written to Tansu in batches, to JSON Lines and
to Parquet).

Import the fixtures into a test module: ``from spark_env import spark, standalone  # noqa: F401``.
"""
from __future__ import annotations

from collections.abc import Callable

import base64
import json
import os
import random
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from brokers import stop_process

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_790_000_000_000  # the scenario's first record
HOUR = 3_600_000
MIN = 60_000


def spark_subprocess_env() -> dict:
    """Environment for a kgroup scan subprocess: this interpreter for the workers, loopback only."""
    return {"PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}


# -- fixtures ------------------------------------------------------------------------

@pytest.fixture(scope="session")
def spark():
    """One local[2] session for the whole test run (UI off, quiet logs)."""
    pytest.importorskip("pyspark")
    from kgroup.scan.session import build_session

    session = build_session("local[2]", {"spark.sql.shuffle.partitions": "4"})
    try:
        yield session
    finally:
        session.stop()


def _free_port() -> int:
    from brokers import free_port

    return free_port()


@pytest.fixture(scope="session")
def standalone(tmp_path_factory):
    """A Spark standalone master and one worker (2 cores) on 127.0.0.1, started from the
    pyspark package (spark-class), stopped by PID; yields the master URL."""
    pytest.importorskip("pyspark")
    import pyspark

    from kgroup.scan.session import QUIET_LOG4J2

    home = Path(pyspark.__file__).resolve().parent
    conf_dir = tmp_path_factory.mktemp("spark-conf")
    (conf_dir / "log4j2.properties").write_text(QUIET_LOG4J2)
    work = tmp_path_factory.mktemp("spark-work")
    # the worker's PYTHONPATH reaches every executor's Python: one set for this test run (say, to
    # the checkout) would hand the executors kgroup and hide whether the scan ships it itself
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update({"SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_CONF_DIR": str(conf_dir),
                "PYSPARK_PYTHON": sys.executable, "SPARK_WORKER_DIR": str(work)})
    port, web, worker_web = _free_port(), _free_port(), _free_port()
    spark_class = str(home / "bin" / "spark-class")
    log = open(work / "daemons.log", "wb")
    procs = []
    try:
        procs.append(subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                       "--port", str(port), "--webui-port", str(web)],
                                      env=env, stdout=log, stderr=log, start_new_session=True))
        url = f"spark://127.0.0.1:{port}"
        procs.append(subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                       "--webui-port", str(worker_web), "--cores", "2", "--memory", "2g", url],
                                      env=env, stdout=log, stderr=log, start_new_session=True))
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/json", timeout=2) as r:
                    if any(w.get("state") == "ALIVE" for w in json.load(r).get("workers", [])):
                        break
            except (OSError, ValueError):  # not up yet; or up, but its /json not yet attached (an HTML page
                pass                       # answers: seen once on a busy machine)
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise RuntimeError(f"standalone Spark did not come up: {(work / 'daemons.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        for p in reversed(procs):  # worker, then master
            stop_process(p)
        log.close()


# -- a realistic offsets log ---------------------------------------------------------

@dataclass
class Rec:
    """One record the scenario writes: what the codec encodes, where it goes, and when."""

    partition: int
    timestamp: int
    type: int
    key: dict
    version: int | None
    value: dict | None
    raw_key: bytes | None = None    # set for hand-made (undecodable) records
    raw_value: bytes | None = None
    _bytes: tuple[bytes | None, bytes | None] | None = field(default=None, repr=False, compare=False)

    def encoded(self) -> tuple[bytes | None, bytes | None]:
        if self.raw_key is not None or self.type < 0:
            return self.raw_key, self.raw_value
        if self._bytes is None:  # encoded once: the tests ask for the bytes again and again
            from kgroup.offsets_log.records import encode

            self._bytes = encode(self.type, self.key, self.version, self.value)
        return self._bytes


@dataclass
class Scenario:
    partitions: int
    records: list[Rec]            # in the order written: per partition, the log order
    end_ms: int
    data_topics: dict[str, int]   # topic -> partitions (created on the broker for lag)
    produced: dict[tuple[str, int], int]  # log-end offsets of the data topics

    def by_partition(self) -> dict[int, list[Rec]]:
        out: dict[int, list[Rec]] = {p: [] for p in range(self.partitions)}
        for r in self.records:
            out[r.partition].append(r)
        return out

    def raw(self) -> list[tuple[int, int, int, bytes | None, bytes | None]]:
        """(partition, offset, timestamp, key, value) of every record, offsets as written."""
        out = []
        for p, recs in self.by_partition().items():
            for offset, r in enumerate(recs):
                k, v = r.encoded()
                out.append((p, offset, r.timestamp, k, v))
        return out


def build_scenario(groups: int = 2000, partitions: int = 8, seed: int = 7) -> Scenario:
    """Thousands of groups over ``partitions`` offsets-log partitions, six hours of traffic:
    classic groups (generations, members, commits), KIP-848 consumer groups, share and
    streams groups, legacy commits, tombstones (offsets and groups deleted), stale groups,
    one rebalance storm, two rewinds (one across a deleted commit), and one undecodable record."""
    from kgroup.group.hashing import offsets_partition_for

    rnd = random.Random(seed)
    topics = {"orders": 6, "payments": 4, "clicks": 8}
    produced = {(t, p): 1000 + 37 * p for t, n in topics.items() for p in range(n)}
    events: list[tuple[int, Rec]] = []
    seq = 0

    def add(ts: int, group: str, type_: int, key: dict, version, value) -> None:
        nonlocal seq
        seq += 1
        events.append((ts * 1_000_000 + seq, Rec(offsets_partition_for(group, partitions), ts, type_, key, version, value)))

    def classic_meta(group: str, ts: int, gen: int, n_members: int, protocol: str) -> None:
        members = [{"memberId": f"{group}-m{i}-{gen}", "groupInstanceId": None, "clientId": f"client-{i}",
                    "clientHost": f"/10.0.0.{i + 1}", "rebalanceTimeout": 300000, "sessionTimeout": 45000,
                    "subscription": b"", "assignment": b""} for i in range(n_members)]
        add(ts, group, 2, {"group": group}, 3, {"protocolType": "consumer", "generation": gen, "protocol": protocol,
                                                "leader": members[0]["memberId"] if members else None,
                                                "currentStateTimestamp": ts, "members": members})

    def commit(group: str, ts: int, topic: str, part: int, offset: int, legacy: bool = False) -> None:
        if legacy:
            add(ts, group, 0, {"group": group, "topic": topic, "partition": part}, 0,
                {"offset": offset, "metadata": "", "commitTimestamp": ts})
        else:
            add(ts, group, 1, {"group": group, "topic": topic, "partition": part}, 3,
                {"offset": offset, "leaderEpoch": rnd.choice([-1, 0, 3]), "metadata": "m" if offset % 5 == 0 else "",
                 "commitTimestamp": ts, "expireTimestamp": -1})

    end = T0 + 6 * HOUR
    names = [f"app-{i:04d}" for i in range(groups)]
    for i, g in enumerate(names):
        role = i % 20
        topic = list(topics)[i % 3]
        parts = list(range(min(topics[topic], 1 + i % 4)))
        start = T0 + rnd.randrange(0, 30) * MIN
        if role < 14:  # classic group: a few generations, commits every ~20 minutes
            protocol = "range" if role % 2 else "cooperative-sticky"
            gens = 1 + i % 3
            gen_times = sorted(start + rnd.randrange(0, 300) * MIN for _ in range(gens))
            for n, ts in enumerate(gen_times, 1):
                classic_meta(g, ts, n, 1 + (i + n) % 3, protocol)
            stop = end - 30 * MIN if role != 3 else start + 2 * HOUR  # role 3: stale
            offset = {p: rnd.randrange(0, 100) for p in parts}
            ts = start + 5 * MIN
            while ts < stop:
                for p in parts:
                    offset[p] += rnd.randrange(1, 20)
                    commit(g, ts, topic, p, offset[p], legacy=(role == 13))
                ts += rnd.randrange(15, 25) * MIN
            if role == 9 and i % 40 == 9:  # deleted: offsets then group tombstoned
                for p in parts:
                    add(end - 10 * MIN, g, 1, {"group": g, "topic": topic, "partition": p}, None, None)
                add(end - 10 * MIN, g, 2, {"group": g}, None, None)
        elif role < 18:  # KIP-848 consumer group
            epoch = 0
            members = {}
            t = start
            for step in range(1 + i % 4):
                epoch += 1
                mid = f"{g}-member-{step}"
                members[mid] = True
                add(t, g, 5, {"groupId": g, "memberId": mid}, 0,
                    {"clientId": f"c{step}", "clientHost": "/10.1.0.1", "subscribedTopicNames": [topic],
                     "serverAssignor": "uniform" if i % 2 else "range"})
                add(t, g, 3, {"groupId": g}, 0, {"epoch": epoch, "metadataHash": 0})
                add(t, g, 6, {"groupId": g}, 0, {"assignmentEpoch": epoch})
                add(t, g, 7, {"groupId": g, "memberId": mid}, 0, {"topicPartitions": []})
                add(t, g, 8, {"groupId": g, "memberId": mid}, 0,
                    {"memberEpoch": epoch, "previousMemberEpoch": epoch - 1, "state": 0, "assignedPartitions": [],
                     "partitionsPendingRevocation": []})
                t += rnd.randrange(20, 60) * MIN
            if i % 3 == 0 and len(members) > 1:  # one member leaves
                gone = sorted(members)[0]
                epoch += 1
                add(t, g, 5, {"groupId": g, "memberId": gone}, None, None)
                add(t, g, 8, {"groupId": g, "memberId": gone}, None, None)
                add(t, g, 3, {"groupId": g}, 0, {"epoch": epoch, "metadataHash": 0})
            offset = {p: 0 for p in parts}
            ts = start + 10 * MIN
            while ts < end - 20 * MIN:
                for p in parts:
                    offset[p] += rnd.randrange(1, 50)
                    commit(g, ts, topic, p, offset[p])
                ts += 30 * MIN
        elif role == 18:  # share group: epochs and members, no offset commits
            add(start, g, 10, {"groupId": g, "memberId": f"{g}-s0"}, 0,
                {"clientId": "share", "clientHost": "/10.2.0.1", "subscribedTopicNames": [topic]})
            add(start, g, 11, {"groupId": g}, 0, {"epoch": 1, "metadataHash": 0})
            add(start + HOUR, g, 11, {"groupId": g}, 0, {"epoch": 2, "metadataHash": 0})
        else:  # streams group
            add(start, g, 17, {"groupId": g}, 0, {"epoch": 1, "metadataHash": 0})
            offset = 10
            for k in range(3):
                offset += 5
                commit(g, start + (k + 1) * HOUR, topic, 0, offset)
    # one rebalance storm: 15 generations in 45 minutes
    storm = "storm-1"
    for n in range(1, 16):
        classic_meta(storm, T0 + 3 * HOUR + n * 3 * MIN, n, 2, "range")
    commit(storm, T0 + 4 * HOUR, "orders", 0, 500)
    commit(storm, end - 5 * MIN, "orders", 0, 600)
    # one rewind: a group resets its offset backwards
    rw = "rewinder"
    classic_meta(rw, T0 + HOUR, 1, 1, "range")
    for ts, off in ((T0 + 2 * HOUR, 900), (T0 + 3 * HOUR, 950), (T0 + 4 * HOUR, 120), (T0 + 5 * HOUR, 180)):
        commit(rw, ts, "payments", 1, off)
    # a commit deleted (tombstone) then made again lower: a rewind against the commit before the
    # tombstone (the tombstone is not a commit); and the newest record is a commit, so it has lag
    rd = "rewinder-after-delete"
    classic_meta(rd, T0 + HOUR, 1, 1, "range")
    commit(rd, T0 + 2 * HOUR, "payments", 2, 800)
    add(T0 + 3 * HOUR, rd, 1, {"group": rd, "topic": "payments", "partition": 2}, None, None)
    commit(rd, T0 + 4 * HOUR, "payments", 2, 70)
    # undecodable records: an unknown record type, and a truncated commit value
    seq += 1
    events.append(((T0 + 2 * HOUR) * 1_000_000 + seq, Rec(0, T0 + 2 * HOUR, -1, {}, None, None,
                                                          raw_key=b"\x00\x63junk", raw_value=b"\x00\x00zz")))
    seq += 1
    events.append(((T0 + 2 * HOUR) * 1_000_000 + seq, Rec(1, T0 + 2 * HOUR + 1, -1, {}, None, None,
                                                          raw_key=b"\x00\x01\x00\x01g", raw_value=b"\x00\x03\x00")))
    events.sort(key=lambda e: e[0])
    return Scenario(partitions, [r for _, r in events], end, topics, produced)


def write_jsonl(scenario: Scenario, path: Path) -> None:
    with open(path, "w") as f:
        for p, o, ts, k, v in scenario.raw():
            f.write(json.dumps({"partition": p, "offset": o, "timestamp": ts,
                                "key": None if k is None else base64.b64encode(k).decode(),
                                "value": None if v is None else base64.b64encode(v).decode()}) + "\n")


def write_parquet(scenario: Scenario, path: Path) -> None:
    """The raw columns written with pyarrow directly (not through the code under test)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = scenario.raw()
    path.mkdir(parents=True, exist_ok=True)
    cols = list(zip(*rows))
    table = pa.table({"partition": pa.array(cols[0], pa.int32()), "offset": pa.array(cols[1], pa.int64()),
                      "timestamp": pa.array(cols[2], pa.int64()), "key": pa.array(cols[3], pa.binary()),
                      "value": pa.array(cols[4], pa.binary())})
    half = len(rows) // 2
    pq.write_table(table.slice(0, half), path / "part-0.parquet")
    pq.write_table(table.slice(half), path / "part-1.parquet")


def write_to_broker(scenario: Scenario, bootstrap: str, topic: str,
                    data_time: Callable[[int, int], int] | None = None) -> None:
    """The offsets log into a topic, in multi-record batches as real brokers store it; the
    data topics with their log-end offsets one record per batch (Tansu's `latest` is right then).
    ``data_time(k, n)``: the timestamp of a data topic partition's record k of n (default: now)."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from confluent_kafka import KafkaError, KafkaException

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, scenario.partitions, 1)], request_timeout=15)[topic].result(20)
    created = []  # data topics are shared by every scenario on a broker (same names, same ends)
    for t, f in admin.create_topics([NewTopic(t, n, 1) for t, n in scenario.data_topics.items()],
                                    request_timeout=15).items():
        try:
            f.result(20)
            created.append(t)
        except KafkaException as e:
            if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": 2000, "log.connection.close": False,
                  "queue.buffering.max.messages": 1_000_000, "allow.auto.create.topics": False})
    for n, (part, _o, ts, k, v) in enumerate(scenario.raw()):
        p.produce(topic, key=k, value=v, partition=part, timestamp=ts)
        if n % 5000 == 0:
            p.poll(0)
    assert p.flush(30) == 0
    # data topics: a few records one per batch, then the rest so that the end is known
    # (the last batch holds one record: `latest` = its base offset + 1 = the true end)
    q = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000, "log.connection.close": False,
                  "allow.auto.create.topics": False})
    for (t, part), end in scenario.produced.items():
        if t not in created:
            continue
        stamps = [{} if data_time is None else {"timestamp": data_time(k, end)} for k in range(end)]
        for k in range(end - 1):
            q.produce(t, value=b"x", partition=part, **stamps[k])
        assert q.flush(30) == 0
        q.produce(t, value=b"last", partition=part, **stamps[end - 1])
        assert q.flush(30) == 0
