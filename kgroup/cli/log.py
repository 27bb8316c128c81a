"""kgroup log: every record of the offsets log, decoded as Kafka prints it."""
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Callable, Iterator, List, Optional

import typer

from kgroup.cli.common import ConnectionOptions, Output, app, connection_options, examples, no_cluster_with
from kgroup.errors import ExitCode, UsageError
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, warn
from kgroup.text import printable

class LogKind(str, Enum):
    """The record kinds of ``--type`` (kgroup.offsets_log.records.KINDS)."""

    offsets = "offsets"
    group = "group"
    consumer = "consumer"
    share = "share"
    streams = "streams"
    regex = "regex"


LogGroups = Annotated[Optional[List[str]], typer.Argument(
    metavar="GROUP", show_default=False,
    help="Only these groups' records (and only the offsets-log partitions they hash to).")]
Input = Annotated[Optional[Path], typer.Option(
    "--input", metavar="FILE", help="Read raw records saved earlier instead of a cluster: JSON Lines (log --save; "
    "- for stdin) or Parquet (scan --save).")]
OffsetsTopic = Annotated[str, typer.Option(
    "--offsets-topic", metavar="NAME", help="Read the offsets log from a topic of this name.")]
Since = Annotated[Optional[str], typer.Option(
    "--since", metavar="TIME", help="Only records at or after TIME: 2h (ago), 2026-11-22T03:00Z, or epoch ms.")]
Until = Annotated[Optional[str], typer.Option("--until", metavar="TIME", help="Only records at or before TIME.")]


def live_records(settings, topic: str, partitions: list[int] | None, follow: bool, progress,
                 selection, caught_up: Callable[[], object] | None = None) -> Iterator:
    """Raw records of the live offsets log, partition by partition; with ``follow``, then
    every new record until interrupted (``caught_up``, by default a flush of stdout, called each
    time it has read all there is). Only the partitions wanted are probed and read."""
    from kgroup.kafka.logreader import offsets_log_leaders, offsets_log_ranges, read_log_range

    count = len(offsets_log_leaders(settings, topic)[0])
    wanted = set(selection.partitions(count))
    if partitions:
        bad = [p for p in partitions if not 0 <= p < count]
        if bad:
            raise UsageError(f"--partition {bad[0]}: {topic} has partitions 0-{count - 1}")
        wanted &= set(partitions)
        if not wanted:
            warn("the groups named hash to none of the partitions given with --partition")
    ranges = offsets_log_ranges(settings, topic, sorted(wanted)) if wanted else []
    total = sum(r.end - r.start for r in ranges)
    done = 0
    position = {r.partition: r.start for r in ranges}
    for r in ranges:
        for batch in read_log_range(settings, topic, r):
            yield from batch
            done += len(batch)
            progress("reading offsets log", done, total)
        position[r.partition] = r.end
    while follow:
        (caught_up or sys.stdout.flush)()
        time.sleep(1.0)
        for r in offsets_log_ranges(settings, topic, sorted(wanted)):
            if r.end > position[r.partition]:
                yield from (rec for batch in read_log_range(
                    settings, topic, type(r)(r.partition, position[r.partition], r.end)) for rec in batch)
                position[r.partition] = r.end


def file_records(path: Path, progress) -> Iterator:
    """Every record of a saved log (JSON Lines or Parquet; ``-``: stdin), all of it checked before
    the first is handed out, in log order, each once (kgroup.offsets_log.saved); what the input
    needed (sorting, dropping repeats) is said in one warning each."""
    from kgroup.offsets_log.saved import iter_saved

    return iter_saved(str(path), progress, warn)


def _open_save(save: Path):
    """--save's file: whole lines only, written as the records come, each time the reader has
    caught up, and on Ctrl-C (kgroup.offsets_log.raw.JsonlSave), so that what was read before a
    Ctrl-C (the way ``--follow`` ends) is a saved log ``--input`` reads."""
    from kgroup import _on_interrupt
    from kgroup.offsets_log.raw import JsonlSave

    try:
        out = JsonlSave(str(save))
    except OSError as e:
        raise UsageError(f"cannot write --save {save}: {e.strerror or e}") from None
    _on_interrupt.append(lambda: out.flush(last=True))
    return out


def _saving(records: Iterator, out) -> Iterator:
    whole = False
    try:
        for r in records:
            out.add(r)
            yield r
        whole = True
    finally:
        out.close(whole)


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
        "--type", metavar="offsets|group|consumer|share|streams|regex",
        help="Only records of this kind (repeatable).")] = None,
    since: Since = None, until: Until = None,
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep reading new records until Ctrl-C.")] = False,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Every record of the offsets log (__consumer_offsets), decoded exactly as Kafka 4.3.0's own formatters print it: offset commits, classic group metadata, KIP-848 consumer, share and streams group records, tombstones.

    Read-only: kgroup assigns itself the partitions it reads, joins no group and commits nothing. Records it cannot decode are printed as error entries and counted; the command then exits 1.
    """
    from kgroup.offsets_log import output as log_output
    from kgroup.offsets_log.records import KINDS
    from kgroup.offsets_log.selection import Selection, Tally, select
    from kgroup.offsets_log.window import Window
    from kgroup.output.progress import progress_bar

    kinds = list(dict.fromkeys(k.value for k in type_ or []))
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
    selection = Selection(frozenset(groups or []), frozenset(kinds), window)
    tally = Tally()
    with progress_bar() as progress:
        if input_ is not None:
            raw = file_records(input_, progress)
            if partition:
                wanted = set(partition)
                raw = (r for r in raw if r.partition in wanted)
        else:
            settings = conn.settings()
            if save is None:
                raw = live_records(settings, offsets_topic, partition, follow, progress, selection)
            else:
                out = _open_save(save)
                raw = _saving(live_records(settings, offsets_topic, partition, follow, progress, selection,
                                           lambda: (sys.stdout.flush(), out.flush())), out)
        writer = log_output.writer(output.value, sys.stdout, printable)
        seen: set[str] = set()
        for entry in select(raw, selection, tally):
            if entry.record is not None and groups:
                seen.add(entry.record.group_id)
            writer(entry)
    sys.stdout.flush()
    missing = [g for g in dict.fromkeys(groups or []) if g not in seen]
    if missing:
        where = "the records read" if (since or until or kinds or partition) else "the offsets log"
        if tally.shown == 0:
            raise UsageError(f"{where} hold{'s' * (where == 'the offsets log')} no record of group "
                             f"{printable(', '.join(missing))}")
        for g in missing:
            warn(f"{where} hold{'s' * (where == 'the offsets log')} no record of group {printable(g)}")
    summary = f"{tally.shown} of {tally.read} records shown"
    if tally.undecodable:
        warn(f"{summary}; {tally.undecodable} could not be decoded (printed as error entries)")
        raise typer.Exit(ExitCode.FLAGGED)
    if sys.stderr.isatty() or conn.verbose:
        sys.stderr.write(f"kgroup: {summary}\n")


def group_entries(group: str, input_: Optional[Path], offsets_topic: str, conn: ConnectionOptions, until_ms: int | None,
                  progress, cluster_too: bool = False) -> Iterator:
    """Every decoded record of one group, up to ``until_ms``, from --input or the live log.
    ``cluster_too``: the command also asks a cluster for more than the log (``lag``'s log ends),
    so -b and --input go together."""
    from kgroup.offsets_log.selection import Selection, select
    from kgroup.offsets_log.window import Window

    selection = Selection(frozenset([group]), frozenset(), Window(None, until_ms))
    if input_ is not None:
        if not cluster_too:
            no_cluster_with(conn)
        raw = file_records(input_, progress)
    else:
        raw = live_records(conn.settings(), offsets_topic, None, False, progress, selection)
    return (e for e in select(raw, selection) if e.record is not None)


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
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.offsets_log.window import Window
    from kgroup.output.progress import progress_bar

    window = Window.parse(since, None, int(time.time() * 1000))
    replay = GroupReplay(group)
    with progress_bar() as progress:
        for e in group_entries(group, input_, offsets_topic, conn,
                               None, progress):
            replay.apply(e)
    replay.finish()
    if replay.type is None and not replay.rebalances and not replay.offsets and replay.commits_before == 0:
        raise UsageError(f"the offsets log holds no record of group {group}")
    events = [r for r in replay.rebalances if r.timestamp in window]
    from kgroup.cli.render_history import render

    render(output, group, replay, events)
