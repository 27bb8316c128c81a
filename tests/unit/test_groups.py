"""kgroup.group.documents in-process: the verdict over an offsets answer taken group by group, and the list and
describe documents (member order, reconciliation, filters) worked by hand."""
from __future__ import annotations

from kgroup.lag.now import LagVerdict


def _g(group, over=(), unknown=(), complete=True):
    return {"group": group, "incomplete": not complete,
            "over_threshold": [{"topic": t, "partition": p, "lag": lag} for t, p, lag in over],
            "unknown": [{"topic": t, "partition": p, "reason": r} for t, p, r in unknown]}


def test_over_keeps_the_first_shown_and_counts_them_all():
    v = LagVerdict(5, shown=2)
    v.add(_g("A", over=[("T", 0, 9)]))
    v.add(_g("B"))
    v.add(_g("C", over=[("T", 1, 6), ("U", 0, 7)]))
    assert v.verdict == "over"
    assert v.over == [("A", "T", 0, 9), ("C", "T", 1, 6)] and v.over_count == 3
    assert v.problems([]) == []


def test_nothing_passes_on_an_incomplete_answer():
    v = LagVerdict(5)
    v.add(_g("A", over=[("T", 0, 9)]))
    v.add(_g("B", unknown=[("T", 1, "log-end offset unknown"), ("T", 2, "log-end offset unknown")],
             complete=False))
    assert v.verdict == "incomplete"
    # a problem reported while reading that names T-1 stands for it; T-2 is added
    assert v.problems(["T-1: not read"]) == ["T-1: not read", "B T-2: log-end offset unknown"]


def test_an_incomplete_answer_always_says_something():
    v = LagVerdict(None)
    v.add(_g("A", complete=False))
    assert v.problems([]) == ["some values are unknown"]
    ok = LagVerdict(None)
    ok.add(_g("A"))
    assert (ok.verdict, ok.problems([])) == ("ok", [])


def test_without_a_threshold_nothing_is_over():
    v = LagVerdict(None)
    v.add({"group": "A", "incomplete": False, "unknown": []})  # no over_threshold without --lag-above
    assert (v.verdict, v.over, v.over_count) == ("ok", [], 0)


# ------------------------------------------------------------------ list and describe documents

def _state(*members, state="Stable", assignor="range"):
    from kgroup.group.model import Broker, GroupDescription, GroupState, TopicLayout

    return GroupState(GroupDescription("G", state=state, assignor=assignor, members=list(members),
                                       coordinator=Broker(2, "b2", 9092)), {"T": TopicLayout(4)})


def test_describe_lists_static_members_first_then_by_member_id():
    from kgroup.group.documents import describe_document
    from kgroup.group.model import Member

    doc = describe_document([_state(Member("b", assignment={"T": [3, 1]}),
                                    Member("z", group_instance_id="i2", assignment={"T": [0]}),
                                    Member("a", assignment={}),
                                    Member("y", group_instance_id="i1", assignment={"T": [2]}))])
    (g,) = doc["groups"]
    # static (instance ids i1, i2 in order) before dynamic (member ids a, b in order)
    assert [m["member_id"] for m in g["members"]] == ["y", "z", "a", "b"]
    assert (g["member_count"], g["assignor"], g["coordinator"]["id"]) == (4, "range", 2)
    b = g["members"][3]
    assert (b["partition_count"], b["assignment"], b["target_assignment"], b["reconciling"]) == (2, {"T": [1, 3]}, None,
                                                                                            False)


def test_a_member_whose_target_differs_is_reconciling_and_said_so():
    from kgroup.group.documents import describe_document, describe_notes
    from kgroup.group.model import Member

    doc = describe_document([_state(Member("m1", assignment={"T": [0, 1]}, target_assignment={"T": [1, 0]}),
                                    Member("m2", assignment={"T": [2]}, target_assignment={"T": [2, 3]}),
                                    state="Reconciling", assignor="uniform")])
    (g,) = doc["groups"]
    assert [m["reconciling"] for m in g["members"]] == [False, True]  # the same set in another order is no change
    # m2 holds T-2 of its target T:2,3; nobody holds T-3; no epoch is known (none in the model)
    assert g["members"][1]["reconciliation"] == {
        "member_epoch": None, "group_epoch": None, "assignment_epoch": None, "to_revoke": {},
        "waiting_for": [{"topic": "T", "partition": 3, "held_by": None}]}
    assert "reconciliation" not in g["members"][0]
    assert describe_notes(g) == [
        "Group G is rebalancing (Reconciling): assignments are in flux.",
        "1 member(s) still reconciling towards their target assignment:",
        "  m2: epoch - (group epoch -, assignment epoch -); waiting for T:3 (held by no member)",
        "Epochs shown as - are not known here: librdkafka does not report them (kgroup's own describe of "
        "many groups per request and the offsets log do)."]


def test_list_filters_states_in_any_case_and_the_type():
    from kgroup.group.documents import listing_row
    from kgroup.group.metadata import GroupListing
    from kgroup.group.model import GroupDescription, Member

    listed = [GroupListing("A", "classic", "Stable"), GroupListing("B", "consumer", "PreparingRebalance"),
              GroupListing("C", "classic", "Empty")]
    described = {"A": GroupDescription("A", state="Stable", assignor="range", members=[Member("m")])}

    def kept(states, type_):
        rows = [listing_row(g, described.get(g.group_id), states, type_) for g in listed]
        return [r["group"] for r in rows if r is not None]

    assert kept(["preparing_rebalance", "EMPTY"], None) == ["B", "C"]
    assert kept([], ["classic"]) == ["A", "C"]
    assert kept([], ["consumer", "classic"]) == ["A", "B", "C"]
    assert kept([], ["share"]) == []
    a = listing_row(listed[0], described["A"], ["stable"], None)
    assert a is not None and (a["assignor"], a["member_count"], a["coordinator"]) == ("range", 1, None)
    # B is not described: what ListGroups said stands, the rest is unknown
    assert listing_row(listed[1], None, [], None) == {"group": "B", "type": "consumer", "state": "PreparingRebalance",
                                                      "protocol_type": None, "assignor": None, "member_count": None,
                                                      "coordinator": None}
