"""A TLS and SASL front before Tansu, for the tests: tests/java/KafkaFront.java.

Tansu 0.6.0 serves no TLS and no working SCRAM login (see the notes on test brokers), so the tests put
a listener built from the broker-side code of the kafka-clients jar before it: Java's TLS (JSSE) and
Kafka's own SASL server (SaslServerAuthenticator with ScramSaslServer, PlainSaslServer,
OAuthBearerSaslServer and the unsecured-JWS validator), which completes TLS and SASL as a broker does
and then relays each request to Tansu. Tansu advertises the front's address, so a client's metadata
leads it back through the front.

    front, stop = start_front(tmp_path, protocol="SASL_SSL")
    ... front.bootstrap, front.certs.ca_pem, front.users ...
    stop()

Each process (Tansu, the front's JVM, the token endpoint's thread) is stopped by ``stop``, by PID.
The front's log is ``front.log`` in the directory given (never the test output).
"""
from __future__ import annotations

import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from brokers import free_port, start_tansu, stop_process
from certs import Certs, make_certs
from tokenendpoint import TokenEndpoint, start_token_endpoint

PROTOCOLS = ("SASL_SSL", "SSL", "SASL_PLAINTEXT")
ALL_MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER")
SERVER_CERTS = ("good", "other-name", "expired", "other-ca")
# valid for PLAIN and both SCRAMs; passwords without quotes or backslashes (they go into a JAAS line)
DEFAULT_USERS = {"alice": "alice-secret-1", "kgroup": "Kgroup pass w/ spaces & symbols!"}
# the OAuth clients the token endpoint knows (client id -> secret); the token's sub is the client id
DEFAULT_OAUTH_CLIENTS = {"kgroup-client": "kgroup-client-secret"}


@dataclass
class Front:
    bootstrap: str  # "127.0.0.1:PORT": the front; Tansu behind it advertises this address
    security_protocol: str  # "SASL_SSL" | "SSL" | "SASL_PLAINTEXT"
    certs: Certs
    users: dict[str, str]  # user -> password, valid for PLAIN and both SCRAMs
    # the upstream Tansu, plaintext without authentication. Its metadata names the front, so a Kafka
    # client bootstrapped here is sent on to the front: seed data with ``seed`` (through the front)
    tansu: str
    mechanisms: tuple[str, ...] = ()
    client_auth: bool = False
    session_lifetime_ms: int | None = None
    oauth: TokenEndpoint | None = None  # the token endpoint, when OAUTHBEARER is enabled
    log: Path | None = None  # the front's log file
    pid: int = 0  # the front's JVM

    def client_config(self, mechanism: str | None = None, user: str | None = None) -> dict[str, str]:
        """librdkafka settings that connect through this front (the first user, the first mechanism;
        OAUTHBEARER through the token endpoint with the first OAuth client)."""
        conf = {"bootstrap.servers": self.bootstrap, "security.protocol": self.security_protocol}
        if "SSL" in self.security_protocol:
            conf["ssl.ca.location"] = str(self.certs.ca_pem)
            if self.client_auth:
                conf["ssl.certificate.location"] = str(self.certs.client_cert_pem)
                conf["ssl.key.location"] = str(self.certs.client_key_pem)
        if self.security_protocol.startswith("SASL"):
            mechanism = mechanism or self.mechanisms[0]
            conf["sasl.mechanisms"] = mechanism
            if mechanism == "OAUTHBEARER":
                assert self.oauth is not None
                client_id, secret = next(iter(self.oauth.clients.items()))
                conf.update({"sasl.oauthbearer.method": "oidc", "sasl.oauthbearer.client.id": client_id,
                             "sasl.oauthbearer.client.secret": secret,
                             "sasl.oauthbearer.token.endpoint.url": self.oauth.url,
                             "https.ca.location": str(self.certs.ca_pem)})
            else:
                user = user or next(iter(self.users))
                conf.update({"sasl.username": user, "sasl.password": self.users[user]})
        return conf

    def seed(self, topics: dict[str, int], records: int, commits: dict[str, dict[tuple[str, int], int]]) -> None:
        """Create ``topics`` (name -> partitions), produce ``records`` records per partition (one per
        batch: Tansu's latest offset is right only then) and commit ``commits`` (group -> {(topic,
        partition): offset}), through the front with ``client_config()``."""
        from confluent_kafka import Consumer, Producer, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic

        conf = self.client_config()
        admin = AdminClient(conf)
        for future in admin.create_topics([NewTopic(t, n, 1) for t, n in topics.items()],
                                          request_timeout=15).values():
            future.result(timeout=30)
        producer = Producer({**conf, "batch.num.messages": 1, "linger.ms": 0})
        for topic, partitions in topics.items():
            for partition in range(partitions):
                for i in range(records):
                    producer.produce(topic, value=f"{topic}-{partition}-{i}".encode(), partition=partition)
                    producer.flush(15)
        for group, offsets in commits.items():
            consumer = Consumer({**conf, "group.id": group, "enable.auto.commit": False})
            try:
                consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()],
                                asynchronous=False)
            finally:
                consumer.close()

    def java_properties(self, mechanism: str | None = None, user: str | None = None) -> dict[str, str]:
        """Kafka Java client properties (PEM truststore) that connect through this front."""
        props = {"bootstrap.servers": self.bootstrap, "security.protocol": self.security_protocol}
        if "SSL" in self.security_protocol:
            props.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": str(self.certs.ca_pem)})
            if self.client_auth:
                props.update({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(self.certs.keystore_p12),
                              "ssl.keystore.password": self.certs.password, "ssl.key.password": self.certs.password})
        if self.security_protocol.startswith("SASL"):
            mechanism = mechanism or self.mechanisms[0]
            user = user or next(iter(self.users))
            module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
                      else "org.apache.kafka.common.security.scram.ScramLoginModule")
            props.update({"sasl.mechanism": mechanism,
                          "sasl.jaas.config": f'{module} required username="{user}" password="{self.users[user]}";'})
        return props


def start_front(tmp_dir: Path, *, protocol: str = "SASL_SSL", mechanisms: tuple[str, ...] = ALL_MECHANISMS,
                client_auth: bool = False, server_cert: str = "good", session_lifetime_ms: int | None = None,
                oauth: dict | None = None, users: dict[str, str] | None = None, certs: Certs | None = None,
                tansu: str | None = None) -> tuple[Front, Callable[[], None]]:
    """Start Tansu and the front before it; returns (front, stop).

    ``server_cert``: the certificate the front presents: "good" (localhost/127.0.0.1, the test CA),
    "other-name" (the test CA, another host name), "expired" (the test CA, expired yesterday),
    "other-ca" (localhost, an unrelated CA). ``client_auth``: client certificates signed by the test
    CA required. ``session_lifetime_ms``: the broker's connections.max.reauth.ms (KIP-368).
    ``oauth`` (when OAUTHBEARER is enabled): {"required_scope": str, "token_lifetime_s": int,
    "clients": {id: secret}, "default_scope": str} for the validator and the token endpoint (started
    here, ``front.oauth``). ``certs``: made before (else made in ``tmp_dir/certs``). ``tansu``: an
    upstream already running (its advertised address must be the front's: rarely useful)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol {protocol!r}: one of {PROTOCOLS}")
    if server_cert not in SERVER_CERTS:
        raise ValueError(f"server_cert {server_cert!r}: one of {SERVER_CERTS}")
    users = dict(DEFAULT_USERS if users is None else users)
    for user, password in users.items():
        if any(c in user + password for c in '"\\\t\n') or "=" in user or not user:
            raise ValueError(f"user {user!r}: no quotes, backslashes, tabs or newlines (and no = in the name)")
    tmp_dir = Path(tmp_dir)
    tmp_dir.mkdir(parents=True, exist_ok=True)
    certs = certs or make_certs(tmp_dir / "certs")
    sasl = protocol.startswith("SASL")
    mechanisms = tuple(mechanisms) if sasl else ()
    oauth = dict(oauth or {})
    stops: list[Callable[[], None]] = []

    def stop() -> None:
        for step in reversed(stops):
            try:
                step()
            except Exception:  # noqa: BLE001 - stop the others regardless
                pass
        stops.clear()

    try:
        endpoint = None
        if "OAUTHBEARER" in mechanisms:
            endpoint = start_token_endpoint(certs.server_cert_pem, certs.server_key_pem,
                                            oauth.get("clients", DEFAULT_OAUTH_CLIENTS),
                                            lifetime_s=oauth.get("token_lifetime_s", 3600),
                                            default_scope=oauth.get("default_scope", "kafka"))
            stops.append(endpoint.stop)
        port = free_port()
        if tansu is None:
            tansu_proc, tansu = start_tansu(advertised=f"127.0.0.1:{port}")
            stops.append(lambda: stop_process(tansu_proc))
        args = ["--port", str(port), "--upstream", tansu, "--protocol", protocol]
        if sasl:
            users_file = tmp_dir / f"front-users-{port}.tsv"
            users_file.write_text("".join(f"{u}\t{p}\n" for u, p in users.items()), encoding="utf-8")
            users_file.chmod(0o600)
            args += ["--mechanisms", ",".join(mechanisms), "--users", str(users_file)]
        if "SSL" in protocol:
            keystore = {"good": certs.server_keystore_pem, "other-name": certs.other_name_keystore_pem,
                        "expired": certs.expired_keystore_pem, "other-ca": certs.other_ca_keystore_pem}[server_cert]
            args += ["--keystore", str(keystore), "--truststore", str(certs.ca_pem),
                     "--client-auth", "required" if client_auth else "none"]
        if session_lifetime_ms is not None:
            args += ["--session-lifetime-ms", str(session_lifetime_ms)]
        if oauth.get("required_scope"):
            args += ["--oauth-required-scope", oauth["required_scope"]]
        log = tmp_dir / f"front-{port}.log"
        with open(log, "ab") as log_file:
            proc = subprocess.Popen(["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss1m",
                                     "-cp", front_classpath(), "KafkaFront", *args],
                                    stdout=subprocess.PIPE, stderr=log_file, stdin=subprocess.DEVNULL,
                                    start_new_session=True)

        def stop_front() -> None:
            stop_process(proc)
            if proc.stdout is not None:
                proc.stdout.close()

        stops.append(stop_front)
        _wait_listening(proc, log)
        front = Front(bootstrap=f"127.0.0.1:{port}", security_protocol=protocol, certs=certs, users=users,
                      tansu=tansu, mechanisms=mechanisms, client_auth=client_auth,
                      session_lifetime_ms=session_lifetime_ms, oauth=endpoint, log=log, pid=proc.pid)
    except BaseException:
        stop()
        raise
    return front, stop


def front_classpath() -> str:
    """slf4j's API jar first (the broker-side network code needs more of it than the drivers' no-op
    stand-in has; without a provider it logs nothing), the compiled drivers, kafka-clients and Jackson
    (which the OAUTHBEARER code reads JWTs with)."""
    from javadriver import compile_drivers, find_jar, jackson_jars

    jar = find_jar()
    slf4j = sorted(jar.parent.glob("slf4j-api-*.jar"))
    return os.pathsep.join([*(str(p) for p in slf4j[-1:]), str(compile_drivers()), str(jar),
                            *(str(p) for p in jackson_jars(jar))])


def _wait_listening(proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    """Until the front prints LISTENING (its JVM started, the upstream's ApiVersions read)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    line = b""
    fd = proc.stdout.fileno()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            line += chunk
            if b"LISTENING" in line:
                return
        elif proc.poll() is not None:
            break
    tail = log.read_text(errors="replace")[-3000:] if log.is_file() else ""
    raise RuntimeError(f"the Kafka front did not start (exit {proc.poll()}):\n{tail}")
