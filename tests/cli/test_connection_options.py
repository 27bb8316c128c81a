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
    monkeypatch.setattr("kgroup.kafka.cluster.connect", lambda settings: made.append(settings) or object())
    a, b = ConnectionOptions("h:1"), ConnectionOptions("h:1")
    assert a.cluster() is a.cluster()
    assert b.cluster() is not a.cluster()
    assert len(made) == 2
    assert not any(name.startswith("_CLUSTER") for name in vars(common))


SHARED = ["bootstrap", "x", "command_config", "timeout", "verbose"]


def test_the_option_set_comes_last_and_arrives_as_one_value():
    import inspect

    from kgroup.cli.common import connection_options

    seen = []

    @connection_options
    def command(group: str, output: str = "table", *, conn: ConnectionOptions) -> None:
        seen.append((group, output, conn))

    assert list(inspect.signature(command).parameters) == ["group", "output", *SHARED]
    command("G1", bootstrap="h:1", x=["a=b"], command_config=None, timeout=3.0, verbose=True)
    ((group, output, conn),) = seen
    assert (group, output) == ("G1", "table")
    assert [getattr(conn, name) for name in SHARED] == ["h:1", ["a=b"], None, 3.0, True]


def test_the_options_never_print_a_secret():
    conn = ConnectionOptions("h:1", ["sasl.password=hunter2"])
    assert "hunter2" not in repr(conn) and "hunter2" not in str(conn)


def test_every_command_with_a_cluster_takes_the_one_option_set():
    import inspect
    from pathlib import Path

    from kgroup.cli import load_app

    with_connection = []
    for c in load_app().registered_commands:
        names = list(inspect.signature(c.callback).parameters)
        if "bootstrap" in names:
            assert names[-5:] == SHARED and "conn" in inspect.signature(c.callback.__wrapped__).parameters, c.name
            with_connection.append(c.name)
    assert "vote" not in with_connection and len(with_connection) == 11  # all but vote
    for f in (Path(common.__file__).parent).glob("*.py"):
        assert "bootstrap: Bootstrap" not in f.read_text(), f.name  # declared once, in common.py's set
