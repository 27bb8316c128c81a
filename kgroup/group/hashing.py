"""Which ``__consumer_offsets`` partition a group id maps to, and which ``__share_group_state``
partition a share partition maps to, exactly as Kafka computes them.

Kafka: ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``, where
``String.hashCode`` runs ``h = 31*h + c`` over UTF-16 code units with 32-bit
wrap-around, and ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0.
"""
from __future__ import annotations

from kgroup.java.strings import java_string_hash

INT_MIN = -(2**31)
OFFSETS_TOPIC = "__consumer_offsets"
DEFAULT_OFFSETS_PARTITIONS = 50


def kafka_abs(n: int) -> int:
    """``org.apache.kafka.common.utils.Utils.abs``: like Math.abs, but MIN_VALUE -> 0."""
    return 0 if n == INT_MIN else abs(n)


def offsets_partition_for(group_id: str, offsets_partitions: int) -> int:
    """The ``__consumer_offsets`` partition whose leader coordinates ``group_id``."""
    if offsets_partitions <= 0:
        raise ValueError("the offsets topic must have at least one partition")
    return kafka_abs(java_string_hash(group_id)) % offsets_partitions


# --- the share coordinator (KIP-932): which __share_group_state partition holds a share partition's state

SHARE_STATE_TOPIC = "__share_group_state"
DEFAULT_SHARE_STATE_PARTITIONS = 50  # share.coordinator.state.topic.num.partitions


def canonical_topic_id(text: str) -> str:
    """A topic id as Kafka prints it (``Uuid.toString``: 22 characters of URL-safe base64, no
    padding), from text ``Uuid.fromString`` accepts (22 characters, or 24 ending in ``==``);
    ValueError otherwise."""
    import base64
    import re

    if not re.fullmatch(r"[A-Za-z0-9_-]{22}(==)?", text):
        raise ValueError(f"not a Kafka topic id (22 characters of URL-safe base64): {text!r}")
    raw = base64.urlsafe_b64decode(text[:22] + "==")
    return base64.urlsafe_b64encode(raw).decode("ascii")[:22]


def share_coordinator_key(group_id: str, topic_id: str, partition: int) -> str:
    """``SharePartitionKey.asCoordinatorKey``: ``groupId:topicId:partition`` (the topic id as
    Kafka prints it, the partition in decimal)."""
    return f"{group_id}:{canonical_topic_id(topic_id)}:{partition}"


def share_state_partition_for(group_id: str, topic_id: str, partition: int, state_partitions: int) -> int:
    """The ``__share_group_state`` partition whose leader is the share coordinator of the share
    partition (group, topic id, partition): ``Utils.abs(key.hashCode()) % numPartitions``, as
    Kafka 4.3's ShareCoordinatorService.partitionFor computes it."""
    if state_partitions <= 0:
        raise ValueError("the share-state topic must have at least one partition")
    return kafka_abs(java_string_hash(share_coordinator_key(group_id, topic_id, partition))) % state_partitions
