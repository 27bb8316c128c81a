"""whatif and vote as a user runs them, on snapshot files written out here.

Exact expectations are derived by hand from Kafka's documented algorithms (range: members
sorted by member id, each gets partitions/members, the first partitions%members one more;
roundrobin: sorted members dealt sorted partitions in turn). Byte-identity with Kafka's own
Java assignors is proven by tests/differential/test_assignors_differential.py.
"""
from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_kgroup
from unit.test_uniform_topic_ids import X, Y

SEED = str(ROOT / "examples" / "seed-g1.json")
C1, C2, C3 = ("C1-4f0b5a2e-7d1c-4c55-9a0e-2b7f1d3c8a01", "C2-9b3e6c1d-2a4f-4e8b-b7c0-5d1e3f9a2b02",
              "C3-1d7a2f8e-6c3b-4a9d-8e5f-0c2b4d6e8f03")


def _whatif(*args):
    r = run_kgroup("whatif", "--snapshot", SEED, "-o", "json", *args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    return doc, {s["strategy"]: s for s in doc["strategies"]}


def test_remove_c3_range_and_roundrobin_exact():
    doc, s = _whatif("--remove", "C3")
    assert doc["group"] == "G1" and doc["inferred_subscriptions"] is False
    assert doc["current"][C3] == {"Order": [5, 6], "Stock": [4]}
    assert s["range"]["assignment"] == {C1: {"Order": [0, 1, 2, 3], "Stock": [0, 1, 2]},
                                        C2: {"Order": [4, 5, 6], "Stock": [3, 4]}}
    # Order-3 and Stock-2 go from C2 to C1; C3's three partitions go to C2
    assert s["range"]["moved_partitions"] == 5
    assert (s["range"]["min_partitions"], s["range"]["max_partitions"]) == (5, 7)
    assert s["roundrobin"]["assignment"] == {C1: {"Order": [0, 2, 4, 6], "Stock": [1, 3]},
                                             C2: {"Order": [1, 3, 5], "Stock": [0, 2, 4]}}
    assert set(s) == {"range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"}
    assert all(x["unassigned"] == {} for x in s.values())


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky", "uniform"])
def test_remove_c3_sticky_strategies_keep_what_they_own(strategy):
    _, s = _whatif("--remove", "C3", "--strategy", strategy)
    a = s[strategy]["assignment"]
    # every partition C1 and C2 own now stays; C3's three partitions are shared out 6/6
    assert set(a[C1]["Order"]) >= {0, 1, 2} and set(a[C1]["Stock"]) >= {0, 1}
    assert set(a[C2]["Order"]) >= {3, 4} and set(a[C2]["Stock"]) >= {2, 3}
    assert (s[strategy]["min_partitions"], s[strategy]["max_partitions"]) == (6, 6)
    assert s[strategy]["moved_partitions"] == 3


def test_cooperative_first_round_withholds_moving_partitions():
    # adding C4 takes partitions from current owners: the first round revokes them unassigned
    _, s = _whatif("--add", "C4", "--strategy", "cooperative-sticky")
    coop = s["cooperative-sticky"]
    final_owner = {(t, p): m for m, a in coop["assignment"].items() for t, ps in a.items() for p in ps}
    first_owner = {(t, p): m for m, a in coop["first_round"].items() for t, ps in a.items() for p in ps}
    moved = {tp for tp, m in final_owner.items() if m == "C4"}
    assert len(moved) == 3 and coop["first_round"]["C4"] == {}
    assert all(tp not in first_owner for tp in moved)
    assert all(first_owner[tp] == final_owner[tp] for tp in first_owner)


def test_add_member_with_topics_and_partition_growth():
    doc, s = _whatif("--add", "C4=Order", "--partitions", "Order=12", "--strategy", "range")
    assert doc["topics"] == {"Order": 12, "Stock": 5}
    # Order: 12 partitions over C1, C2, C3, C4 (member ids sort C1-.. < C2-.. < C3-.. < C4)
    assert {m: a.get("Order") for m, a in s["range"]["assignment"].items()} == {
        C1: [0, 1, 2], C2: [3, 4, 5], C3: [6, 7, 8], "C4": [9, 10, 11]}
    assert s["range"]["assignment"]["C4"] == {"Order": [9, 10, 11]}


def test_member_that_gets_nothing_appears_with_empty_assignment():
    _, s = _whatif("--add", "C4", "--add", "C5", "--add", "C6", "--add", "C7", "--add", "C8", "--strategy", "range")
    # Stock has 5 partitions and 8 members: range gives 3 members no Stock; Order 7 -> one gets none
    assert all(m in s["range"]["assignment"] for m in ("C4", "C5", "C6", "C7", "C8"))
    assert s["range"]["assignment"]["C8"] == {}


@pytest.mark.parametrize("args,needle", [
    (["--remove", "C9"], "no member matches 'C9'"),
    (["--remove", "C3", "--remove", "C3"], "more than once"),
    (["--partitions", "Order=3"], "can only add partitions"),
    (["--partitions", "Nope=3"], "no topic Nope"),
    (["--strategy", "magic"], "--strategy must be one of"),
    (["--add", C1], "already exists"),
])
def test_bad_whatif_input_exits_2(args, needle):
    r = run_kgroup("whatif", "--snapshot", SEED, *args)
    assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_ambiguous_member_lists_candidates(tmp_path):
    doc = json.loads(open(SEED).read())
    for m in doc["group"]["members"]:
        m["host"] = "/10.0.0.9"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    r = run_kgroup("whatif", "--snapshot", str(path), "--remove", "10.0.0.9")
    assert r.returncode == 2
    assert "matches 3 members" in r.stderr and C1 in r.stderr and C3 in r.stderr


def test_inferred_subscriptions_are_said(tmp_path):
    doc = json.loads(open(SEED).read())
    for m in doc["group"]["members"]:
        del m["subscription"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    r = run_kgroup("whatif", "--snapshot", str(path), "--remove", "C3", "-o", "json", "--strategy", "range")
    assert json.loads(r.stdout)["inferred_subscriptions"] is True
    assert "subscriptions inferred" in r.stderr


def test_table_view_ends_with_comparison():
    r = run_kgroup("whatif", "--snapshot", SEED, "--remove", "C3")
    assert r.returncode == 0
    assert r.stdout.startswith("What if G1: remove " + C3)
    comparison = r.stdout[r.stdout.index("Comparison"):].splitlines()
    assert comparison[1].split() == ["STRATEGY", "MOVED", "CHANGED-MEMBERS", "MIN", "MAX", "UNASSIGNED"]
    assert comparison[3].split() == ["range", "5", "2", "5", "7", "0"]
    assert comparison[4].split() == ["roundrobin", "7", "2", "6", "6", "0"]


def test_broker_jdk_decides_uniforms_order_of_a_copied_partition_set(tmp_path):
    """A owns 12 partitions of t (1-6, 17-22) and may keep 6. The coordinator copies them into a
    new HashSet: 32 buckets on JDK 17 (ascending order), 16 on JDK 21 (1, 17, 2, 18, ...); A
    keeps the first six it iterates."""
    doc = json.loads(open(SEED).read())
    doc["cluster"]["topics"] = {"t": {"partitions": 24}}
    template = doc["group"]["members"][0]
    doc["group"]["members"] = [
        {**template, "member_id": n, "client_id": n, "subscription": ["t"], "protocols": ["range"],
         "assignment": {"t": [1, 2, 3, 4, 5, 6, 17, 18, 19, 20, 21, 22]} if n == "A" else {}} for n in "ABCD"]
    doc["offsets"] = {}
    path = tmp_path / "jdk.json"
    path.write_text(json.dumps(doc))
    kept = {}
    for jdk in ("17", "21"):
        r = run_kgroup("whatif", "--snapshot", str(path), "-s", "uniform", "--broker-jdk", jdk, "-o", "json")
        assert r.returncode == 0, r.stderr
        (result,) = json.loads(r.stdout)["strategies"]
        kept[jdk] = result["assignment"]["A"]["t"]
    assert kept == {"17": [1, 2, 3, 4, 5, 6], "21": [1, 2, 3, 17, 18, 19]}
    r = run_kgroup("whatif", "--snapshot", str(path), "-s", "uniform", "-o", "json")
    assert json.loads(r.stdout)["strategies"][0]["assignment"]["A"]["t"] == kept["17"]  # the default


def test_whatif_subscription_is_named_in_the_header():
    r = run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", "--subscription", "C1=Order", "-s", "range")
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == "What if G1: C1 subscribes to Order"


def test_whatif_on_a_group_whose_members_are_not_described(tmp_path):
    doc = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    doc["group"]["members"] = []  # a Stable group described without members (Tansu)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    r = run_kgroup("whatif", "--snapshot", str(path), "--add", "new1", "-s", "range")
    assert r.returncode == 0
    assert ("kgroup: warning: the cluster reports group G1 as Stable but lists no members (this broker does not "
            "describe them): kgroup computes as if the group were empty") in r.stderr
    r = run_kgroup("whatif", "--snapshot", str(path), "--remove", "C1")
    assert r.returncode == 2
    assert "no member matches 'C1': the group has no members, or the cluster does not describe them" in r.stderr


# uniform on snapshots with topic ids and KIP-848 target assignments: what the coordinator would be fed

def _snapshot(tmp_path, ids: bool, targets: bool = False) -> str:
    doc = {
        "kgroup_snapshot": 1,
        "cluster": {"topics": {"a": {"partitions": 1}, "p": {"partitions": 1}}},
        "group": {"group_id": "K", "type": "consumer", "state": "Stable", "protocol": "uniform",
                  "members": [{"member_id": "A", "subscription": ["a", "p"], "assignment": {}},
                              {"member_id": "B", "subscription": ["a", "p"], "assignment": {}}]},
    }
    if ids:
        doc["cluster"]["topics"]["a"]["topic_id"] = X
        doc["cluster"]["topics"]["p"]["topic_id"] = Y
    if targets:
        # the members still own nothing but the coordinator's target gives A topic a
        doc["group"]["members"][0]["target_assignment"] = {"a": [0]}
        doc["group"]["members"][1]["target_assignment"] = {}
    path = tmp_path / f"k-{ids}-{targets}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _uniform_after(path: str):
    r = run_kgroup("whatif", "--snapshot", path, "-s", "uniform", "-o", "json")
    assert r.returncode == 0, r.stderr
    (result,) = json.loads(r.stdout)["strategies"]
    return result["assignment"], r.stderr


def test_whatif_uniform_uses_the_snapshots_topic_ids(tmp_path):
    after, stderr = _uniform_after(_snapshot(tmp_path, ids=True))
    assert after == {"A": {"p": [0]}, "B": {"a": [0]}}
    assert "topic ids are unknown" not in stderr
    after, stderr = _uniform_after(_snapshot(tmp_path, ids=False))
    assert after == {"A": {"a": [0]}, "B": {"p": [0]}}
    assert "uniform: the topic ids are unknown (not in the snapshot), so its answer orders topics by name" in stderr


def test_whatif_uniform_starts_from_the_target_assignment(tmp_path):
    # A's target already holds a-0: quota 1 is filled by it, B gets the rest, p-0
    after, _ = _uniform_after(_snapshot(tmp_path, ids=True, targets=True))
    assert after == {"A": {"a": [0]}, "B": {"p": [0]}}


def test_a_snapshot_of_a_deleted_topic_runs_through_whatif_offsets_and_describe(tmp_path):
    from unit.test_capture import deleted_topic_snapshot

    path = tmp_path / "s.json"
    path.write_text(json.dumps(deleted_topic_snapshot()))
    for argv in (["whatif", "--snapshot", str(path), "--remove", "m2", "-s", "range", "-o", "json"],
                 ["offsets", "--snapshot", str(path), "-o", "json"],
                 ["describe", "--snapshot", str(path)]):
        r = run_kgroup(*argv)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (argv, r.stderr)
    r = run_kgroup("whatif", "--snapshot", str(path), "--remove", "m2", "-s", "range", "-o", "json")
    assert "Gone" not in r.stdout  # the assignors never saw the deleted topic


def test_whatif_lag_from_a_snapshot_with_a_sentinel_is_unknown(tmp_path):
    def snapshot(log_start, log_end):
        return {"kgroup_snapshot": 1, "cluster": {"topics": {"T": {"partitions": 2}}},
                "group": {"group_id": "W", "state": "Stable", "protocol": "range",
                          "members": [{"member_id": "a", "subscription": ["T"], "assignment": {"T": [0]}},
                                      {"member_id": "b", "subscription": ["T"], "assignment": {"T": [1]}}],
                          "offsets": {"T": {"0": {"committed": 5, "log_start": 0, "log_end": 12},
                                            "1": {"committed": 5, "log_start": log_start, "log_end": log_end}}}}}

    path = tmp_path / "w.json"
    # Kafka's sentinel -1001 (no offset) is refused in a snapshot file: an offset is 0 or more there
    path.write_text(json.dumps(snapshot(-1001, -1001)))
    r = run_kgroup("whatif", "--snapshot", str(path), "-s", "range", "-o", "json")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"kgroup: error: snapshot {path}: $.group.offsets.T[\"1\"].log_start: -1001 is out of range: "
                        "an offset is 0 or more (null when unknown)\n")
    # unknown is null: a's lag is 12 - 5 = 7, b's is unknown, never a number
    path.write_text(json.dumps(snapshot(None, None)))
    r = run_kgroup("whatif", "--snapshot", str(path), "-s", "range", "-o", "json")
    assert r.returncode == 0, r.stderr
    (result,) = json.loads(r.stdout)["strategies"]
    assert result["lag"] == {"a": 7, "b": None}


NEVER = str(ROOT / "examples" / "sticky-never-returns.json")
NEVER_ADD = ("--add", "new-0-95b1=logs,zeta", "--add", "new-1-0e35=logs,zeta")


def test_an_assignor_that_never_returns_is_an_answer_not_a_crash():
    """Kafka 4.3.0's StickyAssignor and CooperativeStickyAssignor loop forever on this group with
    the two members added (the kafka-clients jar does not return within minutes; checked against
    the jar by tests/differential/test_assignors_differential.py): both strategies say so, the
    others answer as always, and the command exits 0."""
    r = run_kgroup("whatif", "--snapshot", NEVER, *NEVER_ADD, "-o", "json")
    assert r.returncode == 0, r.stderr
    s = {x["strategy"]: x for x in json.loads(r.stdout)["strategies"]}
    assert list(s) == ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
    for name in ("sticky", "cooperative-sticky"):
        assert set(s[name]) == {"strategy", "completes", "reason"}
        assert s[name]["completes"] is False
        assert "never returns" in s[name]["reason"] and "SyncGroup" in s[name]["reason"]
    assert "Kafka's StickyAssignor " in s["sticky"]["reason"]
    assert "Kafka's CooperativeStickyAssignor " in s["cooperative-sticky"]["reason"]
    for name in ("range", "roundrobin", "uniform", "server-range"):
        assert s[name]["completes"] is True and s[name]["unassigned"] == {}
        # 31 + 256 partitions, every one assigned, each to one member
        assert sum(len(ps) for a in s[name]["assignment"].values() for ps in a.values()) == 287
    # range: 24 members subscribe to logs (31 partitions: 7 get 2, 17 get 1) and the two added
    # members sort first among them ("new-..." < "rdkafka-..." but after "consumer-..." and "C-...")
    assert sorted(len(a.get("logs", [])) for a in s["range"]["assignment"].values()
                  if "logs" in a) == [1] * 17 + [2] * 7


def test_a_strategy_that_never_completes_has_its_line_and_comparison_row():
    r = run_kgroup("whatif", "--snapshot", NEVER, *NEVER_ADD)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for name, cls in (("sticky", "StickyAssignor"), ("cooperative-sticky", "CooperativeStickyAssignor")):
        at = lines.index(f"[{name}] never completes")
        assert lines[at + 1].startswith(f"Kafka's {cls} never returns on this input: it loops in its reassignment "
                                        "phase")
        assert "never sends SyncGroup" in lines[at + 1]
    comparison = r.stdout[r.stdout.index("Comparison"):].splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in comparison[3:]}
    assert list(rows) == ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
    assert rows["sticky"][:2] == rows["cooperative-sticky"][:2] == ["never", "completes"]
    assert rows["range"][-1] == "0" and rows["uniform"][-1] == "0"


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_one_strategy_that_never_completes_exits_0(strategy):
    r = run_kgroup("whatif", "--snapshot", NEVER, *NEVER_ADD, "-s", strategy, "-o", "json")
    assert r.returncode == 0, r.stderr
    (only,) = json.loads(r.stdout)["strategies"]
    assert only["strategy"] == strategy and only["completes"] is False


def test_the_vote_line_says_when_the_selected_assignor_never_completes(tmp_path):
    doc = json.loads(open(NEVER).read())
    for m in doc["group"]["members"]:
        m["protocols"] = ["sticky"]
    path = tmp_path / "sticky.json"
    path.write_text(json.dumps(doc))
    r = run_kgroup("whatif", "--snapshot", str(path), *NEVER_ADD, "--protocols", "sticky")
    assert r.returncode == 0, r.stderr
    assert "protocol vote after the change: sticky, whose rebalance never completes (see [sticky])" in r.stdout


def test_csv_has_a_row_per_strategy_and_member():
    import csv
    import io

    r = run_kgroup("whatif", "--snapshot", SEED, "--remove", "C3", "-s", "range", "-o", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    # range over Order (7) and Stock (5) with C1 and C2 left: Order 0-3 / 4-6, Stock 0-2 / 3-4
    assert [(row["strategy"], row["member_id"][:2], row["after"], row["partitions"]) for row in rows] == [
        ("range", "C1", "Order:0-3 Stock:0-2", "7"), ("range", "C2", "Order:4-6 Stock:3-4", "5"),
        ("range", "C3", "(removed)", "")]
    assert {row["completes"] for row in rows} == {"true"}


def test_csv_says_a_strategy_never_completes():
    r = run_kgroup("whatif", "--snapshot", str(ROOT / "examples" / "sticky-never-returns.json"), "-s", "sticky",
                   "--add", "new-0-95b1=logs,zeta", "--add", "new-1-0e35=logs,zeta", "-o", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == "sticky,false,,,,,,,,"
