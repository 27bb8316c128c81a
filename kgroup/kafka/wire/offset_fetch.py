"""Committed offsets of many groups per request: OffsetFetch v8 (Kafka 3.0+), routed by
coordinators.py.

What the Java Admin client does for ``listConsumerGroupOffsets`` over many groups, and what
librdkafka does not (one group per request). A group whose answer carries an error (the
group's, or a partition's other than UNKNOWN_TOPIC_OR_PARTITION) is handed back to the
caller, which asks librdkafka as before, so errors read the same whichever path met them.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgroup.kafka.wire.connection import Connection
from kgroup.kafka.wire.coordinators import Node, Request
from kgroup.kmsg.errors import UNKNOWN_TOPIC_OR_PARTITION
from kgroup.kmsg.messages import OFFSET_FETCH, Api

Offsets = dict[tuple[str, int], tuple[int | None, str | None, int | None]]


def found_offsets(group: Mapping[str, Any]) -> Offsets | None:
    """{(topic, partition): (committed, metadata, leader epoch)} of one group's answer, each None
    when absent; None when the answer carries an error (the caller asks again elsewhere)."""
    if group["errorCode"]:
        return None
    found: Offsets = {}
    for topic in group["topics"]:
        name = topic["name"]
        for p in topic["partitions"]:
            error = p["errorCode"]
            if error and error != UNKNOWN_TOPIC_OR_PARTITION:
                return None
            # as the cluster reads librdkafka's answer: metadata only with a commit, -1 is none
            committed = p["committedOffset"] if p["committedOffset"] >= 0 and not error else None
            epoch = p["committedLeaderEpoch"]
            found[(name, p["partitionIndex"])] = (committed, None if committed is None else p["metadata"],
                                                  epoch if epoch >= 0 else None)
    return found


class OffsetFetch:
    """The Exchange asking committed offsets; a request's third item is its partitions as
    (topic, partition) pairs, or None for every committed one."""

    def speaks(self, conn: Connection) -> bool:
        return conn.supports(OFFSET_FETCH)

    def request(self, conn: Connection, requests: list[Request]) -> tuple[Api, dict[str, Any]]:
        return OFFSET_FETCH, {"groups": [
            {"groupId": group, "topics": None if partitions is None else _topics(partitions)}
            for _, group, partitions in requests], "requireStable": False}

    def read(self, api: Api, answer: dict[str, Any], requests: list[Request], node: Node
             ) -> tuple[list[tuple[Request, Any]], list[Request], None]:
        groups = {g["groupId"]: g for g in answer["groups"]}
        done, failed = [], []
        for request in requests:
            group = groups.get(request[1])
            found = None if group is None else found_offsets(group)
            if found is None:
                failed.append(request)
            else:
                done.append((request, found))
        return done, failed, None


def _topics(partitions: list[tuple[str, int]]) -> list[dict[str, Any]]:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    return [{"name": t, "partitionIndexes": ps} for t, ps in by_topic.items()]
