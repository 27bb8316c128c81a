"""A small Kafka protocol client of kgroup's own, for the reads librdkafka cannot batch.

librdkafka's admin API describes groups and fetches their committed offsets one group per
request, and looks up the group's coordinator before each one. Kafka brokers answer
FindCoordinator (v4, Kafka 3.0+), ConsumerGroupDescribe, DescribeGroups and OffsetFetch (v8,
Kafka 3.0+) for many groups at once. ``list``, ``describe`` and ``offsets`` over many groups use
this client for those requests when the connection needs nothing it does not speak (see
``coordinators.eligible``); anything else, and any group whose answer librdkafka would read
differently, goes through librdkafka as before. It also describes streams groups (KIP-1071,
StreamsGroupDescribe), for which librdkafka has no call. It sends ApiVersions, FindCoordinator,
ConsumerGroupDescribe, DescribeGroups, StreamsGroupDescribe and OffsetFetch only: all reads.
"""
