"""kgroup whatif and kgroup vote: dry-run rebalances and protocol selection."""
from typing import Annotated, Any, List, Optional

import typer

from kgroup.whatif.assignors.registry import STRATEGIES
from kgroup.cli.common import ConnectionOptions, Output, Snapshot, app, connection_options, examples, group_states
from kgroup.errors import ExitCode, UsageError
from kgroup.output.render import Fit, OutputFormat, Table, emit, warn

STRATEGY_NAMES = [*STRATEGIES, "all"]


def _split_topics(value: str, option: str) -> list[str]:
    topics = [t for t in value.split(",") if t]
    if not topics:
        raise UsageError(f"{option} needs at least one topic after '='")
    return topics


@app.command("whatif", short_help="What each assignor does after a change, and what moves.", epilog=examples(
    "kgroup whatif --snapshot examples/seed-g1.json --remove C3",
    "kgroup whatif -b broker1:9092 G1 --add C4 --strategy all",
    "kgroup whatif --snapshot examples/seed-g1.json --partitions Order=12 -s sticky",
))
@connection_options
def whatif(
    group: Annotated[Optional[str], typer.Argument(metavar="GROUP", show_default=False,
                                                   help="The group (optional with --snapshot).")] = None,
    remove: Annotated[Optional[List[str]], typer.Option(
        "--remove", metavar="MEMBER", help="Remove a member: member id, client id, group instance id or host "
                                           "(repeatable).")] = None,
    remove_process: Annotated[Optional[List[str]], typer.Option(
        "--remove-process", metavar="PROCESS-ID", help="A streams group: remove every member of this process "
                                                       "(repeatable).")] = None,
    add: Annotated[Optional[List[str]], typer.Option(
        "--add", metavar="NAME[=TOPIC,...]", help="Add a member with this member id, subscribed to the topics "
                                                   "(default: the group's topics); a streams group: NAME[=PROCESS-ID], "
                                                   "the member's process (default: one of its own) (repeatable).")
    ] = None,
    standby_replicas: Annotated[Optional[int], typer.Option(
        "--standby-replicas", metavar="N", min=0, max=2**31 - 1,
        help="A streams group: its num.standby.replicas (default: the most standby copies a task has now).")] = None,
    partitions: Annotated[Optional[List[str]], typer.Option(
        "--partitions", metavar="TOPIC=N", help="Grow a topic to N partitions (repeatable).")] = None,
    strategy: Annotated[str, typer.Option(
        "--strategy", "-s", metavar="|".join(STRATEGY_NAMES),
        help="Assignor to run; all runs every one that assigns the group's type and compares them (a share "
             "group: simple).")] = "all",
    subscription: Annotated[Optional[List[str]], typer.Option(
        "--subscription", metavar="MEMBER=TOPIC,...", help="Override a member's subscription (repeatable).")] = None,
    protocols: Annotated[Optional[str], typer.Option(
        "--protocols", metavar="A,B", help="Protocols the added members support, in order; runs the protocol "
                                          "vote of the group after the change.")] = None,
    broker_jdk: Annotated[int, typer.Option(
        "--broker-jdk", metavar="N", min=8, max=99,
        help="Java version of the brokers, for uniform (KIP-848) and simple (share groups): JDK 19 changed how "
             "a copied HashSet sizes its table, which some iteration orders follow. The apache/kafka image runs "
             "21.")] = 17,
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """What every assignor would do after a change: who gets what, what moves, balance, lag."""
    import gc

    # one group read, computed over and printed: its objects all live to the output, and the
    # cyclic collector would only rescan them (a tenth of a big what-if's time)
    gc.disable()
    from kgroup.whatif.compare import AddedMember, Change, ChangeError, refused_joins, run, vote_after

    if strategy not in STRATEGY_NAMES:
        raise UsageError(f"--strategy must be one of {', '.join(STRATEGY_NAMES)}")
    if group is None and snapshot is None:
        raise UsageError("name the GROUP, or pass --snapshot FILE")
    proto_list = [p for p in (protocols or "").split(",") if p] or None
    if protocols is not None and not proto_list:
        raise UsageError("--protocols needs at least one protocol name, e.g. --protocols range,cooperative-sticky")
    if proto_list and not add:
        raise UsageError("--protocols gives the protocols of members added with --add; add one with --add NAME")
    from kgroup.cli import streams as streams_cli
    from kgroup.errors import UnknownGroup

    # the layouts of the topics added members subscribe to, besides the group's own
    named = [t for item in [*(add or []), *(subscription or [])] for t in item.partition("=")[2].split(",") if t]
    streams: dict = {}
    problems: list = []
    if snapshot is not None:  # a streams snapshot is its own format
        streams, _, problems = streams_cli.streams_groups(conn, [group] if group else [], snapshot)
    if not streams:
        try:
            states, problems = group_states(snapshot, [group] if group else [], conn, racks=True, drop_deleted=True,
                                            also_topics=named)
        except UnknownGroup as e:  # a streams group: asked only now (other groups cost nothing more)
            if snapshot is not None or not group:
                raise
            streams, _, problems = streams_cli.after_unknown(conn, [group], e, configs=standby_replicas is None)
    if streams:  # a streams group (KIP-1071): its task assignor
        if partitions or subscription or protocols or strategy != "all":
            raise UsageError("a streams group takes --remove, --remove-process, --add and --standby-replicas; "
                             "--partitions, --subscription, --protocols and --strategy are for other groups")
        for p in problems:
            warn(p)
        (streams_state,) = streams.values()
        streams_cli.whatif(streams_state, list(remove or []), list(remove_process or []), list(add or []),
                           standby_replicas, output)
        if problems:
            warn("INCOMPLETE: some values are unknown (shown as -); no threshold can pass on this answer")
            raise typer.Exit(ExitCode.CLUSTER)
        return
    if remove_process or standby_replicas is not None:
        raise UsageError("--remove-process and --standby-replicas are for streams groups")
    for p in problems:
        warn(p)
    (state,) = states.values()
    from kgroup.whatif.compare import strategies_for

    names = strategies_for(state, strategy)
    if proto_list and state.group.type == "share":
        raise UsageError("--protocols is for classic groups: a share group's members bring no protocols")
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
    refused = refused_joins(state, change) if proto_list else []
    if refused:
        change.add = [a for a in change.add if a.name not in refused]
        warn(f"{', '.join(refused)} would be refused at JoinGroup with INCONSISTENT_GROUP_PROTOCOL (none of "
             f"{','.join(proto_list or [])} is supported by every member) and stay out of the group: "
             "the tables leave them out")
    try:
        result = run(state, change, names, jdk=broker_jdk)
    except ChangeError as e:
        raise _worded(e) from None
    if state.group.type == "share" and (change.add or change.partitions or change.subscriptions):
        warn("a share group's new partitions are assigned once the share coordinator has initialized their "
             "state: kgroup counts every partition of the group's topics as initialized (as in a settled "
             "group), so the first assignment after such a change may leave the new ones out for a moment")
    result.added.extend(refused)  # asked for, and shown as refused
    vote = vote_after(state, change, result.removed) if proto_list or any(m.protocols for m in state.group.members) else None
    if vote is not None and vote.get("selected") and strategy != "all" and vote["selected"] != strategy \
            and vote["selected"] in STRATEGIES:
        warn(f"the group would select '{vote['selected']}' after the change, not '{strategy}' (see the vote)")
    for note in result.notes:
        warn(_note(note))
    doc = result.to_json()
    doc["refused"] = refused
    if vote is not None:
        doc["protocol_vote"] = vote
    tables = [] if output == OutputFormat.json else [_whatif_csv(state, result)] if output == OutputFormat.csv \
        else _whatif_tables(state, result, vote, refused, subs)
    emit(output, doc, tables)
    if problems:  # what the cluster did not answer is not presented as a complete answer
        warn("INCOMPLETE: some values are unknown (shown as -); no threshold can pass on this answer")
        raise typer.Exit(ExitCode.CLUSTER)


def _whatif_csv(state, result) -> Table:
    """-o csv: one row per strategy and member (NOW, FIRST-ROUND for cooperative-sticky, AFTER as
    the compact form); a strategy that never completes is one row saying so."""
    from kgroup.group.assignment import compact, partition_count

    client = {m.member_id: m.client_id for m in state.group.members}
    rows = []
    for r in result.results:
        if not r.completes:
            rows.append([r.strategy, "false", None, None, None, None, None, None, None, None])
            continue
        for member in sorted(set(result.current) | set(r.assignment)):
            now = result.current.get(member, {})
            after = r.assignment.get(member)
            first = None if r.first_round is None or after is None else compact(r.first_round.get(member, {}))
            rows.append([r.strategy, "true", member, client.get(member), compact(now), first,
                         "(removed)" if after is None else compact(after), _delta(now, after or {}),
                         None if after is None else partition_count(after),
                         None if r.lag is None else r.lag.get(member)])
    return Table(["STRATEGY", "COMPLETES", "MEMBER-ID", "CLIENT-ID", "NOW", "FIRST-ROUND", "AFTER", "CHANGE",
                  "PARTITIONS", "LAG"], rows)


# how the tables fit a terminal: the columns left out first come first (docs/commands/*.md)
WHATIF_FIT = Fit(ids=("MEMBER-ID",), drop=("CLIENT-ID", "LAG", "FIRST-ROUND", "#", "NOW", "AFTER"))
SWITCH_FIT = Fit(ids=("RESTART",), text=("NOTE",), drop=("BOUNCE", "NEW-PROTOCOLS", "REBALANCE", "ACCEPTED"))
VOTE_FIT = Fit(ids=("MEMBER",), drop=("PROTOCOLS",))


def _whatif_tables(state, result, vote, refused=(), subscriptions=None) -> list[Table]:
    from kgroup.group.assignment import compact, partition_count

    client = {m.member_id: m.client_id for m in state.group.members}
    change_bits = [f"remove {r}" for r in result.removed] + [
        f"add {a}" + (" (refused: INCONSISTENT_GROUP_PROTOCOL)" if a in refused else "") for a in result.added]
    grown = {t: n for t, n in result.topics.items() if state.topics.get(t) and n != state.topics[t].partitions}
    change_bits += [f"{t}: {state.topics[t].partitions} -> {n} partitions" for t, n in grown.items()]
    change_bits += [f"{ref} subscribes to {','.join(ts)}" for ref, ts in (subscriptions or {}).items()]
    header = f"What if {result.group}: " + ("; ".join(change_bits) if change_bits else "no change (re-run assignors)")
    tables = [Table([], [], title=header)]
    for r in result.results:
        if not r.completes:
            tables.append(Table([], [], title=f"[{r.strategy}] never completes", notes=[r.reason]))
            continue
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
                   _delta(now, after or {}), "" if after is None else partition_count(after)]
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
            withheld = sum(map(partition_count, r.first_round.values()))
            total = sum(map(partition_count, r.assignment.values()))
            notes.append(f"cooperative: the first rebalance assigns {withheld} of {total} partitions; partitions "
                         "changing owner are revoked first and assigned in the follow-up rebalance.")
        tables.append(Table(headers, rows, title=title, notes=notes, fit=WHATIF_FIT))
    if len(result.results) > 1:
        tables.append(Table(["STRATEGY", "MOVED", "CHANGED-MEMBERS", "MIN", "MAX", "UNASSIGNED"],
                            [[r.strategy, r.moved_partitions, len(r.changed_members), r.min_partitions,
                              r.max_partitions, partition_count(r.unassigned)] if r.completes else
                             [r.strategy, "never completes", "", "", "", ""]
                             for r in result.results], title="Comparison"))
    if vote is not None:
        line = (f"protocol vote after the change: {vote['selected']}" if vote.get("selected") else
                f"protocol vote after the change: {vote.get('error') or 'unknown'}")
        if any(r.strategy == vote.get("selected") and not r.completes for r in result.results):
            line += f", whose rebalance never completes (see [{vote['selected']}])"
        tables[-1] = tables[-1]._replace(notes=[*tables[-1].notes, f"{line} ({vote['explanation']})"])
    return tables


def _kafka_class(strategy: str) -> str:
    return STRATEGIES[strategy].kafka_class.rsplit(".", 1)[-1]


def _delta(now: dict, after: dict) -> str:
    """``+Order:4-5 -Stock:0``: what a member gains and loses, ``=`` when nothing."""
    from kgroup.group.assignment import compact
    from kgroup.whatif.compare import gained_lost

    gained, lost = gained_lost(now, after)
    parts = []
    if gained:
        parts.append("+" + compact(gained).replace(" ", " +"))
    if lost:
        parts.append("-" + compact(lost).replace(" ", " -"))
    return " ".join(parts) or "="


def _worded(e) -> UsageError:
    """A change the group cannot take (kgroup.whatif.compare.ChangeError), said in terms of the options."""
    from kgroup.whatif import compare as w

    if isinstance(e, w.UnknownTopic):
        return UsageError(f"--partitions {e.topic}={e.partitions}: the group has no topic {e.topic}; "
                          f"known: {', '.join(e.known)}")
    if isinstance(e, w.PartitionsDecrease):
        return UsageError(f"--partitions {e.topic}={e.partitions}: Kafka can only add partitions "
                          f"({e.topic} has {e.current})")
    if isinstance(e, w.TooManyPartitions):
        return UsageError(f"--partitions: the group's topics would hold {e.total:,} partitions; kgroup "
                          f"examines at most {e.limit:,} partitions per group")
    if isinstance(e, w.RemovedTwice):
        return UsageError(f"--remove names member {e.member_id} more than once")
    if isinstance(e, w.MemberExists):
        return UsageError(f"--add {e.name}: a member with that id already exists")
    return e


def _note(note) -> str:
    from kgroup.whatif.compare import SubscriptionsInferred

    if isinstance(note, SubscriptionsInferred):
        return f"{note}; override with --subscription MEMBER=TOPIC,..."
    return note


def parse_topic_counts(items: list[str], option: str) -> dict[str, int]:
    """``["Order=12"]`` -> ``{"Order": 12}`` (the values of ``--partitions``)."""
    import re

    out = {}
    for item in items:
        topic, sep, count = item.rpartition("=")
        # ASCII digits only ('²' and other Unicode digits are not numbers here), at most int32
        if not sep or not topic or not re.fullmatch(r"[0-9]{1,10}", count) or not 1 <= int(count) <= 2**31 - 1:
            raise UsageError(f"{option} expects TOPIC=N with N from 1 to 2147483647 (a topic's partition "
                             f"count), got {item!r}")
        out[topic] = int(count)
    return out


@app.command("vote", short_help="Which protocol a classic group selects; plan a switch.", epilog=examples(
    "kgroup vote -m C1=range,cooperative-sticky -m C2=cooperative-sticky,range",
    "kgroup vote --snapshot examples/seed-g1.json --switch range:cooperative-sticky",
))
def vote(
    member: Annotated[Optional[List[str]], typer.Option(
        "--member", "-m", metavar="ID=PROTO,PROTO...", help="A member and its protocols in preference order "
                                                           "(repeatable).")] = None,
    switch: Annotated[Optional[str], typer.Option(
        "--switch", metavar="FROM:TO", help="Plan a rolling switch of every member from one assignor to another, "
                                           "restart by restart.")] = None,
    first_bounce: Annotated[str, typer.Option(
        "--first-bounce", metavar="to-first|from-first",
        help="With --switch: the lists members restart with in the first bounce: the new assignor first "
             "(to-first, as KIP-429's example) or the old one first (from-first).")] = "to-first",
    static_members: Annotated[bool, typer.Option(
        "--static-members", help="With --switch: the members are static (group.instance.id), so a restarting "
                                 "member stays in the group and its old list still counts.")] = False,
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
) -> None:
    """Which protocol (assignor) a classic group selects, as Kafka's coordinator votes."""
    from kgroup.whatif.vote import plan_rolling_switch, select_protocol

    members: dict[str, list[str]] = {}
    state = None
    if snapshot is not None:
        from kgroup.whatif.compare import member_protocols

        (state,) = group_states(snapshot, [], ConnectionOptions())[0].values()
        for m in state.group.members:
            members[m.member_id] = member_protocols(state, m)
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
    if first_bounce not in ("to-first", "from-first"):
        raise UsageError("--first-bounce must be to-first or from-first")
    if not switch and (first_bounce != "to-first" or static_members):
        raise UsageError("--first-bounce and --static-members plan a switch: give --switch FROM:TO")
    if switch:
        source, sep, target = switch.partition(":")
        if not sep or not source or not target:
            raise UsageError("--switch expects FROM:TO, e.g. range:cooperative-sticky")
        from kgroup.whatif.assignors.registry import CLIENT_SIDE as client_side
        for name in (source, target):
            if name not in client_side:
                raise UsageError(f"--switch {switch}: {name!r} is not a classic-group assignor; one of "
                                 f"{', '.join(client_side)}")
        try:
            steps = plan_rolling_switch(members, source, target,
                                        first_bounce=first_bounce,  # type: ignore[arg-type]  # checked below
                                        static_members=static_members)
        except ValueError as e:
            raise UsageError(str(e)) from None
        # with the group at hand, each step's rebalance is run: does the selected assignor return?
        if state is not None:
            from kgroup.whatif.switch import switch_rebalances

            outcomes: list[Any] = switch_rebalances(state, steps)
        else:
            outcomes = [None] * len(steps)
        steps = [s if o is None or o.completes else s._replace(
                     note=f"{s.note} NEVER COMPLETES: Kafka's {_kafka_class(o.strategy)} never returns on the "
                          "group as it stands at this step, so this rebalance never completes.")
                 for s, o in zip(steps, outcomes)]
        doc: dict[str, Any] = {"switch": {"from": source, "to": target}, "steps": [
            {"step": s.step, "bounce": s.bounce, "member": s.member, "protocols": s.protocols,
             "accepted": s.accepted, "selected": s.selected, "rebalance_protocol": s.rebalance_protocol,
             **({} if o is None else {"completes": o.completes}), **({"reason": o.reason} if o and o.reason else {}),
             "note": s.note}
            for s, o in zip(steps, outcomes)]}
        never = [(s.step, o) for s, o in zip(steps, outcomes) if o is not None and not o.completes]
        if never:
            warn(f"the rebalance of step(s) {', '.join(str(step) for step, _ in never)} never completes: "
                 f"{never[0][1].reason}")
        emit(output, doc, [Table(["STEP", "BOUNCE", "RESTART", "NEW-PROTOCOLS", "ACCEPTED", "SELECTED",
                                  "REBALANCE", "NOTE"],
                                 [[s.step, s.bounce or "-", s.member, ",".join(s.protocols), s.accepted,
                                   s.selected, s.rebalance_protocol, s.note] for s in steps],
                                 title=f"Rolling switch {source} -> {target}", fit=SWITCH_FIT)])
        return
    v = select_protocol(members)
    doc = {"members": members, "candidates": v.candidates, "ballots": v.ballots, "votes": v.votes,
           "selected": v.selected, "error": v.error, "explanation": v.explanation}
    emit(output, doc, [Table(["MEMBER", "PROTOCOLS", "VOTES-FOR"],
                             [[m, ",".join(ps), v.ballots.get(m)] for m, ps in members.items()],
                             notes=[f"candidates: {', '.join(v.candidates) or 'none'}",
                                    f"selected: {v.selected}" if v.selected else f"error: {v.error}",
                                    v.explanation], fit=VOTE_FIT)])
    if v.error:
        raise typer.Exit(ExitCode.FLAGGED)
