"""librdkafka's answers (confluent-kafka's objects) as kgroup's model (kgroup.group.model), and
the names it spells its own way (group states and types, topic ids) as Kafka spells them."""
from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterable
from typing import Any

from kgroup.group.assignment import Assignment, by_topic
from kgroup.group.model import Broker, GroupDescription, Member
from kgroup.kmsg import states


def uuid_text(uuid: Any) -> str:  # a confluent_kafka Uuid
    """A client Uuid as Kafka prints it: URL-safe base64, unpadded (the client's str() uses the
    standard alphabet, so an id holding '+' or '/' would not be the id Kafka shows)."""
    raw = struct.pack(">qq", uuid.get_most_significant_bits(), uuid.get_least_significant_bits())
    return base64.urlsafe_b64encode(raw).decode("ascii")[:22]


def description(d: Any) -> GroupDescription:  # a confluent_kafka ConsumerGroupDescription
    """A group's description as librdkafka answers it."""
    members = [Member(
        member_id=m.member_id, client_id=m.client_id or None, host=m.host or None,
        group_instance_id=m.group_instance_id or None,
        assignment=by_topic_partitions(m.assignment.topic_partitions if m.assignment else []),
        target_assignment=(by_topic_partitions(m.target_assignment.topic_partitions)
                           if getattr(m, "target_assignment", None) else None),
    ) for m in d.members]
    node = d.coordinator
    return GroupDescription(
        group_id=d.group_id, type=enum_name(getattr(d, "type", None)), state=state_name(d.state),
        assignor=d.partition_assignor or None, members=members,
        coordinator=Broker(node.id, node.host, node.port, getattr(node, "rack", None) or None) if node else None,
        protocol_type="consumer" if not d.is_simple_consumer_group else None,
    )


def by_topic_partitions(partitions: Iterable[Any]) -> Assignment:  # confluent_kafka TopicPartitions
    # a topic the broker no longer names (deleted) keys as ""
    return by_topic((tp.topic or "", tp.partition) for tp in partitions)


def state_name(state: Any) -> str | None:  # a ConsumerGroupState
    """A confluent-kafka ConsumerGroupState (PREPARING_REBALANCING, ...) in Kafka's spelling."""
    if state is None:
        return None
    name = getattr(state, "name", str(state))
    return states.BY_CLIENT_NAME.get(name, name)


def coordinator_address(stats: str | None) -> str | None:
    if not stats:
        return None
    for broker in json.loads(stats).get("brokers", {}).values():
        if broker.get("source") == "logical" and broker.get("name") == "GroupCoordinator":
            if broker.get("state") == "UP" and broker.get("nodename"):
                return str(broker["nodename"])
    return None


def enum_name(value: object) -> str | None:
    if value is None:
        return None
    name = getattr(value, "name", str(value))
    return name.lower() if name in ("CLASSIC", "CONSUMER", "UNKNOWN") else name
