"""A rolling assignor switch rebalance by rebalance: for each step of the plan
(kgroup.whatif.vote.plan_rolling_switch), the rebalance that ends it, run with the assignor the
group selects there, and whether it completes; each consumer's owned partitions, generation and
StickyAssignor memory carried from one rebalance to the next.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from kgroup.group.model import GroupState
from kgroup.java.hashmap import DEFAULT_JDK
from kgroup.whatif.assignors import registry
from kgroup.whatif.assignors.base import AssignorNeverReturns, MemberSubscription
from kgroup.whatif.compare import Change, apply_change, never_completes, topic_racks_of


class StepRebalance(NamedTuple):
    """The rebalance that ends one step of a rolling switch, run with the assignor selected there."""

    strategy: str
    completes: bool
    reason: str | None = None


class _Consumer:
    """What one member's consumer holds between rebalances of a rolling switch."""

    __slots__ = ("owned", "generation", "sticky_memory")

    def __init__(self, owned: tuple[tuple[str, int], ...], generation: int,
                 sticky_memory: tuple[tuple[tuple[str, int], ...], int] | None) -> None:
        self.owned = owned  # its partitions after the last completed rebalance
        self.generation = generation  # that rebalance's generation (-1: never assigned)
        # what its StickyAssignor learnt in onAssignment, with the generation (eager sticky's
        # userData): set only by a rebalance that selected sticky, lost at a restart
        self.sticky_memory = sticky_memory


def switch_rebalances(state: GroupState, steps: list[Any], jdk: int = DEFAULT_JDK) -> list[StepRebalance | None]:
    """For each step of a rolling switch (kgroup.whatif.vote.plan_rolling_switch) on the group ``state``
    holds: does the rebalance that ends it complete, run with the assignor the group selects there?
    None for step 0 (no rebalance) and where no client-side assignor is selected.

    Each restart is one rebalance, of the members in the group after it. The restarted member's
    new consumer owns nothing (generation -1, no StickyAssignor memory). What the others bring
    follows Kafka's consumer: one that lists an EAGER-only assignor revokes everything before
    rejoining (no owned partitions), a COOPERATIVE one keeps what the last rebalance gave it and,
    when cooperative-sticky takes some away, asks for the follow-up rebalance; StickyAssignor's
    userData is the assignment of the last rebalance that selected sticky. Step 0 is the group as
    ``state`` holds it: its assignment, its generation, and StickyAssignor memory when it runs sticky.
    A rebalance that never completes leaves every member as it was."""
    from kgroup.whatif.assignors import cooperative_sticky
    from kgroup.whatif.vote import rebalance_protocol

    topics, known, _, _, _ = apply_change(state, Change())
    subscription = {m.member_id: m for m in known}
    group_topics = tuple(sorted(t for t in state.group.topics if t in topics) or sorted(topics))
    generation = state.group.generation if state.group.generation is not None else 0
    running_sticky = bool(steps) and steps[0].selected == "sticky"
    consumers = {m.member_id: _Consumer(m.owned, m.generation,
                                        (m.owned, m.generation) if running_sticky else None) for m in known}
    out: list[StepRebalance | None] = [None]
    for step in steps[1:]:
        consumers[step.member] = _Consumer((), -1, None)  # a new process
        chosen = step.selected
        if chosen not in registry.CLIENT_SIDE or not step.group:
            out.append(None)
            continue
        if chosen not in ("sticky", "cooperative-sticky"):
            # range and roundrobin always return, and what they assign never reaches a later
            # input: every member of a group that selects them is EAGER (revokes it before
            # rejoining) until it restarts with nothing
            generation += 1
            for member_id in step.group:
                c = consumers.setdefault(member_id, _Consumer((), -1, None))
                c.owned, c.generation = (), generation
            out.append(StepRebalance(chosen, True))
            continue
        eager = {m: rebalance_protocol(ps) != "COOPERATIVE" for m, ps in step.group.items()}
        members = []
        for member_id in step.group:
            base = subscription.get(member_id) or MemberSubscription(member_id, group_topics)
            c = consumers.setdefault(member_id, _Consumer((), -1, None))
            if chosen == "sticky":
                owned, gen = c.sticky_memory or ((), -1)
            else:
                owned, gen = (() if eager[member_id] else c.owned), c.generation
            members.append(base._replace(owned=owned, generation=gen))
        racks = topic_racks_of(state, members)
        revoked = False
        try:
            if chosen == "cooperative-sticky":
                first = cooperative_sticky.assign(topics, members, topic_racks=racks)
                assignment = first
                revoked = any(not eager[m.member_id] and not set(m.owned) <= set(first.get(m.member_id, []))
                              for m in members)
                if revoked:  # a COOPERATIVE member lost partitions: the follow-up rebalance
                    follow_up = [m._replace(owned=() if eager[m.member_id] else tuple(first.get(m.member_id, [])),
                                            generation=generation + 1) for m in members]
                    try:
                        assignment = cooperative_sticky.assign(topics, follow_up, topic_racks=racks)
                    except AssignorNeverReturns as e:
                        e.follow_up = True
                        raise
            else:
                assignment, _ = registry.STRATEGIES[chosen].run(topics, members, topic_racks=racks, jdk=jdk)
        except AssignorNeverReturns as e:
            out.append(StepRebalance(chosen, False, never_completes(chosen, e.follow_up)))
            continue
        generation += 2 if chosen == "cooperative-sticky" and revoked else 1
        for m in members:
            got = tuple(assignment.get(m.member_id, []))
            c = consumers[m.member_id]
            c.owned, c.generation = got, generation
            if chosen == "sticky":
                c.sticky_memory = (got, generation)
        out.append(StepRebalance(chosen, True))
    return out
