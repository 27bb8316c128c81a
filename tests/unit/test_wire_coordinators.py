"""The batched client's connections are closed: when opening them fails half-way, and by the
Cluster that opened them (close(), or leaving its with block); and -v says which client
answered (kgroup.kafka.routing)."""
from collections import deque

import pytest

from kgroup.kafka.settings import ConnectionSettings
from kgroup.kafka.wire import coordinators
from kgroup.kafka.wire.connection import WireError
from kgroup.kafka.wire.coordinators import Coordinators


class _Connections:
    """Fake connections: each made one recorded; ``refuse`` the (host, port, nth) to refuse;
    FindCoordinator names broker b1:9 for every group; OffsetFetch answers offset 7 for t-0."""

    def __init__(self, refuse=(), find_coordinator=True):
        self.made = []
        fakes = self

        class Fake:
            def __init__(self, host, port, client_id, deadline, connect_within=None, security=None):
                nth = sum(1 for c in fakes.made if c.address == (host, port)) + 1
                if (host, port, nth) in refuse:
                    raise WireError(f"cannot connect to {host}:{port}")
                self.address, self.closed, self.pending = (host, port), False, deque()
                fakes.made.append(self)

            def supports(self, api):
                return find_coordinator or api.key != 10

            def send(self, api, body):
                self.pending.append((api, body))

            def receive(self):
                api, body = self.pending.popleft()
                if api.key == 10:
                    return {"coordinators": [{"key": g, "nodeId": 1, "host": "b1", "port": 9, "errorCode": 0,
                                              "errorMessage": None} for g in body["coordinatorKeys"]]}
                return {"groups": [{"groupId": g["groupId"], "errorCode": 0, "topics": [{"name": "t", "partitions": [
                    {"partitionIndex": 0, "committedOffset": 7, "committedLeaderEpoch": -1, "metadata": "",
                     "errorCode": 0}]}]} for g in body["groups"]]}

            def close(self):
                self.closed = True

        self.connection = Fake


def test_a_failed_lookup_connection_closes_the_first_one(monkeypatch):
    fakes = _Connections(refuse={("boot", 1, 2)})  # the second connection to boot:1, the lookup's, fails
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    with pytest.raises(WireError, match="cannot connect to boot:1"):
        Coordinators([("boot", 1)], "kgroup", 0.0)
    assert [(c.address, c.closed) for c in fakes.made] == [(("boot", 1), True)]


def test_a_cluster_without_find_coordinator_v4_closes_what_it_opened(monkeypatch):
    fakes = _Connections(refuse={("down", 1, 1)}, find_coordinator=False)
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    with pytest.raises(WireError, match="does not answer FindCoordinator v4"):
        Coordinators([("down", 1), ("boot", 1)], "kgroup", 0.0)
    assert [(c.address, c.closed) for c in fakes.made] == [(("boot", 1), True)]


def test_close_closes_every_connection(monkeypatch):
    fakes = _Connections()
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    c = Coordinators([("boot", 1)], "kgroup", 0.0)
    c._find_coordinators(["g"])
    c._connect(("b1", 9))
    assert len(fakes.made) == 3 and not any(x.closed for x in fakes.made)  # first, lookup, b1
    c.close()
    assert all(x.closed for x in fakes.made) and c.broken


class _Admin:
    """An AdminClient that must not be asked anything (every question goes batched)."""

    def poll(self, timeout):
        return 0


def _cluster(x=(), verbose=False):
    from kgroup.kafka.cluster import Cluster

    return Cluster(ConnectionSettings.build("boot:1", list(x), None, 30.0, verbose), admin=_Admin())


def _fetch(cluster, groups):
    queue = deque((g, g, None) for g in groups)
    return sorted(cluster.iter_committed_offsets(lambda: queue.popleft() if queue else None, groups=len(groups)))


GROUPS = [f"g{i:02}" for i in range(12)]


def test_the_cluster_closes_the_batched_clients_connections(monkeypatch, capsys):
    fakes = _Connections()
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    with _cluster() as cluster:
        assert _fetch(cluster, GROUPS) == [(g, g, {("t", 0): (7, "", None)}) for g in GROUPS]
        assert _fetch(cluster, GROUPS[:10])  # the same connections serve every question
        assert [c.address for c in fakes.made] == [("boot", 1), ("boot", 1), ("b1", 9)]
        assert not any(c.closed for c in fakes.made)
    assert all(c.closed for c in fakes.made)
    assert capsys.readouterr().err == ""  # not verbose: not a word
    cluster.close()  # again: nothing more to do


def test_verbose_says_the_batched_client_answered(monkeypatch, capsys):
    monkeypatch.setattr(coordinators, "Connection", _Connections().connection)
    with _cluster(verbose=True) as cluster:
        _fetch(cluster, GROUPS)
    assert capsys.readouterr().err == ("kgroup: committed offsets of 12 groups: kgroup's batched client, "
                                       "many groups per request\n")


@pytest.mark.parametrize("x, groups, why", [
    (["kgroup.batched=false"], 12, "-X kgroup.batched=false"),
    ([], 9, "fewer than 10 groups"),
    (["socket.nagle.disable=true"], 12, "the connection settings ask for what kgroup's batched client does not "
                                        "speak: it does not read socket.nagle.disable"),
    (["security.protocol=SASL_SSL", "sasl.mechanisms=GSSAPI"], 12,
     "the connection settings ask for what kgroup's batched client does not speak: "
     "it does not speak SASL mechanism GSSAPI"),
])
def test_verbose_says_librdkafka_answered_and_why(monkeypatch, capsys, x, groups, why):
    from kgroup.kafka.wire.offset_fetch import OffsetFetch

    fakes = _Connections()
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    cluster = _cluster(x, verbose=True)
    routing = cluster._routing
    assert routing._batched(cluster, f"committed offsets of {groups} groups", groups, OffsetFetch()) is None
    assert fakes.made == []  # no connection of the batched client opened
    err = capsys.readouterr().err
    assert err == f"kgroup: committed offsets of {groups} groups: librdkafka, one group per request ({why})\n"


def test_verbose_says_why_the_batched_client_could_not_be_opened(monkeypatch, capsys):
    from kgroup.kafka.wire.describe import Describe

    monkeypatch.setattr(coordinators, "Connection", _Connections(refuse={("boot", 1, 1)}).connection)
    cluster = _cluster(verbose=True)
    assert cluster._routing._batched(cluster, "describe of 40 groups", 40, Describe()) is None
    assert capsys.readouterr().err == ("kgroup: describe of 40 groups: librdkafka, one group per request "
                                       "(kgroup's batched client: no broker answered (boot:1))\n")
