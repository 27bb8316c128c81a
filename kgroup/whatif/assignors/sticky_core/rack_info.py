"""``AbstractStickyAssignor.RackInfo``: the KIP-881 rack-aware bookkeeping both builders consult."""
from __future__ import annotations

from ..base import TopicPartition, TopicRacks
from ..leader import replica_racks, use_rack_aware_assignment
from .member_data import StickySubscription


class RackInfo:
    """``AbstractStickyAssignor.RackInfo``: member racks and partition replica racks."""

    def __init__(
        self,
        partitions_per_topic: dict[str, int],
        subscriptions: dict[str, StickySubscription],
        topic_racks: TopicRacks | None,
    ) -> None:
        consumers_by_rack: dict[str, list[str]] = {}
        for member_id, subscription in subscriptions.items():
            if subscription.rack:
                consumers_by_rack.setdefault(subscription.rack, []).append(member_id)

        partition_racks: dict[TopicPartition, frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumers_by_rack:
            for topic, count in partitions_per_topic.items():
                for p in range(count):
                    racks = replica_racks(topic_racks, topic, p)
                    partition_racks[(topic, p)] = racks
                    all_partition_racks.update(racks)

        if use_rack_aware_assignment(set(consumers_by_rack), all_partition_racks, partition_racks):
            self.consumer_racks: dict[str, str] = {
                c: rack for rack, members in consumers_by_rack.items() for c in members
            }
            self.partition_racks: dict[TopicPartition, frozenset[str]] = partition_racks
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        # computed from all partitions whenever some member has a rack, rack-aware or not
        rack_sizes = {rack: len(members) for rack, members in consumers_by_rack.items()}
        self.num_consumers_by_partition = {
            tp: sum(rack_sizes.get(r, 0) for r in racks) for tp, racks in partition_racks.items()
        }

    def racks_mismatch(self, consumer: str, tp: TopicPartition) -> bool:
        consumer_rack = self.consumer_racks.get(consumer)
        if consumer_rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or consumer_rack not in racks

    def sort_partitions_by_rack_consumers(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        if not self.num_consumers_by_partition:
            return partitions
        counts = self.num_consumers_by_partition
        return sorted(partitions, key=lambda tp: counts.get(tp, 0))

    def next_rack_consumer(self, tp: TopicPartition, consumers: list[str], first_index: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumers)
        consumer_racks = self.consumer_racks
        for i in range(n):
            index = (first_index + i) % n
            rack = consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1
