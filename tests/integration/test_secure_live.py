"""kgroup's own client over TLS and SASL, against the test front (Kafka's own TLS and SASL server
code from the kafka-clients jar) before Tansu: the batched reads answer through it with SCRAM,
PLAIN, OAUTHBEARER (OIDC), over SASL_SSL and SASL_PLAINTEXT, and over mTLS with PEM, JKS and PKCS12
stores from a Java --command-config; the answers are what was committed, and -v says which client
answered. The failures are in test_secure_failures_live.py."""
from __future__ import annotations

import json

import pytest
from conftest import front_certs, front_mtls, front_sasl_plaintext, front_sasl_ssl, run_kgroup  # noqa: F401

pytestmark = [pytest.mark.broker, pytest.mark.java]

GROUPS = 12  # at least routing.BATCHED_FROM: the batched path
TOPICS = {"A": 2}


def committed(g: int) -> dict[tuple[str, int], int]:
    """What group g commits (and so what every read must show)."""
    return {("A", 0): g % 5, ("A", 1): 1 + g % 2}


def seed_front(front) -> None:
    """Topics, records and GROUPS groups' commits, written through the front (Tansu advertises it)."""
    import seed
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    conf = {k: v for k, v in front.client_config().items() if k != "bootstrap.servers"}
    seed.create_topics(front.bootstrap, TOPICS, conf=conf)
    seed.produce(front.bootstrap, TOPICS, count=lambda t, p: 5, conf=conf)
    admin = AdminClient(front.client_config())
    futures = []
    for g in range(GROUPS):
        tps = [TopicPartition(t, p, o) for (t, p), o in committed(g).items()]
        futures += admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(f"s{g:02d}", tps)]).values()
    for f in futures:
        f.result(timeout=30)


@pytest.fixture(scope="module")
def sasl_ssl(front_sasl_ssl):
    seed_front(front_sasl_ssl)
    return front_sasl_ssl


@pytest.fixture(scope="module")
def sasl_plaintext(front_sasl_plaintext):
    seed_front(front_sasl_plaintext)
    return front_sasl_plaintext


@pytest.fixture(scope="module")
def mtls(front_mtls):
    seed_front(front_mtls)
    return front_mtls


def x_options(conf: dict[str, str]) -> list[str]:
    return [a for k, v in conf.items() if k != "bootstrap.servers" for a in ("-X", f"{k}={v}")]


def offsets(bootstrap: str, *args: str):
    r = run_kgroup("offsets", "--all-groups", "-b", bootstrap, "-o", "json", "-v", "--timeout", "30", *args)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = {(g["group"], p["topic"], p["partition"]): p["committed"]
            for g in json.loads(r.stdout)["groups"] for p in g["partitions"]}
    return rows, r.stderr


def assert_committed(rows) -> None:
    assert rows == {(f"s{g:02d}", t, p): o for g in range(GROUPS) for (t, p), o in committed(g).items()}


def batched_line(stderr: str, question: str) -> str:
    (line,) = [x for x in stderr.splitlines() if x.startswith(f"kgroup: {question}")]
    return line


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER"])
def test_offsets_over_sasl_ssl_through_the_own_client(sasl_ssl, mechanism):
    conf = sasl_ssl.client_config(mechanism)
    rows, err = offsets(sasl_ssl.bootstrap, *x_options(conf))
    assert_committed(rows)
    assert batched_line(err, f"committed offsets of {GROUPS} groups") == (
        f"kgroup: committed offsets of {GROUPS} groups: kgroup's batched client, many groups per request, "
        f"SASL {mechanism} over TLS")
    for secret in (*sasl_ssl.users.values(), *sasl_ssl.oauth.clients.values()):
        assert secret not in err
    if mechanism == "OAUTHBEARER":
        # both clients fetched tokens from the endpoint: librdkafka's (metadata, list) and kgroup's own
        assert sasl_ssl.oauth.requests >= 2


def test_describe_and_list_over_sasl_ssl_through_the_own_client(sasl_ssl):
    x = x_options(sasl_ssl.client_config("SCRAM-SHA-512"))
    groups = [f"s{g:02d}" for g in range(GROUPS)]
    r = run_kgroup("describe", *groups, "-b", sasl_ssl.bootstrap, "-o", "json", "-v", "--timeout", "30", *x)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "kgroup's batched client, many groups per request, SASL SCRAM-SHA-512 over TLS" in \
        batched_line(r.stderr, f"describe of {GROUPS} groups")
    described = json.loads(r.stdout)
    found = described["groups"] if isinstance(described, dict) and "groups" in described else described
    assert sorted(d["group"] for d in found) == groups
    r = run_kgroup("list", "-b", sasl_ssl.bootstrap, "-o", "json", "-v", "--timeout", "30", *x)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "kgroup's batched client, many groups per request, SASL SCRAM-SHA-512 over TLS" in \
        batched_line(r.stderr, f"describe of {GROUPS} groups")
    listed = json.loads(r.stdout)
    rows = listed["groups"] if isinstance(listed, dict) else listed
    assert sorted(g["group"] for g in rows) == groups


def test_offsets_over_sasl_plaintext_through_the_own_client(sasl_plaintext):
    rows, err = offsets(sasl_plaintext.bootstrap, *x_options(sasl_plaintext.client_config("SCRAM-SHA-256")))
    assert_committed(rows)
    assert batched_line(err, f"committed offsets of {GROUPS} groups").endswith(
        "many groups per request, SASL SCRAM-SHA-256 over plaintext")


def _java_config(tmp_path, front, **props: str) -> str:
    path = tmp_path / "client.properties"
    lines = [f"bootstrap.servers={front.bootstrap}", f"security.protocol={front.security_protocol}",
             *(f"{k}={v}" for k, v in props.items())]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("stores", ["pem", "jks", "pkcs12"])
def test_offsets_over_mtls_with_the_stores_of_a_java_config(mtls, tmp_path, stores):
    c = mtls.certs
    if stores == "pem":
        args = [*x_options(mtls.client_config())]
    else:
        kind, trust, keys = (("JKS", c.truststore_jks, c.keystore_jks) if stores == "jks"
                             else ("PKCS12", c.truststore_p12, c.keystore_p12))
        args = ["--command-config", _java_config(
            tmp_path, mtls, **{"ssl.truststore.location": str(trust), "ssl.truststore.type": kind,
                               "ssl.truststore.password": c.password, "ssl.keystore.location": str(keys),
                               "ssl.keystore.type": kind, "ssl.keystore.password": c.password,
                               "ssl.key.password": c.password})]
    rows, err = offsets(mtls.bootstrap, *args)
    assert_committed(rows)
    assert batched_line(err, f"committed offsets of {GROUPS} groups").endswith(
        "many groups per request, TLS")
    assert c.password not in err


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_sasl_ssl_with_a_java_truststore_and_scram_from_a_java_config(sasl_ssl, tmp_path, kind):
    c = sasl_ssl.certs
    user, password = next(iter(sasl_ssl.users.items()))
    config = _java_config(tmp_path, sasl_ssl, **{
        "ssl.truststore.location": str(c.truststore_jks if kind == "JKS" else c.truststore_p12),
        "ssl.truststore.type": kind, "ssl.truststore.password": c.password, "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": f'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            f'username="{user}" password="{password}";'})
    rows, err = offsets(sasl_ssl.bootstrap, "--command-config", config)
    assert_committed(rows)
    assert batched_line(err, f"committed offsets of {GROUPS} groups").endswith("SASL SCRAM-SHA-512 over TLS")
    assert password not in err


def test_oidc_from_a_java_config(sasl_ssl, tmp_path):
    client_id, secret = next(iter(sasl_ssl.oauth.clients.items()))
    config = _java_config(tmp_path, sasl_ssl, **{
        "ssl.truststore.type": "PEM", "ssl.truststore.location": str(sasl_ssl.certs.ca_pem),
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.token.endpoint.url": sasl_ssl.oauth.url,
        "sasl.login.callback.handler.class":
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                            f'clientId="{client_id}" clientSecret="{secret}" scope="kafka" extension_team="ops";'})
    # the token endpoint's CA: Java would use the JVM's truststore; kgroup takes https.ca.location
    rows, err = offsets(sasl_ssl.bootstrap, "--command-config", config, "-X", f"https.ca.location={sasl_ssl.certs.ca_pem}")
    assert_committed(rows)
    assert batched_line(err, f"committed offsets of {GROUPS} groups").endswith("SASL OAUTHBEARER over TLS")
    assert secret not in err


def _matrix_args(case: str, front, tmp_path) -> list[str]:
    """The connection options of each case of the matrix below."""
    c = front.certs
    if case in ("SCRAM-SHA-256", "PLAIN"):
        return x_options(front.client_config(case))
    if case == "SASL_PLAINTEXT":
        return x_options(front.client_config("SCRAM-SHA-512"))
    if case == "OIDC":
        client_id, secret = next(iter(front.oauth.clients.items()))
        return ["--command-config", _java_config(tmp_path, front, **{
            "ssl.truststore.type": "PEM", "ssl.truststore.location": str(c.ca_pem), "sasl.mechanism": "OAUTHBEARER",
            "sasl.oauthbearer.token.endpoint.url": front.oauth.url,
            "sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                                f'clientId="{client_id}" clientSecret="{secret}" scope="kafka";'}),
                "-X", f"https.ca.location={c.ca_pem}"]
    assert case == "mTLS"
    return ["--command-config", _java_config(tmp_path, front, **{
        "ssl.truststore.type": "PEM", "ssl.truststore.location": str(c.ca_pem), "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": str(c.keystore_p12), "ssl.keystore.password": c.password,
        "ssl.key.password": c.password})]


MATRIX = {  # case: (the fixture of its front, how -v names the connection)
    "SCRAM-SHA-256": ("sasl_ssl", "SASL SCRAM-SHA-256 over TLS"),
    "PLAIN": ("sasl_ssl", "SASL PLAIN over TLS"),
    "OIDC": ("sasl_ssl", "SASL OAUTHBEARER over TLS"),
    "SASL_PLAINTEXT": ("sasl_plaintext", "SASL SCRAM-SHA-512 over plaintext"),
    "mTLS": ("mtls", "TLS"),
}


@pytest.mark.parametrize("case", list(MATRIX))
def test_offsets_all_groups_and_describe_over_each_security(request, tmp_path, case):
    """offsets --all-groups and describe --all-groups through kgroup's batched client for each
    way in: the committed offsets, every group (Empty: commits, no member), no secret."""
    fixture, named = MATRIX[case]
    front = request.getfixturevalue(fixture)
    args = _matrix_args(case, front, tmp_path)
    secrets = [*front.users.values(), front.certs.password, *(front.oauth.clients.values() if front.oauth else ())]
    rows, err = offsets(front.bootstrap, *args)
    assert_committed(rows)
    assert batched_line(err, f"committed offsets of {GROUPS} groups").endswith(f"many groups per request, {named}")
    r = run_kgroup("describe", "--all-groups", "-b", front.bootstrap, "-o", "json", "-v", "--timeout", "30", *args)
    assert r.returncode == 0, r.stderr[-3000:]
    assert batched_line(r.stderr, f"describe of {GROUPS} groups").endswith(f"many groups per request, {named}")
    assert sorted((g["group"], g["state"]) for g in json.loads(r.stdout)["groups"]) == [
        (f"s{g:02d}", "Empty") for g in range(GROUPS)]
    for secret in secrets:
        assert secret not in err + r.stdout + r.stderr
