"""One TCP connection to one broker: requests framed as Kafka frames them, answers read in order.

A request is its size (int32), its header and its body; the header is the API key, version
and correlation id, the client id (an int16-length string in every header version), and in
flexible versions an empty tagged-field section. An answer is its size, the correlation id,
in flexible versions a tagged-field section (ApiVersions excepted: its answer header is never
flexible), and the body. A broker answers a connection's requests in the order sent, so a
connection can hold several requests in flight and read the answers one by one.

With a Security (security.py) the connection is TLS (the handshake under the same deadline) and
logs in as Kafka's Java client does: ApiVersions, SaslHandshake v1 naming the mechanism, then the
mechanism's bytes in SaslAuthenticate requests (KIP-152). When the login's answer carries a
session lifetime (KIP-368), the connection logs in again before it ends: at a random 85-95% of
it, as Kafka's client does, before the first request sent after that point (answers to requests
already in flight are read first and kept for receive()).

A failure the user must hear about as such (a refused login, a certificate not trusted, a
listener of the other protocol) is a Refused carrying the typed error; any other failure is a
WireError, after which the caller asks librdkafka instead.
"""
from __future__ import annotations

import random
import socket
import ssl
import struct
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from kgroup.errors import AuthenticationFailed, ClusterError, KgroupError, TlsFailed, WrongSecurityProtocol
from kgroup.kmsg import codec, errors
from kgroup.kmsg.messages import API_VERSIONS, SASL_AUTHENTICATE, SASL_AUTHENTICATE_V1, SASL_HANDSHAKE, Api

if TYPE_CHECKING:
    from kgroup.kafka.wire.security import Security

_HEADER = struct.Struct(">hhih")
_SIZE = struct.Struct(">i")
_MAX_ANSWER = 512 * 1024 * 1024  # refuse a size that cannot be a Kafka answer (not a Kafka port?)


class WireError(Exception):
    """The connection failed, timed out, or the broker's answer could not be read."""


class Refused(Exception):
    """A failure librdkafka would meet as well and that the user must read as such: ``error``
    is the typed error to raise (a refused login, a TLS failure, the wrong protocol)."""

    def __init__(self, error: KgroupError) -> None:
        super().__init__(error.message)
        self.error = error


# Kafka's error codes of a SASL login
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
# a re-login is due at a random point in this range of the session's lifetime (Kafka's client's)
REAUTH_WINDOW = (0.85, 0.95)
# OpenSSL's reasons that say the broker refused the client's certificate, or asked for one in vain
_CLIENT_CERT_REFUSED = ("CERTIFICATE_REQUIRED", "BAD_CERTIFICATE", "CERTIFICATE_UNKNOWN", "UNKNOWN_CA",
                        "CERTIFICATE_EXPIRED", "HANDSHAKE_FAILURE", "ACCESS_DENIED")
# OpenSSL's reasons that say the other end does not speak TLS
_NOT_TLS = ("WRONG_VERSION_NUMBER", "PACKET_LENGTH_TOO_LONG", "RECORD_LAYER_FAILURE", "UNKNOWN_PROTOCOL",
            "HTTP_REQUEST", "UNEXPECTED_EOF_WHILE_READING")


def _certificate_refusal(address: str, e: ssl.SSLCertVerificationError) -> TlsFailed:
    """The error for a broker certificate that did not verify, naming the cause."""
    code, message = e.verify_code, e.verify_message or str(e)
    if code == 10:  # X509_V_ERR_CERT_HAS_EXPIRED
        cause = "its certificate has expired"
    elif code == 9:  # X509_V_ERR_CERT_NOT_YET_VALID
        cause = "its certificate is not valid yet"
    elif code == 62:  # X509_V_ERR_HOSTNAME_MISMATCH (and 64: IP address mismatch)
        cause = (f"its certificate is for another host name ({message}; hostname verification: "
                 "ssl.endpoint.identification.algorithm=https)")
    elif code == 64:
        cause = (f"its certificate is for another address ({message}; hostname verification: "
                 "ssl.endpoint.identification.algorithm=https)")
    elif code in (2, 18, 19, 20, 21):  # unknown issuer, self-signed: no trusted CA signed it
        cause = f"its certificate is not signed by a trusted CA ({message}; check ssl.ca.location)"
    else:
        cause = f"its certificate does not verify ({message})"
    return TlsFailed(f"TLS to the broker at {address} failed: {cause}")


def _tls_refusal(address: str, e: ssl.SSLError, handshake: bool) -> ClusterError | None:
    """The error for a TLS failure that is final, None for one that may pass."""
    reason = (e.reason or "").upper()
    if any(r in reason for r in _CLIENT_CERT_REFUSED):
        return TlsFailed(f"TLS to the broker at {address} failed: the broker refused the client certificate "
                         f"or wanted one ({e.reason}; see ssl.certificate.location/ssl.key.location or "
                         "ssl.keystore.location)")
    if handshake and any(r in reason for r in _NOT_TLS):
        return WrongSecurityProtocol(
            f"the broker at {address} does not speak TLS ({e.reason}): security.protocol asks for TLS "
            "(SSL or SASL_SSL) but the listener is plaintext (use PLAINTEXT or SASL_PLAINTEXT)")
    if handshake:
        return TlsFailed(f"TLS to the broker at {address} failed: {e.reason or e}")
    return None


def tls_handshake(raw: socket.socket, context: ssl.SSLContext, host: str, address: str, timeout: float) -> ssl.SSLSocket:
    """``raw`` wrapped in TLS, the handshake done within ``timeout``: a Refused for a final failure
    (naming its cause), a WireError for any other."""
    try:
        sock = context.wrap_socket(raw, server_hostname=host, do_handshake_on_connect=False)
    except (ssl.SSLError, ValueError) as e:
        raise Refused(TlsFailed(f"TLS to the broker at {address} cannot start: {e}")) from None
    try:
        sock.settimeout(timeout)
        sock.do_handshake()
    except ssl.SSLCertVerificationError as e:
        raise Refused(_certificate_refusal(address, e)) from None
    except (ssl.SSLEOFError, ConnectionResetError, BrokenPipeError):
        raise Refused(WrongSecurityProtocol(
            f"the broker at {address} closed the connection during the TLS handshake: it is probably "
            "not a TLS listener (security.protocol asks for TLS: SSL or SASL_SSL), or it refused "
            "kgroup's client certificate")) from None
    except ssl.SSLError as e:
        refusal = _tls_refusal(address, e, handshake=True)
        raise Refused(refusal) if refusal is not None else WireError(str(e)) from None
    except OSError as e:
        raise WireError(f"TLS to {address}: {e}") from None
    return sock


def tls_diagnosis(host: str, port: int, context: ssl.SSLContext | None, timeout: float) -> ClusterError | None:
    """Why TLS to ``host:port`` fails with ``context`` (the user's settings), or, with None, a
    WrongSecurityProtocol when the listener speaks TLS (a handshake that trusts anything completes):
    for librdkafka's failures, which do not name the cause. None: no such finding."""
    address = f"{host}:{port}"
    try:
        raw = socket.create_connection((host, port), timeout=timeout)
    except OSError:
        return None
    probe = context
    if probe is None:
        probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        probe.check_hostname = False
        probe.verify_mode = ssl.CERT_NONE
    try:
        sock = tls_handshake(raw, probe, host, address, timeout)
    except Refused as e:
        return e.error if context is not None and isinstance(e.error, ClusterError) else None
    except WireError:
        return None
    finally:
        raw.close()
    sock.close()
    if context is None:
        return WrongSecurityProtocol(
            f"the broker at {address} is a TLS listener, and security.protocol asks for none: set it to SSL or "
            "SASL_SSL (with ssl.ca.location)")
    return None


class Connection:
    """A connection to ``host:port``. Every call gives up at ``deadline`` (time.monotonic());
    connecting also after ``connect_within`` seconds."""

    def __init__(self, host: str, port: int, client_id: str, deadline: float,
                 connect_within: float | None = None, security: Security | None = None) -> None:
        self.address = f"{host}:{port}"
        self._client_id = client_id.encode()
        self._deadline = deadline
        self._next_id = 0
        self._pending: deque[tuple[int, Api]] = deque()
        self._ready: deque[tuple[int, Api, bytes]] = deque()  # answers read ahead of a re-login
        self._security = security
        self._relogin_at: float | None = None  # time.monotonic() from which a re-login is due
        self.logins = 0
        self._tls = security is not None and security.tls is not None
        try:
            left = self._left()
            self._sock = socket.create_connection((host, port), timeout=left if connect_within is None
                                                  else min(left, connect_within))
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as e:
            raise WireError(f"cannot connect to {self.address}: {e}") from None
        try:
            if security is not None and security.tls is not None:
                self._sock = self._handshake(security.tls, host)
            self.versions: dict[int, tuple[int, int]] = {}
            self.send(API_VERSIONS, {})
            answer = self.receive()
            if answer["errorCode"] != errors.NONE:
                raise WireError(f"{self.address} refused ApiVersions (error {answer['errorCode']})")
            self.versions = {a["apiKey"]: (a["minVersion"], a["maxVersion"]) for a in answer["apiKeys"]}
            if security is not None and security.sasl is not None:
                self._login()
        except BaseException:
            self.close()
            raise

    def _handshake(self, context: ssl.SSLContext, host: str) -> socket.socket:
        return tls_handshake(self._sock, context, host, self.address, self._left())

    # -- SASL ------------------------------------------------------------------------

    def _ask(self, api: Api, body: dict[str, Any]) -> dict[str, Any]:
        """Send a request and read its answer, with nothing else in flight (the login's)."""
        self._write(api, body)
        return self._decode(*self._pending.popleft(), self._frame())

    def _login(self) -> None:
        """The SASL login (KIP-152), at connection and again when the session's end nears (KIP-368)."""
        from kgroup.kafka.wire.security import LoginError

        assert self._security is not None and self._security.sasl is not None
        mechanism = self._security.sasl
        if not self.supports(SASL_HANDSHAKE):
            raise WireError(f"{self.address} does not answer SaslHandshake v1")
        authenticate = next((api for api in (SASL_AUTHENTICATE, SASL_AUTHENTICATE_V1) if self.supports(api)), None)
        if authenticate is None:
            raise WireError(f"{self.address} does not answer SaslAuthenticate v1 or v2")
        answer = self._ask(SASL_HANDSHAKE, {"mechanism": mechanism.name})
        if answer["errorCode"] == UNSUPPORTED_SASL_MECHANISM:
            raise Refused(AuthenticationFailed(
                f"authentication failed: the broker at {self.address} does not enable SASL mechanism "
                f"{mechanism.name} (it enables {', '.join(answer['mechanisms']) or 'none'})"))
        if answer["errorCode"] != errors.NONE:
            raise Refused(AuthenticationFailed(
                f"authentication failed: the broker at {self.address} refused the SASL handshake "
                f"(error {answer['errorCode']})"))
        exchange = mechanism.start(self._left())
        message: bytes | None = exchange.first()
        while message is not None:
            answer = self._ask(authenticate, {"authBytes": message})
            if answer["errorCode"] != errors.NONE:
                said = answer["errorMessage"] or f"error {answer['errorCode']}"
                raise Refused(AuthenticationFailed(f"authentication failed: {said}"))
            try:
                message = exchange.next(answer["authBytes"])
            except LoginError as e:
                raise Refused(AuthenticationFailed(f"authentication failed: {e}")) from None
        lifetime = answer["sessionLifetimeMs"] / 1000.0
        self._relogin_at = (time.monotonic() + lifetime * random.uniform(*REAUTH_WINDOW)) if lifetime > 0 else None
        self.logins += 1

    def _relogin(self) -> None:
        """Log in again on this connection (KIP-368): the answers in flight are read first."""
        while self._pending:
            correlation, api = self._pending.popleft()
            self._ready.append((correlation, api, self._frame()))
        self._login()

    def supports(self, api: Api) -> bool:
        low, high = self.versions.get(api.key, (0, -1))
        return low <= api.version <= high

    def _left(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise WireError(f"no answer from {self.address} in time")
        return left

    def send(self, api: Api, body: dict[str, Any]) -> None:
        """Send a request; its answer is read by a later receive(), in the order sent."""
        if self._relogin_at is not None and time.monotonic() >= self._relogin_at:
            self._relogin()
        self._write(api, body)

    def _write(self, api: Api, body: dict[str, Any]) -> None:
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF
        frame = bytearray(_HEADER.pack(api.key, api.version, self._next_id, len(self._client_id)))
        frame += self._client_id
        if api.flexible:
            frame += b"\x00"
        frame += codec.write(api.request, api.version, body)
        try:
            self._sock.settimeout(self._left())
            self._sock.sendall(_SIZE.pack(len(frame)) + frame)
        except ssl.SSLError as e:
            refusal = _tls_refusal(self.address, e, handshake=False)
            if refusal is not None:
                raise Refused(refusal) from None
            raise WireError(f"cannot send to {self.address}: {e}") from None
        except OSError as e:
            raise WireError(f"cannot send to {self.address}: {e}") from None
        self._pending.append((self._next_id, api))

    def receive(self) -> dict[str, Any]:
        """The body of the answer to the oldest request in flight."""
        if self._ready:
            return self._decode(*self._ready.popleft())
        correlation, api = self._pending.popleft()
        return self._decode(correlation, api, self._frame())

    def _frame(self) -> bytes:
        """The next answer's bytes (its size read and dropped)."""
        head = self._read(4)
        if not self._tls and head[:1] in (b"\x15", b"\x16") and head[1:2] == b"\x03":
            raise Refused(WrongSecurityProtocol(
                f"the broker at {self.address} answered with TLS: it is a TLS listener (set security.protocol "
                "to SSL or SASL_SSL, with ssl.ca.location)"))
        size = _SIZE.unpack(head)[0]
        if not 4 <= size <= _MAX_ANSWER:
            raise WireError(f"{self.address} sent an answer of {size} bytes (not a Kafka listener?)")
        return self._read(size)

    def _decode(self, correlation: int, api: Api, buf: bytes) -> dict[str, Any]:
        if _SIZE.unpack_from(buf)[0] != correlation:
            raise WireError(f"{self.address} answered out of order")
        try:
            pos = codec.skip_tagged_fields(buf, 4) if api.flexible and api.key != API_VERSIONS.key else 4
            body, _ = codec.read(api.response, api.version, buf, pos)
        except codec.DecodeError as e:
            raise WireError(f"cannot read the answer of {self.address}: {e}") from None
        return body

    def _read(self, n: int) -> bytes:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        try:
            while got < n:
                self._sock.settimeout(self._left())
                k = self._sock.recv_into(view[got:])
                if k == 0:
                    raise WireError(f"{self.address} closed the connection")
                got += k
        except ssl.SSLError as e:
            refusal = _tls_refusal(self.address, e, handshake=False)
            if refusal is not None:
                raise Refused(refusal) from None
            raise WireError(f"cannot read from {self.address}: {e}") from None
        except OSError as e:
            raise WireError(f"cannot read from {self.address}: {e}") from None
        return bytes(buf)

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
