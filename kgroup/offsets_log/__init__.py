"""The offsets log (``__consumer_offsets``): raw records, the record layouts as data,
one generic codec, Kafka's JSON form, a group's history and time travel.

Pure: nothing here imports confluent_kafka or typer. Reading a live log is
kgroup.kafka.logreader's job; it hands back :class:`RawRecord` values.
"""
