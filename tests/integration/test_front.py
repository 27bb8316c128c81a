"""The TLS/SASL front before Tansu (tests/kafkafront.py) behaves as a Kafka broker's listener does.

Kafka's own Java Admin client is the reference: it connects through the front with SASL_SSL,
SCRAM-SHA-512 and a PEM CA and reads what was committed on Tansu directly. librdkafka (which kgroup
uses for most reads) connects with every mechanism and protocol the front serves; wrong credentials
and wrong TLS are refused. The protocol-level checks (ApiVersions, SaslHandshake, SaslAuthenticate,
KIP-368 session lifetime and re-authentication) talk to the front with hand-encoded requests, the
expected values written from the Kafka protocol's definitions, not from the front's code.

librdkafka clients refused at authentication run in a process of their own (see test_auth.py: such
clients were seen to crash when destroyed).
"""
from __future__ import annotations

import json
import socket
import ssl
import struct
import subprocess
import sys
import time

import pytest
from conftest import ROOT, run_kgroup_process

pytestmark = [pytest.mark.broker, pytest.mark.java]  # Tansu and the front's JVM

GROUP = "front-G1"
TOPIC = "FrontOrders"
PARTITIONS = 3


def _committed(partition: int) -> int:
    return 3 + 2 * partition  # the offsets committed on Tansu directly; each partition holds 10 records


def _seed(front) -> dict[tuple[str, int], int]:
    """A topic and group GROUP's committed offsets (written through the front by librdkafka)."""
    expected = {(TOPIC, p): _committed(p) for p in range(PARTITIONS)}
    front.seed({TOPIC: PARTITIONS}, 10, {GROUP: expected})
    return expected


@pytest.fixture(scope="module")
def sasl_ssl(front_sasl_ssl):
    return front_sasl_ssl, _seed(front_sasl_ssl)


@pytest.fixture(scope="module")
def sasl_plaintext(front_sasl_plaintext):
    return front_sasl_plaintext, _seed(front_sasl_plaintext)


@pytest.fixture(scope="module")
def mtls(front_mtls):
    return front_mtls, _seed(front_mtls)


@pytest.fixture(scope="module")
def reauth_front(tmp_path_factory, front_certs):
    """SASL_PLAINTEXT with a session lifetime (the broker's connections.max.reauth.ms) of 4 s."""
    from kafkafront import start_front

    front, stop = start_front(tmp_path_factory.mktemp("reauth"), protocol="SASL_PLAINTEXT", certs=front_certs,
                              mechanisms=("PLAIN", "SCRAM-SHA-512", "OAUTHBEARER"), session_lifetime_ms=LIFETIME_MS)
    try:
        yield front
    finally:
        stop()


LIFETIME_MS = 4000


# ---------------------------------------------------------------------------------------------
# Kafka's Java Admin client: the reference
# ---------------------------------------------------------------------------------------------

def _java_admin(tmp_path, props: dict[str, str], group: str) -> tuple[list[str], dict[tuple[str, int], int]]:
    from kafkafront import front_classpath

    path = tmp_path / "java-client.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    proc = subprocess.run(["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", front_classpath(),
                           "FrontAdminProbe", str(path), group], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    groups = [line.split(" ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("GROUP ")]
    offsets = {}
    for line in proc.stdout.splitlines():
        if line.startswith("OFFSET "):
            _, topic, partition, offset = line.split(" ")
            offsets[(topic, int(partition))] = int(offset)
    return groups, offsets


def test_java_admin_reads_through_the_front_what_librdkafka_committed(sasl_ssl, tmp_path):
    front, expected = sasl_ssl
    props = front.java_properties("SCRAM-SHA-512")
    assert props["ssl.truststore.type"] == "PEM" and props["security.protocol"] == "SASL_SSL"
    groups, offsets = _java_admin(tmp_path, props, GROUP)
    assert GROUP in groups
    assert offsets == {(TOPIC, 0): 3, (TOPIC, 1): 5, (TOPIC, 2): 7} == expected


def test_java_admin_with_a_wrong_password_is_refused(sasl_ssl, tmp_path):
    front, _ = sasl_ssl
    props = front.java_properties("SCRAM-SHA-512")
    props["sasl.jaas.config"] = props["sasl.jaas.config"].replace(front.users["alice"], "not-the-password")
    path = tmp_path / "bad.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    from kafkafront import front_classpath

    proc = subprocess.run(["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", front_classpath(),
                           "FrontAdminProbe", str(path), GROUP], capture_output=True, text=True, timeout=180)
    assert proc.returncode != 0
    assert "SaslAuthenticationException" in proc.stderr
    assert ("Authentication failed during authentication due to invalid credentials with SASL mechanism "
            "SCRAM-SHA-512") in proc.stderr


# ---------------------------------------------------------------------------------------------
# librdkafka through the front
# ---------------------------------------------------------------------------------------------

def _librdkafka_reads(conf: dict[str, str]) -> tuple[list[str], dict[tuple[str, int], int]]:
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(conf)
    listed = admin.list_consumer_groups(request_timeout=20).result()
    groups = sorted(g.group_id for g in listed.valid)
    result = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(GROUP)], request_timeout=20)
    offsets = {(tp.topic, tp.partition): tp.offset for tp in result[GROUP].result().topic_partitions}
    return groups, offsets


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER"])
def test_librdkafka_over_sasl_ssl(sasl_ssl, mechanism):
    front, expected = sasl_ssl
    issued_before = len(front.oauth.issued)
    groups, offsets = _librdkafka_reads(front.client_config(mechanism))
    assert GROUP in groups
    assert offsets == expected
    if mechanism == "OAUTHBEARER":  # the token came from the test's endpoint, for the configured client
        assert len(front.oauth.issued) > issued_before
        assert front.oauth.issued[-1]["sub"] == "kgroup-client"


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "PLAIN"])
def test_librdkafka_over_sasl_plaintext(sasl_plaintext, mechanism):
    front, expected = sasl_plaintext
    groups, offsets = _librdkafka_reads(front.client_config(mechanism, user="kgroup"))
    assert GROUP in groups
    assert offsets == expected


def test_librdkafka_over_mtls(mtls):
    front, expected = mtls
    conf = front.client_config()
    assert conf["ssl.certificate.location"] == str(front.certs.client_cert_pem)
    groups, offsets = _librdkafka_reads(conf)
    assert GROUP in groups
    assert offsets == expected


_PROBE = r"""
import json, os, re, sys, time
from confluent_kafka.admin import AdminClient
errors = []
def record(e):
    item = [e.name(), re.sub(r" \(after \d+ms in state \w+\)", "", e.str())]
    if item not in errors:
        errors.append(item)
conf = json.loads(sys.argv[1])
conf["error_cb"] = record
ok = False
admin = AdminClient(conf)
deadline = time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline and not errors:  # until metadata comes or the client reports an error
    try:
        admin.list_topics(timeout=0.5)
        ok = True
        break
    except Exception:
        admin.poll(0.1)
admin.poll(0.5)  # the error callbacks that follow the first
print(json.dumps({"ok": ok, "errors": errors}))
sys.stdout.flush()
os._exit(0)
"""


def _librdkafka_probe(conf: dict[str, str], timeout: float = 8) -> dict:
    """Whether librdkafka gets metadata with ``conf`` (in a process of its own), and the errors it reported."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(conf), str(timeout)], capture_output=True,
                          text=True, timeout=timeout + 30, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _refused(result: dict) -> str:
    assert result["ok"] is False
    return "\n".join(f"{name}: {text}" for name, text in result["errors"])


@pytest.mark.parametrize("mechanism,user,password", [
    ("SCRAM-SHA-512", "alice", "wrong-password"),
    ("SCRAM-SHA-256", "nobody", "alice-secret-1"),
    ("PLAIN", "alice", "wrong-password"),
    ("PLAIN", "nobody", "alice-secret-1"),
])
def test_librdkafka_wrong_credentials_are_refused(sasl_ssl, mechanism, user, password):
    front, _ = sasl_ssl
    conf = front.client_config(mechanism)
    conf.update({"sasl.username": user, "sasl.password": password})
    errors = _refused(_librdkafka_probe(conf))
    assert "_AUTHENTICATION" in errors
    # the broker's message, as Kafka's SaslServerAuthenticator words it (PLAIN: PlainSaslServer's own)
    if mechanism == "PLAIN":
        assert "Authentication failed: Invalid username or password" in errors
    else:
        assert f"invalid credentials with SASL mechanism {mechanism}" in errors
    assert password not in errors
    log = front.log.read_text()
    assert "AUTHENTICATION_FAILED" in log  # the front says why it closed the connection, and no secret
    assert all(secret not in log for secret in [password, *front.users.values()])


def test_librdkafka_without_tls_against_the_tls_listener_fails(sasl_ssl):
    front, _ = sasl_ssl
    conf = front.client_config("PLAIN")
    conf["security.protocol"] = "SASL_PLAINTEXT"
    del conf["ssl.ca.location"]
    errors = _refused(_librdkafka_probe(conf))
    assert "_AUTHENTICATION" not in errors  # it never got as far as SASL


def test_mtls_without_a_client_certificate_or_with_one_from_another_ca_fails(mtls):
    front, _ = mtls
    conf = front.client_config()
    no_cert = {k: v for k, v in conf.items() if k not in ("ssl.certificate.location", "ssl.key.location")}
    _refused(_librdkafka_probe(no_cert))
    other = dict(conf, **{"ssl.certificate.location": str(front.certs.other_client_cert_pem),
                          "ssl.key.location": str(front.certs.other_client_key_pem)})
    _refused(_librdkafka_probe(other))


def test_sasl_ssl_with_client_certificates_required(tmp_path, front_certs):
    from kafkafront import start_front

    front, stop = start_front(tmp_path, protocol="SASL_SSL", certs=front_certs, client_auth=True,
                              mechanisms=("SCRAM-SHA-256",))
    try:
        conf = front.client_config()
        assert conf["sasl.mechanisms"] == "SCRAM-SHA-256" and "ssl.certificate.location" in conf
        assert _librdkafka_probe(conf)["ok"] is True
        no_cert = {k: v for k, v in conf.items() if k not in ("ssl.certificate.location", "ssl.key.location")}
        errors = _refused(_librdkafka_probe(no_cert))
        assert "_AUTHENTICATION" not in errors  # refused by TLS, before SASL
    finally:
        stop()


def test_librdkafka_trusting_another_ca_fails(sasl_ssl):
    front, _ = sasl_ssl
    conf = dict(front.client_config("PLAIN"), **{"ssl.ca.location": str(front.certs.other_ca_pem)})
    errors = _refused(_librdkafka_probe(conf))
    assert "certificate verify failed" in errors


@pytest.mark.parametrize("server_cert,cause", [("expired", "certificate has expired"),
                                               ("other-name", "IP address mismatch"),
                                               ("other-ca", "self-signed certificate in certificate chain")])
def test_a_front_with_a_bad_server_certificate_is_refused(tmp_path, front_certs, server_cert, cause):
    from kafkafront import start_front

    front, stop = start_front(tmp_path, protocol="SSL", certs=front_certs, server_cert=server_cert)
    try:
        errors = _refused(_librdkafka_probe(front.client_config()))
        assert "certificate verify failed" in errors
        # librdkafka does not say why; Python's TLS does: the certificate is what its name says
        with pytest.raises(ssl.SSLCertVerificationError) as refused:
            Wire(front)
        assert cause in refused.value.verify_message
    finally:
        stop()


# ---------------------------------------------------------------------------------------------
# kgroup through the front (librdkafka today)
# ---------------------------------------------------------------------------------------------

def test_kgroup_offsets_with_a_command_config_and_a_pem_truststore(sasl_ssl, tmp_path):
    front, expected = sasl_ssl
    config = tmp_path / "client.properties"
    password = front.users["alice"]
    config.write_text(
        f"bootstrap.servers={front.bootstrap}\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="alice" password="{password}";\n'
        f"ssl.truststore.type=PEM\nssl.truststore.location={front.certs.ca_pem}\n")
    r = run_kgroup_process("offsets", GROUP, "--command-config", str(config), "-o", "json", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    assert password not in r.stdout + r.stderr
    (group,) = json.loads(r.stdout)["groups"]
    assert group["group"] == GROUP and group["incomplete"] is False
    rows = {(p["topic"], p["partition"]): (p["committed"], p["log_end"], p["lag"]) for p in group["partitions"]}
    assert rows == {tp: (offset, 10, 10 - offset) for tp, offset in expected.items()}


# ---------------------------------------------------------------------------------------------
# the Kafka protocol, by hand: what the front answers before, during and after authentication
# ---------------------------------------------------------------------------------------------

API_VERSIONS, METADATA, SASL_HANDSHAKE, SASL_AUTHENTICATE = 18, 3, 17, 36
UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE, SASL_AUTHENTICATION_FAILED = 33, 34, 58


class Wire:
    """One connection, requests with header v1 (the non-flexible versions used here)."""

    def __init__(self, front, tls: bool | None = None):
        host, port = front.bootstrap.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)), timeout=15)
        if tls if tls is not None else "SSL" in front.security_protocol:
            context = ssl.create_default_context(cafile=str(front.certs.ca_pem))
            sock = context.wrap_socket(sock, server_hostname=host)
        self.sock = sock
        self.correlation = 0

    def close(self) -> None:
        self.sock.close()

    def request(self, api_key: int, version: int, body: bytes) -> bytes:
        """Send; return the response body after the correlation id (checked)."""
        self.send(api_key, version, body)
        return self.receive()

    def send(self, api_key: int, version: int, body: bytes) -> None:
        self.correlation += 1
        header = struct.pack(">hhi", api_key, version, self.correlation) + _string("front-test")
        frame = header + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)

    def receive(self) -> bytes:
        size = struct.unpack(">i", self._exactly(4))[0]
        data = self._exactly(size)
        assert struct.unpack(">i", data[:4])[0] == self.correlation
        return data[4:]

    def closed_by_peer(self) -> bool:
        """True if the front closed the connection (end of stream or reset) within the socket timeout."""
        try:
            return self.sock.recv(1) == b""
        except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
            return True
        except TimeoutError:
            return False

    def _exactly(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("closed by the front")
            out += chunk
        return out


def _string(s: str) -> bytes:
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def _bytes(b: bytes) -> bytes:
    return struct.pack(">i", len(b)) + b


class Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, fmt: str):
        value = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return value[0] if len(value) == 1 else value

    def string(self) -> str | None:
        n = self.take(">h")
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def bytes_(self) -> bytes:
        n = self.take(">i")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b


def _api_versions(wire: Wire) -> dict[int, tuple[int, int]]:
    r = Reader(wire.request(API_VERSIONS, 0, b""))
    assert r.take(">h") == 0
    return {key: (low, high) for key, low, high in (r.take(">hhh") for _ in range(r.take(">i")))}


def _handshake(wire: Wire, mechanism: str) -> tuple[int, list[str]]:
    r = Reader(wire.request(SASL_HANDSHAKE, 1, _string(mechanism)))
    error = r.take(">h")
    return error, [r.string() for _ in range(r.take(">i"))]


def _authenticate(wire: Wire, token: bytes) -> tuple[int, str | None, int]:
    """SaslAuthenticate v1: (error code, error message, session lifetime ms); no message (Kafka sends
    an empty string, the protocol allows null) is None."""
    r = Reader(wire.request(SASL_AUTHENTICATE, 1, _bytes(token)))
    error, message = r.take(">h"), r.string() or None
    r.bytes_()
    return error, message, r.take(">q")


def _plain(user: str, password: str) -> bytes:
    return f"\0{user}\0{password}".encode()


def _login(wire: Wire, front, user: str = "alice") -> tuple[int, str | None, int]:
    assert _handshake(wire, "PLAIN")[0] == 0
    return _authenticate(wire, _plain(user, front.users[user]))


def _brokers(wire: Wire) -> list[tuple[int, str, int]]:
    """Metadata v1 for no topics: the brokers (id, host, port)."""
    r = Reader(wire.request(METADATA, 1, struct.pack(">i", 0)))
    brokers = []
    for _ in range(r.take(">i")):
        node, host, port = r.take(">i"), r.string(), r.take(">i")
        r.string()  # rack
        brokers.append((node, host, port))
    return brokers


def test_before_authentication_api_versions_offers_the_sasl_requests(sasl_ssl):
    front, _ = sasl_ssl
    wire = Wire(front)
    try:
        versions = _api_versions(wire)
        # Kafka 4.x serves SaslHandshake v0-v1 and SaslAuthenticate v0-v2
        assert versions[SASL_HANDSHAKE] == (0, 1)
        assert versions[SASL_AUTHENTICATE] == (0, 2)
        assert METADATA in versions and 9 in versions  # and the upstream's own requests (OffsetFetch)
        error, mechanisms = _handshake(wire, "GSSAPI")
        assert error == UNSUPPORTED_SASL_MECHANISM
        assert sorted(mechanisms) == sorted(["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER"])
        assert wire.closed_by_peer()  # a broker closes the connection after an unsupported mechanism
    finally:
        wire.close()


def test_any_other_request_before_authentication_closes_the_connection(sasl_ssl):
    front, _ = sasl_ssl
    wire = Wire(front)
    try:
        wire.send(METADATA, 1, struct.pack(">i", 0))
        assert wire.closed_by_peer()
    finally:
        wire.close()


def test_a_failed_login_answers_sasl_authentication_failed_then_closes(sasl_ssl):
    front, _ = sasl_ssl
    wire = Wire(front)
    try:
        error, mechanisms = _handshake(wire, "PLAIN")
        assert (error, sorted(mechanisms)) == (0, sorted(["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER"]))
        error, message, lifetime = _authenticate(wire, _plain("alice", "wrong"))
        assert (error, message, lifetime) == (SASL_AUTHENTICATION_FAILED,
                                              "Authentication failed: Invalid username or password", 0)
        assert wire.closed_by_peer()
    finally:
        wire.close()


def test_after_login_requests_reach_tansu_which_advertises_the_front(sasl_ssl):
    front, _ = sasl_ssl
    wire = Wire(front)
    try:
        assert _login(wire, front) == (0, None, 0)  # no session lifetime configured: 0
        host, port = front.bootstrap.rsplit(":", 1)
        assert _brokers(wire) == [(111, host, int(port))]
        # a second SaslHandshake without a session lifetime is not a re-authentication: refused, as KafkaApis does
        assert _handshake(wire, "PLAIN")[0] == ILLEGAL_SASL_STATE
        assert _brokers(wire) == [(111, host, int(port))]
    finally:
        wire.close()


def test_the_old_v0_handshake_with_raw_sasl_tokens_works_as_kafka_keeps_it(sasl_ssl):
    """SaslHandshake v0 (before KIP-152): the SASL tokens follow as bare size-prefixed frames, no
    SaslAuthenticate. Kafka's server code still serves it, so the front does too."""
    front, _ = sasl_ssl
    wire = Wire(front)
    try:
        r = Reader(wire.request(SASL_HANDSHAKE, 0, _string("PLAIN")))
        assert r.take(">h") == 0
        token = _plain("alice", front.users["alice"])
        wire.sock.sendall(struct.pack(">i", len(token)) + token)
        assert wire._exactly(4) == struct.pack(">i", 0)  # PLAIN's empty server token
        host, port = front.bootstrap.rsplit(":", 1)
        assert _brokers(wire) == [(111, host, int(port))]
    finally:
        wire.close()


def test_the_session_lifetime_is_announced_and_an_expired_session_is_closed(reauth_front):
    wire = Wire(reauth_front)
    try:
        error, _, lifetime = _login(wire, reauth_front)
        started = time.monotonic()
        assert (error, lifetime) == (0, LIFETIME_MS)
        assert len(_brokers(wire)) == 1
        time.sleep(LIFETIME_MS / 1000 - (time.monotonic() - started) + 1.0)
        wire.send(METADATA, 1, struct.pack(">i", 0))
        assert wire.closed_by_peer()
    finally:
        wire.close()


def test_re_authentication_on_the_same_connection_extends_the_session(reauth_front):
    wire = Wire(reauth_front)
    try:
        assert _login(wire, reauth_front)[0] == 0
        started = time.monotonic()
        time.sleep(LIFETIME_MS / 2000)
        assert _login(wire, reauth_front) == (0, None, LIFETIME_MS)  # re-authenticated: a new lifetime
        time.sleep(LIFETIME_MS / 1000 - (time.monotonic() - started) + 1.0)  # past the first session's end
        assert len(_brokers(wire)) == 1
        # re-authentication must keep the principal (Kafka refuses a change of user)
        time.sleep(1.1)  # at most one re-authentication a second
        assert _handshake(wire, "PLAIN")[0] == 0
        error, message, _ = _authenticate(wire, _plain("kgroup", reauth_front.users["kgroup"]))
        assert error == SASL_AUTHENTICATION_FAILED and "principal" in (message or "").lower()
    finally:
        wire.close()
    assert "re-authentication begins" in reauth_front.log.read_text()


def test_an_oauth_token_shorter_than_the_session_lifetime_bounds_the_session(reauth_front):
    from tokenendpoint import unsecured_jwt

    now = int(time.time())
    token = unsecured_jwt({"sub": "kgroup-client", "iat": now, "exp": now + 2, "scope": ["kafka"]})
    wire = Wire(reauth_front)
    try:
        assert _handshake(wire, "OAUTHBEARER")[0] == 0
        error, message, lifetime = _authenticate(wire, f"n,,\x01auth=Bearer {token}\x01\x01".encode())
        assert (error, message) == (0, None)
        assert 0 < lifetime <= 2000  # the token's end, not the configured 4 s
    finally:
        wire.close()


def test_an_expired_oauth_token_is_refused(reauth_front):
    from tokenendpoint import unsecured_jwt

    now = int(time.time())
    token = unsecured_jwt({"sub": "kgroup-client", "iat": now - 7200, "exp": now - 3600, "scope": ["kafka"]})
    wire = Wire(reauth_front)
    try:
        assert _handshake(wire, "OAUTHBEARER")[0] == 0
        # RFC 7628: a failed OAUTHBEARER exchange first answers a JSON error, the client then sends 0x01
        error, message, _ = _authenticate(wire, f"n,,\x01auth=Bearer {token}\x01\x01".encode())
        if error == 0:
            error, message, _ = _authenticate(wire, b"\x01")
        assert error == SASL_AUTHENTICATION_FAILED
    finally:
        wire.close()


def _busy_across_sessions(front, conf: dict, seconds: float) -> str:
    """One client's connection kept busy for ``seconds``; what the front logged meanwhile. A client
    that re-authenticates in time leaves no "session expired" there. The margins are a few hundred
    ms (librdkafka starts re-authenticating shortly before the session ends), which a loaded
    two-core machine can eat once: a second window is watched before a late re-authentication
    counts (a client that never re-authenticates fails both)."""
    from confluent_kafka.admin import AdminClient

    logged = ""
    for _ in range(2):
        before = len(front.log.read_text())
        admin = AdminClient(conf)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert admin.list_topics(timeout=10).brokers
            time.sleep(0.3)
        logged = front.log.read_text()[before:]
        if "session expired" not in logged:
            break
    return logged


def test_librdkafka_re_authenticates_when_the_session_lifetime_asks(reauth_front):
    # one connection kept busy across two session lifetimes
    logged = _busy_across_sessions(reauth_front, reauth_front.client_config("SCRAM-SHA-512"),
                                   LIFETIME_MS / 1000 * 2.5)
    assert "re-authentication begins" in logged
    assert "session expired" not in logged


def test_librdkafka_refreshes_short_lived_tokens_and_re_authenticates(reauth_front):
    """Tokens that live 3 s: the session ends with the token (shorter than the 4 s lifetime), so the
    client must fetch a new token and re-authenticate on the same connection before then."""
    endpoint = reauth_front.oauth
    endpoint.lifetime_s = 3
    try:
        before_tokens = len(endpoint.issued)
        logged = _busy_across_sessions(reauth_front, reauth_front.client_config("OAUTHBEARER"), 8)
        assert len(endpoint.issued) - before_tokens >= 3  # the first token and at least two refreshes
        assert "re-authentication begins" in logged
        assert "session expired" not in logged
        secret = next(iter(endpoint.clients.values()))
        assert secret not in logged and "auth=Bearer" not in logged
    finally:
        endpoint.lifetime_s = 3600


def test_the_token_endpoint_answers_the_client_credentials_grant(front_certs):
    import base64
    import urllib.error
    import urllib.request

    from tokenendpoint import start_token_endpoint

    endpoint = start_token_endpoint(front_certs.server_cert_pem, front_certs.server_key_pem, {"app": "s3cret"},
                                    lifetime_s=5)
    context = ssl.create_default_context(cafile=str(front_certs.ca_pem))

    def post(form: str, auth: str | None = None):
        req = urllib.request.Request(endpoint.url, data=form.encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        if auth:
            req.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
        try:
            with urllib.request.urlopen(req, context=context, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    try:
        status, body = post("grant_type=client_credentials&scope=kafka%20read", auth="app:s3cret")
        assert status == 200
        doc = json.loads(body)
        assert doc["token_type"] == "Bearer" and doc["expires_in"] == 5
        header, payload, signature = doc["access_token"].split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        assert (claims["sub"], claims["scope"], claims["exp"] - claims["iat"], signature) == ("app", ["kafka", "read"], 5, "")
        assert post("grant_type=client_credentials&client_id=app&client_secret=s3cret")[0] == 200
        assert post("grant_type=client_credentials&client_id=app&client_secret=nope")[0] == 401
        assert post("grant_type=password", auth="app:s3cret")[0] == 400
        endpoint.set_mode("garbage")
        status, body = post("grant_type=client_credentials", auth="app:s3cret")
        assert status == 200 and body.startswith(b"\x00")
        endpoint.set_mode("unavailable")
        assert post("grant_type=client_credentials", auth="app:s3cret")[0] == 503
        endpoint.set_mode("down")
        with pytest.raises(urllib.error.URLError):
            post("grant_type=client_credentials", auth="app:s3cret")
        endpoint.set_mode("ok")
        assert post("grant_type=client_credentials", auth="app:s3cret")[0] == 200
    finally:
        endpoint.stop()
