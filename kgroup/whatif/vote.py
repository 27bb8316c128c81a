"""How Kafka's group coordinator picks the assignor ("protocol") of a classic group.

Mirrors (re-written in Python, not copied) ``ClassicGroup.selectProtocol``,
``ClassicGroup.candidateProtocols``, ``ClassicGroup.supportsProtocols`` and
``ClassicGroupMember.vote`` in
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/classic/`` of Apache
Kafka trunk as merged into the confluentinc/kafka mirror at commit
06d492d81361d053700c7cd6a932d7f361ea8309 (2026-08-22).  That logic is the same on the
4.0, 4.1, 4.2 and trunk branches.  It is what every 4.1+ broker runs and what 4.0 runs by
default (``group.coordinator.new.enable=true``).  3.x brokers run the old Scala coordinator
by default, whose ``GroupMetadata.selectProtocol`` has the same candidates and ballots but
breaks ties through Scala's ``groupBy``/``maxBy`` (Scala hash-map order); that tie-break
is not modelled here.

The rules
---------
1. Candidates: the protocol names that every member lists (the coordinator keeps a count
   of members per protocol name and takes the names whose count equals the group size).
2. Ballots: each member votes for the first name in its own ordered list that is a
   candidate.
3. Winner: the name with most votes.  Kafka counts the votes in a
   ``java.util.HashMap<String, Integer>`` and takes ``entrySet().stream().max(...)`` over
   the vote count.  ``Stream.max`` keeps the *earlier* element when two compare equal, so
   a tie goes to the tied name met first while iterating that HashMap: the one in the
   lower bucket ``(h ^ (h >>> 16)) & (capacity - 1)`` of ``String.hashCode()`` (capacity
   16, doubled past 12 distinct names voted for), and, for names sharing a bucket, the
   one that received its first vote first.  Members vote in the iteration order of the
   coordinator's ``HashMap<String, ClassicGroupMember>`` keyed by member id, emulated the
   same way (assuming that map never held more members than it does now: a Java HashMap
   does not shrink); members sharing a bucket keep the order of the ``members`` dict.
   Member order only matters when two tied names share a bucket.  So ties
   are *not* alphabetical: e.g. ``range`` (bucket 9) beats ``cooperative-sticky``
   (bucket 15) and ``sticky`` (bucket 8) beats ``range``.
4. No common name: the coordinator never gets there.  A JoinGroup whose protocols share
   no name with what every current member supports (``supportsProtocols``) is refused
   with ``INCONSISTENT_GROUP_PROTOCOL`` and the member does not join; an empty group
   accepts any non-empty list.  :func:`select_protocol` reports such a member set with
   ``error="INCONSISTENT_GROUP_PROTOCOL"``.

A name listed twice by one member is counted once here; Kafka counts each occurrence in
the JoinGroup request, which only matters for malformed requests.

Rolling switch (KIP-429 and the 2.4 upgrade notes): first roll every member to a list
that has both assignors, then a second roll removing the old one.  See
:func:`plan_rolling_switch`.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple

from kgroup.whatif.assignors.registry import STRATEGIES
from kgroup.java.hashmap import JavaHashMap, bucket_index, iteration_order
from kgroup.java.strings import java_string_hash

INCONSISTENT_GROUP_PROTOCOL = "INCONSISTENT_GROUP_PROTOCOL"

# Mirrors apache/kafka (trunk via confluentinc/kafka@06d492d81361d053700c7cd6a932d7f361ea8309)
# group-coordinator/src/main/java/org/apache/kafka/coordinator/group/classic/
# {ClassicGroup,ClassicGroupMember}.java

# Client-side rebalance protocols of the built-in assignors (ConsumerPartitionAssignor
# .supportedProtocols); a consumer uses the most advanced one *all* its assignors support.
BUILTIN_REBALANCE_PROTOCOLS: dict[str, tuple[str, ...]] = {
    s.kafka_name: s.rebalance_protocols for s in STRATEGIES.values() if s.side == "client"}


class VoteResult(NamedTuple):
    """Outcome of the protocol vote for one membership.

    ``votes`` maps protocol -> number of votes, in the order Kafka's HashMap iterates it
    (which decides ties); ``ballots`` maps member id -> the protocol it voted for, in the
    order the coordinator lets members vote; ``candidates`` is sorted by name (a set in
    Kafka).  ``tied`` lists the names that share the top vote count when there is a tie.
    """

    candidates: list[str]
    votes: dict[str, int]
    ballots: dict[str, str]
    selected: str | None
    error: str | None
    explanation: str
    tied: list[str]


def _dedupe(protocols: list[str]) -> list[str]:
    return list(dict.fromkeys(protocols))


def _fmt(names: Iterable[str]) -> str:
    return ", ".join(repr(n) for n in names)


def vote_bucket(protocol: str, capacity: int = 16) -> int:
    """Bucket of a protocol name in the votes HashMap (lower bucket wins a tie)."""
    return bucket_index(java_string_hash(protocol), capacity)


def select_protocol(members: dict[str, list[str]]) -> VoteResult:
    """Select the protocol Kafka's coordinator would select for these members.

    ``members`` maps member id -> that member's ordered protocol names
    (``partition.assignment.strategy`` order).  Raises ``ValueError`` for an empty group,
    as Kafka does.
    """
    if not members:
        raise ValueError("Cannot select protocol for empty group")
    lists = {m: _dedupe(list(p)) for m, p in members.items()}
    counts: dict[str, int] = {}
    for protocols in lists.values():
        for name in protocols:
            counts[name] = counts.get(name, 0) + 1
    size = len(lists)
    candidates = sorted(n for n, c in counts.items() if c == size)

    if not candidates:
        return VoteResult(
            candidates=[],
            votes={},
            ballots={},
            selected=None,
            error=INCONSISTENT_GROUP_PROTOCOL,
            explanation=_inconsistent_explanation(lists, counts),
            tied=[],
        )

    candidate_set = set(candidates)
    ballots: dict[str, str] = {}
    first_votes: list[str] = []
    # members vote in the iteration order of the coordinator's HashMap<String, ClassicGroupMember>
    for member_id in iteration_order(list(lists)):
        choice = next(p for p in lists[member_id] if p in candidate_set)
        ballots[member_id] = choice
        if choice not in first_votes:
            first_votes.append(choice)
    tally: dict[str, int] = {}
    for choice in ballots.values():
        tally[choice] = tally.get(choice, 0) + 1
    # votesByProtocol: new HashMap<>(), one put per ballot (a name's first put places it)
    votes_map: JavaHashMap[str] = JavaHashMap()
    for name in first_votes:
        votes_map.put(name)
    capacity = votes_map.capacity
    votes = {name: tally[name] for name in votes_map.keys()}
    top = max(votes.values())
    tied = [name for name, count in votes.items() if count == top]
    selected = tied[0]  # Stream.max keeps the first of equal elements

    parts = [f"Protocols every member supports: {_fmt(candidates)}."]
    parts.append(
        "Each member votes for the first of them in its own list: "
        + "; ".join(f"{m} -> {p!r}" for m, p in ballots.items())
        + "."
    )
    parts.append("Votes: " + ", ".join(f"{n!r} {c}" for n, c in votes.items()) + ".")
    if len(tied) > 1:
        buckets = ", ".join(f"{n!r} bucket {vote_bucket(n, capacity)}" for n in tied)
        parts.append(
            f"Tie at {top} vote(s) between {_fmt(tied)}: Kafka keeps the first of them met while "
            f"iterating its HashMap of votes ({buckets}; a shared bucket goes to the name voted for "
            f"first), so {selected!r} wins. This is not alphabetical order."
        )
    else:
        parts.append(f"{selected!r} has the most votes and is selected.")
    return VoteResult(
        candidates=candidates,
        votes=votes,
        ballots=ballots,
        selected=selected,
        error=None,
        explanation=" ".join(parts),
        tied=tied if len(tied) > 1 else [],
    )


def _inconsistent_explanation(lists: dict[str, list[str]], counts: dict[str, int]) -> str:
    parts = [
        "No protocol is supported by every member, so the coordinator could not select one "
        f"({INCONSISTENT_GROUP_PROTOCOL})."
    ]
    empty = [m for m, p in lists.items() if not p]
    if empty:
        parts.append(f"Member(s) {_fmt(empty)} list no protocol at all.")
    for name in sorted(counts, key=lambda n: (-counts[n], n)):
        lacking = [m for m, p in lists.items() if name not in p]
        parts.append(f"{name!r} is missing from {_fmt(lacking)}.")
    parts.append(
        "A live group never reaches this state: the JoinGroup of a member that shares no protocol "
        f"with what all current members support is refused with {INCONSISTENT_GROUP_PROTOCOL} "
        "and that member stays out of the group."
    )
    return " ".join(parts)


def supports_protocols(current: dict[str, list[str]], protocols: list[str]) -> bool:
    """Kafka's JoinGroup check: may a member with ``protocols`` join a group of ``current``?

    An empty group accepts any non-empty list; otherwise at least one of ``protocols`` must
    be listed by every current member.  (Kafka also requires the same protocol type,
    ``consumer`` for consumers, which is assumed here.)
    """
    if not current:
        return bool(protocols)
    lists = [set(p) for p in current.values()]
    return any(all(name in s for s in lists) for name in protocols)


def rebalance_protocol(protocols: list[str]) -> str:
    """The client-side rebalance protocol a Java consumer with these assignors uses.

    ``COOPERATIVE`` only if every listed assignor supports it; ``unknown`` if a custom
    assignor is listed.
    """
    common: set[str] | None = None
    for name in protocols:
        supported = BUILTIN_REBALANCE_PROTOCOLS.get(name)
        if supported is None:
            return "unknown"
        common = set(supported) if common is None else common & set(supported)
    if not common:
        return "unknown"
    return "COOPERATIVE" if "COOPERATIVE" in common else "EAGER"


class SwitchStep(NamedTuple):
    """One member restart in a rolling switch, and what the group selects afterwards."""

    step: int
    bounce: int  # 0 = the state before any restart, then 1 or 2
    member: str | None
    protocols: list[str]  # the restarted member's new ordered list
    accepted: bool  # False: JoinGroup refused with INCONSISTENT_GROUP_PROTOCOL
    selected: str | None  # protocol the group selects once the member is back
    rebalance_protocol: str  # client-side EAGER/COOPERATIVE of the restarted member
    group: dict[str, list[str]]  # every member's list after this step
    vote: VoteResult | None  # None when the group is left empty
    note: str


def simulate_restarts(
    members: dict[str, list[str]],
    restarts: list[tuple[str, list[str]]],
    *,
    static_members: bool = False,
    bounce_of: list[int] | None = None,
) -> list[SwitchStep]:
    """Replay member restarts one by one and report the selected protocol after each.

    A dynamic member (the default) leaves the group when it shuts down cleanly, so its
    JoinGroup is checked against the *other* members; a static member
    (``group.instance.id``) stays in the group while it restarts, so the check also counts
    its own old list.  A refused member stays out of the group.  Step 0 is the initial state.
    """
    group = {m: list(p) for m, p in members.items()}
    first = select_protocol(group) if group else None
    steps = [
        SwitchStep(
            step=0,
            bounce=0,
            member=None,
            protocols=[],
            accepted=True,
            selected=first.selected if first else None,
            rebalance_protocol="",
            group={m: list(p) for m, p in group.items()},
            vote=first,
            note="Before any restart. " + (first.explanation if first else "The group is empty."),
        )
    ]
    for index, (member_id, new_list) in enumerate(restarts, start=1):
        new_list = list(new_list)
        previous = group.get(member_id)
        others = {m: p for m, p in group.items() if m != member_id}
        checked_against = dict(group) if static_members and previous is not None else others
        accepted = supports_protocols(checked_against, new_list)
        if accepted:
            group[member_id] = new_list
        else:
            group.pop(member_id, None)
        vote = select_protocol(group) if group else None
        client = rebalance_protocol(new_list)
        notes = []
        if accepted:
            notes.append(f"{member_id} rejoins with {new_list}.")
        else:
            common = sorted(set.intersection(*(set(p) for p in checked_against.values()))) if checked_against else []
            notes.append(
                f"{member_id}'s JoinGroup with {new_list} is refused with {INCONSISTENT_GROUP_PROTOCOL}: "
                f"the other members all support only {_fmt(common) or 'nothing in common'}; "
                f"{member_id} stays out of the group."
            )
        if vote is not None:
            notes.append(f"Group selects {vote.selected!r}." if vote.selected else vote.explanation)
            if vote.tied:
                notes.append(f"(tie between {_fmt(vote.tied)}, decided by HashMap order)")
        if accepted and client != "unknown":
            notes.append(f"{member_id} itself rebalances {client}.")
        steps.append(
            SwitchStep(
                step=index,
                bounce=bounce_of[index - 1] if bounce_of else 1,
                member=member_id,
                protocols=new_list,
                accepted=accepted,
                selected=vote.selected if vote else None,
                rebalance_protocol=client,
                group={m: list(p) for m, p in group.items()},
                vote=vote,
                note=" ".join(notes),
            )
        )
    return steps


def plan_rolling_switch(
    members: dict[str, list[str]],
    from_protocol: str,
    to_protocol: str,
    *,
    first_bounce: Literal["to-first", "from-first"] = "to-first",
    static_members: bool = False,
) -> list[SwitchStep]:
    """Plan the two-bounce switch of a classic group from ``from_protocol`` to ``to_protocol``.

    Bounce 1 restarts every member (in ``members`` order) with both protocols:
    ``[to, from, ...]`` with ``first_bounce="to-first"`` (KIP-429's example,
    ``cooperative-sticky, range``) or ``[from, ..., to]`` with ``"from-first"``.  Bounce 2
    restarts every member again without ``from_protocol``.  Every restart is safe: each
    JoinGroup shares ``from_protocol`` (bounce 1) or ``to_protocol`` (bounce 2) with every
    member still in the group.

    Where the group switches: with "to-first" it moves to ``to_protocol`` when the *last*
    member of bounce 1 rejoins (before that some member lacks it, so it is no candidate);
    with "from-first" it stays on ``from_protocol`` through bounce 1 and moves at the
    *first* restart of bounce 2.  Members that still list an EAGER-only assignor keep
    rebalancing EAGER even once ``cooperative-sticky`` is selected; only lists without any
    EAGER-only assignor rebalance COOPERATIVE, i.e. after bounce 2.
    """
    if from_protocol == to_protocol:
        raise ValueError("from_protocol and to_protocol are the same")
    if first_bounce not in ("to-first", "from-first"):
        raise ValueError(f"first_bounce must be 'to-first' or 'from-first', not {first_bounce!r}")
    missing = [m for m, p in members.items() if from_protocol not in p]
    if missing:
        raise ValueError(f"members {_fmt(missing)} do not list {from_protocol!r} now")

    restarts: list[tuple[str, list[str]]] = []
    after_first: dict[str, list[str]] = {}
    for member_id, protocols in members.items():
        rest = [p for p in _dedupe(list(protocols)) if p != to_protocol]
        if first_bounce == "to-first":
            new_list = [to_protocol] + rest
        else:
            new_list = rest + [to_protocol]
        after_first[member_id] = new_list
        restarts.append((member_id, new_list))
    for member_id, protocols in after_first.items():
        restarts.append((member_id, [p for p in protocols if p != from_protocol]))
    bounce_of = [1] * len(members) + [2] * len(members)
    steps = simulate_restarts(members, restarts, static_members=static_members, bounce_of=bounce_of)

    annotated = [steps[0]]
    for before, step in zip(steps, steps[1:]):
        extra = ""
        if step.bounce == 1 and step.member is not None and _dedupe(list(members[step.member])) == step.protocols:
            extra += (" Its list already has both protocols in this order (as with the client default "
                      "[range, cooperative-sticky] since Kafka 3.0): this restart can be skipped.")
        # a switch is where the selection becomes to_protocol: not where a group already on it stays on it
        if step.selected == to_protocol and before.selected != to_protocol:
            extra += f" The group switches to {to_protocol!r} here."
        if step.bounce == 1 and step.step == 1:
            extra += f" Bounce 1: add {to_protocol!r} while keeping {from_protocol!r}."
        if step.bounce == 2 and step.step == len(members) + 1:
            extra += f" Bounce 2: remove {from_protocol!r}."
        annotated.append(_with_note(step, step.note + extra))
    return annotated


def _with_note(step: SwitchStep, note: str) -> SwitchStep:
    return step._replace(note=note)
