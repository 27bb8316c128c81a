"""What fails over TLS and SASL fails as one `kgroup:` line naming the cause, exit 3 (2 for a bad
configuration), well within --timeout, no secret in any output: against the test front (Kafka's
own TLS and SASL server code) before Tansu. Through the CLI, where librdkafka meets the failure
first, and through kgroup's own client directly (its Connection), which maps the same causes to
the same types. And KIP-368: the own client logs in again on the same connection before the
session the front grants ends, over many lifetimes."""
from __future__ import annotations

import time

import pytest
from conftest import front_certs, front_sasl_ssl, run_kgroup  # noqa: F401

from kgroup.errors import (AuthenticationFailed, TlsFailed, TokenUnavailable, UsageError,
                           WrongSecurityProtocol)

pytestmark = [pytest.mark.broker, pytest.mark.java]

TIMEOUT = 20
WELL_WITHIN = 8  # seconds: the cause is found, not waited out
WRONG = "Wrong-Passw0rd-4711"


def x_options(conf: dict[str, str]) -> list[str]:
    return [a for k, v in conf.items() if k != "bootstrap.servers" for a in ("-X", f"{k}={v}")]


def fails(front, conf: dict[str, str], code: int, *needles: str, secrets: tuple[str, ...] = ()) -> str:
    start = time.monotonic()
    r = run_kgroup("offsets", "--all-groups", "-b", front.bootstrap, "--timeout", str(TIMEOUT), *x_options(conf))
    took = time.monotonic() - start
    assert r.returncode == code, r.stderr
    assert took < WELL_WITHIN, (took, r.stderr)
    (line,) = r.stderr.splitlines()
    assert line.startswith("kgroup: error: "), line
    for needle in needles:
        assert needle in line, line
    for secret in (WRONG, *secrets):
        assert secret not in r.stdout + r.stderr
    return line


@pytest.fixture(scope="module")
def bad_fronts(tmp_path_factory, front_certs):
    from kafkafront import start_front

    fronts, stops = {}, []
    try:
        for cert in ("other-name", "expired"):
            front, stop = start_front(tmp_path_factory.mktemp(cert), protocol="SASL_SSL", server_cert=cert,
                                      mechanisms=("SCRAM-SHA-512",), certs=front_certs)
            fronts[cert] = front
            stops.append(stop)
        yield fronts
    finally:
        for stop in stops:
            stop()


@pytest.mark.parametrize("mechanism, change, said", [
    ("SCRAM-SHA-512", {"sasl.password": WRONG}, "invalid credentials with SASL mechanism SCRAM-SHA-512"),
    ("SCRAM-SHA-256", {"sasl.username": "nobody", "sasl.password": WRONG}, "invalid credentials"),
    ("PLAIN", {"sasl.password": WRONG}, "Invalid username or password"),
])
def test_a_refused_login_says_authentication_failed(front_sasl_ssl, mechanism, change, said):
    conf = {**front_sasl_ssl.client_config(mechanism), **change}
    fails(front_sasl_ssl, conf, 3, "authentication failed", said, secrets=tuple(front_sasl_ssl.users.values()))


def test_wrong_ca_names_the_cause(front_sasl_ssl):
    conf = {**front_sasl_ssl.client_config("SCRAM-SHA-512"), "ssl.ca.location": str(front_sasl_ssl.certs.other_ca_pem)}
    fails(front_sasl_ssl, conf, 3, "not signed by a trusted CA", "ssl.ca.location")


def test_plaintext_against_the_tls_listener_says_it_wants_tls(front_sasl_ssl):
    conf = {**front_sasl_ssl.client_config("SCRAM-SHA-512"), "security.protocol": "SASL_PLAINTEXT"}
    fails(front_sasl_ssl, conf, 3, "is a TLS listener", "SASL_SSL")


def test_hostname_mismatch_names_the_cause(bad_fronts):
    front = bad_fronts["other-name"]
    fails(front, front.client_config(), 3, "its certificate is for another", "ssl.endpoint.identification.algorithm")


def test_expired_certificate_names_the_cause(bad_fronts):
    front = bad_fronts["expired"]
    fails(front, front.client_config(), 3, "its certificate has expired")


def test_hostname_verification_off_connects_to_the_other_name(bad_fronts):
    front = bad_fronts["other-name"]
    r = run_kgroup("offsets", "--all-groups", "-b", front.bootstrap, "--timeout", str(TIMEOUT), "-o", "json",
                   *x_options({**front.client_config(), "ssl.endpoint.identification.algorithm": "none"}))
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("mode, said", [
    ("unavailable", "refused to issue a token (HTTP 503"),
    ("garbage", "answered no access token"),
    ("no-token", "answered no access token"),
])
def test_a_token_endpoint_that_fails_says_so(front_sasl_ssl, mode, said):
    front_sasl_ssl.oauth.mode = mode
    try:
        fails(front_sasl_ssl, front_sasl_ssl.client_config("OAUTHBEARER"), 3, "OAuth token endpoint", said,
              secrets=tuple(front_sasl_ssl.oauth.clients.values()))
    finally:
        front_sasl_ssl.oauth.mode = "ok"


def test_a_token_endpoint_that_is_down_says_so(front_sasl_ssl):
    from conftest import free_port

    conf = {**front_sasl_ssl.client_config("OAUTHBEARER"),
            "sasl.oauthbearer.token.endpoint.url": f"https://127.0.0.1:{free_port()}/token"}
    fails(front_sasl_ssl, conf, 3, "cannot reach the OAuth token endpoint", secrets=tuple(front_sasl_ssl.oauth.clients.values()))


def test_a_wrong_truststore_password_is_a_bad_configuration(front_sasl_ssl, tmp_path):
    c = front_sasl_ssl.certs
    config = tmp_path / "client.properties"
    config.write_text(f"bootstrap.servers={front_sasl_ssl.bootstrap}\nsecurity.protocol=SSL\n"
                      f"ssl.truststore.location={c.truststore_jks}\nssl.truststore.password={WRONG}\n")
    r = run_kgroup("offsets", "--all-groups", "--command-config", str(config))
    assert r.returncode == 2 and "wrong password" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert WRONG not in r.stderr + r.stdout


# -- kgroup's own client, met first ----------------------------------------------------


def _connect(front, conf: dict[str, str], timeout: float = 10.0):
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.kafka.wire.connection import Connection
    from kgroup.kafka.wire.security import security_of

    settings = ConnectionSettings.build(front.bootstrap, [f"{k}={v}" for k, v in conf.items()
                                                          if k != "bootstrap.servers"], None, timeout)
    host, port = front.bootstrap.rsplit(":", 1)
    return Connection(host, int(port), "kgroup-test", time.monotonic() + timeout,
                      security=security_of(settings.properties, settings.token_source()))


def _refused(front, conf):
    from kgroup.kafka.wire.connection import Refused

    with pytest.raises(Refused) as e:
        _connect(front, conf)
    return e.value.error


def test_own_client_maps_each_failure_to_its_type(front_sasl_ssl, bad_fronts):
    good = front_sasl_ssl.client_config("SCRAM-SHA-512")
    error = _refused(front_sasl_ssl, {**good, "sasl.password": WRONG})
    assert isinstance(error, AuthenticationFailed) and error.message == (
        "authentication failed: Authentication failed during authentication due to invalid credentials with "
        "SASL mechanism SCRAM-SHA-512")
    error = _refused(front_sasl_ssl, {**good, "ssl.ca.location": str(front_sasl_ssl.certs.other_ca_pem)})
    assert isinstance(error, TlsFailed) and "not signed by a trusted CA" in error.message
    error = _refused(bad_fronts["expired"], bad_fronts["expired"].client_config())
    assert isinstance(error, TlsFailed) and "has expired" in error.message
    error = _refused(bad_fronts["other-name"], bad_fronts["other-name"].client_config())
    assert isinstance(error, TlsFailed) and "for another" in error.message
    error = _refused(front_sasl_ssl, {**good, "security.protocol": "SASL_PLAINTEXT"})
    assert isinstance(error, WrongSecurityProtocol)
    front_sasl_ssl.oauth.mode = "garbage"
    try:
        with pytest.raises(TokenUnavailable):
            _connect(front_sasl_ssl, front_sasl_ssl.client_config("OAUTHBEARER"))
    finally:
        front_sasl_ssl.oauth.mode = "ok"


def test_own_client_refuses_a_missing_ca_file_as_bad_configuration(front_sasl_ssl):
    with pytest.raises(UsageError):
        _connect(front_sasl_ssl, {**front_sasl_ssl.client_config("PLAIN"), "ssl.ca.location": "/nonexistent/ca.pem"})


# -- KIP-368 ---------------------------------------------------------------------------

LIFETIME_MS = 3000  # the front's session lifetime: a re-login comes due at 85-95% of it


@pytest.fixture(scope="module")
def short_sessions(tmp_path_factory, front_certs):
    from kafkafront import start_front

    front, stop = start_front(tmp_path_factory.mktemp("reauth"), protocol="SASL_SSL", certs=front_certs,
                              mechanisms=("SCRAM-SHA-512", "OAUTHBEARER"), session_lifetime_ms=LIFETIME_MS)
    try:
        yield front
    finally:
        stop()


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "OAUTHBEARER"])
def test_own_client_logs_in_again_before_the_session_ends(short_sessions, mechanism, monkeypatch):
    from kgroup.kmsg.messages import API_VERSIONS, FIND_COORDINATOR

    from kgroup.kafka.wire.connection import WireError

    lifetimes = 3

    def busy() -> tuple[int, int]:
        """Requests kept in flight across ``lifetimes`` sessions: (rounds answered, logins)."""
        conn = _connect(short_sessions, short_sessions.client_config(mechanism), timeout=30)
        try:
            end = time.monotonic() + lifetimes * LIFETIME_MS / 1000
            answered = 0
            while time.monotonic() < end:
                conn.send(FIND_COORDINATOR, {"keyType": 0, "coordinatorKeys": ["g"]})
                conn.send(API_VERSIONS, {})  # two in flight when a re-login comes due
                (c,) = conn.receive()["coordinators"]
                assert (c["key"], c["errorCode"]) == ("g", 0)
                assert conn.receive()["errorCode"] == 0
                answered += 1
                time.sleep(0.1)
            return answered, conn.logins
        finally:
            conn.close()

    # the margin before the session ends is a few hundred ms, which a loaded two-core machine can eat
    # once: a second connection is watched before a late re-login counts (a client that never logs
    # in again is cut off both times)
    try:
        answered, logins = busy()
    except WireError:
        answered, logins = busy()
    assert answered > 10
    assert logins >= lifetimes  # the first login and one per lifetime passed (at 85-95% of it)


def test_without_a_new_login_the_front_ends_the_session(short_sessions, monkeypatch):
    """The control: the front does end sessions, so the test above shows the re-login works."""
    from kgroup.kafka.wire import connection
    from kgroup.kafka.wire.connection import WireError
    from kgroup.kmsg.messages import FIND_COORDINATOR

    conn = _connect(short_sessions, short_sessions.client_config("SCRAM-SHA-512"), timeout=30)
    monkeypatch.setattr(connection.Connection, "_relogin", lambda self: None)
    try:
        time.sleep(LIFETIME_MS / 1000 + 0.5)
        with pytest.raises(WireError):
            conn.send(FIND_COORDINATOR, {"keyType": 0, "coordinatorKeys": ["g"]})
            conn.receive()
    finally:
        conn.close()
