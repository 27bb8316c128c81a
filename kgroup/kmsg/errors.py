"""Kafka's error codes, as its ``org.apache.kafka.common.protocol.Errors`` enum names and numbers
them: the one table of the codes kgroup reads in answers (the batched client, kgroup.kafka.wire).

librdkafka reports the same broker errors under the same numbers (``KafkaError.<NAME>``, where
``UNKNOWN_TOPIC_OR_PARTITION`` is spelled ``UNKNOWN_TOPIC_OR_PART``); its own client-side
errors are negative and are not Kafka's.
"""
from __future__ import annotations

NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
REQUEST_TIMED_OUT = 7
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
TOPIC_AUTHORIZATION_FAILED = 29
GROUP_AUTHORIZATION_FAILED = 30
CLUSTER_AUTHORIZATION_FAILED = 31
UNSUPPORTED_VERSION = 35
SASL_AUTHENTICATION_FAILED = 58
GROUP_ID_NOT_FOUND = 69

UNKNOWN_SERVER_ERROR = -1
INVALID_GROUP_ID = 24
UNKNOWN_MEMBER_ID = 25
KAFKA_STORAGE_ERROR = 56
UNKNOWN_TOPIC_ID = 100
STALE_MEMBER_EPOCH = 113
FENCED_STATE_EPOCH = 124

# the name Kafka gives each code kgroup may have to print (an answer's error, said to the user)
_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR", 3: "UNKNOWN_TOPIC_OR_PARTITION", 5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER", 7: "REQUEST_TIMED_OUT", 14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE", 16: "NOT_COORDINATOR", 24: "INVALID_GROUP_ID", 25: "UNKNOWN_MEMBER_ID",
    29: "TOPIC_AUTHORIZATION_FAILED", 30: "GROUP_AUTHORIZATION_FAILED", 31: "CLUSTER_AUTHORIZATION_FAILED",
    35: "UNSUPPORTED_VERSION", 42: "INVALID_REQUEST", 56: "KAFKA_STORAGE_ERROR", 58: "SASL_AUTHENTICATION_FAILED",
    69: "GROUP_ID_NOT_FOUND",
    100: "UNKNOWN_TOPIC_ID", 113: "STALE_MEMBER_EPOCH", 124: "FENCED_STATE_EPOCH",
}


def name(code: int) -> str:
    """Kafka's name of an error code, or the code itself for one kgroup does not name."""
    return _NAMES.get(code, f"error code {code}")
