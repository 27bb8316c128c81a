"""kgroup.group.coordinator in-process: how many partitions __consumer_offsets is taken to have,
and where that number came from (the CLI words the warnings from these facts)."""
from __future__ import annotations

from kgroup.group.coordinator import PartitionCount, offline_survey, offsets_partition_count, snapshot_survey
from kgroup.group.metadata import ClusterMetadata, PartitionInfo, TopicInfo
from kgroup.group.model import Broker, GroupDescription, GroupState


def _metadata(partitions: int) -> ClusterMetadata:
    topic = TopicInfo("__consumer_offsets", {p: PartitionInfo(p, 1) for p in range(partitions)})
    return ClusterMetadata({1: Broker(1, "b1", 9092)}, {"__consumer_offsets": topic})


def test_metadata_then_the_given_count_then_kafkas_default():
    assert offsets_partition_count(_metadata(3), None) == PartitionCount(3, "metadata")
    assert offsets_partition_count(_metadata(3), 3) == PartitionCount(3, "metadata")
    # a count given that the metadata contradicts is ignored, and said so
    assert offsets_partition_count(_metadata(3), 7) == PartitionCount(3, "metadata", ignored=7)
    assert offsets_partition_count(None, 7) == PartitionCount(7, "option")
    assert offsets_partition_count(ClusterMetadata({}, {}), 7) == PartitionCount(7, "option")
    assert offsets_partition_count(None, None) == PartitionCount(50, "default")


def test_surveys_carry_the_count_they_used():
    # "G1".hashCode() = 'G' * 31 + '1' = 71 * 31 + 49 = 2250: partition 2250 % 50 = 0, 2250 % 12 = 6
    survey = offline_survey(["G1"], None)
    assert survey.count == PartitionCount(50, "default")
    assert [(r.offsets_partition, r.offsets_partitions, r.verdict) for r in survey.reports] == [(0, 50, "offline")]
    assert offline_survey(["G1"], 9).count == PartitionCount(9, "option")
    state = GroupState(GroupDescription("G1", coordinator=Broker(1, "b1", 9092)), {}, brokers=[Broker(1, "b1", 9092)],
                       offsets_partitions=12, offsets_partition_leader=1)
    survey = snapshot_survey(state, 30)
    assert survey.count == PartitionCount(12, "snapshot")
    assert [(r.offsets_partition, r.offsets_partitions, r.verdict) for r in survey.reports] == [(6, 12, "agree")]
