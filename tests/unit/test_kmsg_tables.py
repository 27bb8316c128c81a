"""kgroup.kmsg's tables of Kafka error codes and group states, against librdkafka's own tables
(confluent_kafka.KafkaError's numbers, ConsumerGroupState's enum), which are written apart from
kgroup's."""
from confluent_kafka import ConsumerGroupState, KafkaError

from kgroup.kmsg import errors, states


def test_error_codes_are_kafkas_numbers():
    table = {name: code for name, code in vars(errors).items() if name.isupper() and isinstance(code, int)}
    assert table == {"NONE": 0, "UNKNOWN_TOPIC_OR_PARTITION": 3, "REQUEST_TIMED_OUT": 7,
                     "COORDINATOR_LOAD_IN_PROGRESS": 14, "COORDINATOR_NOT_AVAILABLE": 15, "NOT_COORDINATOR": 16,
                     "TOPIC_AUTHORIZATION_FAILED": 29, "GROUP_AUTHORIZATION_FAILED": 30,
                     "CLUSTER_AUTHORIZATION_FAILED": 31, "UNSUPPORTED_VERSION": 35,
                     "SASL_AUTHENTICATION_FAILED": 58, "GROUP_ID_NOT_FOUND": 69, "UNKNOWN_SERVER_ERROR": -1,
                     "INVALID_GROUP_ID": 24, "UNKNOWN_MEMBER_ID": 25, "KAFKA_STORAGE_ERROR": 56, "UNKNOWN_TOPIC_ID": 100,
                     "STALE_MEMBER_EPOCH": 113, "FENCED_STATE_EPOCH": 124}
    # librdkafka numbers broker errors as Kafka does (two names spelled differently, NONE as NO_ERROR)
    spelled = {"UNKNOWN_TOPIC_OR_PARTITION": "UNKNOWN_TOPIC_OR_PART", "NONE": "NO_ERROR",
               "UNKNOWN_SERVER_ERROR": "UNKNOWN"}
    for name, code in table.items():
        assert getattr(KafkaError, spelled.get(name, name)) == code, name
    # and each code kgroup names, by Kafka's name
    assert all(errors.name(code) == name for name, code in table.items() if name != "NONE")
    assert errors.name(9999) == "error code 9999"


def test_group_states():
    assert states.ALL == ("Stable", "Empty", "PreparingRebalance", "CompletingRebalance", "Assigning",
                          "Reconciling", "NotReady", "Dead", "Unknown")
    assert set(states.REBALANCING) == {"PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"}
    # NotReady is a streams group's (StreamsGroupState), which ListGroups v5 names and librdkafka does not
    assert set(states.BY_CLIENT_NAME.values()) == set(states.ALL) - {"NotReady"}


def test_librdkafka_states_in_its_enum_order():
    # ConsumerGroupState numbers librdkafka's states; its names read through the table are, in
    # that order, the states librdkafka reports
    by_number = sorted({s.value: s.name for s in ConsumerGroupState}.items())
    assert tuple(states.BY_CLIENT_NAME[name] for _, name in by_number) == states.LIBRDKAFKA
    assert states.LIBRDKAFKA == ("Unknown", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty")
