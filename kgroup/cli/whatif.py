"""kgroup whatif and kgroup vote: dry-run rebalances and protocol selection."""
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import ConnectionOptions, Output, Snapshot, app, connection_options, group_states
from kgroup.errors import ExitCode, UsageError
from kgroup.render import OutputFormat, Table, emit, warn

STRATEGY_NAMES = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range", "all"]


def _split_topics(value: str, option: str) -> list[str]:
    topics = [t for t in value.split(",") if t]
    if not topics:
        raise UsageError(f"{option} needs at least one topic after '='")
    return topics


@app.command("whatif")
@connection_options
def whatif(
    group: Annotated[Optional[str], typer.Argument(metavar="GROUP", show_default=False,
                                                   help="The group (optional with --snapshot).")] = None,
    remove: Annotated[Optional[List[str]], typer.Option(
        "--remove", metavar="MEMBER", help="Remove a member: member id, client id, group instance id or host "
                                           "(repeatable).")] = None,
    add: Annotated[Optional[List[str]], typer.Option(
        "--add", metavar="NAME[=TOPIC,...]", help="Add a member with this member id, subscribed to the topics "
                                                   "(default: the group's topics) (repeatable).")] = None,
    partitions: Annotated[Optional[List[str]], typer.Option(
        "--partitions", metavar="TOPIC=N", help="Grow a topic to N partitions (repeatable).")] = None,
    strategy: Annotated[str, typer.Option(
        "--strategy", "-s", metavar="|".join(STRATEGY_NAMES),
        help="Assignor to run; all runs every one and compares them.")] = "all",
    subscription: Annotated[Optional[List[str]], typer.Option(
        "--subscription", metavar="MEMBER=TOPIC,...", help="Override a member's subscription (repeatable).")] = None,
    protocols: Annotated[Optional[str], typer.Option(
        "--protocols", metavar="A,B", help="Protocols the added members support, in order; runs the protocol "
                                          "vote of the group after the change.")] = None,
    broker_jdk: Annotated[int, typer.Option(
        "--broker-jdk", metavar="N", min=8, max=99,
        help="Java version of the brokers, for uniform (KIP-848): JDK 19 changed how a copied HashSet sizes "
             "its table, which some iteration orders follow. The apache/kafka image runs 21.")] = 17,
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """What every assignor would do after a change: who gets what, what moves, balance, lag."""
    import gc

    from kgroup.assignment import parse_topic_counts

    # one group read, computed over and printed: its objects all live to the output, and the
    # cyclic collector would only rescan them (a tenth of a big what-if's time)
    gc.disable()
    from kgroup.whatif import STRATEGIES, AddedMember, Change, run

    if strategy not in STRATEGY_NAMES:
        raise UsageError(f"--strategy must be one of {', '.join(STRATEGY_NAMES)}")
    if group is None and snapshot is None:
        raise UsageError("name the GROUP, or pass --snapshot FILE")
    proto_list = [p for p in (protocols or "").split(",") if p] or None
    if protocols is not None and not proto_list:
        raise UsageError("--protocols needs at least one protocol name, e.g. --protocols range,cooperative-sticky")
    if proto_list and not add:
        raise UsageError("--protocols gives the protocols of members added with --add; add one with --add NAME")
    states, problems = group_states(snapshot, [group] if group else [], conn, racks=True, drop_deleted=True)
    for p in problems:
        warn(p)
    (state,) = states.values()
    added = []
    for item in add or []:
        name, sep, topics = item.partition("=")
        if not name:
            raise UsageError("--add needs a NAME")
        added.append(AddedMember(name, _split_topics(topics, f"--add {name}") if sep else None, proto_list))
    subs = {}
    for item in subscription or []:
        ref, sep, topics = item.partition("=")
        if not sep or not ref:
            raise UsageError("--subscription expects MEMBER=TOPIC,...")
        subs[ref] = _split_topics(topics, f"--subscription {ref}")
    change = Change(list(remove or []), added, parse_topic_counts(list(partitions or []), "--partitions"), subs)
    if not state.group.members and state.group.state not in (None, "Empty", "Dead"):
        warn(f"the cluster reports group {state.group.group_id} as {state.group.state} but lists no members "
             "(this broker does not describe them): kgroup computes as if the group were empty")
    refused = _refused_joins(state, change) if proto_list else []
    if refused:
        change.add = [a for a in change.add if a.name not in refused]
        warn(f"{', '.join(refused)} would be refused at JoinGroup with INCONSISTENT_GROUP_PROTOCOL (none of "
             f"{','.join(proto_list)} is supported by every member) and stay out of the group: "
             "the tables leave them out")
    names = list(STRATEGIES) if strategy == "all" else [strategy]
    result = run(state, change, names, jdk=broker_jdk)
    result.added.extend(refused)  # asked for, and shown as refused
    vote = _vote_after(state, change, result) if proto_list or any(m.protocols for m in state.group.members) else None
    if vote is not None and vote.get("selected") and strategy != "all" and vote["selected"] != strategy \
            and vote["selected"] in STRATEGIES:
        warn(f"the group would select '{vote['selected']}' after the change, not '{strategy}' (see the vote)")
    for note in result.notes:
        warn(note)
    doc = result.to_json()
    doc["refused"] = refused
    if vote is not None:
        doc["protocol_vote"] = vote
    emit(output, doc, [] if output == OutputFormat.json else _whatif_tables(state, result, vote, refused, subs))
    if problems:  # what the cluster did not answer is not presented as a complete answer
        warn("INCOMPLETE: some values are unknown (shown as -); no threshold can pass on this answer")
        raise typer.Exit(ExitCode.CLUSTER)


def _refused_joins(state, change) -> list[str]:
    """Added members Kafka's JoinGroup check refuses, in --add order (each joins the group as
    it stands after the removals and the joins before it)."""
    from kgroup.protocol import supports_protocols

    from kgroup.whatif import resolve_member

    removed = {resolve_member(state.group.members, ref).member_id for ref in change.remove}
    group = {m.member_id: list(m.protocols or ([state.group.protocol] if state.group.protocol else []))
             for m in state.group.members if m.member_id not in removed}
    if not all(group.values()):
        return []  # some members' protocols are unknown: the check cannot be made
    refused = []
    for a in change.add:
        if supports_protocols(group, a.protocols or []):
            group[a.name] = list(a.protocols or [])
        else:
            refused.append(a.name)
    return refused


def _vote_after(state, change, result) -> dict:
    from kgroup.protocol import select_protocol

    removed = set(result.removed)
    ballots = {m.member_id: list(m.protocols or ([state.group.protocol] if state.group.protocol else []))
               for m in state.group.members if m.member_id not in removed}
    for a in change.add:
        ballots[a.name] = list(a.protocols or ([state.group.protocol] if state.group.protocol else []))
    if not ballots:
        return {"selected": None, "error": None, "explanation": "no member is left: an empty group selects no "
                                                                "protocol until a member joins"}
    if not all(ballots.values()):
        return {"selected": None, "error": None, "explanation": "some members' protocols are unknown"}
    v = select_protocol(ballots)
    return {"selected": v.selected, "error": v.error, "candidates": v.candidates, "votes": v.votes,
            "explanation": v.explanation}


def _whatif_tables(state, result, vote, refused=(), subscriptions=None) -> list[Table]:
    from kgroup.assignment import compact

    client = {m.member_id: m.client_id for m in state.group.members}
    change_bits = [f"remove {r}" for r in result.removed] + [
        f"add {a}" + (" (refused: INCONSISTENT_GROUP_PROTOCOL)" if a in refused else "") for a in result.added]
    grown = {t: n for t, n in result.topics.items() if state.topics.get(t) and n != state.topics[t].partitions}
    change_bits += [f"{t}: {state.topics[t].partitions} -> {n} partitions" for t, n in grown.items()]
    change_bits += [f"{ref} subscribes to {','.join(ts)}" for ref, ts in (subscriptions or {}).items()]
    header = f"What if {result.group}: " + ("; ".join(change_bits) if change_bits else "no change (re-run assignors)")
    tables = [Table([], [], title=header)]
    for r in result.results:
        cooperative = r.first_round is not None
        headers = ["MEMBER-ID", "CLIENT-ID", "NOW", "AFTER", "CHANGE", "#"]
        if cooperative:
            headers.insert(3, "FIRST-ROUND")
        if r.lag is not None:
            headers.append("LAG")
        rows = []
        for member in sorted(set(result.current) | set(r.assignment)):
            now = result.current.get(member, {}) if member not in result.removed else result.current[member]
            after = r.assignment.get(member)
            row = [member, client.get(member), compact(now), "(removed)" if after is None else compact(after),
                   _delta(now, after or {}), "" if after is None else sum(len(p) for p in after.values())]
            if cooperative:
                row.insert(3, "(removed)" if after is None else compact(r.first_round.get(member, {})))
            if r.lag is not None:
                row.append(r.lag.get(member, ""))
            rows.append(row)
        unassigned = compact(r.unassigned) or "none"
        title = (f"[{r.strategy}] {r.moved_partitions} partition(s) move, "
                 f"{len(r.changed_members)} member(s) change, min/max per member "
                 f"{r.min_partitions}/{r.max_partitions}, unassigned: {unassigned}")
        notes = []
        if cooperative:
            withheld = sum(len(p) for a in r.first_round.values() for p in a.values())
            total = sum(len(p) for a in r.assignment.values() for p in a.values())
            notes.append(f"cooperative: the first rebalance assigns {withheld} of {total} partitions; partitions "
                         "changing owner are revoked first and assigned in the follow-up rebalance.")
        tables.append(Table(headers, rows, title=title, notes=notes))
    if len(result.results) > 1:
        tables.append(Table(["STRATEGY", "MOVED", "CHANGED-MEMBERS", "MIN", "MAX", "UNASSIGNED"],
                            [[r.strategy, r.moved_partitions, len(r.changed_members), r.min_partitions,
                              r.max_partitions, sum(len(p) for p in r.unassigned.values())]
                             for r in result.results], title="Comparison"))
    if vote is not None:
        line = (f"protocol vote after the change: {vote['selected']}" if vote.get("selected") else
                f"protocol vote after the change: {vote.get('error') or 'unknown'}")
        tables[-1].notes.append(f"{line} ({vote['explanation']})")
    return tables


def _delta(now: dict, after: dict) -> str:
    from kgroup.assignment import compact

    gained = {t: [p for p in ps if p not in now.get(t, [])] for t, ps in after.items()}
    lost = {t: [p for p in ps if p not in after.get(t, [])] for t, ps in now.items()}
    parts = []
    if compact(gained):
        parts.append("+" + compact(gained).replace(" ", " +"))
    if compact(lost):
        parts.append("-" + compact(lost).replace(" ", " -"))
    return " ".join(parts) or "="


@app.command("vote")
def vote(
    member: Annotated[Optional[List[str]], typer.Option(
        "--member", "-m", metavar="ID=PROTO,PROTO...", help="A member and its protocols in preference order "
                                                           "(repeatable).")] = None,
    switch: Annotated[Optional[str], typer.Option(
        "--switch", metavar="FROM:TO", help="Plan a rolling switch of every member from one assignor to another, "
                                           "restart by restart.")] = None,
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
) -> None:
    """Which protocol (assignor) a classic group selects, as Kafka's coordinator votes."""
    from kgroup.protocol import plan_rolling_switch, select_protocol

    members: dict[str, list[str]] = {}
    if snapshot is not None:
        (state,) = group_states(snapshot, [], ConnectionOptions())[0].values()
        for m in state.group.members:
            members[m.member_id] = list(m.protocols or ([state.group.protocol] if state.group.protocol else []))
    given: set[str] = set()
    for item in member or []:
        mid, sep, protos = item.partition("=")
        if not sep or not mid or not protos:
            raise UsageError("--member expects ID=PROTO,PROTO...")
        if mid in given:
            raise UsageError(f"--member {mid} is given twice; name each member once")
        given.add(mid)
        members[mid] = [p for p in protos.split(",") if p]
        if not members[mid]:
            raise UsageError(f"--member {mid} needs at least one protocol")
    if not members:
        raise UsageError("name members with --member ID=PROTO,... or pass --snapshot")
    if switch:
        source, sep, target = switch.partition(":")
        if not sep or not source or not target:
            raise UsageError("--switch expects FROM:TO, e.g. range:cooperative-sticky")
        from kgroup.whatif import STRATEGIES

        client_side = [n for n, (_, side) in STRATEGIES.items() if side == "client"]
        for name in (source, target):
            if name not in client_side:
                raise UsageError(f"--switch {switch}: {name!r} is not a classic-group assignor; one of "
                                 f"{', '.join(client_side)}")
        try:
            steps = plan_rolling_switch(members, source, target)
        except ValueError as e:
            raise UsageError(str(e)) from None
        doc = {"switch": {"from": source, "to": target}, "steps": [
            {"step": s.step, "bounce": s.bounce, "member": s.member, "protocols": s.protocols,
             "accepted": s.accepted, "selected": s.selected, "rebalance_protocol": s.rebalance_protocol,
             "note": s.note} for s in steps]}
        emit(output, doc, [Table(["STEP", "BOUNCE", "RESTART", "NEW-PROTOCOLS", "ACCEPTED", "SELECTED",
                                  "REBALANCE", "NOTE"],
                                 [[s.step, s.bounce or "-", s.member, ",".join(s.protocols), s.accepted,
                                   s.selected, s.rebalance_protocol, s.note] for s in steps],
                                 title=f"Rolling switch {source} -> {target}")])
        return
    v = select_protocol(members)
    doc = {"members": members, "candidates": v.candidates, "ballots": v.ballots, "votes": v.votes,
           "selected": v.selected, "error": v.error, "explanation": v.explanation}
    emit(output, doc, [Table(["MEMBER", "PROTOCOLS", "VOTES-FOR"],
                             [[m, ",".join(ps), v.ballots.get(m)] for m, ps in members.items()],
                             notes=[f"candidates: {', '.join(v.candidates) or 'none'}",
                                    f"selected: {v.selected}" if v.selected else f"error: {v.error}",
                                    v.explanation])])
    if v.error:
        raise typer.Exit(ExitCode.FLAGGED)
