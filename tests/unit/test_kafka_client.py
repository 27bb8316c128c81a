"""kgroup.kafka.client: what a client error means for the command (exit code and the one line the
user reads), on KafkaErrors made by hand; and -X kgroup.batched, kgroup's own property."""
import io
import logging

import pytest
from confluent_kafka import KafkaError, KafkaException

from kgroup.errors import (ClusterError, CoordinatorNotAvailable, ExitCode, NotAuthorized, NotSupported, UnknownGroup,
                           Unreachable, UsageError)
from kgroup.kafka.client import Client, classify, final_error
from kgroup.kafka.settings import ConnectionSettings

B = "broker-1:9092"


def _settings(timeout=10.0, **props):
    return ConnectionSettings({"bootstrap.servers": B, **props}, timeout=timeout)


def E(code, reason=None):
    return KafkaError(code, reason) if reason is not None else KafkaError(code)


REFUSED = E(KafkaError._TRANSPORT, f"{B}/bootstrap: Connect to ipv4#10.0.0.1:9092 failed: Connection refused")
DOWN = E(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down")


# -- classify: unreachable, timed out ---------------------------------------------------

def test_timed_out_without_client_errors_names_the_timeout():
    e = classify(_settings(timeout=2.5), "list groups", E(KafkaError._TIMED_OUT))
    assert type(e) is Unreachable and isinstance(e, ClusterError) and e.exit_code == ExitCode.CLUSTER == 3
    assert e.message == ("cannot reach the cluster at broker-1:9092 within 2.5 s while trying to list groups "
                         "(Local: Timed out)")


def test_the_clients_own_newest_error_says_why_better_than_the_timeout():
    e = classify(_settings(), "read cluster metadata", KafkaException(E(KafkaError._TIMED_OUT)), [REFUSED, DOWN])
    assert e.message == ("cannot reach the cluster at broker-1:9092 within 10 s while trying to read cluster "
                         "metadata (1/1 brokers are down)")


def test_no_error_at_all_is_no_answer():
    e = classify(_settings(), "find the end of __consumer_offsets partitions [3]")
    assert e.message.endswith("while trying to find the end of __consumer_offsets partitions [3] (no answer)")
    # an exception that carries no KafkaError is no answer either
    assert classify(_settings(), "x", RuntimeError("boom")).message.endswith("(no answer)")


def test_resolve_failure_met_at_the_end_is_unreachable():
    e = classify(_settings(), "list offsets", E(KafkaError._RESOLVE, "broker-1:9092: Failed to resolve"))
    assert e.message == ("cannot reach the cluster at broker-1:9092 within 10 s while trying to list offsets "
                         "(broker-1:9092: Failed to resolve)")


# -- classify: authentication, authorization -------------------------------------------

@pytest.mark.parametrize("code", [KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED,
                                  KafkaError.CLUSTER_AUTHORIZATION_FAILED, KafkaError.TOPIC_AUTHORIZATION_FAILED,
                                  KafkaError.GROUP_AUTHORIZATION_FAILED, KafkaError._SSL])
def test_authorization_and_authentication_failures(code):
    e = classify(_settings(), "list groups", E(code, "refused"))
    assert type(e) is NotAuthorized and isinstance(e, ClusterError) and e.exit_code == 3
    assert e.message == "not authorized or authentication failed: could not list groups (refused)"


def test_an_authorization_failure_among_the_clients_errors_wins_over_the_timeout():
    errors = [E(KafkaError._AUTHENTICATION, "first login failed"), DOWN,
              E(KafkaError._AUTHENTICATION, "second login failed"), REFUSED]
    newest = classify(_settings(), "describe the cluster", E(KafkaError._TIMED_OUT), errors)
    assert newest.message == ("not authorized or authentication failed: could not describe the cluster "
                              "(second login failed)")
    # the offsets-log reader names the first one its consumer met
    oldest = classify(_settings(), "read __consumer_offsets-0", E(KafkaError._TIMED_OUT), errors, oldest_reason=True)
    assert oldest.message == ("not authorized or authentication failed: could not read __consumer_offsets-0 "
                              "(first login failed)")


def test_an_authorization_failure_only_in_the_final_error():
    final = E(KafkaError.TOPIC_AUTHORIZATION_FAILED, "Broker: Topic authorization failed")
    # the client's newest error is the reason shown; the final error makes it "not authorized"
    e = classify(_settings(), "list offsets", final, [DOWN])
    assert e.message == "not authorized or authentication failed: could not list offsets (1/1 brokers are down)"
    e = classify(_settings(), "list offsets", final, [DOWN], oldest_reason=True)
    assert e.message == ("not authorized or authentication failed: could not list offsets "
                         "(Broker: Topic authorization failed)")


def test_secrets_are_redacted():
    s = ConnectionSettings({"bootstrap.servers": B, "sasl.password": "hunter2-secret"}, secrets=["hunter2-secret"])
    e = classify(s, "list groups", E(KafkaError._AUTHENTICATION, "login as bob with hunter2-secret failed"))
    assert "hunter2" not in e.message and "[redacted]" in e.message


# -- classify: group errors -------------------------------------------------------------

def test_group_errors():
    s = _settings()
    e = classify(s, "describe", KafkaException(E(KafkaError.GROUP_AUTHORIZATION_FAILED)), group="G1")
    assert type(e) is NotAuthorized
    assert e.message == "not authorized to describe group G1 (this principal needs DESCRIBE on it)"
    e = classify(s, "fetch the committed offsets of", E(KafkaError.COORDINATOR_NOT_AVAILABLE), group="G1")
    assert type(e) is CoordinatorNotAvailable and isinstance(e, ClusterError)
    assert e.message == ("cannot fetch the committed offsets of group G1: COORDINATOR_NOT_AVAILABLE (offsets topic "
                         "not created yet, or its partition for this group has no live leader; see kgroup "
                         "find-coordinator)")
    e = classify(s, "describe", E(KafkaError._UNSUPPORTED_FEATURE), group="G1")
    assert type(e) is NotSupported and e.exit_code == 3
    assert e.message == ("cannot describe group G1: the cluster supports neither ConsumerGroupDescribe nor "
                         "DescribeGroups")
    e = classify(s, "describe", KafkaException(E(KafkaError.GROUP_ID_NOT_FOUND)), group="G1")
    assert type(e) is UnknownGroup and isinstance(e, UsageError) and e.exit_code == ExitCode.USAGE == 2
    assert e.message == "unknown group G1"


def test_other_group_errors_read_as_the_cluster_errors_do():
    e = classify(_settings(), "describe", E(KafkaError._TIMED_OUT), [DOWN], group="G1")
    assert e.message == ("cannot reach the cluster at broker-1:9092 within 10 s while trying to describe group G1 "
                         "(1/1 brokers are down)")
    e = classify(_settings(), "describe", E(KafkaError._TIMED_OUT), [E(KafkaError.SASL_AUTHENTICATION_FAILED, "no")],
                 group="G1")
    assert e.message == "not authorized or authentication failed: could not describe group G1 (no)"


# -- final_error: what need not wait out --timeout --------------------------------------

def test_final_authentication_failure_even_after_an_answer():
    e = final_error(_settings(), "list groups", [DOWN, E(KafkaError.SASL_AUTHENTICATION_FAILED, "bad password")],
                    0, answered=True)
    assert type(e) is NotAuthorized and e.message == "authentication failed: could not list groups (bad password)"


def test_refused_or_unresolved_with_every_broker_down_is_final_before_any_answer():
    e = final_error(_settings(), "read cluster metadata", [REFUSED, DOWN], 0, answered=False)
    assert e.message == ("cannot reach the cluster at broker-1:9092 while trying to read cluster metadata "
                         f"({REFUSED.str()})")
    resolve = E(KafkaError._RESOLVE, "broker-1:9092/bootstrap: Failed to resolve 'broker-1:9092'")
    e = final_error(_settings(), "list groups", [resolve, DOWN], 0, answered=False)
    assert e.message == f"cannot reach the cluster at broker-1:9092 while trying to list groups ({resolve.str()})"


def test_what_waits():
    # a broker answered: a refusal now is a broker restarting, the client reconnects
    assert final_error(_settings(), "x", [REFUSED, DOWN], 0, answered=True) is None
    # refused, but not every broker down (yet)
    assert final_error(_settings(), "x", [REFUSED], 0, answered=False) is None
    # a dropped connection is reconnected: not final
    dropped = E(KafkaError._TRANSPORT, f"{B}/1: Disconnected (after 1502ms in state UP)")
    assert final_error(_settings(), "x", [dropped, DOWN], 0, answered=False) is None
    # fewer than five connections closed at once
    assert final_error(_settings(), "x", [], 4, answered=False) is None


def test_connections_closed_at_once_plaintext():
    e = final_error(_settings(), "list groups", [], 5, answered=False)
    assert e.message == ("cannot list groups: the broker at broker-1:9092 closed 5 connections as soon as they were "
                         "open: it probably requires authentication (SASL) or TLS, and none was configured "
                         "(-X security.protocol=SASL_PLAINTEXT|SASL_SSL|SSL with -X sasl.mechanisms, -X "
                         "sasl.username, -X sasl.password, or --command-config)")


def test_connections_closed_at_once_sasl():
    e = final_error(_settings(**{"security.protocol": "sasl_plaintext"}), "list groups", [], 7, answered=False)
    assert e.message == ("cannot list groups: the broker at broker-1:9092 closed 7 connections as soon as they were "
                         "open (security.protocol=SASL_PLAINTEXT): check sasl.mechanisms and the credentials")


# -- Client: the set-up every client shares -----------------------------------------------

def test_client_config_order_and_counting(capsys):
    s = ConnectionSettings({"bootstrap.servers": B, "fetch.wait.max.ms": "5", "client.id": "me"}, timeout=0.2)
    client = Client(s, "kgroup.test.client")
    try:
        conf = client.config({"fetch.wait.max.ms": 100, "check.crcs": "false"}, **{"client.id": "forced"})
        # librdkafka's connection set-up floor, defaults under the user's properties, forced ones over them
        assert conf["socket.connection.setup.timeout.ms"] == 1000
        assert conf["fetch.wait.max.ms"] == "5" and conf["check.crcs"] == "false" and conf["client.id"] == "forced"
        assert conf["logger"] is client.logger
        conf["error_cb"](REFUSED)
        assert client.errors == [REFUSED]
        for message in ("Disconnected (after 0ms in state APIVERSION_QUERY)", "Disconnected (after 3ms in state UP)",
                        "Disconnected (after 0ms in state APIVERSION_QUERY)"):
            client.logger.info(message)
        assert client.closed_at_once == 2
        assert capsys.readouterr().err == ""  # not verbose: nothing printed
    finally:
        client.close()
    assert client.logger.handlers == []


def test_client_logs_on_verbose_redacted_and_escaped(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    s = ConnectionSettings({"bootstrap.servers": B}, verbose=True, secrets=["s3cr3t-pw"])
    client = Client(s, "kgroup.test.verbose")
    try:
        client.logger.log(logging.DEBUG, "FAIL with s3cr3t-pw at \x1b[31mhost")
    finally:
        client.close()
    assert err.getvalue().startswith("librdkafka: FAIL with [redacted] at ")
    assert "\x1b" not in err.getvalue()


# -- -X kgroup.batched ---------------------------------------------------------------------

def test_batched_switch_is_kgroups_and_never_reaches_librdkafka():
    on = ConnectionSettings.build(B, [], None, 5.0)
    assert on.batched is True and "kgroup.batched" not in on.properties
    off = ConnectionSettings.build(B, ["kgroup.batched=FALSE", "client.id=x"], None, 5.0)
    assert off.batched is False and off.properties == {"bootstrap.servers": B, "client.id": "x"}
    assert ConnectionSettings.build(B, ["kgroup.batched=true"], None, 5.0).batched is True
    with pytest.raises(UsageError, match=r"^-X kgroup.batched takes true or false$"):
        ConnectionSettings.build(B, ["kgroup.batched=no"], None, 5.0)


# -- readonly_consumer: the one consumer kgroup makes --------------------------------------

def test_readonly_consumer_forces_read_only_over_the_users_properties(monkeypatch):
    import uuid

    import kgroup.kafka.client as client_module
    from kgroup.kafka.client import READ_ONLY, readonly_consumer

    made = []
    monkeypatch.setattr(client_module, "Consumer", lambda conf: made.append(conf) or "consumer")
    monkeypatch.setattr(uuid, "uuid4", lambda: "fixed")
    client = Client(_settings(**{"enable.auto.commit": "true", "group.id": "G", "fetch.wait.max.ms": "7"}), "t")
    assert readonly_consumer(client, {"fetch.wait.max.ms": 100}, **{"check.crcs": "false"}) == "consumer"
    conf = made[0]
    assert {k: conf[k] for k in READ_ONLY} == READ_ONLY and conf["enable.auto.commit"] == "false"
    assert conf["group.id"] == "kgroup-readonly-fixed" and conf["enable.partition.eof"] == "true"
    assert conf["fetch.wait.max.ms"] == "7" and conf["check.crcs"] == "false"  # defaults give way, extra not
    with pytest.raises(TypeError):  # nothing may name what READ_ONLY forces
        readonly_consumer(client, **{"enable.auto.commit": "true"})


def test_readonly_consumer_refused_configuration_is_a_usage_error():
    from kgroup.kafka.client import readonly_consumer

    client = Client(_settings(**{"fetch.wait.max.ms": "not a number"}), "t")
    with pytest.raises(UsageError) as e:
        readonly_consumer(client)
    assert e.value.exit_code == ExitCode.USAGE and e.value.message.startswith("invalid client configuration: ")
