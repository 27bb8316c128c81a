"""`offsets` over many groups fetches committed offsets many groups per request (kgroup.kafka.wire)
on a real broker: the answer is the one librdkafka's one-group-per-request path gives, the
requests are batched, and when the batched path fails midway librdkafka answers instead."""
from __future__ import annotations

import json

import pytest
from conftest import run_kgroup

pytestmark = pytest.mark.broker

TOPICS = {"A": 3, "B": 2}
GROUPS = 230  # three OffsetFetch requests of at most 100 groups
METADATA = [None, "", "m", "é中文 \U0001F600", "x" * 200]
# any property the batched path does not speak sends every request through librdkafka
LIBRDKAFKA_ONLY = ("-X", "socket.nagle.disable=true")


def _commits(g: int) -> dict[tuple[str, int], tuple[int, str | None, int | None]]:
    """(offset, metadata, leader epoch) group g commits; groups g % 3 == 1 commit part of a topic."""
    meta, epoch = METADATA[g % len(METADATA)], (None if g % 4 == 0 else g % 7)
    if g % 3 == 0:
        return {("A", p): ((g + p) % 4, meta, epoch) for p in range(3)}
    if g % 3 == 1:
        return {("A", 0): (1, meta, epoch), ("B", 1): (g % 5, meta, epoch)}
    return {("B", p): (p, meta, epoch) for p in range(2)}


@pytest.fixture(scope="module")
def broker():
    import seed
    from brokers import stop_process
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient
    from faultproxy import start_tansu_behind_proxy

    proc, proxy = start_tansu_behind_proxy()
    try:
        seed.create_topics(proxy.address, TOPICS)
        seed.produce(proxy.address, TOPICS, count=lambda t, p: 5 + p)
        admin = AdminClient({"bootstrap.servers": proxy.address})
        futures = []
        for g in range(GROUPS):
            tps = [TopicPartition(t, p, o, **({} if m is None else {"metadata": m}),
                                  **({} if e is None else {"leader_epoch": e}))
                   for (t, p), (o, m, e) in _commits(g).items()]
            futures += admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(f"b{g:03d}", tps)]).values()
        for f in futures:
            f.result(timeout=30)
        yield proxy
    finally:
        proxy.stop()
        stop_process(proc)


def _offsets(proxy, *extra: str) -> tuple[dict, list[tuple[int, int, str | None]]]:
    proxy.reset()
    r = run_kgroup("offsets", "--all-groups", "-b", proxy.address, "-o", "json", "--timeout", "30", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), list(proxy.requests)


def test_batched_answer_is_librdkafkas(broker):
    from faultproxy import OFFSET_FETCH

    batched, requests = _offsets(broker)
    one_by_one, requests_one_by_one = _offsets(broker, *LIBRDKAFKA_ONLY)
    assert batched == one_by_one
    fetches = [v for key, v, _ in requests if key == OFFSET_FETCH]
    # every group's first request (at least 3 for 230 groups), then the follow-ups of the groups
    # that committed part of a topic, sent with whatever is asked next as the answers arrive
    assert set(fetches) == {8} and 3 < len(fetches) <= 10, fetches
    assert sum(1 for key, _, _ in requests_one_by_one if key == OFFSET_FETCH) == GROUPS + (GROUPS + 2) // 3
    # and the offsets are those committed (Tansu drops commit metadata strings: the reading of
    # metadata and leader epochs is shown against Kafka's own classes, tests/differential/test_wire_messages.py)
    rows = {(g["group"], p["topic"], p["partition"]): p["committed"] for g in batched["groups"] for p in g["partitions"]}
    for g in range(GROUPS):
        for (t, p), (o, _, _) in _commits(g).items():
            assert rows[(f"b{g:03d}", t, p)] == o, (g, t, p)
    assert rows[("b001", "A", 1)] is None  # never committed, asked for explicitly
    assert len(rows) == sum(3 if any(t == "A" for t, _ in _commits(g)) else 0 for g in range(GROUPS)) + sum(
        2 if any(t == "B" for t, _ in _commits(g)) else 0 for g in range(GROUPS))


@pytest.mark.parametrize("action", ["close", "garble", "delay", "freeze"])
def test_librdkafka_answers_when_the_batched_path_fails(broker, action):
    """The first OffsetFetch answer (the batched path's) is lost, mangled, late, or never comes:
    the answer is still whole. A batched answer that never comes is given up after two thirds
    of --timeout, leaving the rest to librdkafka."""
    from faultproxy import OFFSET_FETCH

    expected, _ = _offsets(broker, *LIBRDKAFKA_ONLY)
    broker.reset()
    broker.fault(OFFSET_FETCH, action, seconds=0.5, once=True)
    r = run_kgroup("offsets", "--all-groups", "-b", broker.address, "-o", "json", "--timeout", "9")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == expected
    versions = [v for key, v, _ in broker.requests if key == OFFSET_FETCH]
    if action == "delay":  # a slow answer is still an answer
        assert set(versions) == {8} and len(versions) <= 10, versions
    else:
        assert versions[0] == 8 and len(versions) > GROUPS // 2, versions


def test_kgroup_sends_only_reads(broker):
    from faultproxy import OFFSET_FETCH

    _, requests = _offsets(broker)
    # ApiVersions, Metadata, FindCoordinator, ListGroups, DescribeGroups/ConsumerGroupDescribe,
    # OffsetFetch, ListOffsets, DescribeCluster, GetTelemetrySubscriptions
    assert {key for key, _, _ in requests} <= {18, 3, 10, 16, 15, 69, OFFSET_FETCH, 2, 60, 71}, requests


def test_a_few_named_groups_are_asked_one_by_one(broker):
    """Under ten groups the batched path's own connections would cost more than they save."""
    from faultproxy import OFFSET_FETCH

    few = ["b000", "b003", "b006"]  # every partition of A committed: no follow-up requests
    broker.reset()
    r = run_kgroup("offsets", *few, "-b", broker.address, "-o", "json", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    assert broker.seen(OFFSET_FETCH) == 3
    assert [g["group"] for g in json.loads(r.stdout)["groups"]] == few
    many = [f"b{g:03d}" for g in range(0, 30, 3)]  # ten such groups: one batched request
    broker.reset()
    r = run_kgroup("offsets", *many, "-b", broker.address, "-o", "json", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    assert [v for key, v, _ in broker.requests if key == OFFSET_FETCH] == [8]
    assert [g["group"] for g in json.loads(r.stdout)["groups"]] == many


def test_the_switch_sends_every_request_through_librdkafka_and_v_says_which(broker):
    """-X kgroup.batched=false: kgroup's own property (librdkafka would refuse it as unknown) sends
    every request through librdkafka; -v says which client answered each question, and why."""
    from faultproxy import OFFSET_FETCH

    expected, _ = _offsets(broker)
    for extra, one_by_one, client in [(("-X", "kgroup.batched=false"), True, "librdkafka, one group per request "
                                       "(-X kgroup.batched=false)"),
                                      ((), False, "kgroup's batched client, many groups per request")]:
        broker.reset()
        r = run_kgroup("offsets", "--all-groups", "-b", broker.address, "-o", "json", "--timeout", "30", "-v", *extra)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == expected
        said = [line for line in r.stderr.splitlines() if line.startswith("kgroup: ")]
        # --all-groups also asks for share groups (ListGroups v5, type share: kgroup's own client); with
        # every request on librdkafka, which lists none, that they could not be listed is said
        listing = [line for line in said if line.startswith("kgroup: list groups: ")]
        assert listing == (["kgroup: list groups: librdkafka (-X kgroup.batched=false)"] if one_by_one else
                           ["kgroup: list groups: kgroup's own client, ListGroups of each of 1 broker(s)"]), said
        warned = [line for line in said if line.startswith("kgroup: warning: ")]
        assert len(warned) == (1 if one_by_one else 0) and all("share" in w and "could not be listed" in w
                                                                for w in warned), warned
        assert [line for line in said if line not in listing and line not in warned] == [
            f"kgroup: describe of {GROUPS} groups: {client}", f"kgroup: committed offsets of {GROUPS} groups: {client}"]
        fetches = sum(1 for key, _, _ in broker.requests if key == OFFSET_FETCH)
        if one_by_one:  # each group's request and the follow-ups of those that committed part of a topic
            assert fetches == GROUPS + (GROUPS + 2) // 3
        else:
            assert 3 < fetches <= 10
