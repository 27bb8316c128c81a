"""kgroup report: one self-contained HTML page for the post-mortem of a group."""
import sys
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import (ConnectionOptions, Input, OffsetsTopic, Output, Snapshot, app, connection_options,
                               examples)
from kgroup.errors import ExitCode, UsageError
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, Table, emit, info, warn

WARNING = "kgroup: warning: "


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
        from kgroup.report import bundle_note

        note = bundle_note()  # plotly missing, or a bundle named that is not right: exit 2 here
        if note is not None:
            info(note)
        if out.is_dir() or not out.parent.is_dir():
            raise UsageError(f"cannot write --out {out}: " + ("a directory" if out.is_dir() else "no such directory"))
        from kgroup.output.files import check_writable

        check_writable(out, f"--out {out}")  # before the work (minutes on a long window), not after it
    from kgroup import __version__
    from kgroup.output.progress import progress_bar
    from kgroup.report.build import ReportRequest, report as build

    settings = None
    if input_ is None or conn.bootstrap or conn.x or conn.command_config:
        settings = conn.settings()
    if input_ is None and settings is not None and settings.bootstrap is None:
        settings.require_bootstrap()
    request = ReportRequest(group, since_ms, until_ms, until is None, now_ms, topic, allowed_lag, input_, snapshot,
                            offsets_topic, settings)
    captured = _Warnings(sys.stderr)
    sys.stderr = captured
    try:
        with progress_bar(captured.stream) as progress:
            doc = build(request, conn.cluster, __version__, captured.lines, progress, warn,
                        info if conn.verbose else None)
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
