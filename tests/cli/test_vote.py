"""kgroup vote: the protocol a classic group selects, ties included, and a rolling assignor switch, golden."""
from __future__ import annotations

import json

from conftest import run_kgroup

from cli.test_whatif import SEED


def test_vote_and_rolling_switch():
    r = run_kgroup("vote", "-m", "a=range,cooperative-sticky", "-m", "b=cooperative-sticky,range", "-o", "json")
    doc = json.loads(r.stdout)
    assert doc["candidates"] and set(doc["candidates"]) == {"range", "cooperative-sticky"}
    assert doc["ballots"] == {"a": "range", "b": "cooperative-sticky"}
    # a 1-1 tie: Kafka keeps the first entry of its HashMap of votes. Worked by hand:
    # "range".hashCode() = 108280125, spread to bucket 9 of 16; "cooperative-sticky".hashCode()
    # = 1843682987, bucket 15; bucket 9 is iterated first, so range wins (not alphabetical order)
    assert (doc["votes"], doc["selected"], doc["error"]) == ({"range": 1, "cooperative-sticky": 1}, "range", None)
    r = run_kgroup("vote", "-m", "a=range", "-m", "b=cooperative-sticky")
    assert r.returncode == 1 and "INCONSISTENT_GROUP_PROTOCOL" in r.stdout
    r = run_kgroup("vote", "--snapshot", SEED, "--switch", "range:cooperative-sticky", "-o", "json")
    steps = json.loads(r.stdout)["steps"]
    assert all(s["accepted"] for s in steps)
    # C1, C2, C3 all start on [range]. Bounce 1 restarts each with [cooperative-sticky, range]:
    # while one member still lists range only, range is the sole candidate; once C3 rejoins both
    # are candidates and all three vote for their first, cooperative-sticky. Bounce 2 drops range.
    # A member listing an eager assignor rebalances EAGER, one listing only cooperative ones COOPERATIVE.
    got = [(s["bounce"], (s["member"] or "-")[:2], s["protocols"], s["selected"], s["rebalance_protocol"])
           for s in steps]
    both = ["cooperative-sticky", "range"]
    assert got == [
        (0, "-", [], "range", ""),
        (1, "C1", both, "range", "EAGER"),
        (1, "C2", both, "range", "EAGER"),
        (1, "C3", both, "cooperative-sticky", "EAGER"),
        (2, "C1", ["cooperative-sticky"], "cooperative-sticky", "COOPERATIVE"),
        (2, "C2", ["cooperative-sticky"], "cooperative-sticky", "COOPERATIVE"),
        (2, "C3", ["cooperative-sticky"], "cooperative-sticky", "COOPERATIVE"),
    ]


def test_rolling_switch_first_bounce_order():
    """Two dynamic members on [range]. to-first: a restarts with [cooperative-sticky, range]
    (only range is common: range stays), then b: both vote cooperative-sticky, the group switches
    in bounce 1. from-first: [range, cooperative-sticky] keeps everyone voting range through
    bounce 1; the switch happens at the first restart of bounce 2."""
    base = ["vote", "-m", "a=range", "-m", "b=range", "--switch", "range:cooperative-sticky", "-o", "json"]
    to_first = json.loads(run_kgroup(*base).stdout)["steps"]
    assert to_first[1]["protocols"] == ["cooperative-sticky", "range"]
    assert [s["selected"] for s in to_first] == ["range", "range"] + ["cooperative-sticky"] * 3
    from_first = json.loads(run_kgroup(*base, "--first-bounce", "from-first").stdout)["steps"]
    assert from_first[1]["protocols"] == ["range", "cooperative-sticky"]
    assert [s["selected"] for s in from_first] == ["range"] * 3 + ["cooperative-sticky"] * 2
    static = run_kgroup(*base, "--static-members")
    assert static.returncode == 0 and all(s["accepted"] for s in json.loads(static.stdout)["steps"])
    r = run_kgroup("vote", "-m", "a=range", "--first-bounce", "from-first")
    assert r.returncode == 2 and "give --switch FROM:TO" in r.stderr
    r = run_kgroup(*base, "--first-bounce", "last")
    assert r.returncode == 2 and "--first-bounce must be to-first or from-first" in r.stderr


def _snapshot_of(scenario: dict, protocol: str) -> dict:
    """A differential scenario (tests/differential/data/) as a snapshot: each member's owned
    partitions its assignment, in generation 1, running ``protocol``."""
    members = []
    for m in scenario["members"]:
        assignment: dict[str, list[int]] = {}
        for t, p in m["owned"]:
            assignment.setdefault(t, []).append(p)
        members.append({"member_id": m["id"], "group_instance_id": m.get("instance"), "client_id": "c",
                        "rack": m.get("rack"), "subscription": m["topics"], "assignment": assignment})
    return {"kgroup_snapshot": 1, "captured_at": "2026-11-21T00:00:00Z",
            "cluster": {"brokers": [{"id": 1, "host": "b1", "port": 9092}], "offsets_partitions": 50,
                        "topics": {t: {"partitions": n, "replica_racks": (scenario["racks"] or {}).get(t, {})}
                                   for t, n in scenario["topics"].items()}},
            "group": {"group_id": "g", "type": "classic", "state": "Stable", "protocol": protocol, "generation": 1,
                      "members": members}}


def test_a_switch_step_whose_assignor_never_returns_is_flagged(tmp_path):
    """tests/differential/data/sticky-never-returns.json as a group running sticky, its members
    in generation 1. Its first restart (Zxx1, whose new consumer owns nothing and has no sticky
    memory) leaves every other member's StickyAssignor userData as it is: exactly the kept input on
    which Kafka's StickyAssignor does not return (the differential test runs the jar on it). That
    step is flagged, step 0 has no rebalance, the plan still exits 0."""
    from conftest import ROOT
    from schemas import validate

    scenario = json.loads((ROOT / "tests" / "differential" / "data" / "sticky-never-returns.json").read_text())
    assert scenario["members"][0]["id"] == "Zxx1" and scenario["members"][0]["owned"] == []
    assert all(m["generation"] == 1 for m in scenario["members"][1:])
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_snapshot_of(scenario, "sticky")))
    r = run_kgroup("vote", "--snapshot", str(path), "--switch", "sticky:cooperative-sticky", "-o", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    validate("vote", out)
    steps = out["steps"]
    assert "completes" not in steps[0]
    assert (steps[1]["member"], steps[1]["selected"], steps[1]["completes"]) == ("Zxx1", "sticky", False)
    assert steps[1]["reason"].startswith("Kafka's StickyAssignor never returns on this input")
    assert "NEVER COMPLETES" in steps[1]["note"]
    assert all(s["completes"] == ("NEVER COMPLETES" not in s["note"]) for s in steps[1:])
    assert all("reason" in s for s in steps[1:] if not s["completes"])
    assert "the rebalance of step(s) 1, " in r.stderr
    table = run_kgroup("vote", "--snapshot", str(path), "--switch", "sticky:cooperative-sticky")
    assert table.returncode == 0 and "NEVER COMPLETES: Kafka's StickyAssignor never returns" in table.stdout


def test_a_switch_flags_only_what_kafka_would_run(tmp_path):
    """examples/sticky-never-returns.json with its two new members in the group: whatif says both
    sticky assignors loop on the group as it stands. A rolling switch to cooperative-sticky never
    runs that input: every member lists range until bounce 2, so each rebalances EAGER and brings
    no owned partitions, and a restarted member's new consumer owns nothing; every step completes."""
    from conftest import ROOT

    doc = json.loads((ROOT / "examples" / "sticky-never-returns.json").read_text())
    for name in ("new-0-95b1", "new-1-0e35"):
        doc["group"]["members"].append({"member_id": name, "client_id": "new", "subscription": ["logs", "zeta"],
                                        "assignment": {}})
    path = tmp_path / "joined.json"
    path.write_text(json.dumps(doc))
    whatif = run_kgroup("whatif", "--snapshot", str(path), "-s", "cooperative-sticky", "-o", "json")
    assert json.loads(whatif.stdout)["strategies"][0]["completes"] is False
    r = run_kgroup("vote", "--snapshot", str(path), "--switch", "range:cooperative-sticky", "-o", "json")
    assert r.returncode == 0, r.stderr
    steps = json.loads(r.stdout)["steps"]
    assert len(steps) == 1 + 2 * 31
    # to-first: range until the last member of bounce 1 (step 31) lists cooperative-sticky too
    assert [s["selected"] for s in steps[1:]] == ["range"] * 30 + ["cooperative-sticky"] * 32
    assert all(s["completes"] for s in steps[1:]) and "never completes" not in r.stderr


def test_a_switch_without_a_snapshot_runs_no_assignor():
    r = run_kgroup("vote", "-m", "a=range", "-m", "b=range", "--switch", "range:sticky", "-o", "json")
    assert r.returncode == 0 and all("completes" not in s for s in json.loads(r.stdout)["steps"])
