"""A broker of the cluster, as the model (a group's coordinator, a snapshot's brokers) and the
cluster's metadata (kgroup.group.metadata) both name it: a module of its own, so that neither
imports the other for it."""
from __future__ import annotations

from typing import Any, NamedTuple


class Broker(NamedTuple):
    """A broker of the cluster: id, advertised host and port, rack."""

    id: int
    host: str
    port: int
    rack: str | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def label(self) -> str:
        """How tables and pages name a broker: HOST:PORT (ID)."""
        return f"{self.host}:{self.port} ({self.id})"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "host": self.host, "port": self.port}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Broker:
        """The broker of a document's ``{"id", "host", "port"}``."""
        return cls(doc["id"], doc["host"], doc["port"])
