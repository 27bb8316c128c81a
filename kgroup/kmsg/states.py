"""Group states, as Kafka names them (``GroupState`` / ``ConsumerGroupState``): the one table.

Every module that names a state takes it from here: the cluster reads (librdkafka's enum names
turned into Kafka's), the batched client's describe (the states librdkafka reports), the group
documents' notes, time travel, and ``list --state`` with its shell completions.
"""
from __future__ import annotations

STABLE = "Stable"
EMPTY = "Empty"
PREPARING_REBALANCE = "PreparingRebalance"
COMPLETING_REBALANCE = "CompletingRebalance"
ASSIGNING = "Assigning"  # KIP-848 consumer groups
RECONCILING = "Reconciling"  # KIP-848 consumer groups
DEAD = "Dead"
UNKNOWN = "Unknown"  # also a share group's state (ShareGroupState.UNKNOWN)
NOT_READY = "NotReady"  # streams groups (KIP-1071): its topology not yet configured

# every state, in the order ``list --state`` names them
ALL = (STABLE, EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, ASSIGNING, RECONCILING, NOT_READY, DEAD, UNKNOWN)
# the states in which a group's assignments are in flux
REBALANCING = (PREPARING_REBALANCE, COMPLETING_REBALANCE, ASSIGNING, RECONCILING)
# the states librdkafka reports (rd_kafka_consumer_group_state_names, in its order); any other
# state a broker sends it reports as Unknown
LIBRDKAFKA = (UNKNOWN, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD, EMPTY)
# confluent-kafka's ConsumerGroupState names (PREPARING_REBALANCING, ...) -> Kafka's
BY_CLIENT_NAME = {"STABLE": STABLE, "EMPTY": EMPTY, "DEAD": DEAD, "PREPARING_REBALANCING": PREPARING_REBALANCE,
                  "COMPLETING_REBALANCING": COMPLETING_REBALANCE, "ASSIGNING": ASSIGNING,
                  "RECONCILING": RECONCILING, "UNKNOWN": UNKNOWN}
