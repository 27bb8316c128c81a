"""kgroup history: a group's rebalances, rebuilt from the records of an offsets log (--input), golden."""
from __future__ import annotations

import json

import pytest
from conftest import run_kgroup
from unit.test_replay import MIN, T, scenario

from kgroup.offsets_log.raw import write_jsonl


@pytest.fixture
def logfile(tmp_path):
    path = tmp_path / "log.jsonl"
    with open(path, "w") as f:
        write_jsonl(scenario().records, f)
    return path


def test_history_cli_json(logfile):
    r = run_kgroup("history", "G1", "--input", str(logfile), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    from schemas import validate

    validate("history", doc)
    assert doc["type"] == "classic" and doc["deleted"] is True
    assert [e["generation"] for e in doc["rebalances"]] == [1, 2, 3, None]
    assert doc["rebalances"][2]["left"] == ["c2"]
    assert doc["rebalances"][1]["last_commits"] == {"Order": {"4": 160}}


def test_history_cli_table_says_who_left_not_why(logfile):
    r = run_kgroup("history", "G1", "--input", str(logfile), "--since", str(T + 2 * MIN))
    assert r.returncode == 0, r.stderr
    assert "generation 3, protocol range, leader c1, 2 members, 1.0m after the previous" in r.stdout
    assert "left:   c2" in r.stdout and "generation 2" not in r.stdout
    assert "group deleted" in r.stdout


def test_history_of_unknown_group(logfile):
    r = run_kgroup("history", "NOPE", "--input", str(logfile))
    assert r.returncode == 2 and "holds no record of group NOPE" in r.stderr
