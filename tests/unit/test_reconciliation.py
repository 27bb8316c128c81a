"""kgroup.reconciliation: why a KIP-848 member is still reconciling, on constructed
ConsumerGroupDescribe answers (as the model holds them) and offsets-log states; every expected
value is worked out by hand in the comments."""
from __future__ import annotations

from kgroup.model import GroupDescription, Member
from kgroup.reconciliation import Reconciliation, Waiting, describe_line, explain, reconciled


def _group(members, generation=5, assignment_epoch=5):
    return GroupDescription("K", "consumer", "Unknown", "consumer", "uniform", generation, None, members,
                            assignment_epoch)


def test_three_members_worked_by_hand():
    # Group epoch 5; the target assignment of epoch 5 moves T-2 from A to B, T-4 from C to B,
    # U-0 from C to A. Members' holdings now (assignment) and targets:
    #   A  epoch 4  holds T:0,1,2          target T:0,1 U:0
    #   B  epoch 5  holds T:3              target T:2,3,4
    #   C  epoch 4  holds T:4,5 U:0,1      target T:5 U:1
    # A: holds T-2, not in its target -> revokes T-2. Its target's U-0 it does not hold: C holds it.
    # B: holds nothing outside its target -> revokes nothing. It waits for T-2 (A holds it) and
    #    T-4 (C holds it); T-3 it has.
    # C: holds T-4 and U-0 outside its target -> revokes T:4 U:0; its target T-5, U-1 it has.
    a = Member("A", assignment={"T": [0, 1, 2]}, target_assignment={"T": [0, 1], "U": [0]}, member_epoch=4)
    b = Member("B", assignment={"T": [3]}, target_assignment={"T": [2, 3, 4]}, member_epoch=5)
    c = Member("C", assignment={"T": [4, 5], "U": [0, 1]}, target_assignment={"T": [5], "U": [1]}, member_epoch=4)
    got = explain(_group([a, b, c]))
    assert got == {
        "A": Reconciliation("A", 4, 5, 5, {"T": [2]}, [Waiting("U", 0, "C")]),
        "B": Reconciliation("B", 5, 5, 5, {}, [Waiting("T", 2, "A"), Waiting("T", 4, "C")]),
        "C": Reconciliation("C", 4, 5, 5, {"T": [4], "U": [0]}, []),
    }
    assert got["B"].to_json() == {"member_epoch": 5, "group_epoch": 5, "assignment_epoch": 5, "to_revoke": {},
                                  "waiting_for": [{"topic": "T", "partition": 2, "held_by": "A"},
                                                  {"topic": "T", "partition": 4, "held_by": "C"}]}
    assert describe_line("A", got["A"].to_json()) == "A: epoch 4 (group epoch 5, assignment epoch 5); to revoke T:2; waiting for U:0 (held by C)"
    assert describe_line("C", got["C"].to_json()) == "C: epoch 4 (group epoch 5, assignment epoch 5); to revoke T:4 U:0"


def test_a_reconciled_member_and_a_classic_member_are_not_explained():
    done = Member("D", assignment={"T": [1, 0]}, target_assignment={"T": [0, 1]}, member_epoch=5)
    classic = Member("E", assignment={"T": [2]})
    assert reconciled(done, 5) and reconciled(classic, None)
    assert explain(_group([done, classic])) == {}


def test_an_epoch_behind_alone_is_not_reconciled():
    # holds exactly its target, but at epoch 4 of an assignment of epoch 5: it moves to 5 at its
    # next heartbeat (Kafka's group stays Reconciling until it has)
    m = Member("M", assignment={"T": [0]}, target_assignment={"T": [0]}, member_epoch=4)
    (r,) = explain(_group([m])).values()
    assert (r.to_revoke, r.waiting_for) == ({}, [])
    assert describe_line("M", r.to_json()) == ("M: epoch 4 (group epoch 5, assignment epoch 5); holds its target; "
                                "its epoch has not reached the assignment epoch yet")


def test_unknown_epochs_stay_unknown():
    # librdkafka reports no epoch: the difference of assignment and target still explains
    m = Member("M", assignment={}, target_assignment={"T": [3]})
    n = Member("N", assignment={"T": [0]}, target_assignment={"T": [0]})  # same: reconciled as far as known
    got = explain(_group([m, n], generation=None, assignment_epoch=None))
    assert got == {"M": Reconciliation("M", None, None, None, {}, [Waiting("T", 3, None)])}
    assert describe_line("M", got["M"].to_json()) == ("M: epoch - (group epoch -, assignment epoch -); "
                                       "waiting for T:3 (held by no member)")


def test_pending_revocations_from_the_log_hold_and_are_revoked():
    # From the offsets log: P has moved T-1 out of its assignment into pending revocation (it
    # stays at epoch 6 until it confirms), so Q, already at epoch 7, waits for T-1 held by P;
    # T-2 nobody holds any more: Q gets it at its next heartbeat.
    p = Member("P", assignment={"T": [0]}, target_assignment={"T": [0]}, member_epoch=6,
               pending_revocation={"T": [1]})
    q = Member("Q", assignment={}, target_assignment={"T": [1, 2]}, member_epoch=7, pending_revocation={})
    got = explain(_group([q, p], generation=7, assignment_epoch=7))
    assert list(got) == ["Q", "P"]  # the group's member order
    assert got["P"] == Reconciliation("P", 6, 7, 7, {"T": [1]}, [])
    assert got["Q"] == Reconciliation("Q", 7, 7, 7, {}, [Waiting("T", 1, "P"), Waiting("T", 2, None)])


def test_a_long_wait_is_cut_in_the_table_line():
    m = Member("M", assignment={}, target_assignment={"T": list(range(25))}, member_epoch=5)
    line = describe_line("M", explain(_group([m]))["M"].to_json())
    assert line.endswith("T:19 (held by no member) (+5 more)") and "T:20" not in line
