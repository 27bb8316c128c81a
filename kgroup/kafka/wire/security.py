"""TLS and SASL for kgroup's own client, from the librdkafka properties the user gave.

TLS is Python's ``ssl``: the CA from ``ssl.ca.location`` (a PEM file or a directory) or
``ssl.ca.pem``, else the system's store; the broker's host name checked unless
``ssl.endpoint.identification.algorithm=none`` (librdkafka's and Kafka's default is https);
a client certificate (mTLS) from ``ssl.certificate.location``/``ssl.key.location``
(``ssl.key.password``), ``ssl.certificate.pem``/``ssl.key.pem``, or a PKCS12
``ssl.keystore.location`` (``ssl.keystore.password``). ``ssl`` loads a client key from files
only: a key given in memory is written to a private temporary file (mode 0600) that is removed
as soon as it is loaded.

SASL: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (the maintained ``scramp`` package computes the
SCRAM proofs) with ``sasl.username``/``sasl.password``, and OAUTHBEARER (RFC 7628 client first
message) with tokens from kgroup.kafka.oauth. The exchange itself (SaslHandshake v1, then
SaslAuthenticate frames, KIP-152) is connection.py's; a mechanism here only says what to send
next given what the broker answered.

``why_not`` says what in the properties this client does not speak (librdkafka answers then);
``security_of`` builds the TLS context and the mechanism, and fails with a UsageError (exit 2)
on a configuration that cannot work (a CA file that cannot be read, a key that does not open).
"""
from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgroup.errors import UsageError

if TYPE_CHECKING:
    from kgroup.kafka.oauth import TokenSource

PROTOCOLS = ("plaintext", "ssl", "sasl_plaintext", "sasl_ssl")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
# properties that change nothing this client does
NEUTRAL = frozenset({"bootstrap.servers", "client.id", "metadata.max.age.ms", "reconnect.backoff.ms",
                     "reconnect.backoff.max.ms", "retry.backoff.ms"})
# properties this client reads (their values are checked in why_not where they choose something)
SPOKEN = frozenset({
    "security.protocol", "sasl.mechanisms", "sasl.mechanism", "sasl.username", "sasl.password",
    "ssl.ca.location", "ssl.ca.pem", "ssl.endpoint.identification.algorithm", "enable.ssl.certificate.verification",
    "ssl.certificate.location", "ssl.key.location", "ssl.key.password", "ssl.certificate.pem", "ssl.key.pem",
    "ssl.keystore.location", "ssl.keystore.password",
    "sasl.oauthbearer.method", "sasl.oauthbearer.client.id", "sasl.oauthbearer.client.secret",
    "sasl.oauthbearer.scope", "sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.extensions",
    "https.ca.location", "https.ca.pem",
})


def protocol(properties: Mapping[str, str]) -> str:
    return properties.get("security.protocol", "plaintext").strip().lower()


def mechanism(properties: Mapping[str, str]) -> str:
    return properties.get("sasl.mechanisms", properties.get("sasl.mechanism", "GSSAPI")).strip().upper()


def why_not(properties: Mapping[str, str], token_source: bool = False) -> str | None:
    """What in ``properties`` kgroup's own client does not speak, or None when it connects as
    librdkafka would. ``token_source``: kgroup makes OAUTHBEARER tokens itself (MSK IAM)."""
    unknown = sorted(k for k in properties if k not in NEUTRAL and k not in SPOKEN)
    if unknown:
        return f"it does not read {', '.join(unknown[:3])}{' ...' if len(unknown) > 3 else ''}"
    proto = protocol(properties)
    if proto not in PROTOCOLS:
        return f"security.protocol={proto}"
    if proto.startswith("sasl"):
        mech = mechanism(properties)
        if mech not in MECHANISMS:
            return f"it does not speak SASL mechanism {mech}"
        if mech == "OAUTHBEARER" and not token_source and \
                properties.get("sasl.oauthbearer.method", "default").strip().lower() != "oidc":
            return "OAUTHBEARER without sasl.oauthbearer.method=oidc (librdkafka's unsecured tokens)"
    if properties.get("ssl.endpoint.identification.algorithm", "https").strip().lower() not in ("https", "none"):
        return "ssl.endpoint.identification.algorithm is neither https nor none"
    return None


# -- SASL mechanisms -------------------------------------------------------------------


class Exchange(Protocol):
    """One login's SASL exchange: the first bytes to send, then what follows each answer."""

    def first(self) -> bytes: ...

    def next(self, challenge: bytes) -> bytes | None:
        """What to send after the broker's ``challenge``; None when the login is complete.
        Raises LoginError when the broker's answer proves the login wrong."""


class LoginError(Exception):
    """The broker's SASL answer cannot be right (a SCRAM proof that does not verify, a refusal)."""


class Mechanism(Protocol):
    name: str

    def start(self, timeout: float) -> Exchange: ...


class _Plain:
    def __init__(self, user: str, password: str) -> None:
        self._message = b"\x00" + user.encode() + b"\x00" + password.encode()

    def first(self) -> bytes:
        return self._message

    def next(self, challenge: bytes) -> bytes | None:
        return None


@dataclass
class Plain:
    user: str
    password: str
    name: str = "PLAIN"

    def start(self, timeout: float) -> Exchange:
        return _Plain(self.user, self.password)


class _Scram:
    def __init__(self, name: str, user: str, password: str) -> None:
        import scramp

        self._errors = (scramp.ScramException,)
        try:
            self._client = scramp.ScramClient([name], user, password)
        except scramp.ScramException as e:
            raise UsageError(f"sasl.username or sasl.password cannot be used with {name}: {e.args[0]}") from None
        self._step = 0

    def first(self) -> bytes:
        return str(self._client.get_client_first()).encode()

    def next(self, challenge: bytes) -> bytes | None:
        self._step += 1
        try:
            text = challenge.decode("utf-8")
            if self._step == 1:
                self._client.set_server_first(text)
                return str(self._client.get_client_final()).encode()
            self._client.set_server_final(text)
        except UnicodeDecodeError:
            raise LoginError("the broker's SCRAM answer is not UTF-8 text") from None
        except self._errors as e:
            raise LoginError(f"the broker's SCRAM answer does not verify ({e.args[0]})") from None
        return None


@dataclass
class Scram:
    name: str
    user: str
    password: str

    def start(self, timeout: float) -> Exchange:
        return _Scram(self.name, self.user, self.password)


class _Bearer:
    def __init__(self, token: str, extensions: Mapping[str, str]) -> None:
        items = "".join(f"{k}={v}\x01" for k, v in extensions.items())
        self._message = f"n,,\x01auth=Bearer {token}\x01{items}\x01".encode()
        self._failed = False

    def first(self) -> bytes:
        return self._message

    def next(self, challenge: bytes) -> bytes | None:
        if challenge and not self._failed:
            # RFC 7628: an error as a JSON challenge, to be answered with a lone separator,
            # after which the broker fails the login
            self._failed = True
            return b"\x01"
        return None


@dataclass
class Bearer:
    source: TokenSource
    name: str = "OAUTHBEARER"

    def start(self, timeout: float) -> Exchange:
        token, _ = self.source.token(timeout)
        return _Bearer(token, self.source.extensions)


# -- the whole ------------------------------------------------------------------------


@dataclass
class Security:
    """How to connect: a TLS context or None (plaintext), a SASL mechanism or None."""

    tls: ssl.SSLContext | None
    sasl: Mechanism | None

    @property
    def summary(self) -> str:
        tls = "TLS" if self.tls is not None else "plaintext"
        return tls if self.sasl is None else f"SASL {self.sasl.name} over {tls}"


def _private_file(text: str) -> str:
    fd, path = tempfile.mkstemp(prefix="kgroup-", suffix=".pem")  # mode 0600
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(text)
    return path


def _client_certificate(context: ssl.SSLContext, properties: Mapping[str, str]) -> None:
    cert_file, key_file = properties.get("ssl.certificate.location"), properties.get("ssl.key.location")
    cert_pem, key_pem = properties.get("ssl.certificate.pem"), properties.get("ssl.key.pem")
    password = properties.get("ssl.key.password") or None
    if properties.get("ssl.keystore.location"):
        from kgroup.kafka.stores import keystore_pem

        cert_pem, key_pem = keystore_pem(properties["ssl.keystore.location"],
                                         properties.get("ssl.keystore.password"), password)
        cert_file = key_file = None
        password = None
    if not (cert_file or cert_pem or key_file or key_pem):
        return
    if not (cert_file or cert_pem) or not (key_file or key_pem):
        raise UsageError("a client certificate needs both a certificate (ssl.certificate.location or .pem) "
                         "and its key (ssl.key.location or .pem)")
    made: list[str] = []
    try:
        if cert_file is None:
            made.append(_private_file(cert_pem or ""))
            cert_file = made[-1]
        if key_file is None:
            made.append(_private_file(key_pem or ""))
            key_file = made[-1]
        try:
            context.load_cert_chain(cert_file, key_file, password)
        except FileNotFoundError as e:
            raise UsageError(f"cannot read the client certificate or key: {e.strerror} ({e.filename})") from None
        except ssl.SSLError as e:
            raise UsageError("the client certificate or its key cannot be loaded (a wrong ssl.key.password, "
                             f"or a key that does not match the certificate: {e.reason or e})") from None
        except OSError as e:
            raise UsageError(f"cannot read the client certificate or key: {e.strerror or e}") from None
    finally:
        for path in made:
            Path(path).unlink(missing_ok=True)


def tls_context(properties: Mapping[str, str]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    verify = properties.get("enable.ssl.certificate.verification", "true").strip().lower() != "false"
    check = properties.get("ssl.endpoint.identification.algorithm", "https").strip().lower() == "https"
    context.check_hostname = verify and check
    context.verify_mode = ssl.CERT_REQUIRED if verify else ssl.CERT_NONE
    location = properties.get("ssl.ca.location", "").strip()
    pem = properties.get("ssl.ca.pem")
    try:
        if pem:
            context.load_verify_locations(cadata=pem)
        if location and location.lower() != "probe":
            if Path(location).is_dir():
                context.load_verify_locations(capath=location)
            else:
                context.load_verify_locations(cafile=location)
        if not pem and (not location or location.lower() == "probe"):
            context.load_default_certs()
    except FileNotFoundError:
        raise UsageError(f"cannot read ssl.ca.location {location}: no such file") from None
    except ssl.SSLError as e:
        raise UsageError(f"the CA certificates (ssl.ca.location/ssl.ca.pem) cannot be read: {e.reason or e}") from None
    except OSError as e:
        raise UsageError(f"cannot read ssl.ca.location {location}: {e.strerror or e}") from None
    _client_certificate(context, properties)
    return context


def security_of(properties: Mapping[str, str], token_source: TokenSource | None = None) -> Security:
    """The TLS context and SASL mechanism ``properties`` ask for (why_not said they can be spoken)."""
    proto = protocol(properties)
    tls = tls_context(properties) if proto in ("ssl", "sasl_ssl") else None
    sasl: Mechanism | None = None
    if proto.startswith("sasl"):
        mech = mechanism(properties)
        user, password = properties.get("sasl.username"), properties.get("sasl.password")
        if mech in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
            if not user or password is None:
                raise UsageError(f"SASL {mech} needs sasl.username and sasl.password")
            sasl = Plain(user, password) if mech == "PLAIN" else Scram(mech, user, password)
        elif mech == "OAUTHBEARER":
            if token_source is None:
                raise UsageError("SASL OAUTHBEARER needs sasl.oauthbearer.method=oidc with "
                                 "sasl.oauthbearer.token.endpoint.url, client.id and client.secret")
            sasl = Bearer(token_source)
    return Security(tls, sasl)
