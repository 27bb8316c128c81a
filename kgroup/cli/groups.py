"""kgroup list, describe, offsets, snapshot: what a group is and how far behind it is."""
import json
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, List, Optional

import typer

from kgroup.cli.common import (ConnectionOptions, OffsetsTopic, Output, Snapshot, app, broker_label, connection_options,
                               examples,
                               group_states, no_cluster_with, report_problems)
from kgroup.errors import ExitCode, UsageError
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import Fit, OutputFormat, Table, duration, info, warn

Groups = Annotated[Optional[List[str]], typer.Argument(metavar="GROUP", show_default=False,
                                                       help="Group ids (use -- before ids that start with -).")]
AllGroups = Annotated[bool, typer.Option("--all-groups", help="Every group the cluster lists.")]


class FailOnExpiry(str, Enum):
    expiry = "expiry"



def _group_ids_listed(groups: Optional[List[str]], all_groups: bool, snapshot: Optional[Path], conn: ConnectionOptions
                      ) -> tuple[list[str], Optional[set]]:
    """The group ids to work on, and (with --all-groups) the ids the cluster listed."""
    groups = list(dict.fromkeys(groups or []))
    listed_ids = None
    if all_groups:
        if snapshot is not None:
            raise UsageError("--all-groups needs a cluster, not --snapshot")
        listed = conn.cluster().list_groups()
        listed_ids = {g.group_id for g in listed}
        groups = list(dict.fromkeys([*groups, *(g.group_id for g in listed)]))
        if not groups:
            warn("the cluster lists no groups")
    elif not groups and snapshot is None:
        raise UsageError("name at least one GROUP" + ("" if snapshot else ", or pass --all-groups"))
    return groups, listed_ids


def _report_problems(problems: list[str]) -> None:
    report_problems(problems)


GROUP_TYPES = ("classic", "consumer", "share", "streams")


@app.command("list", short_help="Every group of every type: state, members, coordinator.",
             epilog=examples(
                 "kgroup list -b broker1:9092",
                 "kgroup list -b broker1:9092 --type share --type streams",
                 "kgroup list -b broker1:9092 --state Empty --type classic -o csv",
             ))
@connection_options
def list_groups(
    state: Annotated[Optional[List[str]], typer.Option("--state", metavar="STATE",
                                                       help="Only groups in this state (repeatable).")] = None,
    type_: Annotated[Optional[List[str]], typer.Option(
        "--type", metavar="classic|consumer|share|streams",
        help="Only groups of this type (repeatable): classic (of any protocol type: consumer, connect, ...), "
             "consumer (KIP-848), share (KIP-932), streams (KIP-1071).")] = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Every group of every type the cluster's brokers list (ListGroups of each broker): classic groups
    of any protocol type (consumer, Kafka Connect's connect, ...), consumer, share and streams groups,
    with type, state, protocol type, assignor, member count and coordinator. Classic and consumer
    groups of the consumer protocol are described (assignor, members); the others show what the
    listing says. Groups a broker could not list are named on stderr and the exit code is 3."""
    from kgroup.group.documents import listing_row
    from kgroup.output.stream import GroupsWriter

    types = sorted({t.lower() for t in type_ or []})
    for t in types:
        if t not in GROUP_TYPES:
            raise UsageError(f"--type must be one of {', '.join(GROUP_TYPES)}, not {t!r}")
    from kgroup.cli.common import GROUP_STATES

    known = {s.lower(): s for s in GROUP_STATES}
    for s in state or []:
        if s.lower().replace("_", "") not in known:
            raise UsageError(f"--state {s!r} is not a group state; states: {', '.join(GROUP_STATES)}")
    _quiet_gc()
    cluster = conn.cluster()
    listed, problems = cluster.list_every_group(types)
    # the groups of the consumer protocol (or none) are described; share, streams and other classic
    # groups (Kafka Connect's) have no consumer-group description: their rows are what was listed
    described = [g for g in listed if g.type in (None, "classic", "consumer") and g.protocol_type in (None, "", "consumer")]
    descriptions = iter(cluster.iter_describe_groups([g.group_id for g in described]))
    wanted = {g.group_id for g in described}
    # each group's row is written (JSON, CSV) as its description arrives through a sliding
    # window of describes; a table is aligned over every row, so it is drawn at the end
    writer = GroupsWriter(output, ["GROUP", "TYPE", "STATE", "PROTOCOL-TYPE", "ASSIGNOR", "MEMBERS", "COORDINATOR"])
    for g in listed:
        d = next(descriptions) if g.group_id in wanted else None
        r = listing_row(g, d, state or [], types)
        if r is not None:
            writer.add(r, [[r["group"], r["type"], r["state"], r["protocol_type"], r["assignor"], r["member_count"],
                            r["coordinator"]["id"] if r["coordinator"] else None]])
    writer.close()
    if problems:
        for p in problems:
            warn(p)
        warn("INCOMPLETE: the groups above are not every group of the cluster")
        raise typer.Exit(ExitCode.CLUSTER)


# how the tables fit a terminal: the columns left out first come first (docs/commands/*.md)
DESCRIBE_FIT = Fit(ids=("MEMBER-ID", "GROUP-INSTANCE-ID"),
                   drop=("#PARTITIONS", "HOST", "GROUP-INSTANCE-ID", "CLIENT-ID", "RECONCILING"))
OFFSETS_FIT = Fit(ids=("MEMBER-ID",), drop=("METADATA", "LOG-START", "HOST", "CLIENT-ID", "TIME-LAG", "LOG-END",
                                            "COMMITTED", "GROUP"))


@app.command("describe", short_help="A group's state, members and their assignments.", epilog=examples(
    "kgroup describe -b broker1:9092 G1",
    "kgroup describe --snapshot examples/seed-g1.json -o json",
))
@connection_options
def describe(
    groups: Groups = None, all_groups: AllGroups = False, snapshot: Snapshot = None,
    offsets_topic: OffsetsTopic = OFFSETS_TOPIC,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Group type, state, assignor, coordinator and members with their assignments
    (and, for KIP-848 groups, target assignments and who is still reconciling).

    For an Empty group named, when its committed offsets begin to expire (from its records in the offsets log)."""
    from kgroup.group.assignment import compact
    from kgroup.group.documents import describe_group, describe_notes
    from kgroup.output.stream import GroupsWriter

    _quiet_gc()
    if snapshot is not None:  # a streams snapshot (KIP-1071): described apart
        from kgroup.cli import streams as streams_cli

        streams, groups, problems = streams_cli.streams_groups(conn, list(dict.fromkeys(groups or [])), snapshot,
                                                               capture=False)
        if streams:
            streams_cli.mixed(streams, groups, output, "describe")
            streams_cli.describe(streams, output)
            if not groups:
                _report_problems(problems)
                return
    ids, listed = _group_ids_listed(groups, all_groups, snapshot, conn)
    problems = []
    all_streams: list[str] = []
    if snapshot is None and all_groups:
        # every group of the cluster: each written as its description arrives (sliding window)
        from kgroup.cli.common import listed_other_groups
        from kgroup.group.capture import describe_stream

        # librdkafka's list names no share or streams group; ListGroups v5 does
        shares, all_streams, share_problems = listed_other_groups(conn)
        ids = [*ids, *(g for g in shares if g not in ids)]
        if shares:
            from kgroup.group.share import WithShareGroups

            stream = describe_stream(WithShareGroups(conn.cluster(), shares), ids, (listed or set()) | set(shares))
        else:
            stream = describe_stream(conn.cluster(), ids, listed)
        states, problems = iter(stream), stream.problems
        problems.extend(share_problems)
    else:
        from kgroup.errors import UnknownGroup

        try:
            captured, problems = group_states(snapshot, ids, conn, offsets=False)
        except UnknownGroup as e:  # streams groups named (KIP-1071), asked only now: described apart
            if snapshot is not None:
                raise
            from kgroup.cli import streams as streams_cli

            streams, ids, streams_problems = streams_cli.after_unknown(conn, ids, e, capture=False, configs=True)
            streams_cli.mixed(streams, ids, output, "describe")
            streams_cli.describe(streams, output)
            if not ids:
                _report_problems(streams_problems)
                return
            captured, problems = group_states(None, ids, conn, offsets=False)
            problems = [*streams_problems, *problems]
        states = iter(captured.values())
    expiries: dict = {}
    retentions: dict = {}
    empty = [g for g, st in captured.items() if st.group.state == "Empty"] if snapshot is None and not all_groups else []
    if empty:  # an Empty group (its consumers stopped) says when its committed offsets go
        from kgroup.lag.collect import groups_expiries
        from kgroup.output.progress import progress_bar

        with progress_bar() as progress:
            expiries, retentions, unknown = groups_expiries(captured, empty, offsets_topic, conn.settings(),
                                                            conn.cluster(), progress, warn)
        if unknown:
            warn(f"when the committed offsets expire is unknown: {unknown}")
    writer = GroupsWriter(output, None, blocks=True)
    for state in states:
        g = describe_group(state)
        notes = describe_notes(g)
        if g["group"] in expiries:
            from kgroup.offsets_log.expiry import first_expiry
            from kgroup.timeutil import format_ms

            first = first_expiry(expiries[g["group"]])
            retention = retentions[g["group"]]
            g["offsets_expire_ms"] = first
            notes.append("committed offsets: " + (f"expire from {format_ms(first)}" if first is not None else
                                                 "none expires under the group's state")
                         + f" (offsets.retention.minutes {retention.retention_ms // 60_000}: {retention.source}; "
                         f"kgroup offsets {g['group']} shows each)")
        kip848 = g["type"] == "consumer"
        headers = ["MEMBER-ID", "GROUP-INSTANCE-ID", "CLIENT-ID", "HOST", "#PARTITIONS", "ASSIGNMENT"]
        if kip848:
            headers += ["TARGET-ASSIGNMENT", "RECONCILING"]
        rows = [[m["member_id"], m["group_instance_id"], m["client_id"], m["host"], m["partition_count"],
                 compact(m["assignment"])]
                + ([None if m["target_assignment"] is None else compact(m["target_assignment"]), m["reconciling"]]
                   if kip848 else [])
                for m in g["members"]]
        coordinator = broker_label(g["coordinator"]) or "-"
        epochs = ""
        if g["type"] == "share":  # kafka-share-groups.sh --describe --members --state --verbose, and more
            from kgroup.group.share import describe_rows

            headers, rows = describe_rows(g)
            epochs = f"  group-epoch={_dash(g['group_epoch'])}  assignment-epoch={_dash(g['assignment_epoch'])}"
        title = (f"GROUP {g['group']}  type={g['type'] or '-'}  state={g['state'] or '-'}  "
                 f"assignor={g['assignor'] or '-'}  coordinator={coordinator}{epochs}  "
                 f"members={g['member_count']}")
        # CSV: one table, its columns those of the first group's table, a GROUP column first
        writer.add(g, [[g["group"], *row] for row in rows] if output == OutputFormat.csv else (),
                   table=Table(headers, rows, title=title, notes=notes, fit=DESCRIBE_FIT),
                   csv_headers=["GROUP", *headers])
    writer.close()
    if all_streams:  # --all-groups: the streams groups, their own tables
        from kgroup.cli import streams as streams_cli

        code = streams_cli.all_groups_part(conn, all_streams, output, "describe")
        if code and not problems:
            raise typer.Exit(code)
    _report_problems(problems)


@app.command("offsets", short_help="Committed and log-end offsets and lag per partition.", epilog=examples(
    "kgroup offsets -b broker1:9092 G1 --lag-above 1000",
    "kgroup offsets --snapshot examples/seed-g1.json --topic Stock",
    "kgroup offsets -b broker1:9092 --all-groups -o json",
))
@connection_options
def offsets(
    groups: Groups = None, all_groups: AllGroups = False,
    topic: Annotated[Optional[List[str]], typer.Option("--topic", "-t", metavar="TOPIC",
                                                       help="Only this topic (repeatable).")] = None,
    lag_above: Annotated[Optional[int], typer.Option("--lag-above", metavar="N", min=0,
                                                     help="Exit 1 when any partition's lag exceeds N.")] = None,
    time_lag: Annotated[bool, typer.Option("--time-lag", help="Add the age of the first unconsumed record "
                                           "(read without joining any group).")] = False,
    expiry: Annotated[bool, typer.Option(
        "--expiry", help="Say when each committed offset expires for every group named, not only the Empty ones "
        "(reads their records in the offsets log).")] = False,
    expiry_warn: Annotated[str, typer.Option(
        "--expiry-warn", metavar="DURATION", help="Warn when a committed offset expires within this long: 24h, 3d.")
    ] = "24h",
    fail_on: Annotated[Optional[FailOnExpiry], typer.Option(
        "--fail-on", metavar="expiry", help="Exit 1 when a committed offset expires within --expiry-warn.")] = None,
    offsets_topic: OffsetsTopic = OFFSETS_TOPIC,
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """One row per partition: committed, log-start and log-end offsets, lag, owner, metadata;
    lag totals per topic and per group. Any value that could not be read makes the answer
    INCOMPLETE (exit 3, also with --lag-above).

    For an Empty group (its consumers stopped), and for every group named with --expiry, EXPIRES says when Kafka will delete each committed offset (offset expiry), from the group's records in the offsets log and its coordinator's offsets.retention.minutes."""
    from kgroup.cli.common import expires_cell, expiry_warning
    from kgroup.lag.now import ROW_FIELDS, LagVerdict, marker_positions, markers_notes, offsets_group, time_lag_positions
    from kgroup.output.stream import GroupsWriter, offsets_group_json
    from kgroup.timeutil import parse_duration_ms

    _quiet_gc()
    warn_ms = parse_duration_ms(expiry_warn, "--expiry-warn")
    if all_groups and (expiry or fail_on is not None):
        raise UsageError("--expiry reads each group's records in the offsets log: name the groups "
                         "('kgroup scan' flags expiring groups fleet-wide)")
    if snapshot is not None and (expiry or fail_on is not None):
        raise UsageError("--expiry reads the offsets log of a cluster; a snapshot does not hold it")
    def streams_part(streams: dict, rest: list[str], streams_problems: list[str]) -> bool:
        """Streams groups (KIP-1071): their own tables; True where no other group is left."""
        from kgroup.cli import streams as streams_cli

        streams_cli.mixed(streams, rest, output, "offsets")
        streams_cli.offsets(streams, output, None if rest else lag_above, streams_problems,
                            streams_cli.OffsetsAsked(conn if snapshot is None else None, topic, time_lag, expiry,
                                                     fail_on is not None, offsets_topic, expiry_warn, warn_ms))
        return not rest

    if snapshot is not None:  # a streams snapshot: its own tables
        from kgroup.cli import streams as streams_cli

        streams, groups, streams_problems = streams_cli.streams_groups(conn, list(dict.fromkeys(groups or [])),
                                                                       snapshot)
        if streams and streams_part(streams, groups, streams_problems):
            return
    ids, listed = _group_ids_listed(groups, all_groups, snapshot, conn)

    def run(ids: list[str], shares: dict, more_problems: tuple[str, ...] = ()) -> None:
        """The offsets of ``ids``, the share groups among them (``shares``: described) apart."""
        share_docs: list = []
        if shares:  # share groups (KIP-932): their start offsets and the broker's lag
            from kgroup.cli.share import share_offsets_documents, share_verdict, write_share_offsets

            if time_lag or expiry or fail_on is not None:
                raise UsageError(f"{', '.join(shares)}: a share group commits no offsets: --time-lag and --expiry "
                                 "do not apply to it")
            ids = [g for g in ids if g not in shares]
            if ids and output == OutputFormat.csv:
                raise UsageError("-o csv: name share groups apart from other groups (their columns differ)")
            share_docs = share_offsets_documents(conn, shares, topic, lag_above)
            if output != OutputFormat.json or not ids:
                write_share_offsets(share_docs, output)
            if not ids:
                return share_verdict(share_docs, list(more_problems), lag_above)
        # named groups, live: each one's expiry where it is Empty (or with --expiry); the states are
        # captured first, as the expiry of a group depends on its state
        with_expiry = not all_groups and snapshot is None
        headers = ["GROUP", "TOPIC", "PARTITION", "COMMITTED", "LOG-START", "LOG-END", "LAG", "MEMBER-ID",
                   "CLIENT-ID", "HOST", "METADATA"] + (["TIME-LAG"] if time_lag else [])
        now_ms = int(time.time() * 1000)
        timestamps = None
        expiries: dict = {}
        retentions: dict = {}
        wanted: list[str] = []
        states: Any
        if with_expiry:
            from kgroup.lag.collect import groups_expiries
            from kgroup.output.progress import progress_bar

            captured, problems = group_states(None, ids, conn, topics=topic)
            # share groups are recognised there, only where librdkafka does not know a group
            found = {g: st.group for g, st in captured.items() if st.group.type == "share"}
            if found and not shares:
                return run(ids, found)
            wanted = [g for g, st in captured.items() if expiry or fail_on is not None or st.group.state == "Empty"]
            if wanted:
                with progress_bar() as progress:
                    expiries, retentions, unknown = groups_expiries(captured, wanted, offsets_topic, conn.settings(),
                                                                    conn.cluster(), progress, warn)
                if unknown:
                    warn(f"when the committed offsets expire is unknown: {unknown}")
                    if fail_on is not None:
                        problems = [*problems, f"offset expiry: {unknown}"]
                headers.append("EXPIRES")
            if time_lag:
                timestamps = conn.cluster().first_record_timestamps(time_lag_positions(captured.values()))
            states = _Done(list(captured.values()), problems)  # iterates as the live stream does
        elif snapshot is None and not time_lag:
            # live: each group is written as soon as it is complete (see kgroup.group.capture.GroupStates)
            # no progress line where the groups being written share the terminal with it
            states = live_states(ids, conn, topics=topic, listed=listed,
                                 progress=output.tabular or not sys.stdout.isatty())
        else:
            loaded, problems = group_states(snapshot, ids, conn, topics=topic)
            if time_lag:
                if snapshot is not None:
                    raise UsageError("--time-lag reads records from the cluster; it cannot work from --snapshot")
                timestamps = conn.cluster().first_record_timestamps(time_lag_positions(loaded.values()))
            states = _Done(list(loaded.values()), problems)  # iterates as the live stream does
        writer = GroupsWriter(output, headers, fit=OFFSETS_FIT)
        verdict = LagVerdict(lag_above)
        if share_docs and output == OutputFormat.json:
            from kgroup.cli.share import write_share_offsets

            write_share_offsets(share_docs, output, writer)
        for doc in share_docs:
            verdict.add(doc)
        table = output != OutputFormat.json
        live = isinstance(states, live_states)
        # live, groups named: a small lag may be nothing but transaction markers or aborted records (read);
        # not with --all-groups, where a read per group would undo the batched speed
        check_markers = snapshot is None and not all_groups
        if check_markers:
            from kgroup.lag.collect import never_consumed
        if expiries:
            from kgroup.offsets_log.expiry import document as expiry_document
        with states:
            for s in states:
                skipped = never_consumed(conn.cluster(), marker_positions([s])) if check_markers else None
                g = offsets_group(s, topic, timestamps, now_ms, lag_above, row_tuples=True, undeliverable=skipped)
                rows = []
                shown_expiry = expiries.get(g["group"])
                if table:
                    name = g["group"]
                    rows = [[name, *p[:10]] + ([duration(p[10])] if time_lag else []) for p in g["partitions"]]
                    if "EXPIRES" in headers:
                        for row, p in zip(rows, g["partitions"]):
                            row.append(None if shown_expiry is None else expires_cell(shown_expiry.get((p[0], p[1]))))
                per_topic = ", ".join(f"{t}={'unknown' if n is None else n}" for t, n in g.pop("topic_lag").items())
                total = "unknown (INCOMPLETE)" if g["total_lag"] is None else g["total_lag"]
                note = (f"group {g['group']} ({g['state'] or '-'}): total lag {total}"
                        + (f"  [{per_topic}]" if per_topic else ""))
                verdict.add(g)
                if shown_expiry is not None:
                    in_rows = {(p[0], p[1]) for p in g["partitions"]}
                    shown_expiry = {tp: e for tp, e in shown_expiry.items() if tp in in_rows}
                    expiries[g["group"]] = shown_expiry
                    g["expiry"] = expiry_document(shown_expiry, retentions[g["group"]])
                text = None
                if writer.compact and live:  # live values: ints, strings, None
                    text = offsets_group_json(g)
                elif not table:
                    g["partitions"] = [dict(zip(ROW_FIELDS, p)) for p in g["partitions"]]
                caught = markers_notes((m["topic"], m["partition"], m["transaction_markers"])
                                       for m in g.get("caught_up_by_markers", ()))
                writer.add(g, rows, [note, *caught], text)
        writer.close()
        note_ids = [g for g in ids if g not in wanted]
        if "EXPIRES" in headers and note_ids:
            info(f"EXPIRES is given for Empty groups; for {', '.join(note_ids[:3])}"
                 f"{' and more' if len(note_ids) > 3 else ''} add --expiry (reads the offsets log)")
        flagged = False
        for g, group_expiries in expiries.items():
            line = expiry_warning(g, group_expiries, retentions[g], now_ms + warn_ms, expiry_warn, now_ms)
            if line:
                warn(line)
                flagged = True
        _report_problems(verdict.problems([*states.problems, *more_problems]))
        if fail_on is not None and flagged:
            raise typer.Exit(ExitCode.FLAGGED)
        if verdict.verdict == "over":
            over_count = verdict.over_count
            shown = (", ".join(f"{group} {topic}-{partition} ({lag})" for group, topic, partition, lag in verdict.over)
                     + (f" and {over_count - verdict.shown} more" if over_count > verdict.shown else ""))
            warn(f"lag above {lag_above} on {over_count} partition(s): {shown}")
            raise typer.Exit(ExitCode.FLAGGED)


    if all_groups and snapshot is None:
        from kgroup.cli import streams as streams_cli
        from kgroup.cli.common import listed_other_groups

        # librdkafka's list names no share or streams group; ListGroups v5 does
        shares, all_streams, share_problems = listed_other_groups(conn, describe_shares=output != OutputFormat.csv)
        if output == OutputFormat.csv:
            info("-o csv with --all-groups: share groups are left out (their columns differ: name them, -o csv)")
        code = 0
        try:
            run([*ids, *(g for g in shares if g not in ids)], shares, tuple(share_problems))
        except typer.Exit as e:
            code = int(e.exit_code)
        code = max(code, streams_cli.all_groups_part(conn, all_streams, output, "offsets", lag_above))
        if code:
            raise typer.Exit(code)
        return
    if snapshot is not None:
        return run(ids, {})
    from kgroup.errors import UnknownGroup

    try:
        return run(ids, {})
    except UnknownGroup as e:  # streams groups named (KIP-1071), asked only now: their own tables
        from kgroup.cli import streams as streams_cli

        streams, rest, streams_problems = streams_cli.after_unknown(conn, ids, e)
    if not streams_part(streams, rest, streams_problems):
        run(rest, {})

def _dash(value: Any) -> str:
    return "-" if value is None else str(value)


def _quiet_gc() -> None:
    """No cyclic garbage collection for the rest of this (short-lived) command: what it builds
    is acyclic and freed by reference counting, and the collector's passes over the many
    objects a large answer makes cost a quarter of the time."""
    import gc

    gc.freeze()
    gc.disable()


class _Done:
    """States already captured, iterated like a live stream (with its problems)."""

    def __init__(self, states, problems: list[str]):
        self.states, self.problems = states, problems

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __iter__(self):
        return iter(self.states)


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


class live_states:
    """The groups' states captured live, one at a time in the order asked (GroupStates),
    with the progress line shown while they come."""

    def __init__(self, ids: list[str], conn: ConnectionOptions, topics=None, listed=None, progress: bool = True):
        self.ids, self.conn, self.topics, self.listed, self.progress = ids, conn, topics, listed, progress
        self.problems: list[str] = []

    def __enter__(self):
        from kgroup.output.progress import progress_bar

        self._bar = progress_bar()
        progress = self._bar.__enter__()
        if not self.progress:
            progress = _no_progress
        from kgroup.group.capture import GroupStates

        self._stream = GroupStates(self.conn.cluster(), self.ids, topics=self.topics, listed=self.listed,
                                   progress=progress)
        self.problems = self._stream.problems
        return self

    def __exit__(self, *exc) -> None:
        self._bar.__exit__(*exc)

    def __iter__(self):
        return iter(self._stream)


@app.command("snapshot", short_help="Capture a group into a file for offline use.", epilog=examples(
    "kgroup snapshot G1 -b broker:9092 --out g1.json",
    "kgroup snapshot G1 --at 2026-11-22T02:55Z --input log.jsonl --out old.json",
))
@connection_options
def snapshot(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="The group to capture.")],
    out: Annotated[Optional[Path], typer.Option("--out", metavar="FILE", help="Write here (default stdout).")] = None,
    at: Annotated[Optional[str], typer.Option(
        "--at", metavar="TIME",
        help="Rebuild the group as it stood at TIME (2026-11-22T03:00Z, epoch ms, or 2h ago) from the offsets log.")] = None,
    input_: Annotated[Optional[Path], typer.Option(
        "--input", metavar="FILE", help="With --at: read raw records saved earlier (JSON Lines of 'kgroup log --save', - for stdin, or Parquet of 'kgroup scan --save') instead of a cluster.")] = None,
    offsets_topic: Annotated[str, typer.Option(
        "--offsets-topic", metavar="NAME", help="With --at: read the offsets log from a topic of this name.")] = "__consumer_offsets",
    output: Annotated[OutputFormat, typer.Option(
        "--output", "-o", metavar="json", help="A snapshot is JSON: only json is accepted.")] = OutputFormat.json,
    *, conn: ConnectionOptions,
) -> None:
    """Capture everything kgroup knows about a group (snapshot format v2) for offline use with --snapshot.

    With --at, rebuild it as it stood at a past moment from the offsets log (members, subscriptions, assignments, committed offsets), so whatif, describe and offsets work on the group as it was before an incident; what the log does not hold is left out and said on stderr.
    """
    from kgroup.group import snapshot as snapshot_format

    if output != OutputFormat.json:
        raise UsageError(f"-o {output.value}: a snapshot is a JSON file; read it as a table with "
                         "'kgroup describe --snapshot FILE' or 'kgroup offsets --snapshot FILE'")
    if out is not None:  # before any work: a capture is not lost for want of a place to write it
        from kgroup.output.files import check_writable

        check_writable(out, str(out))
    problems: list[str] = []
    if at is None:
        if input_ is not None:
            raise UsageError("--input needs --at (a live capture reads the cluster)")
        from kgroup.errors import UnknownGroup

        try:
            states, problems = group_states(None, [group], conn, racks=True, drop_deleted=True)
        except UnknownGroup as e:  # a streams group (KIP-1071), asked only now: its own snapshot format
            from kgroup.cli import streams as streams_cli
            from kgroup.group import streams_state

            streams, _, problems = streams_cli.after_unknown(conn, [group], e, configs=True)
            text = json.dumps(streams_state.dump(streams[group]), indent=2, ensure_ascii=False) + "\n"
            _write_snapshot(text, out)
            _report_problems(problems)
            return
        state = states[group]
    else:
        state = _state_from_log(group, at, input_, offsets_topic, conn)
    text = json.dumps(snapshot_format.dump(state), indent=2, ensure_ascii=False) + "\n"
    _write_snapshot(text, out)
    _report_problems(problems)


def _write_snapshot(text: str, out: Optional[Path]) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        from kgroup.output.files import write_whole

        write_whole(out, text, str(out))


def _state_from_log(group: str, at: str, input_: Optional[Path], offsets_topic: str, conn: ConnectionOptions):
    from kgroup.offsets_log.timetravel import GroupNotInLog, group_at
    from kgroup.timeutil import parse_past_instant_ms
    from kgroup.output.progress import progress_bar

    at_ms = parse_past_instant_ms(at, int(time.time() * 1000), "--at")
    if input_ is not None:
        no_cluster_with(conn)
    try:
        with progress_bar() as progress:
            state, notes = group_at(group, at_ms, input_, offsets_topic, conn.settings() if input_ is None else None,
                                    conn.cluster() if input_ is None else None, progress, warn)
    except GroupNotInLog:
        raise UsageError(f"the offsets log holds no record of group {group} at or before {at}") from None
    for note in notes:
        warn(note)
    return state
