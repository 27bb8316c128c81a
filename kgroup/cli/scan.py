"""kgroup scan: the fleet-wide report over the whole offsets log, on Spark."""
import sys
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup import __version__
from kgroup.cli.common import ConnectionOptions, Output, app, broker_label, connection_options, examples
from kgroup.errors import ExitCode, UsageError
from kgroup.timeutil import moment
from kgroup.group.model import OFFSETS_TOPIC
from kgroup.output.render import OutputFormat, Table, emit, info, warn
from kgroup.text import printable

SPARK = "Spark"


@app.command("scan", short_help="The whole fleet: stale groups, storms, hot coordinators.", epilog=examples(
    "kgroup scan -b broker:9092 --stale-after 6h",
    "kgroup scan -b broker:9092 --save offsets.parquet -o json > fleet.json",
    "kgroup scan --input offsets.parquet --master spark://spark:7077 --out fleet/",
))
@connection_options
def scan(
    input_: Annotated[Optional[str], typer.Option(
        "--input", metavar="PATH", help="Raw records saved earlier instead of a cluster: JSON Lines (kgroup log "
        "--save) or Parquet (kgroup scan --save); any path Spark reads (local, hdfs://, s3a://).")] = None,
    save: Annotated[Optional[str], typer.Option(
        "--save", metavar="PATH", help="Also write the raw records read from the cluster as a Parquet dataset.")] = None,
    offsets_topic: Annotated[str, typer.Option(
        "--offsets-topic", metavar="NAME", help="Read the offsets log from a topic of this name.")] = OFFSETS_TOPIC,
    since: Annotated[Optional[str], typer.Option(
        "--since", metavar="TIME", help="Only records at or after TIME: 2h (ago), 2026-11-22T03:00Z, or epoch ms.")] = None,
    until: Annotated[Optional[str], typer.Option(
        "--until", metavar="TIME", help="Only records at or before TIME (also the 'now' of --stale-after; "
        "default: the newest record).")] = None,
    top: Annotated[int, typer.Option("--top", metavar="N", help="Rows of each table printed (table output).")] = 10,
    stale_after: Annotated[str, typer.Option(
        "--stale-after", metavar="DURATION", help="Flag groups whose last commit is older than this: stale.")] = "1h",
    storm: Annotated[int, typer.Option(
        "--storm", metavar="N", help="Flag groups with N or more rebalances within an hour: storm.")] = 10,
    expiry_warn: Annotated[str, typer.Option(
        "--expiry-warn", metavar="DURATION", help="Flag groups some of whose committed offsets Kafka deletes "
        "(offset expiry, under the group's state at the scan's now) within this of now: EXPIRING.")] = "24h",
    out: Annotated[Optional[str], typer.Option(
        "--out", metavar="DIR", help="Write the result tables (commits, group_events, groups, coordinators, "
        "brokers) as Parquet under DIR.")] = None,
    master: Annotated[str, typer.Option(
        "--master", metavar="URL", rich_help_panel=SPARK,
        help="Spark master: local[*], spark://HOST:PORT, yarn, k8s://...")] = "local[*]",
    scratch: Annotated[Optional[str], typer.Option(
        "--scratch", metavar="DIR", rich_help_panel=SPARK,
        help="With --out, where the records read are staged during the scan, on a path the driver and every executor "
        "reach (hdfs://, s3a://, a shared mount); default: a temporary directory on a local master, "
        "Spark's disk cache otherwise.")] = None,
    conf: Annotated[Optional[List[str]], typer.Option(
        "--conf", metavar="KEY=VALUE", rich_help_panel=SPARK, help="Spark property, repeatable.")] = None,
    html: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Also write the fleet page: one self-contained HTML file with charts "
        "(needs pip install 'kgroup\\[report]').")] = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    r"""The whole fleet from the offsets log: which groups stopped committing (stale), which are in a rebalance storm, which coordinator is hot by commit traffic, which rewound their offsets, lag across every group.

    Runs on Spark (pip install 'kgroup\[spark]'): local[*] by default, a cluster with --master. Read-only: kgroup assigns itself the partitions it reads, joins no group and commits nothing. Records that cannot be decoded are counted and reported; the command then exits 1.
    """
    from kgroup.offsets_log.window import Window
    from kgroup.timeutil import parse_duration_ms

    if input_ is not None and save is not None:
        raise UsageError("--save writes what is read from a cluster; --input is already saved")
    if top < 0:
        raise UsageError("--top must be 0 or more")
    if storm < 1:
        raise UsageError("--storm must be 1 or more")
    stale_ms = parse_duration_ms(stale_after, "--stale-after")
    expiry_warn_ms = parse_duration_ms(expiry_warn, "--expiry-warn")
    if html is not None:
        from kgroup.report import bundle_note

        note = bundle_note()  # plotly missing, or a bundle named that is not right: exit 2 here
        if note is not None:
            info(note)
        if html.is_dir() or not html.parent.is_dir():
            raise UsageError(f"cannot write --html {html}: " + ("a directory" if html.is_dir() else "no such directory"))
        from kgroup.output.files import check_writable

        check_writable(html, f"--html {html}")  # before Spark starts, not after the scan
    window = Window.parse(since, until, int(time.time() * 1000))

    from kgroup.scan import require_pyspark

    require_pyspark()
    from kgroup.cli import interrupt
    from kgroup.output.progress import progress_bar
    from kgroup.scan.job import ScanOptions, run
    from kgroup.scan.session import parse_conf

    options = ScanOptions(input=input_, save=save, offsets_topic=offsets_topic, since_ms=window.since_ms,
                          until_ms=window.until_ms, stale_after_ms=stale_ms, storm=storm, expiry_warn_ms=expiry_warn_ms,
                          top=top if output.tabular or html else 0, out=out, master=master,
                          scratch=scratch, conf=parse_conf(list(conf or [])), verbose=conn.verbose)
    if input_ is not None:
        from kgroup.cli.common import no_cluster_with

        no_cluster_with(conn)
    with progress_bar() as progress:
        # Ctrl-C while the JVM starts or a job runs goes to the watcher (see kgroup.cli.interrupt)
        result = run(options, conn.settings, progress, warn, before_spark=interrupt.install)
    report, settings, elapsed, spark_start = result.report, result.settings, result.elapsed_s, result.spark_start_s
    rows, coordinators, broker_rows, summary = report.groups, report.coordinators, report.brokers, report.summary
    summary["spark_start_seconds"] = round(spark_start, 3)
    summary["seconds"] = round(elapsed, 3)
    latest_commits, latest_events = report.latest_commits, report.latest_events
    if output == OutputFormat.json:
        emit(output, {"groups": rows, "coordinators": coordinators, "brokers": broker_rows, "summary": summary}, [])
    else:
        emit(output, {}, _tables(rows, coordinators, broker_rows, latest_commits, latest_events, summary, top,
                                 all_groups=output == OutputFormat.csv, live=input_ is None))
    if html is not None:
        _write_html(html, {"groups": rows, "coordinators": coordinators, "brokers": broker_rows, "summary": summary},
                    _tables(rows, coordinators, broker_rows, latest_commits, latest_events, summary, top,
                            all_groups=False, live=input_ is None),
                    [("source", input_ if input_ is not None else f"{offsets_topic} of {settings.bootstrap if settings else '-'}"),
                     ("window", f"{moment(window.since_ms) or 'the first record'} to {moment(window.until_ms) or 'the newest record'}"),
                     ("stale after", stale_after), ("storm", f"{storm} rebalances within an hour"),
                     ("expiring", f"offsets deleted within {expiry_warn} ({summary['retention_ms'] / 86_400_000:g} d "
                                  f"retention: {summary['retention_source']})"),
                     ("generated", moment(int(time.time() * 1000))), ("by", f"kgroup {__version__}")])
    if summary["undecodable"]:
        first = summary["errors"][0]
        warn(f"{summary['undecodable']} of {summary['records']} records could not be decoded "
             f"(first: partition {first['partition']} offset {first['offset']}: {first['error']})")
    if summary["lag_unknown"]:
        unknown = summary["lag_unknown"]
        named = "; ".join(f"{printable(u['group'])} ({printable(u['reason'])})" for u in unknown[:5])
        more = f"; and {len(unknown) - 5} more (-o json lists them)" if len(unknown) > 5 else ""
        what = "the lag of" if input_ is None else "some commits of"
        warn(f"INCOMPLETE: {what} {len(unknown)} group{'s' * (len(unknown) != 1)} "
             f"{'is' if input_ is None else 'are'} unknown{' (shown as -)' * (input_ is None)}: {named}{more}")
        raise typer.Exit(ExitCode.CLUSTER)
    if summary["undecodable"]:
        raise typer.Exit(ExitCode.FLAGGED)
    if conn.verbose or sys.stderr.isatty():
        info(f"scanned {summary['records_read']} records ({summary['records']} in the window) of {len(rows)} groups "
             f"in {elapsed:.1f} s (Spark start-up {spark_start:.1f} s)")


def _write_html(path: Path, doc, tables, asked) -> None:
    from kgroup.report.fleet import render

    from kgroup.output.files import write_whole

    write_whole(path, render(doc, tables, asked), f"--html {path}")
    info(f"wrote the fleet page to {path} ({path.stat().st_size // 1024} KiB)")


def _expiring(row, raw: bool):
    """The EXPIRING cell: the moment the group's first offset goes when it is expiring (epoch ms in
    CSV, as its other times), else empty."""
    if not row.get("expiring"):
        return None
    return row["expires_ms"] if raw else moment(row["expires_ms"])


def _tables(rows, coordinators, broker_rows, commits, events, summary, top, all_groups: bool, live: bool) -> list[Table]:
    from kgroup.scan.report import top_coordinators, top_groups

    shown = rows if all_groups else top_groups(rows, top)
    headers = ["GROUP", "TYPE", "PROTOCOL", "OFFSETS PARTITION", "GENERATION", "MEMBERS", "COMMITS", "COMMITS/H",
               "FIRST COMMIT", "LAST COMMIT", "REBALANCES", "PARTITIONS", "REWINDS", "DELETED", "STALE", "STORM",
               "EXPIRING"]
    if live:
        headers += ["STATUS", "COMPLETE", "LAG", "COORDINATOR"]
    group_rows = []
    for r in shown:
        row = [printable(r["group"]), r["type"], r["protocol"], r["offsets_partition"], r["generation"], r["member_count"],
               r["commits"], r["commits_per_hour"], moment(r["first_commit_ms"]) if not all_groups else r["first_commit_ms"],
               moment(r["last_commit_ms"]) if not all_groups else r["last_commit_ms"], r["rebalance_count"], r["partition_count"],
               r["rewinds"], r["deleted"], r["stale"], r["storm"], _expiring(r, all_groups)]
        if live:
            complete = r.get("status_complete")
            row += [r.get("status"), None if complete is None else f"{complete:.1f}", r.get("lag"), broker_label(r.get("offsets_partition_leader"))]
        group_rows.append(row)
    tables = [Table(headers, group_rows, title=None if all_groups else
                    f"GROUPS (top {len(shown)} of {len(rows)}: storms, stale, expiring, then by rebalances and commits)")]
    if all_groups:
        return tables
    coord = top_coordinators(coordinators, top)
    tables.append(Table(["OFFSETS PARTITION", "GROUPS", "RECORDS", "COMMITS", "COMMITS/S", "BYTES/S", "HOT"]
                        + (["LEADER"] if live else []),
                        [[c["offsets_partition"], c["group_count"], c["records"], c["commits"], c["commits_per_s"],
                          c["bytes_per_s"], c["hot"]] + ([broker_label(c.get("offsets_partition_leader"))] if live else []) for c in coord],
                        title=f"COORDINATORS (offsets-log partitions, top {len(coord)} of {len(coordinators)} by commits)"))
    if live:
        tables.append(Table(["BROKER", "HOST", "PORT", "PARTITIONS", "GROUPS", "COMMITS", "COMMITS/S", "BYTES/S", "HOT"],
                            [[b["id"], b["host"], b["port"], b["partition_count"], b["group_count"], b["commits"],
                              b["commits_per_s"], b["bytes_per_s"], b["hot"]] for b in broker_rows], title="BROKERS"))
    tables.append(Table(["TIME", "GROUP", "TOPIC", "PARTITION", "OFFSET", "LEADER EPOCH", "LOG POSITION"],
                        [[moment(c["commit_timestamp"]) if c["commit_timestamp"] is not None else moment(c["timestamp"]),
                          printable(c["group"]), printable(c["topic"]), c["topic_partition"],
                          "(deleted)" if c["tombstone"] else c["committed_offset"],
                          c["leader_epoch"] if c["leader_epoch"] is not None and c["leader_epoch"] >= 0 else None,
                          f"{c['partition']}:{c['offset']}"] for c in commits],
                        title=f"COMMITS (latest {len(commits)})"))
    tables.append(Table(["TIME", "GROUP", "RECORD", "GENERATION", "PROTOCOL", "LEADER", "MEMBERS", "MEMBER", "MEMBER EPOCH",
                         "LOG POSITION"],
                        [[moment(e["timestamp"]), printable(e["group"]), e["record"] + (" (tombstone)" if e["tombstone"] else ""),
                          e["generation"], e["protocol"], printable(e["leader"]) if e["leader"] else None, e["members"],
                          printable(e["member"]) if e["member"] else None, e["member_epoch"],
                          f"{e['partition']}:{e['offset']}"] for e in events],
                        title=f"GROUP EVENTS (latest {len(events)})"))
    s = summary
    tables.append(Table(["RECORDS", "UNDECODABLE", "GROUPS", "BY TYPE", "COMMITS", "REBALANCES", "STALE", "STORMS",
                         "EXPIRING", "REWINDS", "DELETED", "HOT PARTITIONS", "SECONDS", "SPARK START-UP S"],
                        [[s["records"], s["undecodable"], s["group_count"],
                          " ".join(f"{t}={n}" for t, n in s["group_types"].items() if n) or None,
                          s["commits"], s["rebalance_count"], s["stale_count"],
                          s["storm_count"], s["expiring_count"], s["rewinds"], s["deleted_count"], len(s["hot_partitions"]),
                          s["seconds"], s["spark_start_seconds"]]], title="SUMMARY"))
    return tables
