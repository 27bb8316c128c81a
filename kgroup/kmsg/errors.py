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

