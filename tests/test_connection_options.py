"""The connection options of a command: one value, passed explicitly, one cluster per value."""
from __future__ import annotations

from kgroup.cli import common
from kgroup.cli.common import ConnectionOptions


def test_settings_translate_the_options():
    s = ConnectionOptions("h1:9092,h2:9092", ["client.id=x"], None, 7.5, False).settings()
    assert s.bootstrap == "h1:9092,h2:9092"
    assert s.properties["client.id"] == "x" and s.timeout == 7.5


def test_one_cluster_per_options_value_and_no_module_global(monkeypatch):
    made = []
    monkeypatch.setattr("kgroup.adapter.connect", lambda settings: made.append(settings) or object())
    a, b = ConnectionOptions("h:1"), ConnectionOptions("h:1")
    assert a.cluster() is a.cluster()
    assert b.cluster() is not a.cluster()
    assert len(made) == 2
    assert not any(name.startswith("_CLUSTER") for name in vars(common))
