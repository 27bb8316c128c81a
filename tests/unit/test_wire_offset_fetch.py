"""kgroup.kafka.wire's coordinators and offset_fetch without a broker: which settings it takes, how
one group's answer reads, and how requests are batched, kept in flight, and handed back when
they cannot be answered (against a scripted connection)."""
from __future__ import annotations

import time
from collections import deque

import pytest

from kgroup.kafka.wire import coordinators
from kgroup.kafka.wire.connection import WireError
from kgroup.kafka.wire.coordinators import Coordinators, bootstrap_addresses, eligible
from kgroup.kafka.wire.offset_fetch import OffsetFetch, found_offsets


@pytest.mark.parametrize("properties, expected", [
    ({}, True),
    ({"bootstrap.servers": "h:1", "client.id": "ops"}, True),
    ({"security.protocol": "PLAINTEXT"}, True),
    ({"security.protocol": "plaintext"}, True),
    ({"security.protocol": "SSL"}, True),
    ({"security.protocol": "sasl_plaintext", "sasl.mechanisms": "PLAIN"}, True),
    ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "ssl.ca.location": "/ca.pem"}, True),
    ({"security.protocol": "sasl_ssl", "sasl.mechanism": "scram-sha-256"}, True),
    ({"security.protocol": "ssl", "ssl.certificate.location": "c", "ssl.key.location": "k", "ssl.key.password": "p",
      "ssl.endpoint.identification.algorithm": "none"}, True),
    ({"security.protocol": "ssl", "ssl.keystore.location": "k.p12", "ssl.keystore.password": "p"}, True),
    ({"security.protocol": "sasl_ssl", "sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
      "sasl.oauthbearer.token.endpoint.url": "https://t", "sasl.oauthbearer.client.id": "c",
      "sasl.oauthbearer.client.secret": "s", "https.ca.location": "ca.pem"}, True),
    # librdkafka's unsecured test tokens, Kerberos, socket and DNS settings: librdkafka's alone
    ({"security.protocol": "sasl_ssl", "sasl.mechanisms": "OAUTHBEARER"}, False),
    ({"security.protocol": "sasl_plaintext", "sasl.mechanisms": "GSSAPI"}, False),
    ({"security.protocol": "sasl_plaintext"}, False),  # librdkafka's default mechanism: GSSAPI
    ({"ssl.endpoint.identification.algorithm": "other"}, False),
    ({"socket.nagle.disable": "true"}, False),
    ({"client.dns.lookup": "use_all_dns_ips"}, False),
    ({"debug": "all"}, False),
])
def test_eligible_only_where_librdkafka_would_connect_the_same_way(properties, expected):
    assert eligible(properties) is expected


def _partition(index, offset=-1, epoch=-1, metadata="", error=0):
    # the defaults are what Kafka answers for a partition without a commit (and with an error):
    # INVALID_OFFSET, no leader epoch, NO_METADATA ("")
    return {"partitionIndex": index, "committedOffset": offset, "committedLeaderEpoch": epoch,
            "metadata": metadata, "errorCode": error}


def test_found_offsets_reads_one_group():
    group = {"groupId": "g", "errorCode": 0, "topics": [
        {"name": "A", "partitions": [_partition(0, 5, 3, "m"), _partition(1, 7, -1, ""), _partition(2),
                                     _partition(3, 9, 2, None)]},
        {"name": "gone", "partitions": [_partition(0, error=3)]},
    ]}
    assert found_offsets(group) == {
        ("A", 0): (5, "m", 3),
        ("A", 1): (7, "", None),       # an epoch of -1 is no epoch
        ("A", 2): (None, None, None),  # never committed: no metadata
        ("A", 3): (9, None, 2),        # null metadata (a v8 answer may carry it) stays null
        ("gone", 0): (None, None, None),  # UNKNOWN_TOPIC_OR_PARTITION: as if never committed
    }


@pytest.mark.parametrize("group", [
    {"groupId": "g", "errorCode": 15, "topics": []},  # COORDINATOR_NOT_AVAILABLE
    {"groupId": "g", "errorCode": 0, "topics": [{"name": "A", "partitions": [_partition(0, 1, error=29)]}]},
])
def test_found_offsets_is_none_on_any_other_error(group):
    assert found_offsets(group) is None


class _Script:
    """Connections that answer FindCoordinator from ``coordinators`` and OffsetFetch with one
    committed offset per group (its number), except for ``failing`` groups (error 16)."""

    def __init__(self, coordinators, failing=(), break_after=None):
        self.coordinators, self.failing, self.break_after = coordinators, set(failing), break_after
        self.sent = []  # (address, api key, body)
        self.most_in_flight = 0
        script = self

        class FakeConnection:
            def __init__(self, host, port, client_id, deadline, connect_within=None, security=None):
                self.address = (host, port)
                script.connect_within.add(connect_within)
                self.pending = deque()
                if (host, port) == ("down", 1):
                    raise WireError("refused")

            def supports(self, api):
                return True

            def send(self, api, body):
                script.sent.append((self.address, api.key, body))
                self.pending.append((api, body))
                script.most_in_flight = max(script.most_in_flight, sum(
                    1 for a, k, _ in script.sent if k == 9) - script.answered)

            def receive(self):
                api, body = self.pending.popleft()
                if api.key == 10:
                    return {"coordinators": [
                        {"key": g, "nodeId": 1 if g in script.coordinators else -1, "host": script.coordinators.get(g, ("", 0))[0],
                         "port": script.coordinators.get(g, ("", 0))[1], "errorCode": 0 if g in script.coordinators else 15,
                         "errorMessage": None} for g in body["coordinatorKeys"]]}
                script.answered += 1
                if script.break_after is not None and script.answered > script.break_after:
                    raise WireError("closed")
                return {"groups": [
                    {"groupId": g["groupId"], "errorCode": 16 if g["groupId"] in script.failing else 0,
                     "topics": [{"name": "t", "partitions": [_partition(0, int(g["groupId"][1:]))]}]}
                    for g in body["groups"]]}

            def close(self):
                pass

        self.answered = 0
        self.connect_within = set()
        self.connection = FakeConnection


def _run(monkeypatch, script, requests):
    monkeypatch.setattr(coordinators, "Connection", script.connection)
    batched = Coordinators([("down", 1), ("boot", 1)], "kgroup", 0.0)
    queue, failed = deque(requests), deque()
    got = list(batched.iterate(OffsetFetch(), lambda: queue.popleft() if queue else None, failed))
    return batched, got, list(failed)


def test_many_groups_per_request_and_a_bounded_number_in_flight(monkeypatch):
    groups = [f"g{i}" for i in range(1050)]
    script = _Script({g: ("b1" if i % 2 else "b2", 9) for i, g in enumerate(groups)})
    batched, got, failed = _run(monkeypatch, script, [(i, g, None) for i, g in enumerate(groups)])
    assert not failed and not batched.broken
    # in the order answers arrive: each slice's answer from b2, then from b1
    assert sorted(got) == [(i, g, {("t", 0): (i, "", None)}) for i, g in enumerate(groups)]
    fetches = [(address, body) for address, key, body in script.sent if key == 9]
    # 11 slices of at most 100 groups, each split between the two coordinators
    assert len(fetches) == 22 and all(len(b["groups"]) <= 50 for _, b in fetches)
    assert {address for address, _ in fetches} == {("b1", 9), ("b2", 9)}
    assert script.most_in_flight <= coordinators.REQUESTS_IN_FLIGHT * 2
    lookups = [body for address, key, body in script.sent if key == 10]
    assert len(lookups) == 11 and all(address == ("boot", 1) for address, key, _ in script.sent if key == 10)


def test_explicit_partitions_are_asked_by_topic(monkeypatch):
    script = _Script({"g1": ("b", 1)})
    _run(monkeypatch, script, [(0, "g1", [("A", 0), ("B", 2), ("A", 1)])])
    body = next(body for _, key, body in script.sent if key == 9)
    assert body == {"groups": [{"groupId": "g1", "topics": [{"name": "A", "partitionIndexes": [0, 1]},
                                                             {"name": "B", "partitionIndexes": [2]}]}],
                    "requireStable": False}


def test_a_group_twice_goes_in_two_requests(monkeypatch):
    script = _Script({"g1": ("b", 1), "g2": ("b", 1)})
    _, got, failed = _run(monkeypatch, script, [(0, "g1", None), (1, "g2", None), (2, "g1", [("t", 0)])])
    assert [k for k, _, _ in got] == [0, 1, 2] and not failed
    assert [[g["groupId"] for g in body["groups"]] for _, key, body in script.sent if key == 9] == [["g1", "g2"], ["g1"]]


def test_unanswerable_groups_are_handed_back(monkeypatch):
    script = _Script({"g1": ("b", 1), "g3": ("b", 1)}, failing={"g3"})
    batched, got, failed = _run(monkeypatch, script, [(0, "g1", None), (1, "g2", None), (2, "g3", None)])
    assert [k for k, _, _ in got] == [0]
    assert failed == [(1, "g2", None), (2, "g3", None)]  # no coordinator; an error in the answer
    assert not batched.broken


def test_a_failed_connection_hands_back_everything_not_answered(monkeypatch):
    groups = [f"g{i}" for i in range(700)]
    script = _Script({g: ("b", 1) for g in groups}, break_after=2)
    batched, got, failed = _run(monkeypatch, script, [(i, g, None) for i, g in enumerate(groups)])
    assert batched.broken
    assert [k for k, _, _ in got] == list(range(200))
    # the requests in flight when it failed; the rest were never taken from the caller
    assert [k for k, _, _ in failed] == list(range(200, 200 + 100 * coordinators.REQUESTS_IN_FLIGHT))


def test_no_broker_answering_is_an_error(monkeypatch):
    monkeypatch.setattr(coordinators, "Connection", _Script({}).connection)
    with pytest.raises(WireError):
        Coordinators([("down", 1)], "kgroup", 0.0)


@pytest.mark.parametrize("bootstrap, addresses", [
    ("h1:9092,h2:9093", [("h1", 9092), ("h2", 9093)]),
    (" PLAINTEXT://h1:1 , h2", [("h1", 1), ("h2", 9092)]),
    ("[::1]:9094,[fe80::1]", [("::1", 9094), ("fe80::1", 9092)]),
    ("h1:x,:9,", []),
    ("SSL://h1:9093,SASL_PLAINTEXT://h2:9094,plaintext://h3:1", [("h1", 9093), ("h2", 9094), ("h3", 1)]),
])
def test_bootstrap_servers_as_addresses(bootstrap, addresses):
    assert bootstrap_addresses(bootstrap) == addresses


def test_no_connection_waits_longer_than_connect_within(monkeypatch):
    """An address that drops packets is passed over after CONNECT_WITHIN, not at the deadline."""
    script = _Script({"g1": ("b", 1)})
    _run(monkeypatch, script, [(0, "g1", None)])
    assert script.connect_within == {coordinators.CONNECT_WITHIN}

    import socket

    from kgroup.kafka.wire.connection import Connection

    asked = []

    def create_connection(address, timeout):
        asked.append(timeout)
        raise socket.timeout("timed out")

    monkeypatch.setattr(socket, "create_connection", create_connection)
    with pytest.raises(WireError, match="cannot connect"):
        Connection("10.0.0.1", 9092, "kgroup", time.monotonic() + 60, connect_within=2.0)
    assert asked and asked[0] <= 2.0
