"""One TCP connection to one broker: requests framed as Kafka frames them, answers read in order.

A request is its size (int32), its header and its body; the header is the API key, version
and correlation id, the client id (an int16-length string in every header version), and in
flexible versions an empty tagged-field section. An answer is its size, the correlation id,
in flexible versions a tagged-field section (ApiVersions excepted: its answer header is never
flexible), and the body. A broker answers a connection's requests in the order sent, so a
connection can hold several requests in flight and read the answers one by one.
"""
from __future__ import annotations

import socket
import struct
import time
from collections import deque
from typing import Any

from kgroup.kmsg import codec, errors
from kgroup.kmsg.messages import API_VERSIONS, Api

_HEADER = struct.Struct(">hhih")
_SIZE = struct.Struct(">i")
_MAX_ANSWER = 512 * 1024 * 1024  # refuse a size that cannot be a Kafka answer (not a Kafka port?)


class WireError(Exception):
    """The connection failed, timed out, or the broker's answer could not be read."""


class Connection:
    """A connection to ``host:port``. Every call gives up at ``deadline`` (time.monotonic());
    connecting also after ``connect_within`` seconds."""

    def __init__(self, host: str, port: int, client_id: str, deadline: float,
                 connect_within: float | None = None) -> None:
        self.address = f"{host}:{port}"
        self._client_id = client_id.encode()
        self._deadline = deadline
        self._next_id = 0
        self._pending: deque[tuple[int, Api]] = deque()
        try:
            left = self._left()
            self._sock = socket.create_connection((host, port), timeout=left if connect_within is None
                                                  else min(left, connect_within))
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as e:
            raise WireError(f"cannot connect to {self.address}: {e}") from None
        self.versions: dict[int, tuple[int, int]] = {}
        self.send(API_VERSIONS, {})
        answer = self.receive()
        if answer["errorCode"] != errors.NONE:
            raise WireError(f"{self.address} refused ApiVersions (error {answer['errorCode']})")
        self.versions = {a["apiKey"]: (a["minVersion"], a["maxVersion"]) for a in answer["apiKeys"]}

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
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF
        frame = bytearray(_HEADER.pack(api.key, api.version, self._next_id, len(self._client_id)))
        frame += self._client_id
        if api.flexible:
            frame += b"\x00"
        frame += codec.write(api.request, api.version, body)
        try:
            self._sock.settimeout(self._left())
            self._sock.sendall(_SIZE.pack(len(frame)) + frame)
        except OSError as e:
            raise WireError(f"cannot send to {self.address}: {e}") from None
        self._pending.append((self._next_id, api))

    def receive(self) -> dict[str, Any]:
        """The body of the answer to the oldest request in flight."""
        correlation, api = self._pending.popleft()
        size = _SIZE.unpack(self._read(4))[0]
        if not 4 <= size <= _MAX_ANSWER:
            raise WireError(f"{self.address} sent an answer of {size} bytes (not a Kafka listener?)")
        buf = self._read(size)
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
        except OSError as e:
            raise WireError(f"cannot read from {self.address}: {e}") from None
        return bytes(buf)

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
