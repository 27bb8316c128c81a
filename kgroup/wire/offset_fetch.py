"""Committed offsets of many groups per request: FindCoordinator v4 and OffsetFetch v8.

What the Java Admin client does for ``listConsumerGroupOffsets`` over many groups, and what
librdkafka does not (one group per request, each after its own coordinator lookup). Only
clean answers are handed out: a group whose coordinator is not found, whose answer carries an
error (the group's, or a partition's other than UNKNOWN_TOPIC_OR_PARTITION), or whose
connection fails is handed back to the caller, which asks librdkafka as before, so errors
read the same whichever path met them.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from kgroup.wire.connection import Connection, WireError
from kgroup.wire.messages import FIND_COORDINATOR, OFFSET_FETCH

Request = tuple[Any, str, "list[tuple[str, int]] | None"]  # (key, group, partitions or None: all)

UNKNOWN_TOPIC_OR_PARTITION = 3
GROUPS_PER_REQUEST = 100
REQUESTS_IN_FLIGHT = 4
# -X properties that change nothing this client does; any other (TLS, SASL, socket or DNS
# settings, ...) keeps every request on librdkafka
_NEUTRAL = frozenset({"bootstrap.servers", "client.id"})


def eligible(properties: Mapping[str, str]) -> bool:
    """Whether this client connects as librdkafka would with these -X properties: plaintext,
    no authentication, no socket settings."""
    return all(k in _NEUTRAL or (k == "security.protocol" and v.lower() == "plaintext")
               for k, v in properties.items())


def found_offsets(group: Mapping[str, Any]) -> dict[tuple[str, int], tuple[int | None, str | None, int | None]] | None:
    """{(topic, partition): (committed, metadata, leader epoch)} of one group's answer, each None
    when absent; None when the answer carries an error (the caller asks again elsewhere)."""
    if group["errorCode"]:
        return None
    found: dict[tuple[str, int], tuple[int | None, str | None, int | None]] = {}
    for topic in group["topics"]:
        name = topic["name"]
        for p in topic["partitions"]:
            error = p["errorCode"]
            if error and error != UNKNOWN_TOPIC_OR_PARTITION:
                return None
            # as the adapter reads librdkafka's answer: metadata only with a commit, -1 is none
            committed = p["committedOffset"] if p["committedOffset"] >= 0 and not error else None
            epoch = p["committedLeaderEpoch"]
            found[(name, p["partitionIndex"])] = (committed, None if committed is None else p["metadata"],
                                                  epoch if epoch >= 0 else None)
    return found


class BatchedOffsets:
    """Connections to the brokers that coordinate the groups asked about, opened as needed.

    ``brokers``: (host, port) of the brokers to ask for coordinators, tried in order. Raises
    WireError when none answers or the cluster does not speak FindCoordinator v4 and
    OffsetFetch v8 (Kafka before 3.0)."""

    def __init__(self, brokers: list[tuple[str, int]], client_id: str, deadline: float) -> None:
        self._client_id = client_id
        self._deadline = deadline
        self._connections: dict[tuple[str, int], Connection | None] = {}
        self._coordinators: dict[str, tuple[str, int]] = {}
        self.broken = False
        problems = []
        for address in brokers:
            conn = self._connect(address)
            if conn is not None:
                if not (conn.supports(FIND_COORDINATOR) and conn.supports(OFFSET_FETCH)):
                    raise WireError("the cluster does not answer FindCoordinator v4 and OffsetFetch v8")
                self._lookup = Connection(*address, client_id, deadline)  # its own: answers come in order
                return
            problems.append(f"{address[0]}:{address[1]}")
        raise WireError(f"no broker answered ({', '.join(problems)})")

    def _connect(self, address: tuple[str, int]) -> Connection | None:
        if address not in self._connections:
            try:
                self._connections[address] = Connection(*address, self._client_id, self._deadline)
            except WireError:
                self._connections[address] = None
        return self._connections[address]

    def close(self) -> None:
        for conn in [*self._connections.values(), getattr(self, "_lookup", None)]:
            if conn is not None:
                conn.close()

    def _find_coordinators(self, groups: list[str]) -> None:
        unknown = [g for g in dict.fromkeys(groups) if g not in self._coordinators]
        if not unknown:
            return
        self._lookup.send(FIND_COORDINATOR, {"keyType": 0, "coordinatorKeys": unknown})
        for c in self._lookup.receive()["coordinators"]:
            if c["errorCode"] == 0 and c["nodeId"] >= 0:
                self._coordinators[c["key"]] = (c["host"], c["port"])

    def iterate(self, next_request: Callable[[], Request | None], failed: deque[Request]) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
        """(key, group, found) for each request ``next_request`` hands out, as answers arrive,
        until it hands out None with nothing in flight. Requests that cannot be answered here
        go to ``failed``; after a connection failure (``broken``) everything not answered does."""
        in_flight: deque[tuple[Connection, list[Request]]] = deque()
        carry: list[Request] = []
        try:
            while True:
                while len(in_flight) < REQUESTS_IN_FLIGHT:
                    batch, carry = self._pull(next_request, carry)
                    if not batch:
                        break
                    self._send(batch, in_flight, failed)
                if not in_flight:
                    return
                conn, batch = in_flight[0]
                answer = conn.receive()
                in_flight.popleft()
                groups = {g["groupId"]: g for g in answer["groups"]}
                for request in batch:
                    group = groups.get(request[1])
                    found = None if group is None else found_offsets(group)
                    if found is None:
                        failed.append(request)
                    else:
                        yield request[0], request[1], found
        except WireError:
            self.broken = True
            for _, batch in in_flight:
                failed.extend(batch)
            failed.extend(carry)

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

    def _send(self, batch: list[Request], in_flight: deque[tuple[Connection, list[Request]]],
              failed: deque[Request]) -> None:
        try:
            self._find_coordinators([r[1] for r in batch])
        except WireError:
            failed.extend(batch)
            raise
        by_node: dict[tuple[str, int], list[Request]] = {}
        for request in batch:
            address = self._coordinators.get(request[1])
            if address is None:
                failed.append(request)
            else:
                by_node.setdefault(address, []).append(request)
        for address, requests in by_node.items():
            conn = self._connect(address)
            if conn is None:
                failed.extend(requests)
                continue
            try:
                conn.send(OFFSET_FETCH, {"groups": [
                    {"groupId": group, "topics": None if partitions is None else _topics(partitions)}
                    for _, group, partitions in requests], "requireStable": False})
            except WireError:
                self._connections[address] = None
                failed.extend(requests)
                continue
            in_flight.append((conn, requests))


def _topics(partitions: list[tuple[str, int]]) -> list[dict[str, Any]]:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    return [{"name": t, "partitionIndexes": ps} for t, ps in by_topic.items()]
