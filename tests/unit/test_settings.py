"""Connection settings: Java properties translation, -X, precedence, refusals."""
from __future__ import annotations

import pytest

from kgroup.errors import UsageError
from kgroup.kafka.settings import ConnectionSettings, parse_properties, translate_java_config


def _build(tmp_path, text=None, bootstrap=None, x=(), env=None):
    path = None
    if text is not None:
        path = tmp_path / "client.properties"
        path.write_text(text)
    return ConnectionSettings.build(bootstrap, list(x), path, 10.0, environ=env or {})


def test_properties_syntax():
    text = ("# comment\n! other comment\n\nbootstrap.servers = a:9092,\\\n    b:9092\n"
            "client.id: my\\u0041pp\nsasl.mechanism PLAIN\nempty=\n")
    assert parse_properties(text) == {"bootstrap.servers": "a:9092,b:9092", "client.id": "myApp",
                                      "sasl.mechanism": "PLAIN", "empty": ""}


def test_sasl_plain_translation(tmp_path):
    s = _build(tmp_path, "bootstrap.servers=k1:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
                         "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                         "username=\"alice\" password=\"p@ss w0rd\";\n"
                         "ssl.truststore.type=PEM\nssl.truststore.location=/etc/ca.pem\nclient.id=oncall\n"
                         "ssl.endpoint.identification.algorithm=\n")
    assert s.properties == {"bootstrap.servers": "k1:9093", "security.protocol": "sasl_ssl",
                            "sasl.mechanisms": "PLAIN", "sasl.username": "alice", "sasl.password": "p@ss w0rd",
                            "ssl.ca.location": "/etc/ca.pem", "client.id": "oncall",
                            "ssl.endpoint.identification.algorithm": "none"}


def test_scram_translation_single_quotes():
    out = translate_java_config({
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
                            "username='bob' password='s3cr=t';"}, "f")
    assert out == {"sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "bob", "sasl.password": "s3cr=t"}


@pytest.mark.parametrize("props,needle", [
    ({"ssl.truststore.location": "/nonexistent/truststore.jks"}, "cannot read ssl.truststore.location"),
    ({"ssl.keystore.location": "/nonexistent/k.jks", "ssl.keystore.password": "x"}, "cannot read ssl.keystore.location"),
    ({"ssl.truststore.location": "/t", "ssl.truststore.type": "BKS"}, "ssl.ca.location"),
    ({"sasl.mechanism": "GSSAPI", "sasl.jaas.config":
      "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;"}, "sasl.kerberos"),
    ({"sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config":
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";"},
     "sasl.mechanism=PLAIN"),
    ({"interceptor.classes": "x.Y"}, "-X"),
    ({"security.protocol": "SASL_FOO"}, "security.protocol"),
])
def test_refusals_say_what_to_use_instead(props, needle):
    with pytest.raises(UsageError) as e:
        translate_java_config(props, "client.properties")
    assert needle in e.value.message
    assert "client.properties" in e.value.message


def test_precedence(tmp_path):
    env = {"KGROUP_BOOTSTRAP_SERVERS": "env:1"}
    assert _build(tmp_path, env=env).bootstrap == "env:1"
    assert _build(tmp_path, "bootstrap.servers=file:1\n", env=env).bootstrap == "file:1"
    assert _build(tmp_path, "bootstrap.servers=file:1\n", bootstrap="flag:1", env=env).bootstrap == "flag:1"
    s = _build(tmp_path, "client.id=a\n", bootstrap="flag:1", x=["client.id=b", "bootstrap.servers=x:1"])
    assert s.properties == {"client.id": "b", "bootstrap.servers": "x:1"}


def test_missing_bootstrap_is_usage_error(tmp_path):
    with pytest.raises(UsageError):
        _build(tmp_path).require_bootstrap()


def test_redaction(tmp_path):
    s = _build(tmp_path, x=["sasl.password=hunter2", "ssl.key.password=k3y", "client.id=visible"])
    assert s.redact("auth hunter2 failed for visible") == "auth [redacted] failed for visible"
    # k3y is shorter than 4 characters: a line holding it is masked whole, not in place
    assert s.redact("auth hunter2 failed with k3y for visible\nnext line") == \
        "[line redacted: it held a secret too short to mask in place]\nnext line"
    # never masked in place inside another word
    assert s.redact("hunter2x xk3y (hunter2) k3y.") == \
        "[line redacted: it held a secret too short to mask in place]"
    # a long secret glued into a word takes the word with it; a short one inside a word tells nothing
    assert s.redact("hunter2x xk3y (hunter2) 'hunter2'") == "[redacted] xk3y ([redacted]) '[redacted]'"
    assert "zz" not in s.redact('jaas: password="zz";')


def test_topic_ids_are_printed_as_kafka_prints_them():
    # 0xfbff... gives '+' and '/' in standard base64: Kafka's Uuid.toString uses '-' and '_'
    from confluent_kafka import Uuid

    from kgroup.kafka.answers import uuid_text

    u = Uuid(-(2**58) - 1, 0x0FBFFFFFFFFFFFFF)  # bytes fb ff ff ff ff ff ff ff 0f bf ff ff ff ff ff ff
    assert str(u) == "+/////////8Pv////////w"  # the client's own text: standard base64
    assert uuid_text(u) == "-_________8Pv________w"
