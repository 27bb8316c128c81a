"""`offsets` writes each group as soon as it is complete: the streamed output must be the very
document (and table, and CSV) that building the whole answer first gives, on a cluster with many
groups; and the OffsetFetch requests go out through a bounded sliding window."""
from __future__ import annotations

import concurrent.futures
import csv
import io
import json
import random
import threading

import pytest
from conftest import run_kgroup

pytestmark = pytest.mark.broker

TOPICS = {"A": 3, "B": 2}
GROUPS = 90  # more than the adapter's window, so that the window slides


def _commits(g: int) -> dict[tuple[str, int], int]:
    """What group g commits: some groups every partition of a topic, some only part of one
    (the partitions they never committed are asked for explicitly), some both topics."""
    if g % 3 == 0:
        return {("A", p): (g + p) % 4 for p in range(3)}
    if g % 3 == 1:
        return {("A", 0): 1, ("B", 1): g % 5}
    return {("B", p): p for p in range(2)} | {("A", 2): 3}


@pytest.fixture(scope="module")
def many_groups():
    import seed
    from brokers import start_tansu, stop_process
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    proc, bootstrap = start_tansu()
    try:
        seed.create_topics(bootstrap, TOPICS)
        seed.produce(bootstrap, TOPICS, count=lambda t, p: 5 + p)
        admin = AdminClient({"bootstrap.servers": bootstrap})
        futures = []
        for g in range(GROUPS):
            tps = [TopicPartition(t, p, o) for (t, p), o in _commits(g).items()]
            futures += admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(f"s{g:03d}", tps)]).values()
        for f in futures:
            f.result(timeout=30)
        yield bootstrap
    finally:
        stop_process(proc)


def _built_whole(bootstrap: str) -> dict:
    """The document as the command built it before streaming: every group captured, then the
    whole document made at once."""
    from kgroup.kafka.cluster import connect
    from kgroup.group.capture import capture
    from kgroup.lag.now import offsets_document
    from kgroup.kafka.settings import ConnectionSettings

    cluster = connect(ConnectionSettings.build(bootstrap, [], None, 30.0, False))
    ids = sorted(g.group_id for g in cluster.list_groups())
    result = capture(cluster, ids)
    assert not result.problems
    return offsets_document(result.states.values(), None, None, 0)


def _table_and_csv(doc: dict) -> tuple[str, str]:
    from kgroup.output.render import OutputFormat, Table, emit

    headers = ["GROUP", "TOPIC", "PARTITION", "COMMITTED", "LOG-START", "LOG-END", "LAG", "MEMBER-ID",
               "CLIENT-ID", "HOST", "METADATA"]
    rows, notes = [], []
    for g in doc["groups"]:
        for p in g["partitions"]:
            rows.append([g["group"], p["topic"], p["partition"], p["committed"], p["log_start"], p["log_end"],
                         p["lag"], p["member_id"], p["client_id"], p["host"], p["metadata"]])
        per_topic = ", ".join(f"{t}={'unknown' if n is None else n}" for t, n in g["topic_lag"].items())
        total = "unknown (INCOMPLETE)" if g["total_lag"] is None else g["total_lag"]
        notes.append(f"group {g['group']} ({g['state'] or '-'}): total lag {total}"
                     + (f"  [{per_topic}]" if per_topic else ""))
    out = []
    for fmt in (OutputFormat.table, OutputFormat.csv):
        buffer = io.StringIO()
        emit(fmt, doc, [Table(headers, rows, notes=notes)], buffer)
        out.append(buffer.getvalue())
    return out[0], out[1]


def test_streamed_output_is_the_whole_document(many_groups):
    whole = _built_whole(many_groups)
    assert len(whole["groups"]) == GROUPS
    table, csv_text = _table_and_csv(whole)
    for g in whole["groups"]:
        g.pop("topic_lag")
    r = run_kgroup("offsets", "--all-groups", "-b", many_groups, "-o", "json", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == whole
    assert r.stdout == json.dumps(whole, ensure_ascii=False) + "\n"  # byte for byte, as emit() writes it
    # the groups that committed part of a topic show the partitions they never committed
    s001 = next(g for g in whole["groups"] if g["group"] == "s001")
    assert [(p["topic"], p["partition"], p["committed"]) for p in s001["partitions"]] == [
        ("A", 0, 1), ("A", 1, None), ("A", 2, None), ("B", 0, None), ("B", 1, 1)]
    r = run_kgroup("offsets", "--all-groups", "-b", many_groups, "-o", "csv", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    assert r.stdout == csv_text
    assert len(list(csv.reader(io.StringIO(r.stdout)))) == 1 + sum(len(_commits(g)) for g in range(GROUPS)) + sum(
        3 - sum(1 for t, _ in _commits(g) if t == "A") if any(t == "A" for t, _ in _commits(g)) else 0
        for g in range(GROUPS)) + sum(
        2 - sum(1 for t, _ in _commits(g) if t == "B") if any(t == "B" for t, _ in _commits(g)) else 0
        for g in range(GROUPS))
    r = run_kgroup("offsets", "--all-groups", "-b", many_groups, "--timeout", "30")
    assert r.returncode == 0, r.stderr
    assert r.stdout == table


def test_streamed_lag_above_and_named_groups(many_groups):
    r = run_kgroup("offsets", "s000", "s001", "s002", "-b", many_groups, "-o", "json", "--lag-above", "3",
                   "--timeout", "30")
    doc = json.loads(r.stdout)
    assert [g["group"] for g in doc["groups"]] == ["s000", "s001", "s002"]
    over = [(g["group"], o["topic"], o["partition"]) for g in doc["groups"] for o in g["over_threshold"]]
    assert over and r.returncode == 1
    assert f"lag above 3 on {len(over)} partition(s)" in r.stderr
    r = run_kgroup("offsets", "s000", "no-such-group", "-b", many_groups, "-o", "json", "--timeout", "30")
    assert r.returncode == 2 and "unknown group no-such-group" in r.stderr
    assert r.stdout == ""  # an unknown group fails before anything is written


# -- the window ---------------------------------------------------------------------------

class _Answer:
    topic_partitions = ()


class _WindowAdmin:
    """Answers each OffsetFetch after a random short delay, recording how many were unanswered
    when each was sent; the request numbered ``slow`` (from 0) is answered after half a second,
    and how many had been sent by then is recorded."""

    def __init__(self, slow: int | None = None):
        self.unanswered = 0
        self.most = 0
        self.sent = 0
        self.slow, self.sent_when_slow_answered = slow, None
        self.lock = threading.Lock()
        self.rng = random.Random(7)

    def list_consumer_group_offsets(self, specs, request_timeout, require_stable):
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self.lock:
            number = self.sent
            self.unanswered += 1
            self.sent += 1
            self.most = max(self.most, self.unanswered)

        def answer():
            with self.lock:
                self.unanswered -= 1
                if number == self.slow:
                    self.sent_when_slow_answered = self.sent
            future.set_result(_Answer())

        delay = 0.5 if number == self.slow else self.rng.uniform(0.001, 0.02)
        threading.Timer(delay, answer).start()
        return {specs[0].group_id: future}

    def poll(self, timeout):
        return 0


def _cluster_with(admin):
    from kgroup.kafka.cluster import Cluster
    from kgroup.kafka.settings import ConnectionSettings

    # the batched path switched off: every request through the admin above
    return Cluster(ConnectionSettings.build("127.0.0.1:9", ["kgroup.batched=false"], None, 30.0, False), admin=admin)


@pytest.mark.parametrize("window", [1, 4, 16])
def test_offset_fetch_window_is_bounded_and_slides(window):
    admin = _WindowAdmin(slow=window - 1)  # the last request of the first window is slow
    cluster = _cluster_with(admin)
    groups = [f"g{i}" for i in range(120)]
    queue = list(groups)

    def next_request():
        return (queue[0], queue.pop(0), None) if queue else None

    answered = []
    for _key, group, found in cluster.iter_committed_offsets(next_request, window=window):
        answered.append(group)
        assert found == {}
    assert sorted(answered) == sorted(groups) and admin.sent == len(groups)
    assert admin.most <= window  # never more than the window unanswered
    if window > 1:
        assert admin.most == window  # and the window is used
        # sliding, not lock-step: while the first window's slow request is unanswered, the others'
        # answers make room for new requests (lock-step would send none before it is answered)
        assert admin.sent_when_slow_answered > window


# -- the writer ---------------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_groups_written_one_by_one_are_the_document_emit_writes(terminal, count):
    from kgroup.output.render import OutputFormat, emit
    from kgroup.output.stream import GroupsWriter

    groups = [{"group": f"g{i}\u2028\"é", "state": None, "partitions": [{"topic": "A", "partition": i, "lag": None}] * i,
               "total_lag": i, "incomplete": False, "unknown": [], "nested": {"empty": [], "obj": {}}}
              for i in range(count)]
    whole, streamed = (_Terminal() if terminal else io.StringIO() for _ in range(2))
    emit(OutputFormat.json, {"groups": groups}, [], whole)
    writer = GroupsWriter(OutputFormat.json, [], out=streamed)
    for g in groups:
        writer.add(g)
    writer.close()
    assert streamed.getvalue() == whole.getvalue()


def test_offsets_group_json_is_json_dumps_of_the_row_objects():
    from kgroup.output.stream import offsets_group_json
    from kgroup.lag.now import ROW_FIELDS

    rows = [("A", 0, 5, 0, 9, 4, "m-1", "c\"1", "/10.0.0.1", "", None),
            ("A\u2028é", 1, None, None, None, None, None, None, None, None, 1234),
            ("B", 2, 0, 0, 0, 0, "m-1", None, "h", "meta\n", 0)]
    g = {"group": "G\u00e9", "state": "Stable", "partitions": rows, "total_lag": None, "incomplete": True,
         "unknown": [{"topic": "A", "partition": 1, "reason": "x"}], "over_threshold": []}
    as_objects = {**g, "partitions": [dict(zip(ROW_FIELDS, r)) for r in rows]}
    assert offsets_group_json(g) == json.dumps(as_objects, ensure_ascii=False)


# -- describe --all-groups and list stream too ------------------------------------------------

@pytest.mark.parametrize("fmt", ["json", "table", "csv"])
def test_describe_all_groups_streamed_is_describe_of_every_group(many_groups, fmt):
    """describe --all-groups writes each group as its description arrives; the text is what
    describe prints when every group is named (captured whole, then written), in any format."""
    streamed = run_kgroup("describe", "--all-groups", "-b", many_groups, "-o", fmt)
    assert streamed.returncode == 0, streamed.stderr
    order = [g["group"] for g in json.loads(run_kgroup("describe", "--all-groups", "-b", many_groups,
                                                        "-o", "json").stdout)["groups"]]
    assert sorted(order) == [f"s{g:03d}" for g in range(GROUPS)]
    whole = run_kgroup("describe", *order, "-b", many_groups, "-o", fmt)
    assert whole.returncode == 0, whole.stderr
    assert streamed.stdout == whole.stdout
    if fmt == "json":  # groups with committed offsets and no member: Empty, no members
        assert all(g["state"] == "Empty" and g["member_count"] == 0 and g["members"] == []
                   for g in json.loads(streamed.stdout)["groups"])
    if fmt == "table":
        assert streamed.stdout.count("GROUP s") == GROUPS and streamed.stdout.endswith("\n")


def test_list_streamed_rows(many_groups):
    doc = json.loads(run_kgroup("list", "-b", many_groups, "-o", "json").stdout)
    rows = {r["group"]: r for r in doc["groups"]}
    assert sorted(rows) == [f"s{g:03d}" for g in range(GROUPS)]
    assert all(r["member_count"] == 0 and r["state"] == "Empty" and r["coordinator"]["id"] == 111 for r in rows.values())
    table = run_kgroup("list", "-b", many_groups)
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["GROUP", "TYPE", "STATE", "PROTOCOL-TYPE", "ASSIGNOR", "MEMBERS", "COORDINATOR"]
    assert len(lines) == 2 + GROUPS and [line.split()[0] for line in lines[2:]] == [r["group"] for r in doc["groups"]]
    got = list(csv.reader(io.StringIO(run_kgroup("list", "-b", many_groups, "-o", "csv").stdout)))
    assert got[0] == ["group", "type", "state", "protocol_type", "assignor", "members", "coordinator"]
    assert [r[0] for r in got[1:]] == [r["group"] for r in doc["groups"]]
    none = run_kgroup("list", "-b", many_groups, "--state", "Dead", "-o", "json")
    assert json.loads(none.stdout) == {"groups": []}


class _DescribeAdmin(_WindowAdmin):
    """Answers each describe after a random short delay, counting the unanswered."""

    def describe_consumer_groups(self, groups, request_timeout):
        out = {}
        for group in groups:
            future: concurrent.futures.Future = concurrent.futures.Future()
            with self.lock:
                self.unanswered += 1
                self.sent += 1
                self.most = max(self.most, self.unanswered)

            def answer(future=future, group=group):
                with self.lock:
                    self.unanswered -= 1
                future.set_result(type("Description", (), {
                    "group_id": group, "members": [], "coordinator": None, "state": None, "type": None,
                    "partition_assignor": "", "is_simple_consumer_group": False})())

            threading.Timer(self.rng.uniform(0.001, 0.02), answer).start()
            out[group] = future
        return out


@pytest.mark.parametrize("window,batch", [(1, 1), (4, 1), (16, 4), (16, 16)])
def test_describe_window_is_bounded_and_keeps_the_order(window, batch):
    admin = _DescribeAdmin()
    cluster = _cluster_with(admin)
    groups = [f"g{i}" for i in range(60)]
    sent_when_handed = []
    handed = []
    for d in cluster.iter_describe_groups(groups, window=window, batch=batch):
        handed.append(d.group_id)
        sent_when_handed.append(admin.sent)
    assert handed == groups and admin.sent == len(groups)  # in the order asked, each once
    assert admin.most <= window
    # sliding: the window is filled, and refilled by `batch` once that many were handed out
    assert sent_when_handed[0] == window
    assert sent_when_handed[batch - 1] == window and sent_when_handed[batch] == window + batch
