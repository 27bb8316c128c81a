"""A local HTTPS OAuth 2 token endpoint for the OAUTHBEARER tests (client-credentials grant, RFC 6749 4.4).

POST the form ``grant_type=client_credentials`` (and optionally ``scope``), with the client id and
secret by HTTP basic authentication or as the form fields ``client_id``/``client_secret``; the answer
is JSON ``{"access_token", "token_type": "Bearer", "expires_in"}`` (and ``scope``). The tokens are
unsecured JWTs (``alg: none``; claims ``sub`` = the client id, ``iat``, ``exp``, ``scope`` as a list,
``iss``, ``jti``), which the front's validator (Kafka's unsecured-JWS validator) accepts.

The endpoint can be told to misbehave (``mode``): ``"down"`` (nothing listens on its port),
``"unavailable"`` (HTTP 503), ``"garbage"`` (HTTP 200 with a body that is not JSON), ``"no-token"``
(JSON without access_token); ``lifetime_s`` makes short-lived tokens (refresh tests). Every request
is counted (``requests``) and every token issued is kept (``issued``: the claims).
"""
from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

PATH = "/oauth2/token"
MODES = ("ok", "down", "unavailable", "garbage", "no-token")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unsecured_jwt(claims: dict) -> str:
    """An unsecured JWS (RFC 7515 with alg "none"): header.payload. with an empty signature."""
    header = _b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{_b64url(json.dumps(claims).encode())}."


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that failed the TLS handshake or hung up: nothing for the test output


@dataclass
class TokenEndpoint:
    cert_pem: Path
    key_pem: Path
    clients: dict[str, str]  # client id -> secret
    lifetime_s: int = 3600
    mode: str = "ok"
    default_scope: str = "kafka"
    port: int = 0
    requests: int = 0
    issued: list[dict] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"https://localhost:{self.port}{PATH}"

    def start(self) -> TokenEndpoint:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(self.cert_pem), str(self.key_pem))
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # nothing on the test output
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
                endpoint._answer(self)

            def do_GET(self) -> None:  # noqa: N802
                self._send(405, {"error": "invalid_request", "error_description": "POST only"})

            def _send(self, status: int, body: dict) -> None:
                endpoint._reply(self, status, json.dumps(body).encode(), "application/json")

        server = _Server(("127.0.0.1", self.port), Handler)
        # the TLS handshake in each request's thread (a client that never completes it holds only its own)
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="token-endpoint", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def set_mode(self, mode: str) -> None:
        """Change the behaviour: "down" closes the listening socket, any other mode (re)opens it."""
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: one of {MODES}")
        self.mode = mode
        if mode == "down":
            self.stop()
        elif self._server is None:
            self.start()  # the same port again

    # -- the grant -------------------------------------------------------------------------------

    def _reply(self, handler: BaseHTTPRequestHandler, status: int, body: bytes, kind: str) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Cache-Control", "no-store")
        handler.end_headers()
        handler.wfile.write(body)

    def _error(self, handler: BaseHTTPRequestHandler, status: int, error: str, description: str) -> None:
        self._reply(handler, status, json.dumps({"error": error, "error_description": description}).encode(),
                    "application/json")

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.requests += 1
        length = int(handler.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(handler.rfile.read(length).decode("utf-8", "replace")).items()}
        if self.mode == "unavailable":
            return self._reply(handler, 503, b"<html><body>Service Unavailable</body></html>", "text/html")
        if self.mode == "garbage":
            return self._reply(handler, 200, b"\x00this is not json{", "application/json")
        if handler.path.split("?")[0] != PATH:
            return self._error(handler, 404, "invalid_request", "no such endpoint")
        client_id, secret = form.get("client_id"), form.get("client_secret")
        auth = handler.headers.get("Authorization", "")
        if auth.lower().startswith("basic "):
            try:
                client_id, _, secret = base64.b64decode(auth[6:].strip()).decode("utf-8").partition(":")
            except ValueError:
                return self._error(handler, 400, "invalid_request", "malformed basic authentication")
        if form.get("grant_type") != "client_credentials":
            return self._error(handler, 400, "unsupported_grant_type", "only client_credentials")
        if client_id is None or self.clients.get(client_id) != secret:
            return self._error(handler, 401, "invalid_client", "unknown client or wrong secret")
        if self.mode == "no-token":
            return self._reply(handler, 200, json.dumps({"token_type": "Bearer"}).encode(), "application/json")
        scope = form.get("scope") or self.default_scope
        now = int(time.time())
        claims = {"iss": self.url, "sub": client_id, "iat": now, "exp": now + self.lifetime_s,
                  "scope": scope.split(), "jti": str(uuid.uuid4())}
        with self._lock:
            self.issued.append(claims)
        body = {"access_token": unsecured_jwt(claims), "token_type": "Bearer", "expires_in": self.lifetime_s,
                "scope": scope}
        self._reply(handler, 200, json.dumps(body).encode(), "application/json")


def start_token_endpoint(cert_pem: Path, key_pem: Path, clients: dict[str, str], lifetime_s: int = 3600,
                         default_scope: str = "kafka") -> TokenEndpoint:
    """A running endpoint on a free loopback port (``url`` names it as https://localhost:PORT/...:
    the certificate's names are localhost and 127.0.0.1)."""
    return TokenEndpoint(cert_pem, key_pem, dict(clients), lifetime_s=lifetime_s, default_scope=default_scope).start()
