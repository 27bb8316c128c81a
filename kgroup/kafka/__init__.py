"""Everything that talks to a Kafka cluster: the only layer that imports confluent_kafka, and the
batched protocol client of kgroup's own (wire/)."""
