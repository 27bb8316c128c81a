"""A Kafka-protocol TCP proxy that injects faults into the answers to chosen APIs.

It sits on 127.0.0.1 in front of one broker. The broker is started advertising the
proxy's address (``start_tansu_behind_proxy``), so every connection a client makes
after bootstrap also goes through the proxy; nothing needs rewriting.

The proxy reads whole frames in both directions. From each request it takes the
header (int32 size, int16 api_key, int16 api_version, int32 correlation_id, nullable
string client_id) and remembers which API each correlation id belongs to; when the
answer comes back it applies the first rule that matches that API:

- ``delay``:  hold the answer ``seconds`` before passing it on (later answers on the
  connection wait behind it, as they would behind a slow broker);
- ``drop``:   swallow this answer, keep the connection (the client waits for it);
- ``freeze``: from this answer on, this connection gets nothing more (the broker looks
  alive: TCP stays open); with ``everywhere=True`` every connection, present and future,
  goes silent too;
- ``garble``: pass on an answer of the right size and correlation id whose body is junk;
- ``close``:  close the client's connection instead of answering.

Rules can spare clients by client id (the test's own consumers, for instance), and can
fire only once. ``answer_with(api_key, make)`` replaces the broker's answers to an API by what
``make(api_version, request_frame)`` returns (everything after the correlation id: the rest
of the response header, then the body), so a test can show clients answers the broker would
not give. ``requests`` records (api_key, api_version, client_id) of every request
seen, so a test can check that the fault was actually reached.
"""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

LIST_OFFSETS = 2
FETCH = 1
METADATA = 3
OFFSET_FETCH = 9
FIND_COORDINATOR = 10
DESCRIBE_GROUPS = 15
LIST_GROUPS = 16
DESCRIBE_CLUSTER = 60
CONSUMER_GROUP_DESCRIBE = 69

ACTIONS = ("delay", "drop", "freeze", "garble", "close")


@dataclass
class Rule:
    api_key: int
    action: str
    seconds: float = 0.0
    everywhere: bool = False
    once: bool = False
    spare: frozenset[str] = frozenset()
    fired: int = 0


def _read_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        try:
            chunk = sock.recv(n - len(buf))
        except OSError:
            return None
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _read_frame(sock: socket.socket) -> bytes | None:
    head = _read_exact(sock, 4)
    if head is None:
        return None
    (size,) = struct.unpack(">i", head)
    if size < 0 or size > 256 * 1024 * 1024:
        return None
    body = _read_exact(sock, size)
    return None if body is None else head + body


def parse_request_header(frame: bytes) -> tuple[int, int, int, str | None]:
    """(api_key, api_version, correlation_id, client_id) of one request frame (size prefix included)."""
    api_key, api_version, correlation_id = struct.unpack_from(">hhi", frame, 4)
    (length,) = struct.unpack_from(">h", frame, 12)
    client_id = None if length < 0 else frame[14:14 + length].decode("utf-8", "replace")
    return api_key, api_version, correlation_id, client_id


@dataclass
class _Connection:
    client: socket.socket
    upstream: socket.socket
    # correlation id -> (api, client id, api version, request frame)
    pending: dict[int, tuple[int, str | None, int, bytes]] = field(default_factory=dict)
    frozen: bool = False
    touched: bool = False  # a rule fired on it, or it went silent with the rest
    client_id: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        for s in (self.client, self.upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


class FaultProxy:
    """``FaultProxy(upstream_port).start()``; ``proxy.port`` is where clients connect."""

    def __init__(self, upstream_port: int, port: int = 0, upstream_host: str = "127.0.0.1"):
        self.upstream = (upstream_host, upstream_port)
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", port))
        self._server.listen(64)
        self.port = self._server.getsockname()[1]
        self.rules: list[Rule] = []
        self.requests: list[tuple[int, int, str | None]] = []
        self.request_times: list[float] = []  # time.monotonic() of each of self.requests
        self.frozen_everywhere = False
        self.answers: dict[int, Callable[[int, bytes], bytes]] = {}
        self._connections: list[_Connection] = []
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    # -- control ----------------------------------------------------------------

    def fault(self, api_key: int, action: str, seconds: float = 0.0, *, everywhere: bool = False,
              once: bool = False, spare: tuple[str, ...] = ()) -> Rule:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action}")
        rule = Rule(api_key, action, seconds, everywhere, once, frozenset(spare))
        with self._lock:
            self.rules.append(rule)
        return rule

    def answer_with(self, api_key: int, make: Callable[[int, bytes], bytes]) -> None:
        with self._lock:
            self.answers[api_key] = make

    def reset(self) -> None:
        """No rules, no answers replaced, nothing frozen; every connection a fault touched is closed (its client
        reconnects cleanly), the others (spared clients') carry on."""
        with self._lock:
            self.rules.clear()
            self.answers.clear()
            self.requests.clear()
            self.request_times.clear()
            self.frozen_everywhere = False
            closing = [c for c in self._connections if c.touched]
            self._connections = [c for c in self._connections if not c.touched]
        for c in closing:
            c.close()

    def seen(self, api_key: int) -> int:
        """How many requests of this API went through."""
        with self._lock:
            return sum(1 for a, _, _ in self.requests if a == api_key)

    def first_request(self, spare: tuple[str, ...] = ()) -> float | None:
        """When (time.monotonic()) the first request of a client not in ``spare`` went through."""
        with self._lock:
            return min((t for t, (_, _, c) in zip(self.request_times, self.requests) if (c or "") not in spare),
                       default=None)

    def start(self) -> "FaultProxy":
        threading.Thread(target=self._accept, daemon=True, name="faultproxy-accept").start()
        return self

    def stop(self) -> None:
        self._stopped = True
        try:
            self._server.close()
        finally:
            self.reset()
            with self._lock:
                connections, self._connections = self._connections, []
            for c in connections:
                c.close()

    # -- plumbing ---------------------------------------------------------------

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.upstream, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            conn = _Connection(client, upstream)
            with self._lock:
                self._connections.append(conn)
            threading.Thread(target=self._requests, args=(conn,), daemon=True).start()
            threading.Thread(target=self._responses, args=(conn,), daemon=True).start()

    def _requests(self, conn: _Connection) -> None:
        while True:
            frame = _read_frame(conn.client)
            if frame is None:
                break
            try:
                api_key, version, corr, client_id = parse_request_header(frame)
            except struct.error:
                break
            with self._lock:
                self.requests.append((api_key, version, client_id))
                self.request_times.append(time.monotonic())
            with conn.lock:
                conn.pending[corr] = (api_key, client_id, version, frame)
                conn.client_id = client_id
            try:
                conn.upstream.sendall(frame)
            except OSError:
                break
        conn.close()

    def _rule_for(self, api_key: int, client_id: str | None) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.api_key == api_key and (client_id or "") not in rule.spare and not (rule.once and rule.fired):
                    rule.fired += 1
                    if rule.action == "freeze" and rule.everywhere:
                        self.frozen_everywhere = True
                    return rule
        return None

    def _responses(self, conn: _Connection) -> None:
        while True:
            frame = _read_frame(conn.upstream)
            if frame is None:
                break
            (corr,) = struct.unpack_from(">i", frame, 4)
            with conn.lock:
                api_key, client_id, version, request = conn.pending.pop(corr, (None, None, 0, b""))
            with self._lock:
                make = self.answers.get(api_key) if api_key is not None else None
            if make is not None:
                body = frame[4:8] + make(version, request)
                frame = struct.pack(">i", len(body)) + body
            rule = self._rule_for(api_key, client_id) if api_key is not None else None
            if rule is not None:
                conn.touched = True
                if rule.action == "delay":
                    time.sleep(rule.seconds)
                elif rule.action == "drop":
                    continue
                elif rule.action == "freeze":
                    conn.frozen = True
                elif rule.action == "garble":
                    frame = frame[:8] + bytes([0xFF]) * (len(frame) - 8)
                elif rule.action == "close":
                    break
            if conn.frozen or (self.frozen_everywhere and (client_id or "") not in _spared(self.rules)):
                conn.touched = True
                continue  # silent: the answer is read from the broker and never passed on
            try:
                conn.client.sendall(frame)
            except OSError:
                break
        conn.close()


def _spared(rules: list[Rule]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for r in rules:
        if r.action == "freeze" and r.everywhere:
            out |= r.spare
    return out


def start_tansu_behind_proxy(log=None):
    """Tansu listening on one loopback port and advertising the proxy's: returns (process, proxy).

    The bootstrap address to give clients is ``proxy.address``.
    """
    import subprocess

    from brokers import free_port, tansu_binary

    proxy = FaultProxy(free_port())
    listen = f"tcp://127.0.0.1:{proxy.upstream[1]}"
    advertised = f"tcp://127.0.0.1:{proxy.port}"
    proc = subprocess.Popen([tansu_binary(), "broker", "--listener-url", listen, "--advertised-listener-url",
                             advertised], stdout=log or subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"tansu exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(proxy.upstream) == 0:
                return proc, proxy.start()
        time.sleep(0.05)
    from brokers import stop_process

    stop_process(proc)
    raise RuntimeError("tansu did not start listening")
