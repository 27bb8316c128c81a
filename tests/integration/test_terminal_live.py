"""Terminal injection from a live cluster: a group id and a client id full of escape
sequences, created on a real broker, reach table output and messages only as visible
escapes; JSON carries them exactly."""
from __future__ import annotations

import json
import re

import pytest
from conftest import run_kgroup

RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
GROUP = "inj\x1b]0;owned\x07\x1b[2J\rkgroup: forged"
CLIENT = "cl\x1b[31mred"


@pytest.fixture(scope="module")
def hostile_group(tansu):
    import seed

    seed.create_topics(tansu, {"Inj": 2})
    # (no commit: Tansu does not answer an OffsetCommit for this group id; membership is enough)
    group = seed.LiveGroup(tansu, GROUP, clients=(CLIENT,), topics={"Inj": 2}).start()
    try:
        yield group
    finally:
        group.stop()


@pytest.mark.broker
def test_live_group_and_client_ids_are_escaped_in_tables(tansu, hostile_group):
    escaped_group = "inj\\x1b]0;owned\\x07\\x1b[2J\\x0dkgroup: forged"
    for args in (["describe", GROUP], ["offsets", GROUP], ["find-coordinator", GROUP],
                 ["whatif", GROUP, "-s", "range"]):
        r = run_kgroup(*args, "-b", tansu, "--timeout", "10")
        assert r.returncode == 0, (args, r.stderr)
        assert not RAW_CONTROL.search(r.stdout) and not RAW_CONTROL.search(r.stderr), (args, r.stdout, r.stderr)
        assert escaped_group in r.stdout, (args, r.stdout)
    # Tansu reports the member's id (client id + uuid) where the assignor goes: escaped too
    r = run_kgroup("describe", GROUP, "-b", tansu)
    assert "cl\\x1b[31mred" in r.stdout
    r = run_kgroup("describe", GROUP, "-b", tansu, "-o", "json")
    (g,) = json.loads(r.stdout)["groups"]
    assert g["group"] == GROUP
