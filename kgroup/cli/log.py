"""kgroup log: every record of the offsets log, decoded as Kafka prints it."""
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import (ConnectionOptions, Input, OffsetsTopic, Output, Since, Until, app, connection_options,
                               examples, no_cluster_with)
from kgroup.errors import ExitCode, UsageError
from kgroup.group.hashing import SHARE_STATE_TOPIC
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, info, warn
from kgroup.text import printable


class LogKind(str, Enum):
    """The record kinds of ``--type`` (kgroup.offsets_log.records.KINDS)."""

    offsets = "offsets"
    group = "group"
    consumer = "consumer"
    share = "share"
    streams = "streams"
    regex = "regex"
    share_state = "share-state"  # __share_group_state's records: another topic, read alone


LogGroups = Annotated[Optional[List[str]], typer.Argument(
    metavar="GROUP", show_default=False,
    help="Only these groups' records (and only the offsets-log partitions they hash to).")]


@app.command("log", short_help="Every offsets-log record, decoded as Kafka prints it.", epilog=examples(
    "kgroup log G1 -b broker:9092 --since 2h",
    "kgroup log -b broker:9092 --save log.jsonl -o json > decoded.jsonl",
    "kgroup log --input examples/offsets-log-g1.jsonl --type group -o csv",
))
@connection_options
def log(
    groups: LogGroups = None,
    input_: Input = None,
    save: Annotated[Optional[Path], typer.Option(
        "--save", metavar="FILE", help="Also write every raw record read to FILE (JSON Lines), for --input later.")] = None,
    offsets_topic: OffsetsTopic = OFFSETS_TOPIC,
    partition: Annotated[Optional[List[int]], typer.Option(
        "--partition", metavar="N", help="Only this offsets-log partition (repeatable).")] = None,
    type_: Annotated[Optional[List[LogKind]], typer.Option(
        "--type", metavar="offsets|group|consumer|share|streams|regex|share-state",
        help="Only records of this kind (repeatable). share-state: the share coordinator's "
             "__share_group_state records instead of the offsets log.")] = None,
    share_state_topic: Annotated[str, typer.Option(
        "--share-state-topic", metavar="NAME", help="With --type share-state: read it from a topic of this name.")
    ] = SHARE_STATE_TOPIC,
    replay: Annotated[bool, typer.Option(
        "--replay", help="With --type share-state: instead of the records, each share partition's state "
                         "replayed as the share coordinator does, and the records at or near the delivery limit.")
    ] = False,
    delivery_limit: Annotated[Optional[int], typer.Option(
        "--delivery-limit", metavar="N", min=1, show_default=False,
        help="With --replay: the group's delivery count limit (default: the brokers' "
             "group.share.delivery.count.limit, else Kafka's 5).")
    ] = None,
    since: Since = None, until: Until = None,
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep reading new records until Ctrl-C.")] = False,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Every record of the offsets log (__consumer_offsets), decoded exactly as Kafka 4.3.0's own formatters print it: offset commits, classic group metadata, KIP-848 consumer, share and streams group records, tombstones.

    Read-only: kgroup assigns itself the partitions it reads, joins no group and commits nothing. Records it cannot decode are printed as error entries and counted; the command then exits 1.
    """
    from kgroup.output import records as log_output
    from kgroup.offsets_log import read
    from kgroup.offsets_log.records import KINDS, SHARE_STATE
    from kgroup.offsets_log.selection import Selection, Tally, select
    from kgroup.offsets_log.window import Window
    from kgroup.output.progress import progress_bar

    kinds = list(dict.fromkeys(k.value for k in type_ or []))
    share_state = SHARE_STATE in kinds
    if share_state:
        if len(kinds) > 1:
            raise UsageError("--type share-state reads __share_group_state, not the offsets log: it goes alone")
        kinds = []
    elif share_state_topic != SHARE_STATE_TOPIC or replay:
        raise UsageError("--share-state-topic and --replay go with --type share-state")
    if replay and (follow or since):
        raise UsageError("--replay needs every record from the start of the log: not with --follow or --since")
    if not replay and delivery_limit is not None:
        raise UsageError("--delivery-limit goes with --replay")
    assert set(kinds) <= set(KINDS)
    if input_ is not None and follow:
        raise UsageError("--follow reads a live cluster, not --input")
    if input_ is not None and save is not None:
        raise UsageError("--save writes what is read from a cluster; --input is already saved")
    if input_ is not None:
        no_cluster_with(conn)
    bad = [p for p in partition or [] if not 0 <= p <= 2**31 - 1]
    if bad:
        raise UsageError(f"--partition {bad[0]}: a partition is a number from 0 to 2147483647")
    window = Window.parse(since, until, int(time.time() * 1000))
    selection = Selection(frozenset(groups or []), frozenset(kinds), window, share_state)
    topic = share_state_topic if share_state else offsets_topic
    tally = Tally()
    with progress_bar() as progress:
        if input_ is not None:
            raw = read.file_records(input_, progress, warn)
            if partition:
                wanted = set(partition)
                raw = (r for r in raw if r.partition in wanted)
        else:
            settings = conn.settings()
            if save is None:
                raw = read.live_records(settings, topic, partition, follow, progress, selection, warn)
            else:
                out = read.open_save(save)

                def caught_up() -> None:  # what was read so far reaches stdout and the saved file
                    sys.stdout.flush()
                    out.flush()

                raw = read.saving(read.live_records(settings, topic, partition, follow, progress, selection,
                                                    warn, caught_up), out)
        seen: set[str] = set()
        if replay:
            from kgroup.offsets_log.share_state import ShareStateReplay

            state = ShareStateReplay()
            for entry in select(raw, selection, tally):
                if entry.record is not None:
                    seen.add(entry.record.group_id)
                    state.apply(entry.record, entry.raw.offset, entry.raw.timestamp)
        else:
            writer = log_output.writer(output.value, sys.stdout, printable, 11 if share_state else 8)
            for entry in select(raw, selection, tally):
                if entry.record is not None and groups:
                    seen.add(entry.record.group_id)
                writer(entry)
    if replay:
        from kgroup.cli.render_share_state import render

        limits: dict = {}
        if delivery_limit is None:
            from kgroup.offsets_log.share_state import DEFAULT_DELIVERY_LIMIT, DELIVERY_LIMIT_CONFIG, delivery_limits

            limit, source = (DEFAULT_DELIVERY_LIMIT, "Kafka's default: a saved log does not say")
            if input_ is None:
                asked = conn.cluster().share_delivery_limit()
                limit, source = asked if asked[0] is not None else (DEFAULT_DELIVERY_LIMIT, asked[1])
                shown = sorted({sp.key[0] for sp in state.live()})
                if shown:  # each group's own share.delivery.count.limit (or the brokers' default for it)
                    found, why = conn.cluster().group_configs(shown, [DELIVERY_LIMIT_CONFIG])
                    limits = delivery_limits(found, shown, why)
            for g, (n, where) in sorted(limits.items()):
                info(f"group {g}: delivery limit {n} ({where})")
            if not limits or len(limits) < len({sp.key[0] for sp in state.live()}):
                info(f"delivery limit {limit} ({source})" + ("" if input_ is None else
                     "; a group's own share.delivery.count.limit is not in the log: give --delivery-limit N"))
            delivery_limit = limit
        render(output, state, delivery_limit, limits)
    sys.stdout.flush()
    missing = [g for g in dict.fromkeys(groups or []) if g not in seen]
    if missing:
        where = "the records read" if (since or until or kinds or partition) else (
            "the share-state log" if share_state else "the offsets log")
        if tally.shown == 0:
            raise UsageError(f"{where} hold{'s' * (where != 'the records read')} no record of group "
                             f"{printable(', '.join(missing))}")
        for g in missing:
            warn(f"{where} hold{'s' * (where != 'the records read')} no record of group {printable(g)}")
    summary = f"{tally.shown} of {tally.read} records shown"
    if tally.undecodable:
        warn(f"{summary}; {tally.undecodable} could not be decoded (printed as error entries)")
        raise typer.Exit(ExitCode.FLAGGED)
    if sys.stderr.isatty() or conn.verbose:
        sys.stderr.write(f"kgroup: {summary}\n")


@app.command("history", short_help="A group's rebalances: who joined, who left, what moved.", epilog=examples(
    "kgroup history G1 -b broker:9092",
    "kgroup history G1 --input examples/offsets-log-g1.jsonl -o json",
))
@connection_options
def history(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="The group whose rebalances to show.")],
    input_: Input = None,
    offsets_topic: OffsetsTopic = OFFSETS_TOPIC,
    since: Since = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """A group's rebalance timeline from the offsets log: every classic generation or KIP-848 group epoch with its protocol, leader and members, who joined and who left, which partitions moved, the time between rebalances and the commits in between.

    The log says that a member left, never why.
    """
    from kgroup.offsets_log.read import group_history
    from kgroup.offsets_log.window import Window
    from kgroup.output.progress import progress_bar

    window = Window.parse(since, None, int(time.time() * 1000))
    if input_ is not None:
        no_cluster_with(conn)
    with progress_bar() as progress:
        replay, events, causes = group_history(group, input_, offsets_topic,
                                               conn.settings() if input_ is None else None,
                                               conn.cluster if input_ is None else None, window, progress, warn)
    from kgroup.cli.render_history import render

    render(output, group, replay, events, causes)
