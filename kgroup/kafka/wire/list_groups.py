"""Every group of every type, asked of every broker as Kafka's Java Admin client asks
(KafkaAdminClient.listGroups): the brokers from Metadata (v12, no topic named), then ListGroups of
each broker, which lists the groups its coordinators hold.

- A broker that answers ListGroups v5 (Kafka 3.8+) is asked with the types wanted as its
  ``TypesFilter`` (empty: every type) and names each group's type (classic, consumer, share,
  streams). Each group's state and protocol type come as the broker sends them.
- A broker that answers v4 only (Kafka 2.6 to 3.7) is asked without a filter: it lists every group
  it holds, without their types. Such a broker has no share or streams groups (they came after
  v5); a group of a protocol type other than consumer (or none) is a classic group (a Kafka
  Connect workers' group: "connect"), one of the consumer protocol type or none is left without a
  type here (classic or consumer: the caller's describe tells).
- COORDINATOR_LOAD_IN_PROGRESS and COORDINATOR_NOT_AVAILABLE are asked again until the deadline,
  as the Java client retries them; any other error, a broker that answers neither version, or a
  broker that cannot be reached is a problem of that broker: its groups are not listed, and the
  answer says so (``Listing.problems``), never a silent omission.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgroup.kafka.wire.connection import Connection, Refused, WireError
from kgroup.kafka.wire.coordinators import CONNECT_WITHIN
from kgroup.kmsg import errors
from kgroup.kmsg.messages import LIST_GROUPS, LIST_GROUPS_V4, METADATA, Api

if TYPE_CHECKING:
    from kgroup.kafka.wire.security import Security

# asked again after these, as the Java Admin client does (it retries them until its timeout)
_RETRIABLE = (errors.COORDINATOR_LOAD_IN_PROGRESS, errors.COORDINATOR_NOT_AVAILABLE)
_RETRY_PAUSE = 0.1
_ERROR_NAMES = {v: k for k, v in vars(errors).items() if k.isupper() and isinstance(v, int)}


def error_name(code: int) -> str:
    return _ERROR_NAMES.get(code, f"error {code}")


@dataclass(frozen=True)
class Listed:
    """One group as a broker listed it; ``type`` None where the broker names none (v4)."""

    group_id: str
    type: str | None
    state: str | None
    protocol_type: str
    broker: int


@dataclass
class Listing:
    groups: list[Listed] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # brokers whose groups are not (all) listed
    untyped: list[str] = field(default_factory=list)  # brokers that answered v4 (no group types)
    brokers: dict[int, tuple[str, int]] = field(default_factory=dict)  # the brokers asked: id -> (host, port)
    wanted: list[str] = field(default_factory=list)  # the types asked for (empty: every type)


def _brokers(conn: Connection) -> list[tuple[int, str, int]] | None:
    """(id, host, port) of every broker, from Metadata v12 with no topic; None where the broker
    does not answer it."""
    if not conn.supports(METADATA):
        return None
    conn.send(METADATA, {"topics": [], "allowAutoTopicCreation": False, "includeTopicAuthorizedOperations": False})
    answer = conn.receive()
    return sorted((b["nodeId"], b["host"], b["port"]) for b in answer["brokers"])


def list_groups(bootstrap: list[tuple[str, int]], client_id: str, deadline: float,
                security: Security | None = None, types: list[str] | None = None) -> Listing:
    """Every group of ``types`` (None or empty: every type) the cluster's brokers list. Raises
    WireError when no bootstrap server answers or no broker's ListGroups does (the connection
    failed, timed out or was closed: the caller asks librdkafka, whose failure says why), or the typed error of a refused login or TLS
    failure (kgroup.kafka.wire.connection.Refused's)."""
    connections: dict[tuple[str, int], Connection] = {}
    out = Listing(wanted=[t.lower() for t in types or []])

    def connect(host: str, port: int) -> Connection:
        address = (host, port)
        if address not in connections:
            connections[address] = Connection(host, port, client_id, deadline, CONNECT_WITHIN, security)
        return connections[address]

    try:
        first, brokers, tried = None, None, []
        for host, port in bootstrap:
            try:
                first = connect(host, port)
                brokers = _brokers(first)
                break
            except WireError as e:
                tried.append(str(e))
        if first is None:
            raise WireError(f"no bootstrap server answered ({'; '.join(tried)})")
        if brokers is None:  # no Metadata v12: the bootstrap servers stand for the brokers
            brokers = [(-1, h, p) for h, p in bootstrap]
        out.brokers = {node: (host, port) for node, host, port in brokers}
        failed = []
        asking = []  # (node, name, connection, api, body) of the brokers still to answer
        for node, host, port in brokers:
            name = f"broker {node} ({host}:{port})" if node >= 0 else f"broker {host}:{port}"
            try:
                conn = connect(host, port)
            except WireError as e:
                failed.append(f"{name}: {e}")
                continue
            ask = _request(conn, name, out)
            if ask is not None:
                asking.append((node, name, conn, *ask))
        # every broker asked at once, those whose coordinators are loading again, together, until
        # the deadline: one broker's wait never takes the others' time
        while asking:
            for node, name, conn, api, body in list(asking):
                try:
                    conn.send(api, body)
                except WireError as e:
                    failed.append(f"{name}: {e}")
                    asking.remove((node, name, conn, api, body))
            again = []
            for node, name, conn, api, body in asking:
                try:
                    answer = conn.receive()
                except WireError as e:
                    failed.append(f"{name}: {e}")
                    continue
                code = answer["errorCode"]
                if code in _RETRIABLE and time.monotonic() + _RETRY_PAUSE < deadline:
                    again.append((node, name, conn, api, body))
                elif code != errors.NONE:
                    out.problems.append(f"{name}: ListGroups failed: {error_name(code)}")
                else:
                    _listed(answer, api, node, out)
            asking = again
            if asking:
                time.sleep(_RETRY_PAUSE)
        if len(failed) == len(brokers):  # no broker answered here: librdkafka asks, and says why it cannot
            raise WireError(f"no broker answered ListGroups ({'; '.join(failed)})")
        out.problems.extend(failed)
    except Refused as e:
        raise e.error from None
    finally:
        for conn in connections.values():
            conn.close()
    return out


def _request(conn: Connection, name: str, out: Listing) -> tuple[Api, dict[str, Any]] | None:
    """The ListGroups request (API and body) for ``conn``'s broker: v5 with the types wanted, else
    v4 (said in ``out.untyped``); None (said in ``out.problems``) where it answers neither."""
    if conn.supports(LIST_GROUPS):
        return LIST_GROUPS, {"statesFilter": [], "typesFilter": out.wanted}
    if conn.supports(LIST_GROUPS_V4):
        out.untyped.append(name)
        return LIST_GROUPS_V4, {"statesFilter": []}
    out.problems.append(f"{name}: answers neither ListGroups v5 nor v4")
    return None


def _listed(answer: dict[str, Any], api: Api, node: int, out: Listing) -> None:
    for g in answer["groups"]:
        gtype = g["groupType"] if api is LIST_GROUPS else untyped_group_type(g["protocolType"])
        out.groups.append(Listed(g["groupId"], gtype or None, g["groupState"] or None, g["protocolType"], node))


# the protocol type each type of group lists with, but classic groups (theirs is their members')
_PROTOCOL_TYPE_OF = {"share": "share", "streams": "streams"}


def untyped_group_type(protocol_type: str) -> str | None:
    """The type of a group a broker listed without one (ListGroups v4), from its protocol type:
    share and streams groups list with theirs (which a v4 broker has none of); a group of another
    protocol type than consumer (or none) is classic; None for consumer or none: a classic or a
    consumer group."""
    if protocol_type in ("consumer", ""):
        return None
    return _PROTOCOL_TYPE_OF.get(protocol_type, "classic")
