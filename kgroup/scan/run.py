"""One scan, given a Spark session: read, decode, aggregate, finish the rows.

The CLI builds the session and renders; tests call :func:`scan_report` on theirs.
"""
from __future__ import annotations

import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from kgroup.errors import ClusterError, KgroupError, UsageError
from kgroup.offsets_log.expiry import Retention
from kgroup.scan import pipeline, report


@dataclass
class ScanRequest:
    input: str | None = None          # a saved raw-record path, or None: the live log
    source: str | None = None         # the path Spark reads for it (default: input; see offsets_log.saved.for_spark)
    save: str | None = None
    topic: str = "__consumer_offsets"
    settings: Any = None              # ConnectionSettings (live)
    ranges: list[Any] | None = None   # LogRange per partition, fixed on the driver (live)
    leaders: dict[int, int | None] | None = None  # offsets-log partition -> leader broker id (live)
    brokers: dict[int, tuple[str, int]] | None = None  # broker id -> (host, port) (live)
    ends: dict[tuple[str, int], int | None] | None = None  # log end of every data partition (live; None: read after)
    now_ms: int | None = None         # when those ends were read: the scan's "now" for the statuses
    unknown: dict[tuple[str, int], str] = field(default_factory=dict)  # why an end in ends is unknown
    since_ms: int | None = None
    until_ms: int | None = None
    stale_after_ms: int = 3_600_000
    storm: int = 10
    expiry_warn_ms: int = report.DEFAULT_EXPIRY_WARN_MS
    retention: Retention = field(default_factory=Retention)  # offset retention (kgroup.offsets_log.expiry)
    top: int = 10                     # latest commits / group events kept for the table
    out: str | None = None
    master: str = "local[*]"
    split: int | None = None          # records per read task (default: source.DEFAULT_SPLIT)
    scratch: str | None = None        # where decoded records are staged (default: see scratch_dir)


@dataclass
class ScanReport:
    groups: list[dict[str, Any]]
    coordinators: list[dict[str, Any]]
    brokers: list[dict[str, Any]]
    summary: dict[str, Any]
    latest_commits: list[dict[str, Any]] = field(default_factory=list)
    latest_events: list[dict[str, Any]] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        return {"groups": self.groups, "coordinators": self.coordinators, "brokers": self.brokers,
                "summary": self.summary}


def scratch_dir(req: ScanRequest) -> str | None:
    """Where to stage decoded records (a directory of this scan's own, deleted afterwards):
    under ``--scratch`` when given (any path the driver and every executor reach); else, on
    a local master, under the system's temporary directory; else nowhere (Spark's disk cache)."""
    import uuid

    from kgroup.scan.session import is_local

    name = f"kgroup-scan-{uuid.uuid4().hex}"
    if req.scratch:
        return f"{req.scratch.rstrip('/')}/{name}"
    if is_local(req.master):
        import tempfile

        return str(Path(tempfile.gettempdir()) / name)
    return None


def check_output(path: str, option: str, new: bool) -> None:
    """Refuse, before the scan starts, an output path Spark could not write: a local one whose
    nearest existing part is a file or not writable, or (``new``: --save never overwrites) one
    that exists. Paths on other file systems are checked by :func:`check_remote_output`."""
    import os

    local = local_path(path)
    if local is None:
        return
    if new and os.path.lexists(local):
        raise UsageError(f"cannot write {option} {path}: it exists (a saved log is never overwritten)")
    if os.path.isfile(local):
        raise UsageError(f"cannot write {option} {path}: it is a file, not a directory")
    probe = os.path.abspath(local)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise UsageError(f"cannot write {option} {path}: {probe} is a file, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {option} {path}: {probe} is not writable")


def local_path(path: str) -> str | None:
    """The local file system's path of an output path (plain or ``file://``); None for another
    file system's (hdfs://, s3a://)."""
    if "://" in path and not path.startswith("file://"):
        return None
    return path[len("file://"):] if path.startswith("file://") else path


def check_remote_output(spark, path: str, option: str, new: bool) -> None:
    """check_output for a path on another file system (hdfs://, s3a://), through Spark's Hadoop
    client, once the session runs and before the scan does."""
    if "://" not in path or path.startswith("file://"):
        return
    try:
        jvm = spark.sparkContext._jvm
        p = jvm.org.apache.hadoop.fs.Path(path)
        fs = p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        exists = fs.exists(p)
        is_file = exists and fs.getFileStatus(p).isFile()
    except Exception as e:
        raise UsageError(f"cannot write {option} {path}: {spark_failure(e)}") from None
    if new and exists:
        raise UsageError(f"cannot write {option} {path}: it exists (a saved log is never overwritten)")
    if is_file:
        raise UsageError(f"cannot write {option} {path}: it is a file, not a directory")


def _from_spark(e: Exception) -> bool:
    return any(c.__module__.startswith(("pyspark", "py4j")) for c in type(e).__mro__)


_PYTHON_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit): ")
# kgroup's own error raised in an executor, as its traceback names it: "kgroup.errors.NotAuthorized: ..."
_KGROUP_ERROR = re.compile(r"^kgroup\.errors\.(\w+): ")


def spark_failure(e: BaseException) -> str:
    """The line of a failed Spark job that says what went wrong: the exception raised in the
    executor's Python (its last line, e.g. ``ModuleNotFoundError: No module named 'kgroup'``;
    kgroup's own errors by their message alone), else the first Java exception's message,
    unwrapped to its root cause, else what the JVM printed last, else the first line."""
    from kgroup.scan.session import java_cause, spark_cause

    text = str(e).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # an exception raised in Python (the executors' or this process's): "[module.]NameError: message"
    python = [line for line in lines if (_PYTHON_EXCEPTION.match(line) or _KGROUP_ERROR.match(line))
              and not line.startswith(("org.", "java.", "javax.", "scala.", "py4j."))]
    if python:
        line = _KGROUP_ERROR.sub("", python[-1])
        line = line.replace("kgroup.errors.", "").replace("pyspark.errors.exceptions.captured.", "")
    else:
        line = java_cause(lines) or spark_cause() or (lines[0] if lines else type(e).__name__)
    if "No module named 'kgroup'" in line:
        line += " (the executors' Python has no kgroup: let kgroup ship it, the default, or install it there)"
    return line[:400]


def executor_error(text: str) -> type[KgroupError] | None:
    """The class of the kgroup error an executor raised, named in a failed job's text (the last one
    named): an exception crosses from the executor's process to this one as text only."""
    from kgroup import errors

    found = None
    for line in text.splitlines():
        match = _KGROUP_ERROR.match(line.strip())
        if match:
            kind = getattr(errors, match.group(1), None)
            if isinstance(kind, type) and issubclass(kind, KgroupError):
                found = kind
    return found


def spark_error(e: BaseException) -> KgroupError:
    """A failed Spark job as kgroup's one line: an executor's own kgroup error keeps its exit code
    (a cluster the executors cannot reach is exit 3 as on the driver); a JVM that went away says so."""
    reason = spark_failure(e)
    own = executor_error(str(e))
    if own is not None:
        return own(reason)
    if type(e).__module__.startswith("py4j") and "Py4JJavaError" not in type(e).__name__:
        from kgroup.scan.session import spark_cause

        cause = spark_cause()
        return ClusterError("Spark's JVM went away during the scan" + (f": {cause}" if cause else ""))
    return ClusterError(f"the Spark job failed: {reason}")


def _delete(spark, path: str) -> None:
    """Delete a staging directory on whatever file system holds it (Hadoop's API: local, hdfs, s3a)."""
    try:
        jvm = spark.sparkContext._jvm
        p = jvm.org.apache.hadoop.fs.Path(path)
        p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(p, True)
    except Exception:  # the scan's answer stands; a leftover directory is named in no output
        pass


@contextmanager
def _kept_only_if_complete(spark, path: str):
    """--save: a save that does not complete is removed, being no saved log (and in the way of
    the next --save to that path, which never overwrites): after a failed job through Spark's
    file system client; on Ctrl-C, which ends the JVM first, by kgroup where the path is local
    (a save on another file system is left then). One that completed stays, whatever comes after."""
    from kgroup import _on_interrupt

    local = local_path(path)

    def remove_incomplete() -> None:
        import os
        import shutil

        if local is not None and not os.path.exists(os.path.join(local, "_SUCCESS")):
            shutil.rmtree(local, True)

    _on_interrupt.append(remove_incomplete)
    try:
        yield
    except UsageError:  # the path came to exist meanwhile: not this run's
        raise
    except Exception:
        if local is None:
            _delete(spark, path)
        else:  # also when the JVM went away
            remove_incomplete()
        raise
    finally:
        _on_interrupt.remove(remove_incomplete)


def scan_report(spark, req: ScanRequest, progress=lambda stage, done, total: None) -> ScanReport:
    # the master the session runs on (a session the process already had keeps its own)
    req = replace(req, master=spark.sparkContext.master)
    stage_dir = scratch_dir(req)
    try:
        return _scan_report(spark, req, progress, stage_dir)
    except KgroupError:
        raise
    except Exception as e:  # a Spark job failed (an executor, its Python, the reading tasks): one line
        if not _from_spark(e):
            raise
        raise spark_error(e) from None
    finally:
        if stage_dir is not None:
            _delete(spark, stage_dir)


def _scan_report(spark, req: ScanRequest, progress, stage_dir: str | None) -> ScanReport:
    from kgroup.scan.source import DEFAULT_SPLIT, input_frame, live_frame, save_parquet

    live = req.input is None
    total = sum(r.count for r in req.ranges or ()) if live else None
    fold: dict[str, Any] = {"since_ms": req.since_ms, "until_ms": req.until_ms, "latest": req.top,
                            "keep_commits": req.out is not None,
                            "keep_tails": live}  # the statuses need the log ends: live only
    refold = None
    for path, option, new in ((req.out, "--out", False), (req.save, "--save", True)):
        if path is not None:
            check_remote_output(spark, path, option, new)
    if req.input is not None:  # a saved log
        raw = input_frame(spark, req.source or req.input)
    elif req.save is not None:  # the live log, saved first, then folded from the save
        raw = live_frame(spark, req.settings, req.topic, req.ranges, req.split or DEFAULT_SPLIT)
        with _watch(spark, total, progress), _kept_only_if_complete(spark, req.save):
            save_parquet(raw, req.save)
        raw = spark.read.parquet(req.save)
        total = None
    else:  # the live log, folded where it is read
        raw = None
        parts = live_frame(spark, req.settings, req.topic, req.ranges, req.split or DEFAULT_SPLIT, fold=fold)
    if raw is not None:
        parts = pipeline.fold_frame(raw, **fold)
        refold = partial(_refold, raw, fold)
    with _watch(spark, total, progress):
        result = pipeline.run(parts, req.since_ms, req.until_ms, want_committed=live, stage_dir=stage_dir,
                              refold=refold, latest=req.top, keep_tables=req.out is not None,
                              retention=req.retention)
    rows = [report.group_row(f, result.window, req.stale_after_ms, req.storm, req.expiry_warn_ms)
            for f in result.facts]
    coordinators = report.coordinator_rows(result.per_partition, result.window)
    broker_rows: list[dict[str, Any]] = []
    # a commit record of a group that is no commit to read (cut short, a negative commit time): the
    # group's numbers from it on are unknown, said with the record's position, live or not
    unknown_lag: dict[str, str] = report.cut_reasons(result.cuts)
    if live:
        for group, why in _live_columns(rows, coordinators, result, req).items():
            unknown_lag.setdefault(group, why)
        broker_rows = report.broker_rows(result.per_partition, req.leaders or {}, req.brokers or {}, result.window)
    rows.sort(key=lambda r: r["group"])
    latest_commits, latest_events = result.latest_commits, result.latest_events
    if req.out is not None:
        _write_tables(spark, req.out, result, rows, coordinators, broker_rows)
    summary = {
        "source": req.input if not live else f"{req.settings.bootstrap} {req.topic}",
        "records": result.records, "records_read": result.read, "undecodable": result.undecodable,
        "errors": report.error_entries(result.errors), "group_count": len(rows),
        "group_types": report.type_counts(rows),
        "commits": sum(r["commits"] for r in rows),
        "rebalance_count": sum(r["rebalance_count"] for r in rows), "stale_count": sum(bool(r["stale"]) for r in rows),
        "storm_count": sum(r["storm"] for r in rows), "rewinds": sum(r["rewinds"] for r in rows),
        "deleted_count": sum(r["deleted"] for r in rows), "expiring_count": sum(r["expiring"] for r in rows),
        "hot_partitions": [c["offsets_partition"] for c in coordinators if c["hot"]],
        "hot_brokers": [b["id"] for b in broker_rows if b["hot"]],
        "window": {"since_ms": req.since_ms, "until_ms": req.until_ms, "now_ms": result.window.now_ms,
                   "first_ms": result.window.first_ms, "last_ms": result.window.last_ms,
                   "seconds": result.window.seconds},
        "stale_after_ms": req.stale_after_ms, "storm_rebalances": req.storm, "expiry_warn_ms": req.expiry_warn_ms,
        "retention_ms": req.retention.retention_ms, "retention_source": req.retention.source, "master": req.master,
        "incomplete": bool(unknown_lag),
        "lag_unknown": [{"group": g, "reason": unknown_lag[g]} for g in sorted(unknown_lag)],
    }
    return ScanReport(rows, coordinators, broker_rows, summary, latest_commits, latest_events)


def _refold(raw, fold: dict[str, Any]):
    return pipeline.fold_frame(pipeline.in_log_order(raw), **fold)


class _watch:
    """Progress of the running Spark stages on stderr (records read of the total). It only goes
    forward (the stages after the read start their own task counts from zero), and says the
    total once the work it watched is done."""

    def __init__(self, spark, total: int | None, progress):
        self.spark, self.total, self.progress = spark, total, progress
        self.stop = threading.Event()
        self.shown = 0

    def __enter__(self):
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            tracker = self.spark.sparkContext.statusTracker()
            while not self.stop.wait(0.5):
                done = tasks = 0
                for stage in tracker.getActiveStageIds():
                    s = tracker.getStageInfo(stage)
                    if s is not None:
                        done, tasks = done + s.numCompletedTasks, tasks + s.numTasks
                if tasks:
                    if self.total:
                        self._show("reading offsets log", int(self.total * done / tasks), self.total)
                    else:
                        self._show("scanning (tasks)", done, tasks)
        except Exception:  # progress is best effort; never fail the scan for it
            pass

    def _show(self, stage: str, done: int, total: int) -> None:
        if self.total and done < self.shown:
            return
        self.shown = done
        self.progress(stage, done, total)

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(2)
        if exc[0] is None and self.total:
            self.progress("reading offsets log", self.total, self.total)
        return False


def _live_columns(rows, coordinators, result, req: ScanRequest) -> dict[str, str]:
    """lag (against the log ends read with the plan) and offsets_partition_leader (the broker
    leading the group's offsets-log partition); returns why each group whose lag is unknown has it so."""
    from kgroup.scan.report import group_lag, lag_unknown

    ends, unknown = req.ends, req.unknown
    if ends is None:  # a caller without a plan's ends (tests): read them now
        from kgroup.kafka.cluster import connect

        cluster = connect(req.settings)
        md = cluster.metadata()
        everything = sorted((t, p) for t, info in md.topics.items() if info.error is None for p in info.partitions)
        offsets, _problems = cluster.log_offsets(everything)
        ends = {tp: v[1] for tp, v in offsets.items()}
    leaders, brokers = req.leaders or {}, req.brokers or {}
    skipped = _never_consumed(req, result.committed, ends)
    lag = group_lag(result.committed, ends, skipped)
    markers = _markers(result.committed, ends, skipped)
    for c in result.cuts:
        if c["last"]:  # what the group has committed on that partition now is unknown: so is its lag
            lag[c["group"]] = None

    def leader_of(offsets_partition: int) -> dict[str, Any] | None:
        """The broker leading an offsets-log partition, as every document names a broker."""
        from kgroup.group.broker import Broker

        leader = leaders.get(offsets_partition)
        host_port = brokers.get(leader) if leader is not None else None
        return Broker(leader, *host_port).to_json() if leader is not None and host_port else None

    for r in rows:
        r["lag"] = lag.get(r["group"])
        r["transaction_markers"] = markers.get(r["group"], 0)
        r["offsets_partition_leader"] = leader_of(r["offsets_partition"])
    for c in coordinators:
        c["offsets_partition_leader"] = leader_of(c["offsets_partition"])
    why = lag_unknown(result.committed, ends, unknown)
    for group, reason in _statuses(rows, result, req, ends, skipped).items():
        why.setdefault(group, reason)  # a group whose lag is unknown is named for that already
    return why


def _never_consumed(req: ScanRequest, committed: list[tuple[str, str, int, int]],
                    ends: dict[tuple[str, int], int | None]) -> dict[str, dict[tuple[str, int], int]]:
    """Per group, the partitions whose lag now (at most kgroup.lag.now.MARKER_CHECK_MAX) is nothing
    but transaction markers or aborted records, with how many offsets: read from the cluster as
    ``kgroup lag`` reads them (kgroup.lag.collect.never_consumed), a round per committed offset of
    a partition shared by groups."""
    from kgroup.scan.report import marker_rounds

    rounds = marker_rounds(committed, ends)
    out: dict[str, dict[tuple[str, int], int]] = {}
    if not rounds:
        return out
    from kgroup.kafka.cluster import connect
    from kgroup.lag.collect import never_consumed

    cluster = connect(req.settings)
    for r in rounds:
        for tp, n in never_consumed(cluster, {tp: (c, e) for tp, (_, c, e) in r.items()}).items():
            out.setdefault(r[tp][0], {})[tp] = n
    return out


def _markers(committed: list[tuple[str, str, int, int]], ends: dict[tuple[str, int], int | None],
             skipped: dict[str, dict[tuple[str, int], int]]) -> dict[str, int]:
    """Per group, how many offsets of its lag now were counted 0 as transaction markers or aborted
    records (those of ``skipped`` that were a partition's whole lag)."""
    out: dict[str, int] = {}
    for g, t, p, c in committed:
        e = ends.get((t, p))
        n = skipped.get(g, {}).get((t, p))
        if n is not None and e is not None and e - c == n:
            out[g] = out.get(g, 0) + n
    return out


def _statuses(rows, result, req: ScanRequest, ends: dict[tuple[str, int], int | None],
              skipped: dict[str, dict[tuple[str, int], int]] | None = None) -> dict[str, str]:
    """Each group's status and how complete it is, by the rules and window of ``kgroup lag``: the
    log ends at the moments the statuses need are asked of the cluster in one batch for the
    whole fleet (one ListOffsets per leader broker per moment rank). Returns why a group's
    status is not whole."""
    from kgroup.lag.history import EndsAt
    from kgroup.scan.report import group_statuses, status_moments

    until_is_now = req.until_ms is None
    until = req.until_ms if req.until_ms is not None else (req.now_ms or int(time.time() * 1000))
    wanted = status_moments(result.tails, until, until_is_now)
    found: dict[tuple[str, int, int], Any] = {}
    if wanted:
        from kgroup.kafka.cluster import connect
        from kgroup.lag.ends import log_ends_at

        answer = log_ends_at(connect(req.settings), wanted)
        found = answer.ends
    statuses = group_statuses(result.tails, EndsAt.found(found, ends), until, until_is_now,
                              report.unreadable_commits(result.cuts), skipped)
    problems: dict[str, str] = {}
    for r in rows:
        status, complete, why = statuses.get(r["group"], (None, 0.0, []))
        r["status"], r["status_complete"] = status, round(complete, 3)
        if r["type"] == "share" and not r["commits"]:
            continue  # its positions are in __share_group_state, not commits: no status here, and nothing missing
        if why:
            problems[r["group"]] = "status: " + "; ".join(why[:3]) + (f"; and {len(why) - 3} more" if len(why) > 3 else "")
    return problems


def _write_tables(spark, out: str, result, rows, coordinators, broker_rows) -> None:
    base = out.rstrip("/")
    try:
        result.commits_df.write.mode("overwrite").parquet(f"{base}/commits")
        result.events_df.orderBy("timestamp", "partition", "offset").write.mode("overwrite").parquet(f"{base}/group_events")
        from pyspark.sql import Row

        for name, data in (("groups", rows), ("coordinators", coordinators), ("brokers", broker_rows)):
            if data:  # a broker ({id, host, port}) is a struct column, as in the JSON document
                data = [{k: Row(**v) if isinstance(v, dict) else v for k, v in r.items()} for r in data]
                _frame(spark, data).coalesce(1).write.mode("overwrite").parquet(f"{base}/{name}")
    except Exception as e:
        raise UsageError(f"cannot write --out {out}: {spark_failure(e)}") from None




def _frame(spark, data: list[dict[str, Any]]):
    """The rows as a DataFrame, their types inferred; a column null in every row (no group's
    offsets expire, say), which Spark cannot infer, is a typed null column: bigint for a moment
    or a count (``..._ms``, ``..._count``), string otherwise."""
    from pyspark.sql import functions as F

    names = list(data[0])
    empty = [n for n in names if all(r[n] is None for r in data)]
    if not empty:
        return spark.createDataFrame(data, samplingRatio=None)
    frame = spark.createDataFrame([{n: v for n, v in r.items() if n not in empty} for r in data], samplingRatio=None)
    return frame.withColumns({n: F.lit(None).cast("bigint" if n.endswith(("_ms", "_count")) else "string")
                              for n in empty}).select(*names)
