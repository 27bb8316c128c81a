"""kgroup lag: is the group healthy? Lag over time, a status per partition, catch-up time."""
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import (ConnectionOptions, Input, OffsetsTopic, Output, app, connection_options, examples,
                               expires_cell, expiry_warning)
from kgroup.errors import ExitCode, UsageError
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, info, warn


class FailOn(str, Enum):
    warn = "warn"
    err = "err"
    expiry = "expiry"


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


def _share_lag(group, shares, topic, watch, until, time_lag, fail_on, output, conn) -> None:
    """A share group (KIP-932) commits nothing to the offsets log, so there is no lag over time to
    rebuild: lag shows what offsets shows, the broker's lag per partition now (INCOMPLETE, exit 3,
    where it is unknown). ``shares``: the group, described."""
    given = [name for name, value in (("--watch", watch), ("--until", until), ("--time-lag", time_lag),
                                      ("--fail-on", fail_on)) if value]
    if given:
        raise UsageError(f"{group} is a share group: it commits no offsets, so there is no lag over time; "
                         f"{', '.join(given)} does not apply ('kgroup lag {group}' shows its lag now)")
    from kgroup.cli.share import share_offsets_documents, share_verdict, write_share_offsets

    docs = share_offsets_documents(conn, shares, topic, None)
    write_share_offsets(docs, output)
    info(f"{group} is a share group: its lag is the broker's now (partition end - start offset - records "
         "delivered past it); share groups commit nothing to the offsets log, so there is no lag over time")
    share_verdict(docs, [], None)


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
    fail_on: Annotated[Optional[List[FailOn]], typer.Option(
        "--fail-on", metavar="warn|err|expiry", help="Exit 1 when the group's status is at least this (warn, err), "
        "or when a committed offset expires within --expiry-warn (expiry). Repeatable.")] = None,
    expiry_warn: Annotated[str, typer.Option(
        "--expiry-warn", metavar="DURATION", help="Warn when a committed offset expires within this long: 24h, 3d.")
    ] = "24h",
    time_lag: Annotated[bool, typer.Option(
        "--time-lag", help="Add how old the first record not consumed was at --until, as LAG "
        "(and at each point in JSON; reads those records).")] = False,
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
    from kgroup.timeutil import parse_duration_ms

    now_ms = int(time.time() * 1000)
    window = Window.parse(since, until, now_ms)
    warn_ms = parse_duration_ms(expiry_warn, "--expiry-warn")
    since_ms = window.since_ms if window.since_ms is not None else now_ms
    until_ms = window.until_ms if window.until_ms is not None else now_ms
    if window.until_ms is not None and window.until_ms > now_ms:
        raise UsageError("--until is in the future")
    if input_ is not None:
        return _lag(group, topic, since_ms, until_ms, now_ms, until, allowed_lag, time_lag, watch, input_,
                    offsets_topic, expiry_warn, warn_ms, fail_on, output, conn)
    from kgroup.cli.common import unless_share_groups
    from kgroup.errors import KgroupError, UnknownGroup

    failed: type[KgroupError] = UnknownGroup if watch is not None else KgroupError
    try:
        return _lag(group, topic, since_ms, until_ms, now_ms, until, allowed_lag, time_lag, watch, input_,
                    offsets_topic, expiry_warn, warn_ms, fail_on, output, conn)
    except failed as e:
        # a share group commits nothing (no commit in the offsets log, which this user may not even be
        # allowed to read) and librdkafka does not know it: kgroup's own client is asked only where the
        # path of groups that commit failed, so that they take the path they always took
        shares = unless_share_groups(conn, [group], e)
    _share_lag(group, shares, topic, watch, until, time_lag, fail_on, output, conn)


def _lag(group, topic, since_ms, until_ms, now_ms, until, allowed_lag, time_lag, watch, input_, offsets_topic,
         expiry_warn, warn_ms, fail_on, output, conn) -> None:
    """The lag over time of a group that commits (kgroup lag's body)."""
    from kgroup.errors import NoCommitsInLog

    if watch is not None:
        if until is not None:
            raise UsageError("--watch runs until now; it takes no --until")
        if time_lag:
            raise UsageError("--time-lag reads past records; it does not work with --watch")
        return _watch(group, topic, since_ms - now_ms, allowed_lag, watch, input_, offsets_topic, output, conn)
    from kgroup.lag.collect import lag_of, read_history
    from kgroup.output.progress import progress_bar

    cluster = conn.cluster()
    with progress_bar() as progress:
        commits, replay = read_history(group, topic, until_ms, input_, offsets_topic,
                                       conn.settings() if input_ is None else None, progress, warn, watch_hint=True)
    if not commits:
        what = f" to topic {', '.join(topic)}" if topic else ""
        raise NoCommitsInLog(f"the offsets log holds no commit of group {group}{what} at or before --until")
    with progress_bar() as progress:
        report, expiries, retention, now = lag_of(cluster, group, commits, replay, since_ms, until_ms,
                                                  until is None, allowed_lag, time_lag, warn,
                                                  info if conn.verbose else None, owners=True, topics=topic,
                                                  progress=progress)
    _render(report, output, time_lag, expiries, retention, now)
    _verdict(report, fail_on or [], expiries, retention, now_ms + warn_ms, expiry_warn, now_ms)


def _catch_up(p) -> Optional[str]:
    """CATCH-UP: the estimate when there is one, else why not (kgroup.lag.history.catch_up)."""
    from kgroup.lag.history import CATCHING_UP
    from kgroup.output.render import duration

    if p.catch_up == CATCHING_UP and p.eta_s is not None:
        return duration(int(p.eta_s * 1000))
    return p.catch_up


# the table's order: the partitions that need a look first (unknown after the problems), then by lag
TABLE_ORDER = {"REWIND": 0, "STOP": 1, "STALL": 2, "WARN": 3, None: 4, "WARMING UP": 5, "OK": 6}


def _table_order(p) -> tuple:
    return TABLE_ORDER.get(p.status, 4), -(p.lag if p.lag is not None else float("inf")), p.topic, p.partition


def _rate(value: Optional[float]) -> Optional[str]:
    return None if value is None else f"{value:.3g}"


NEVER_COMMITTED = "never committed"


def _tables(report, output: OutputFormat, time_lag: bool, expiries=None, retention=None, now=None):
    from kgroup.lag.status import SAMPLES, WARMING_UP, WINDOW
    from kgroup.output import sparkline
    from kgroup.timeutil import format_ms
    from kgroup.output.render import Fit, Table, duration, utf8_output

    table = output.tabular
    blocks, blank = (sparkline.BLOCKS, sparkline.BLANK) if utf8_output() else (sparkline.ASCII_BLOCKS, sparkline.ASCII_BLANK)
    from kgroup.text import printable

    owned = now is not None and bool(now.owners)  # some partition's owner now is known: CLIENT-ID, HOST
    tasks = owned and any(o.task is not None for o in now.owners.values())  # a streams group's: TASK too
    headers = (HEADERS + (["TIME-LAG"] if time_lag else []) + (["EXPIRES"] if expiries is not None else [])
               + (["TASK"] if tasks else []) + (["CLIENT-ID", "HOST"] if owned else [])
               + (["LAG OVER WINDOW"] if table else []))

    def owner_cells(tp) -> list:
        if not owned:
            return []
        o = now.owners.get(tp)
        if o is None:
            return [None] * tasks + ["(none)" if table else None, None]
        cells = [o.task] * tasks + [o.client_id, o.host]
        return [printable(c) if c is not None else None for c in cells] if table else cells
    rows = []
    series = {}
    start = report.drawn_from_ms if report.drawn_from_ms is not None else report.since_ms
    # the table (not CSV, not JSON: those stay in partition order) shows the problems first
    for p in sorted(report.partitions, key=_table_order) if table else report.partitions:
        # the lag at each commit, after the last one (the log end moving on), then at --until
        points = [(pt.time_ms, pt.lag) for pt in p.points] + list(p.after_last) + [(report.until_ms, p.lag)]
        series[(p.topic, p.partition)] = points
        if table:
            row = [p.topic, p.partition, p.status, f"{p.complete:.1f}", p.lag, p.committed, p.end,
                   _rate(p.consume_per_s), _rate(p.produce_per_s), _catch_up(p)]
            row += [duration(p.time_lag_ms)] if time_lag else []
            row += [expires_cell(expiries.get((p.topic, p.partition)))] if expiries is not None else []
            row += owner_cells((p.topic, p.partition))
            row.append(sparkline.draw(sparkline.slots(points, start, report.until_ms), blocks, blank))
        else:
            row = [p.topic, p.partition, p.status, round(p.complete, 3), p.lag, p.committed, p.end,
                   p.consume_per_s, p.produce_per_s, p.eta_s] + ([p.time_lag_ms] if time_lag else [])
            if expiries is not None:
                e = expiries.get((p.topic, p.partition))
                row.append(None if e is None else e.expires_ms)
            row += owner_cells((p.topic, p.partition))
        rows.append(row)
    # the partitions of the subscribed topics never committed: their end now, no lag (it depends on
    # the consumer's auto.offset.reset), after the others
    never = sorted(now.never_committed.items()) if now is not None else []
    for (t, part), end in never:
        # the table says it under CATCH-UP; CSV (whose column there is eta_s, a number) under status
        rows.append([printable(t) if table else t, part, None if table else NEVER_COMMITTED, None, None, None, end,
                     None, None, NEVER_COMMITTED if table else None] + ([None] if time_lag else []) + ([None] if expiries is not None else [])
                    + owner_cells((t, part)) + ([blank * sparkline.WIDTH] if table else []))
    notes = []
    if table:
        total = report.total_lag
        rows.append(["TOTAL", None, report.status, f"{report.complete:.1f}",
                     total if total is not None else None, None, None, None, None, None]
                    + ([None] if time_lag else []) + ([None] if expiries is not None else [])
                    + [None] * (tasks + 2 * owned)
                    + [sparkline.draw(sparkline.total(series.values(), start, report.until_ms), blocks, blank)])
        named = "; ".join(f"{status}: {', '.join(names)}" for status, names in sorted(report.by_status().items())
                          if status != "OK")
        notes.append(f"group {report.group}: {report.status}" + (f" ({named})" if named else "")
                     + f"; window {format_ms(report.since_ms)} to {format_ms(report.until_ms)}")
        if time_lag:
            notes.append("LAG and TIME-LAG at --until: TIME-LAG is --until minus the timestamp of the first record "
                         "not consumed")
        from kgroup.lag.now import markers_notes

        notes += markers_notes((p.topic, p.partition, p.transaction_markers) for p in report.partitions
                               if p.transaction_markers)
        if any(p.status == WARMING_UP for p in report.partitions):
            notes.append(f"WARMING UP: fewer than {WINDOW} commits and {SAMPLES} samples so far; not evaluated yet")
        if retention is not None:
            notes.append(f"EXPIRES: when Kafka deletes the committed offset under the group's state at --until "
                         f"(offsets.retention.minutes {retention.retention_ms // 60_000}: {retention.source})")
    if table:
        if never:
            notes.append(f"{NEVER_COMMITTED}: {len(never)} partition{'s' * (len(never) != 1)} of the subscribed topics "
                         "with no commit: where a consumer starts there depends on its auto.offset.reset, so "
                         "their lag is not known (not in TOTAL, not INCOMPLETE)")
        if tasks:
            notes.append("TASK, CLIENT-ID, HOST: the streams task reading the partition and the member running it "
                         "as active now (the group's description)")
        elif owned:
            notes.append("CLIENT-ID, HOST: the member that owns the partition now (the group's description)")
        elif now is not None and now.unknown is not None:
            notes.append(f"the owners now and the partitions never committed are unknown: {printable(now.unknown)}")
        elif now is not None:
            notes.append(f"no member owns any of these partitions now (the group is {now.state or 'unknown to the cluster now'})")
    # at a terminal too narrow, the columns left out first come first (docs/commands/lag.md)
    fit = Fit(drop=("PRODUCE/S", "CONSUME/S", "HOST", "COMMITTED", "END", "TIME-LAG", "COMPLETE", "EXPIRES",
                    "CLIENT-ID", "CATCH-UP", "LAG OVER WINDOW"))
    return [Table(headers, rows, None, notes, fit)]


def _render(report, output: OutputFormat, time_lag: bool, expiries=None, retention=None, now=None) -> None:
    from kgroup.lag.history import document
    from kgroup.output.render import emit

    doc = {}
    if output == OutputFormat.json:
        doc = document(report, time_lag, expiries, retention)
        if now is not None:
            _now_json(doc, now)
    emit(output, doc, _tables(report, output, time_lag, expiries, retention, now))


def _now_json(doc: dict, now) -> None:
    """lag -o json's owners now (``owner`` per partition, ``owners_unknown``: why they are not
    known, else null) and ``never_committed`` (docs/schemas/lag.schema.json)."""
    for p in doc["partitions"]:
        o = now.owners.get((p["topic"], p["partition"]))
        p["owner"] = None if o is None else o.to_json()
    doc["owners_unknown"] = now.unknown
    doc["never_committed"] = [
        {"topic": t, "partition": part, "end": end, "lag": None, "committed": None,
         "owner": None if (o := now.owners.get((t, part))) is None else o.to_json()}
        for (t, part), end in sorted(now.never_committed.items())]


def _verdict(report, fail_on: list, expiries=None, retention=None, expiry_by_ms: int = 0, within: str = "",
             now_ms: int = 0) -> None:
    """INCOMPLETE (exit 3) before --fail-on (exit 1): no threshold passes on an unknown."""
    problems = report.problems
    if problems:
        for line in problems[:10]:
            warn(line)
        if len(problems) > 10:
            warn(f"... and {len(problems) - 10} more")
        warn("INCOMPLETE: some values are unknown (shown as -); the status is computed from the known points")
        raise typer.Exit(ExitCode.CLUSTER)
    soon = expiry_warning(report.group, expiries, retention, expiry_by_ms, within, now_ms) if expiries else None
    if soon:
        warn(soon)
    flagged = False
    rank = {"OK": 0, "WARN": 1, "ERR": 2}
    for f in dict.fromkeys(fail_on):
        if f == FailOn.expiry:
            flagged = flagged or soon is not None
        elif rank[report.status] >= rank[f.value.upper()]:
            warn(f"group {report.group} is {report.status}")
            flagged = True
    if flagged:
        raise typer.Exit(ExitCode.FLAGGED)


def _watch(group: str, topics, since_offset_ms: int, allowed_lag: int, every: float, input_: Optional[Path],
           offsets_topic: str, output: OutputFormat, conn: ConnectionOptions) -> None:
    """Sample, re-evaluate and show, every ``every`` seconds until Ctrl-C."""
    from kgroup.lag.collect import sample, start_watch, watch_report
    from kgroup.lag.history import document
    from kgroup.output.progress import progress_bar
    from kgroup.output.render import json_line

    settings = conn.settings()
    now_ms = int(time.time() * 1000)
    with progress_bar() as progress:
        watcher = start_watch(group, topics, now_ms, since_offset_ms, input_, offsets_topic, settings, progress, warn,
                              info if conn.verbose else None)
    terminal = output.tabular and sys.stdout.isatty()
    while True:
        sample_ms = int(time.time() * 1000)
        committed, ends, now = sample(settings, group, topics, watcher.commits)
        watcher.add(sample_ms, committed, ends)
        report = watch_report(settings, watcher, sample_ms + since_offset_ms, allowed_lag)
        if output == OutputFormat.json or not terminal and output.tabular:
            doc = document(report)
            _now_json(doc, now)
            json_line(doc)
        elif terminal:
            from kgroup.output.render import tables_text, terminal_width

            width = terminal_width(sys.stdout) if output == OutputFormat.table else None
            sys.stdout.write("\x1b[H\x1b[2J" + tables_text(_tables(report, output, False, now=now), width)
                             + f"\n\nsampling every {every:g} s; Ctrl-C to stop\n")
            sys.stdout.flush()
        else:  # csv, not at a terminal: the rows of each sample
            from kgroup.output.render import emit

            emit(output, {}, _tables(report, output, False, now=now))
        time.sleep(every)
