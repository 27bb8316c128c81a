"""A small Kafka protocol client of kgroup's own, for the one read that librdkafka cannot batch.

librdkafka's admin API fetches the committed offsets of one group per request, and looks up
the group's coordinator before each one. Kafka 3.0+ brokers answer FindCoordinator for many
groups at once (v4) and OffsetFetch for many groups at once (v8). ``offsets`` over many groups
uses this client for those two requests when the connection needs nothing it does not speak
(see ``eligible``); anything else, and any group whose answer carries an error, goes through
librdkafka as before. It sends ApiVersions, FindCoordinator and OffsetFetch only: all reads.
"""
