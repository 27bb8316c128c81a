"""``kgroup scan``'s use case, start to end: the outputs checked, a saved input staged for Spark or
the live log's read plan made, Spark started, the scan run, and the JVM kgroup started ended
(also when the scan fails).

One :class:`ScanOptions` holds what the command line asked; :func:`run` returns the report with
its timings. Nothing here prints: notes go through ``warn``.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgroup.offsets_log.expiry import Retention
from kgroup.scan.run import ScanReport


@dataclass(frozen=True)
class ScanOptions:
    """What the command line asked of a scan."""

    input: str | None  # a saved log (any path Spark reads), or None: the live offsets log
    save: str | None
    offsets_topic: str
    since_ms: int | None
    until_ms: int | None
    stale_after_ms: int
    storm: int
    top: int  # latest commits and group events kept (0: none, for JSON and CSV without a page)
    out: str | None
    master: str
    scratch: str | None
    conf: dict[str, str] = field(default_factory=dict)
    verbose: bool = False
    expiry_warn_ms: int = 24 * 3_600_000  # flag groups whose committed offsets expire within this


@dataclass(frozen=True)
class ScanResult:
    report: ScanReport
    spark_start_s: float
    elapsed_s: float
    settings: Any  # the ConnectionSettings of a live scan (None: a saved input)


def run(options: ScanOptions, settings: Callable[[], Any], progress: Callable[[str, int, int], None],
        warn: Callable[[str], None], before_spark: Callable[[], None] = lambda: None) -> ScanResult:
    """Scan. ``settings()`` gives the cluster's connection settings (asked only for a live scan);
    ``before_spark`` runs just before the JVM starts (the CLI routes Ctrl-C there)."""
    from kgroup.scan.run import ScanRequest, check_output, scan_report
    from kgroup.scan.session import build_session

    o = options
    for path, option, new in ((o.out, "--out", False), (o.save, "--save", True)):
        if path is not None:
            check_output(path, option, new)
    started = time.monotonic()
    spark_input = _staged(o.input, warn) if o.input is not None else None
    live: dict[str, Any] = {}
    conn = None
    if o.input is None:  # one metadata read: the log's ranges and leaders, the data topics' log ends
        from kgroup.kafka.logreader import scan_plan

        conn = settings()
        plan_ms = int(time.time() * 1000)  # the log ends of the plan are those of this moment
        plan = scan_plan(conn, o.offsets_topic)
        live = dict(ranges=plan.ranges, leaders=plan.leaders, brokers=plan.brokers, ends=plan.ends,
                    unknown=plan.unknown, now_ms=plan_ms, retention=live_retention(conn, plan.leaders))
    else:
        live = dict(retention=Retention(source=SAVED_LOG_RETENTION))
    request = ScanRequest(input=o.input, source=spark_input, save=o.save, topic=o.offsets_topic, settings=conn,
                          **live, since_ms=o.since_ms, until_ms=o.until_ms, stale_after_ms=o.stale_after_ms,
                          storm=o.storm, expiry_warn_ms=o.expiry_warn_ms, top=o.top, out=o.out, master=o.master,
                          scratch=o.scratch)
    progress("starting Spark", 0, 1)
    before_spark()
    spark = None
    try:
        spark = build_session(o.master, o.conf, o.verbose)
        spark_start = time.monotonic() - started
        report = scan_report(spark, request, progress)
    finally:
        from kgroup.scan.session import end_jvm, stop_session

        if spark is not None:
            stop_session(spark)  # and the JVM kgroup started for it
        else:
            end_jvm()  # a JVM started for a session that could not be made
    expiring = report.summary["expiring_count"]
    if expiring:
        warn(expiry_note(expiring, o.expiry_warn_ms, request.retention))
    return ScanResult(report, spark_start, time.monotonic() - started, conn)


SAVED_LOG_RETENTION = "Kafka's default (a saved log: no broker to ask)"


def live_retention(settings: Any, leaders: dict[int, int | None]) -> Retention:
    """The offset retention of the cluster: the settings of the lowest-numbered broker leading an
    offsets-log partition (a coordinator; brokers of one cluster normally share them), or Kafka's
    default with the reason (kgroup.offsets_log.expiry.retention_of)."""
    from kgroup.errors import ClusterError
    from kgroup.kafka.cluster import connect
    from kgroup.offsets_log.expiry import retention_of

    coordinators = sorted({b for b in leaders.values() if b is not None})
    broker = coordinators[0] if coordinators else None
    if broker is None:
        return Retention(source="Kafka's default (no broker leads an offsets-log partition)")
    try:
        cluster = connect(settings)
    except ClusterError as e:
        return Retention(source=f"Kafka's default (broker {broker}'s configuration cannot be read: {e.message})")
    return retention_of(cluster, broker)


def expiry_note(expiring: int, warn_ms: int, retention: Retention) -> str:
    """The one line saying how many groups are EXPIRING and under which retention."""
    days = retention.retention_ms / 86_400_000
    return (f"{expiring} group{'s' * (expiring != 1)} EXPIRING: committed offsets Kafka deletes within "
            f"{warn_ms / 3_600_000:g} h of the scan's now (offsets.retention.minutes {days:g} d: {retention.source})")


def _staged(path: str, warn: Callable[[str], None]) -> str:
    """The path Spark reads for the saved log ``path``: a local one is checked whole by kgroup's one
    reader before Spark starts, and staged in a temporary folder removed at exit (and on Ctrl-C)."""
    from kgroup.offsets_log.saved import for_spark, is_local

    if not is_local(path):
        return path
    import atexit
    import shutil
    import tempfile

    from kgroup import _on_interrupt

    workdir = tempfile.mkdtemp(prefix="kgroup-scan-input-")
    atexit.register(shutil.rmtree, workdir, True)
    _on_interrupt.append(lambda: shutil.rmtree(workdir, True))
    source, notes = for_spark(path, workdir)
    for note in notes:
        warn(note)
    return source
