"""kgroup lag: is the group healthy? Lag over time, a status per partition, catch-up time."""
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import ConnectionOptions, Output, app, connection_options, examples
from kgroup.cli.log import Input, OffsetsTopic
from kgroup.errors import ClusterError, ExitCode, NotAuthorized, TopicMissing, UsageError
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, info, warn


class FailOn(str, Enum):
    warn = "warn"
    err = "err"


HEADERS = ["TOPIC", "PARTITION", "STATUS", "COMPLETE", "LAG", "COMMITTED", "END", "CONSUME/S", "PRODUCE/S",
           "CATCH-UP"]
WATCH_DEFAULT = 10.0


def optional_watch_value(args: List[str]) -> List[str]:
    """``--watch`` may come without its SECONDS (the CLI framework has no option whose value is
    optional): where no number follows it, the default is put in."""
    out = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg == "--":
            out.extend(args[i + 1:])
            break
        if arg == "--watch":
            following = args[i + 1] if i + 1 < len(args) else None
            try:
                float(following) if following is not None else None
            except ValueError:
                following = None
            if following is None:
                out.append(f"{WATCH_DEFAULT:g}")
    return out


def _watch_seconds(value: Optional[float]) -> Optional[float]:
    if value is not None and not 1 <= value <= 3600:
        raise typer.BadParameter("the interval must be between 1 and 3600 seconds")
    return value


@app.command("lag", short_help="Lag over time per partition, with a status and catch-up.", epilog=examples(
    "kgroup lag G1 -b broker:9092",
    "kgroup lag G1 -b broker:9092 --since 6h --until 2026-11-22T02:00Z",
    "kgroup lag G1 -b broker:9092 --watch",
))
@connection_options
def lag(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="The group to examine.")],
    since: Annotated[str, typer.Option(
        "--since", metavar="TIME", help="Start of the window: 2h (ago), 2026-11-22T03:00Z, or epoch ms.")] = "1h",
    until: Annotated[Optional[str], typer.Option(
        "--until", metavar="TIME", help="End of the window (default: now).")] = None,
    topic: Annotated[Optional[List[str]], typer.Option(
        "--topic", "-t", metavar="TOPIC", help="Only this topic (repeatable).")] = None,
    allowed_lag: Annotated[int, typer.Option(
        "--allowed-lag", metavar="N", min=0, help="A lag of at most N counts as none (Burrow's allowed-lag).")] = 0,
    fail_on: Annotated[Optional[FailOn], typer.Option(
        "--fail-on", metavar="warn|err", help="Exit 1 when the group's status is at least this.")] = None,
    time_lag: Annotated[bool, typer.Option(
        "--time-lag", help="Add how old the next record to consume was at each point (reads those records).")] = False,
    watch: Annotated[Optional[float], typer.Option(
        "--watch", metavar="[SECONDS]", callback=_watch_seconds,
        help="Sample committed offsets and log ends every SECONDS (default 10) and re-evaluate, until Ctrl-C.")] = None,
    input_: Input = None,
    offsets_topic: OffsetsTopic = OFFSETS_TOPIC,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Lag over time per partition, rebuilt from the offsets log and the log ends at each commit, with a status per partition by Burrow's rules (OK, WARN, STALL, STOP, REWIND) and the time until the lag is gone.

    Read-only: the log ends at past moments come from ListOffsets by timestamp, checked against the records. With --watch, committed offsets and log ends are sampled live, so it works without read access to the offsets log.
    """
    from kgroup.offsets_log.window import Window

    now_ms = int(time.time() * 1000)
    window = Window.parse(since, until, now_ms)
    since_ms = window.since_ms if window.since_ms is not None else now_ms
    until_ms = window.until_ms if window.until_ms is not None else now_ms
    if window.until_ms is not None and window.until_ms > now_ms:
        raise UsageError("--until is in the future")
    if watch is not None:
        if until is not None:
            raise UsageError("--watch runs until now; it takes no --until")
        if time_lag:
            raise UsageError("--time-lag reads past records; it does not work with --watch")
        return _watch(group, topic, since_ms - now_ms, allowed_lag, watch, input_, offsets_topic, output, conn)
    from kgroup.lag.history import evaluate

    cluster = conn.cluster()
    commits = read_commits(group, topic, until_ms, input_, offsets_topic, conn, watch_hint=True)
    if not commits:
        what = f" to topic {', '.join(topic)}" if topic else ""
        raise UsageError(f"the offsets log holds no commit of group {group}{what} at or before --until")
    ends = ends_for_commits(cluster, commits, since_ms, until_ms, until is None, conn.verbose)
    record_times = _record_times(cluster, commits, ends, since_ms, until_ms, until is None) if time_lag else None
    report = evaluate(group, commits, ends, since_ms, until_ms, until is None, allowed_lag, record_times)
    _render(report, output, time_lag)
    _verdict(report, fail_on)


def read_commits(group, topics, until_ms, input_: Optional[Path], offsets_topic: str, conn: ConnectionOptions,
             watch_hint: bool):
    """The group's commits per partition, from --input or the live offsets log."""
    from kgroup.cli.log import group_entries
    from kgroup.lag.history import commits_from_log
    from kgroup.output.progress import progress_bar

    try:
        with progress_bar() as progress:
            return commits_from_log(group_entries(group, input_, offsets_topic, conn, until_ms, progress, True), group,
                                    until_ms, topics)
    except ClusterError as e:
        if watch_hint and isinstance(e, NotAuthorized):
            raise NotAuthorized(f"cannot read the offsets log {offsets_topic}: {e.message}; "
                               f"'kgroup lag {group} --watch' samples the lag live without it") from None
        raise


def ends_for_commits(cluster, commits, since_ms: int, until_ms: int, until_is_now: bool, verbose: bool):
    """The log ends :func:`kgroup.lag.history.evaluate` needs, asked of the cluster."""
    from kgroup.lag.ends import log_ends_at
    from kgroup.lag.history import EndsAt, moments

    answer = log_ends_at(cluster, moments(commits, since_ms, until_ms, until_is_now))
    now = {tp: answer.bounds[tp].end if tp in answer.bounds else None for tp in commits}
    stats = answer.stats
    if verbose and stats.searched:
        info(f"the cluster's ListOffsets answers by timestamp did not match its records for {stats.searched} of "
             f"{stats.checked} moments; kgroup found those from the records themselves")
    for line in answer.problems:
        warn(line)
    return EndsAt.found(answer.ends, now)


def _record_times(cluster, commits, ends, since_ms: int, until_ms: int, until_is_now: bool):
    """For --time-lag: the timestamp of the record at each committed offset with lag."""
    from kgroup.lag.ends import record_timestamps
    from kgroup.lag.history import evaluate, time_lag_positions

    draft = evaluate("", commits, ends, since_ms, until_ms, until_is_now)
    return record_timestamps(cluster, time_lag_positions(draft))


def _catch_up(p) -> Optional[str]:
    from kgroup.output.render import duration

    if p.lag == 0:
        return "caught up"
    if p.catching_up is False:
        return "not catching up"
    return None if p.eta_s is None else duration(int(p.eta_s * 1000))


def _rate(value: Optional[float]) -> Optional[str]:
    return None if value is None else f"{value:.3g}"


def _tables(report, output: OutputFormat, time_lag: bool):
    from kgroup.output import sparkline
    from kgroup.offsets_log.window import format_ms
    from kgroup.output.render import Table, duration

    table = output == OutputFormat.table
    blocks, blank = (sparkline.BLOCKS, sparkline.BLANK) if _utf8() else (sparkline.ASCII_BLOCKS, sparkline.ASCII_BLANK)
    headers = HEADERS + (["TIME-LAG"] if time_lag else []) + (["LAG OVER WINDOW"] if table else [])
    rows = []
    series = {}
    for p in report.partitions:
        last_time_lag = p.points[-1].time_lag_ms if p.points else None
        # the lag at each commit, then at --until (a consumer that stopped shows its lag growing)
        points = [(pt.time_ms, pt.lag) for pt in p.points] + [(report.until_ms, p.lag)]
        series[(p.topic, p.partition)] = points
        if table:
            row = [p.topic, p.partition, p.status, f"{p.complete:.1f}", p.lag, p.committed, p.end,
                   _rate(p.consume_per_s), _rate(p.produce_per_s), _catch_up(p)]
            row += [duration(last_time_lag)] if time_lag else []
            row.append(sparkline.draw(sparkline.slots(points, report.since_ms, report.until_ms), blocks, blank))
        else:
            row = [p.topic, p.partition, p.status, round(p.complete, 3), p.lag, p.committed, p.end,
                   p.consume_per_s, p.produce_per_s, p.eta_s] + ([last_time_lag] if time_lag else [])
        rows.append(row)
    notes = []
    if table:
        total = report.total_lag
        rows.append(["TOTAL", None, report.status, f"{report.complete:.1f}",
                     total if total is not None else None, None, None, None, None, None]
                    + ([None] if time_lag else [])
                    + [sparkline.draw(sparkline.total(series.values(), report.since_ms, report.until_ms), blocks, blank)])
        named = "; ".join(f"{status}: {', '.join(names)}" for status, names in sorted(report.by_status().items())
                          if status != "OK")
        notes.append(f"group {report.group}: {report.status}" + (f" ({named})" if named else "")
                     + f"; window {format_ms(report.since_ms)} to {format_ms(report.until_ms)}")
    return [Table(headers, rows, None, notes)]


def _utf8() -> bool:
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    return encoding in ("utf-8", "utf8")


def _render(report, output: OutputFormat, time_lag: bool) -> None:
    from kgroup.lag.history import document
    from kgroup.output.render import emit

    emit(output, document(report, time_lag) if output == OutputFormat.json else {}, _tables(report, output, time_lag))


def _verdict(report, fail_on: Optional[FailOn]) -> None:
    """INCOMPLETE (exit 3) before --fail-on (exit 1): no threshold passes on an unknown."""
    problems = report.problems
    if problems:
        for line in problems[:10]:
            warn(line)
        if len(problems) > 10:
            warn(f"... and {len(problems) - 10} more")
        warn("INCOMPLETE: some values are unknown (shown as -); the status is computed from the known points")
        raise typer.Exit(ExitCode.CLUSTER)
    if fail_on is not None:
        rank = {"OK": 0, "WARN": 1, "ERR": 2}
        if rank[report.status] >= rank[fail_on.value.upper()]:
            warn(f"group {report.group} is {report.status}")
            raise typer.Exit(ExitCode.FLAGGED)


def _watch(group: str, topics, since_offset_ms: int, allowed_lag: int, every: float, input_: Optional[Path],
           offsets_topic: str, output: OutputFormat, conn: ConnectionOptions) -> None:
    """Sample, re-evaluate and show, every ``every`` seconds until Ctrl-C."""
    import json

    from kgroup.kafka.cluster import connect
    from kgroup.group.capture import capture
    from kgroup.lag.history import Watch, document

    settings = conn.settings()
    now_ms = int(time.time() * 1000)
    try:
        commits = read_commits(group, topics, now_ms, input_, offsets_topic, conn, watch_hint=False)
        cluster = connect(settings)
        ends = ends_for_commits(cluster, commits, now_ms + since_offset_ms, now_ms, True, conn.verbose) if commits else None
        watcher = Watch(group, commits, ends)
    except (ClusterError, UsageError) as e:
        # only a log that is refused or missing is worked around; a file given is read, or its
        # fault said, and a cluster out of reach is said as such
        if input_ is not None or not isinstance(e, (NotAuthorized, TopicMissing)):
            raise
        warn(f"the offsets log cannot be read ({e.message}); the lag is sampled from now on")
        watcher = Watch(group)
    terminal = output == OutputFormat.table and sys.stdout.isatty()
    while True:
        sample_ms = int(time.time() * 1000)
        # the group's committed offsets and log ends, read as `kgroup offsets` reads them; a new
        # client each time: --timeout bounds each sample
        state = capture(connect(settings), [group], topics=topics).states[group]
        offsets = [((t, p), o) for t, parts in state.offsets.items() for p, o in parts.items()]
        watcher.add(sample_ms, {tp: o.committed for tp, o in offsets}, {tp: o.log_end for tp, o in offsets})
        report = watcher.report(sample_ms + since_offset_ms, allowed_lag)
        if output == OutputFormat.json or not terminal and output == OutputFormat.table:
            sys.stdout.write(json.dumps(document(report), separators=(",", ":")) + "\n")
            sys.stdout.flush()
        elif terminal:
            from kgroup.output.render import table_block

            sys.stdout.write("\x1b[H\x1b[2J" + "\n\n".join(table_block(t) for t in _tables(report, output, False))
                             + f"\n\nsampling every {every:g} s; Ctrl-C to stop\n")
            sys.stdout.flush()
        else:  # csv, not at a terminal: the rows of each sample
            from kgroup.output.render import emit

            emit(output, {}, _tables(report, output, False))
        time.sleep(every)
