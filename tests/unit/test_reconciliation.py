"""kgroup.group.reconciliation: why a KIP-848 member is still reconciling, on constructed
ConsumerGroupDescribe answers (as the model holds them) and offsets-log states; every expected
value is worked out by hand in the comments."""
from __future__ import annotations

from kgroup.group.model import GroupDescription, Member
from kgroup.group.reconciliation import Reconciliation, Waiting, describe_line, explain, reconciled


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


# --- history: the same from the offsets log's KIP-848 records ------------------------------

T0 = 1763780000000
ORDER = "AAAAAAAAAAAAAAAAAAAAAQ"  # Uuid(0, 1) as Kafka prints it
UNREVOKED, UNRELEASED, STABLE = 1, 2, 0  # Kafka's MemberState values


def _current(log, ts, member, epoch, previous, state, assigned, pending):
    log.add("K", ts, 8, {"groupId": "K", "memberId": member}, 0, {
        "memberEpoch": epoch, "previousMemberEpoch": previous, "state": state,
        "assignedPartitions": [{"topicId": ORDER, "partitions": assigned}] if assigned else [],
        "partitionsPendingRevocation": [{"topicId": ORDER, "partitions": pending}] if pending else []})


def reconciling_log():
    """Epoch 1: A Order:0-2, B Order:3, C Order:4-5, all reconciled. Epoch 2's target moves Order-2
    from A to B and Order-4 from C to B; then A gives Order-2 up; epoch 3 (D joins) has no target
    yet when the log ends."""
    from logbuilder import Log, kip848_epoch, kip848_member

    log = Log(partitions=50)
    log.add("K", T0, 4, {"groupId": "K"}, 0, {"topics": [
        {"topicId": ORDER, "topicName": "Order", "numPartitions": 6, "partitionMetadata": []}]})
    for m in "ABC":
        kip848_member(log, "K", T0, m, ["Order"])
    kip848_epoch(log, "K", T0, 1, {"A": {ORDER: [0, 1, 2]}, "B": {ORDER: [3]}, "C": {ORDER: [4, 5]}})
    t = T0 + 60_000
    log.add("K", t, 3, {"groupId": "K"}, 0, {"epoch": 2})
    for m, ps in (("A", [0, 1]), ("B", [2, 3, 4]), ("C", [5])):
        log.add("K", t, 7, {"groupId": "K", "memberId": m}, 0, {"topicPartitions": [{"topicId": ORDER, "partitions": ps}]})
    log.add("K", t, 6, {"groupId": "K"}, 0, {"assignmentEpoch": 2, "assignmentTimestamp": t})
    # each member's heartbeat, as Kafka's CurrentAssignmentBuilder answers it:
    _current(log, t + 100, "A", 1, 0, UNREVOKED, [0, 1], [2])    # keeps epoch 1 until Order-2 is given up
    _current(log, t + 200, "C", 1, 0, UNREVOKED, [5], [4])
    _current(log, t + 300, "B", 2, 1, UNRELEASED, [3], [])       # epoch 2; Order-2, Order-4 not released
    _current(log, t + 5000, "A", 2, 1, STABLE, [0, 1], [])       # A has given Order-2 up
    kip848_member(log, "K", t + 9000, "D", ["Order"])
    log.add("K", t + 9000, 3, {"groupId": "K"}, 0, {"epoch": 3})
    return log, t


def test_history_says_who_was_still_reconciling_when_each_epoch_ended():
    from kgroup.offsets_log.records import decode
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.offsets_log.selection import Entry

    log, t = reconciling_log()
    replay = GroupReplay("K")
    for raw in log.records:
        replay.apply(Entry(raw, decode(raw.key, raw.value)))
    replay.finish()
    e1, e2, e3 = replay.rebalances
    # epoch 1 ended when epoch 2's record came: every member held its target at epoch 1
    assert (e1.generation, e1.reconciliation, e1.reconciliation_timestamp, e1.epoch_ended) == (1, [], t, True)
    # epoch 2 ended when epoch 3's record came (t + 9000). By then A had given Order-2 up and
    # moved to epoch 2 (reconciled). B (epoch 2) holds Order-3 of its target Order:2-4: Order-2
    # nobody holds any more (B gets it at its next heartbeat), Order-4 C holds pending revocation.
    # C (still epoch 1) holds Order-5 and must still give up Order-4.
    assert e2.reconciliation_timestamp == t + 9000
    assert e2.reconciliation == [
        Reconciliation("B", 2, 2, 2, {}, [Waiting("Order", 2, None), Waiting("Order", 4, "C")]),
        Reconciliation("C", 1, 2, 2, {"Order": [4]}, []),
    ]
    # epoch 3 has no target assignment yet when the log ends: the members still reconcile towards
    # epoch 2's (D, without a target, is not explained)
    assert (e3.reconciliation_timestamp, e3.epoch_ended) == (t + 9000, False)  # the last record read
    assert e3.reconciliation == [
        Reconciliation("B", 2, 3, 2, {}, [Waiting("Order", 2, None), Waiting("Order", 4, "C")]),
        Reconciliation("C", 1, 3, 2, {"Order": [4]}, []),
    ]
    assert e2.epoch_ended and e2.to_json()["reconciliation"]["epoch_ended"] is True
    assert e2.to_json()["reconciliation"]["members"][1] == {
        "member_id": "C", "member_epoch": 1, "group_epoch": 2, "assignment_epoch": 2, "to_revoke": {"Order": [4]},
        "waiting_for": []}


def test_history_in_the_middle_of_epoch_2():
    # the log read up to A's first heartbeat of epoch 2: A must give Order-2 up (pending
    # revocation), B and C still hold epoch 1's assignment: B waits for Order-2 (A holds it,
    # pending revocation) and Order-4 (C holds it); C must give up Order-4, which its target lacks.
    from kgroup.offsets_log.records import decode
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.offsets_log.selection import Entry

    log, t = reconciling_log()
    replay = GroupReplay("K")
    for raw in log.records:
        if raw.timestamp <= t + 100:
            replay.apply(Entry(raw, decode(raw.key, raw.value)))
    replay.finish()
    assert replay.rebalances[1].reconciliation == [
        Reconciliation("A", 1, 2, 2, {"Order": [2]}, []),
        Reconciliation("B", 1, 2, 2, {}, [Waiting("Order", 2, "A"), Waiting("Order", 4, "C")]),
        Reconciliation("C", 1, 2, 2, {"Order": [4]}, []),
    ]


def test_snapshot_at_a_moment_carries_the_epochs_and_kafkas_state():
    # state_at (snapshot --at) on the same log: at epoch 1's end every member is reconciled
    # (Stable); at A's first heartbeat of epoch 2 members are reconciling; once epoch 3's record
    # is read without its target assignment, the group is Assigning (group epoch 3 > assignment epoch 2)
    from kgroup.offsets_log.records import decode
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.offsets_log.selection import Entry
    from kgroup.offsets_log.timetravel import state_at

    log, t = reconciling_log()

    def at(ms):
        replay = GroupReplay("K")
        for raw in log.records:
            if raw.timestamp <= ms:
                replay.apply(Entry(raw, decode(raw.key, raw.value)))
        return state_at(replay, ms)[0].group

    g = at(t - 1)
    assert (g.state, g.generation, g.assignment_epoch, [m.member_epoch for m in g.members]) == ("Stable", 1, 1, [1, 1, 1])
    g = at(t + 100)
    assert (g.state, g.generation, g.assignment_epoch, [m.member_epoch for m in g.members]) == (
        "Reconciling", 2, 2, [1, 1, 1])
    assert [m.pending_revocation for m in g.members] == [{"Order": [2]}, {}, {}]
    g = at(t + 9000)
    assert (g.state, g.generation, g.assignment_epoch) == ("Assigning", 3, 2)


def test_an_epoch_ahead_of_the_assignment_epoch_is_not_behind():
    # holds exactly its target at epoch 6 while the assignment epoch known is 5: reconciled
    m = Member("M", assignment={"T": [0]}, target_assignment={"T": [0]}, member_epoch=6)
    assert reconciled(m, 5) and explain(_group([m])) == {}
    line = describe_line("M", {"member_epoch": 6, "group_epoch": 6, "assignment_epoch": 5, "to_revoke": {},
                               "waiting_for": []})
    assert line == ("M: epoch 6 (group epoch 6, assignment epoch 5); holds its target; its epoch is ahead of the "
                    "assignment epoch known")
