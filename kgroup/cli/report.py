"""kgroup report: one self-contained HTML page for the post-mortem of a group."""
import sys
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import ConnectionOptions, Output, Snapshot, app, connection_options, examples
from kgroup.errors import ClusterError, ExitCode, NotAuthorized, UsageError
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, Table, emit, info, warn

WARNING = "kgroup: warning: "
# as kgroup log's (not imported from there: an offline command loads only its own module)
Input = Annotated[Optional[Path], typer.Option(
    "--input", metavar="FILE", help="Read raw records saved earlier instead of a cluster: JSON Lines (log --save; "
    "- for stdin) or Parquet (scan --save).")]
OffsetsTopic = Annotated[str, typer.Option(
    "--offsets-topic", metavar="NAME", help="Read the offsets log from a topic of this name.")]


class _Warnings:
    """stderr as it is, keeping each warning line written through it for the page's header."""

    def __init__(self, stream) -> None:
        self.stream, self._part = stream, ""
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        self._part += text
        *done, self._part = self._part.split("\n")
        self.lines.extend(line[len(WARNING):] for line in done if line.startswith(WARNING))
        return self.stream.write(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


@app.command("report", short_help="One HTML page for the post-mortem of a group.", epilog=examples(
    "kgroup report G1 -b broker:9092 --since 6h --out incident.html",
    "kgroup report G1 -b broker:9092 --until 2026-11-22T04:00Z --out g1.html",
    "kgroup report G1 --input examples/offsets-log-g1.jsonl -o json",
))
@connection_options
def report(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="The group to report on.")],
    since: Annotated[str, typer.Option(
        "--since", metavar="TIME", help="Start of the window: 6h (ago), 2026-11-22T03:00Z, or epoch ms.")] = "6h",
    until: Annotated[Optional[str], typer.Option(
        "--until", metavar="TIME", help="End of the window (default: now).")] = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", metavar="FILE", help="Write the page here (needs pip install 'kgroup\\[report]').")] = None,
    topic: Annotated[Optional[List[str]], typer.Option(
        "--topic", "-t", metavar="TOPIC", help="Only this topic's lag (repeatable).")] = None,
    allowed_lag: Annotated[int, typer.Option(
        "--allowed-lag", metavar="N", min=0, help="A lag of at most N counts as none (Burrow's allowed-lag).")] = 0,
    input_: Input = None,
    snapshot: Snapshot = None,
    offsets_topic: OffsetsTopic = OFFSETS_TOPIC,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    r"""One self-contained HTML page for the post-mortem: lag over time per partition and in total with each commit, the status per partition (as kgroup lag), the rebalances on the same time axis (who joined, who left, what moved), commits per member, and the group now (as describe and offsets), with every warning.

    The page loads nothing from the network: its charts (plotly) are inlined. -o json prints the document the page embeds. The commits and rebalances come from the offsets log (or --input); the lag needs a cluster (-b: the log ends at past moments), the group now a cluster or --snapshot.
    """
    from kgroup.offsets_log.window import Window

    now_ms = int(time.time() * 1000)
    window = Window.parse(since, until, now_ms)
    since_ms = window.since_ms if window.since_ms is not None else now_ms
    until_ms = window.until_ms if window.until_ms is not None else now_ms
    if window.until_ms is not None and window.until_ms > now_ms:
        raise UsageError("--until is in the future")
    if out is not None:
        from kgroup.report import require_plotly

        require_plotly()
        if out.is_dir() or not out.parent.is_dir():
            raise UsageError(f"cannot write --out {out}: " + ("a directory" if out.is_dir() else "no such directory"))
    captured = _Warnings(sys.stderr)
    sys.stderr = captured
    try:
        doc = _document(group, since_ms, until_ms, until is None, now_ms, topic, allowed_lag, input_, snapshot,
                        offsets_topic, conn, captured)
    finally:
        sys.stderr = captured.stream
    if out is not None:
        from kgroup.report.page import render

        from kgroup.output.files import write_whole

        write_whole(out, render(doc), f"--out {out}")
        info(f"wrote the report of {group} to {out} ({out.stat().st_size // 1024} KiB)")
    lag = doc["lag"]
    emit(output, doc, [Table(
        ["GROUP", "STATUS", "TOTAL LAG", "PARTITIONS", "REBALANCES", "COMMITS", "MEMBERS NOW", "PAGE"],
        [[group, lag["status"] if lag else None, lag["total_lag"] if lag else None,
          len(lag["partitions"]) if lag else None, len(doc["history"]["rebalances"]),
          sum(s["commits"] for s in doc["commit_rate"]["series"]),
          doc["now"]["describe"]["member_count"] if doc["now"] else None, str(out) if out else None]])])
    if doc["incomplete"]:
        warn("INCOMPLETE: some values are unknown (shown as - on the page, null in JSON)")
        raise typer.Exit(ExitCode.CLUSTER)


def _document(group, since_ms, until_ms, until_is_now, now_ms, topics, allowed_lag, input_, snapshot, offsets_topic,
              conn: ConnectionOptions, captured: _Warnings):
    from kgroup import __version__
    from kgroup.lag.history import commits_from_log
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.report.data import report_document

    settings = None
    if input_ is None or conn.bootstrap or conn.x or conn.command_config:
        settings = conn.settings()
    cluster_named = settings is not None and settings.bootstrap is not None
    if input_ is None and not cluster_named:
        conn.settings().require_bootstrap()
    entries = _entries(group, input_, offsets_topic, settings, until_ms)
    if not entries:
        raise UsageError(f"the offsets log holds no record of group {group} at or before --until")
    replay = GroupReplay(group)
    for e in entries:
        replay.apply(e)
    replay.finish()
    commits = commits_from_log(entries, group, until_ms, topics)
    lag, unavailable = None, None
    if not commits:
        unavailable = f"the offsets log holds no commit of group {group} at or before --until"
    elif not cluster_named:
        unavailable = ("the lag needs a cluster: the log ends at past moments are asked of it (give -b with "
                       "--input)")
    else:
        from kgroup.cli.lag import ends_for_commits
        from kgroup.lag.history import document, evaluate

        ends = ends_for_commits(conn.cluster(), commits, since_ms, until_ms, until_is_now, conn.verbose)
        evaluated = evaluate(group, commits, ends, since_ms, until_ms, until_is_now, allowed_lag)
        for line in evaluated.problems[:10]:
            warn(line)
        if len(evaluated.problems) > 10:
            warn(f"... and {len(evaluated.problems) - 10} more")
        lag = document(evaluated)
    if unavailable:
        warn(f"no lag: {unavailable}")
    now = _now(group, snapshot, conn, cluster_named, now_ms)
    source = {"cluster": settings.bootstrap if settings is not None and cluster_named else None,
              "input": str(input_) if input_ is not None else None,
              "snapshot": str(snapshot) if snapshot is not None else None,
              "offsets_topic": offsets_topic if input_ is None else None,
              "now": None if now is None else now["source"]}
    return report_document(group=group, since_ms=since_ms, until_ms=until_ms, generated_ms=now_ms, version=__version__,
                           source=source, lag=lag, lag_unavailable=unavailable, replay=replay, commits=commits,
                           offsets_partition=entries[0].raw.partition, now=now, warnings=captured.lines)


def _entries(group: str, input_: Optional[Path], offsets_topic: str, settings, until_ms: int) -> list:
    """Every decoded record of the group up to ``until_ms``, from --input or the live offsets log."""
    from kgroup.offsets_log.selection import Selection, select
    from kgroup.offsets_log.window import Window
    from kgroup.output.progress import progress_bar

    selection = Selection(frozenset([group]), frozenset(), Window(None, until_ms))
    try:
        with progress_bar() as progress:
            if input_ is not None:
                from kgroup.offsets_log.saved import iter_saved

                raw = iter_saved(str(input_), progress, warn)
            else:
                from kgroup.cli.log import live_records

                raw = live_records(settings, offsets_topic, None, False, progress, selection)
            return [e for e in select(raw, selection) if e.record is not None]
    except ClusterError as e:
        if isinstance(e, NotAuthorized):
            raise NotAuthorized(f"cannot read the offsets log {offsets_topic}: {e.message}; the report is built "
                               f"from it (a saved log works too: --input)") from None
        raise


def _now(group: str, snapshot: Optional[Path], conn: ConnectionOptions, cluster_named: bool, now_ms: int):
    """The group now as describe and offsets show it, from --snapshot or the cluster; None without either."""
    if snapshot is None and not cluster_named:
        return None
    from kgroup.cli.common import group_states
    from kgroup.group.documents import describe_group, offsets_group

    try:
        states, problems = group_states(snapshot, [group], conn)
    except UsageError as e:
        if snapshot is not None:
            raise
        warn(f"the group now is not shown: {e.message}")  # a group gone since the incident is no reason to stop
        return None
    for p in problems:
        warn(p)
    state = states.get(group)
    if state is None:
        return None
    offsets = offsets_group(state, None, None, now_ms)
    offsets.pop("topic_lag")  # as offsets -o json
    return {"source": "snapshot" if snapshot is not None else "cluster", "describe": describe_group(state),
            "offsets": offsets}
