"""Questions about many groups, asked of each group's coordinator many groups per request.

What the Java Admin client does for a call over many groups, and what librdkafka does not
(one group per request, each after its own coordinator lookup): one FindCoordinator (v4) for
up to GROUPS_PER_REQUEST groups, then one request per coordinator for its share of them, at
most REQUESTS_IN_FLIGHT requests waiting for answers. What is asked and how an answer reads
is an ``Exchange`` (offset_fetch.py, describe.py); this module only routes and pipelines.

Only clean answers are handed out: a group whose coordinator is not found, whose answer the
exchange will not read (an error, anything librdkafka would report differently), or whose
connection fails is handed back to the caller, which asks librdkafka as before, so errors
read the same whichever path met them.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, Protocol

from kgroup.kafka.wire.connection import Connection, Refused, WireError
from kgroup.kafka.wire.security import Security
from kgroup.kafka.wire.security import why_not as _why_not
from kgroup.kmsg import errors
from kgroup.kmsg.messages import FIND_COORDINATOR, Api

Request = tuple[Any, str, Any]  # (caller's key, group, what the exchange needs to ask about it)

# group errors a describe answers with that ask for the question again (the Admin client retries
# them): the coordinator loading, moved, or not known
RETRIED = (errors.COORDINATOR_LOAD_IN_PROGRESS, errors.NOT_COORDINATOR, errors.COORDINATOR_NOT_AVAILABLE)


def read_groups(answer: dict[str, Any], requests: list[Request], retry: dict[str, Any],
                error: Callable[[int, str | None], Any], result: Callable[[dict[str, Any]], Any]
                ) -> tuple[list[tuple[Request, Any]], list[Request], None]:
    """An exchange's ``read`` of an answer holding one entry per group (``groups``, by ``groupId``):
    a group the answer leaves out, or answers with an error in RETRIED, is handed back and
    ``retry[group]`` holds ``error(code, message)`` saying why; every other is ``result(group)``,
    which decides what the group's other errors mean."""
    groups = {g["groupId"]: g for g in answer["groups"]}
    done: list[tuple[Request, Any]] = []
    failed: list[Request] = []
    for request in requests:
        group = groups.get(request[1])
        if group is None:
            retry[request[1]] = error(errors.UNKNOWN_SERVER_ERROR, "the answer left the group out")
            failed.append(request)
        elif group["errorCode"] in RETRIED:
            retry[request[1]] = error(group["errorCode"], group["errorMessage"])
            failed.append(request)
        else:
            done.append((request, result(group)))
    return done, failed, None

GROUPS_PER_REQUEST = 100
REQUESTS_IN_FLIGHT = 4
# a broker that does not accept a connection within this is passed over (the next bootstrap
# server is tried; its groups go to librdkafka), so one unreachable address (packets dropped)
# cannot take the time librdkafka would need for the same requests
CONNECT_WITHIN = 2.0


def eligible(properties: Mapping[str, str], token_source: bool = False) -> bool:
    """Whether this client connects as librdkafka would with these -X properties: plaintext or
    TLS, no SASL or PLAIN, SCRAM or OAUTHBEARER (OIDC, or tokens kgroup makes: ``token_source``),
    no socket settings (security.why_not says what it does not speak)."""
    return _why_not(properties, token_source) is None


def bootstrap_addresses(bootstrap: str) -> list[tuple[str, int]]:
    """(host, port) of each server of a bootstrap.servers list ("host:port,[::1]:9093,
    SASL_SSL://host"), 9092 where no port is given, as librdkafka reads it (a protocol named
    before a server is librdkafka's to ignore: security.protocol says how to connect)."""
    out = []
    for server in bootstrap.split(","):
        server = server.strip().rpartition("://")[2]
        host, port = server, "9092"
        if server.startswith("["):
            host, _, rest = server[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else port
        elif server.count(":") == 1:
            host, port = server.split(":")
        if host and port.isdigit():
            out.append((host, int(port)))
    return out


class Node(NamedTuple):
    """A group's coordinator as FindCoordinator names it."""

    id: int
    host: str
    port: int


class Exchange(Protocol):
    """One kind of question: the request that asks it of a coordinator, and how answers read."""

    def speaks(self, conn: Connection) -> bool:
        """Whether a broker that answered ``conn``'s ApiVersions can be asked at all."""

    def request(self, conn: Connection, requests: list[Request]) -> tuple[Api, dict[str, Any]]:
        """The request (API and body) asking ``conn``'s broker about ``requests``' groups."""

    def read(self, api: Api, answer: dict[str, Any], requests: list[Request], node: Node
             ) -> tuple[list[tuple[Request, Any]], list[Request], tuple[Api, dict[str, Any], list[Request]] | None]:
        """(answered with their results, handed back, a further request to send on the same
        connection for some of them or None) of the answer to ``api`` about ``requests``."""


class Coordinators:
    """Connections to the brokers that coordinate the groups asked about, opened as needed,
    and what FindCoordinator said of each group (kept for every later question).

    ``brokers``: (host, port) of the brokers to ask for coordinators, tried in order. Raises
    WireError when none answers or the cluster does not speak FindCoordinator v4 (Kafka before
    3.0). ``broken`` once a connection failed while requests were in flight. ``security``: TLS
    and SASL for every connection; a Refused (a login refused, a TLS failure) is raised as it
    comes, never passed over to the next broker."""

    def __init__(self, brokers: list[tuple[str, int]], client_id: str, deadline: float,
                 security: Security | None = None) -> None:
        self._client_id = client_id
        self._deadline = deadline
        self._security = security
        self._connections: dict[tuple[str, int], Connection | None] = {}
        self._coordinators: dict[str, Node] = {}
        self.broken = False
        problems = []
        try:
            for address in brokers:
                conn = self._connect(address)
                if conn is not None:
                    if not conn.supports(FIND_COORDINATOR):
                        raise WireError("the cluster does not answer FindCoordinator v4")
                    self._first = conn
                    # its own: answers come in order
                    self._lookup = Connection(*address, client_id, deadline, CONNECT_WITHIN, security)
                    return
                problems.append(f"{address[0]}:{address[1]}")
        except Refused as e:
            self.close()
            raise e.error from None
        except BaseException:
            self.close()  # what was opened is not left open by a Coordinators never handed out
            raise
        raise WireError(f"no broker answered ({', '.join(problems)})")

    @property
    def deadline(self) -> float:
        """When every connection's requests must have been answered (time.monotonic())."""
        return self._deadline

    def speaks(self, exchange: Exchange) -> bool:
        """Whether the cluster (as its first broker answering says) can be asked ``exchange``."""
        return exchange.speaks(self._first)

    def _connect(self, address: tuple[str, int]) -> Connection | None:
        if address not in self._connections:
            try:
                self._connections[address] = Connection(*address, self._client_id, self._deadline, CONNECT_WITHIN,
                                                        self._security)
            except WireError:
                self._connections[address] = None
        return self._connections[address]

    def close(self) -> None:
        """Close every connection opened; the Coordinators cannot be asked anything after."""
        for conn in [*self._connections.values(), getattr(self, "_lookup", None)]:
            if conn is not None:
                conn.close()
        self._connections = {address: None for address in self._connections}
        self.broken = True

    def forget(self, group: str) -> None:
        """Look the group's coordinator up again before the next question about it (it moved, or
        was not found)."""
        self._coordinators.pop(group, None)

    def find_share_coordinators(self, keys: list[str]) -> dict[str, Node | tuple[int, str | None]]:
        """FindCoordinator v6 with key type 2 (SHARE): for each "groupId:topicId:partition" key the
        share coordinator, or (error code, message). WireError where the broker asked does not
        speak v6 (Kafka before 4.1)."""
        from kgroup.kmsg.messages import FIND_COORDINATOR_V6

        if not self._lookup.supports(FIND_COORDINATOR_V6):
            raise WireError("the cluster does not answer FindCoordinator v6 (share coordinators, Kafka 4.1+)")
        self._lookup.send(FIND_COORDINATOR_V6, {"keyType": 2, "coordinatorKeys": list(dict.fromkeys(keys))})
        out: dict[str, Node | tuple[int, str | None]] = {}
        for c in self._lookup.receive()["coordinators"]:
            out[c["key"]] = (Node(c["nodeId"], c["host"], c["port"]) if c["errorCode"] == errors.NONE
                             else (c["errorCode"], c["errorMessage"]))
        return out

    def _find_coordinators(self, groups: list[str]) -> None:
        unknown = [g for g in dict.fromkeys(groups) if g not in self._coordinators]
        if not unknown:
            return
        self._lookup.send(FIND_COORDINATOR, {"keyType": 0, "coordinatorKeys": unknown})
        for c in self._lookup.receive()["coordinators"]:
            if c["errorCode"] == errors.NONE and c["nodeId"] >= 0:
                self._coordinators[c["key"]] = Node(c["nodeId"], c["host"], c["port"])

    def iterate(self, exchange: Exchange, next_request: Callable[[], Request | None],
                failed: deque[Request]) -> Iterator[tuple[Any, str, Any]]:
        """(key, group, result) for each request ``next_request`` hands out, as answers arrive,
        until it hands out None with nothing in flight. Requests that cannot be answered here
        go to ``failed``; after a connection failure (``broken``) everything not answered does."""
        in_flight: deque[tuple[Connection, Node, Api, list[Request]]] = deque()
        carry: list[Request] = []
        try:
            while True:
                while len(in_flight) < REQUESTS_IN_FLIGHT:
                    batch, carry = self._pull(next_request, carry)
                    if not batch:
                        break
                    self._send(exchange, batch, in_flight, failed)
                if not in_flight:
                    return
                conn, node, api, batch = in_flight[0]
                answer = conn.receive()
                in_flight.popleft()
                done, handed_back, further = exchange.read(api, answer, batch, node)
                failed.extend(handed_back)
                for request, result in done:
                    yield request[0], request[1], result
                if further is not None:
                    in_flight.append((conn, node, further[0], further[2]))  # handed back if sending fails
                    conn.send(further[0], further[1])
        except WireError:
            self.broken = True
            for *_, batch in in_flight:
                failed.extend(batch)
            failed.extend(carry)
        except Refused as e:  # a login refused (a re-login, a new coordinator's), a TLS failure
            self.close()
            raise e.error from None

    @staticmethod
    def _pull(next_request: Callable[[], Request | None], carry: list[Request]) -> tuple[list[Request], list[Request]]:
        batch, names = list(carry), {r[1] for r in carry}
        rest: list[Request] = []
        while len(batch) < GROUPS_PER_REQUEST:
            request = next_request()
            if request is None:
                break
            if request[1] in names:  # a group once per request: the next one takes it
                rest.append(request)
                break
            names.add(request[1])
            batch.append(request)
        return batch, rest

    def _send(self, exchange: Exchange, batch: list[Request],
              in_flight: deque[tuple[Connection, Node, Api, list[Request]]], failed: deque[Request]) -> None:
        try:
            self._find_coordinators([r[1] for r in batch])
        except WireError:
            failed.extend(batch)
            raise
        by_node: dict[Node, list[Request]] = {}
        for request in batch:
            node = self._coordinators.get(request[1])
            if node is None:
                failed.append(request)
            else:
                by_node.setdefault(node, []).append(request)
        for node, requests in by_node.items():
            address = (node.host, node.port)
            conn = self._connect(address)
            if conn is None or not exchange.speaks(conn):
                failed.extend(requests)
                continue
            api, body = exchange.request(conn, requests)
            try:
                conn.send(api, body)
            except WireError:
                self._connections[address] = None
                failed.extend(requests)
                continue
            in_flight.append((conn, node, api, requests))
