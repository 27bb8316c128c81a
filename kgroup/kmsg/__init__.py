"""The Kafka protocol as data: record and message layouts walked by one codec, the ConsumerProtocol,
Kafka's error codes and group states."""
