"""The Spark side of kgroup scan: merge the read tasks' partial rows (fold.py) into the
per-group and per-partition facts that report.py turns into rows, and the result tables."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgroup.scan import report
from kgroup.scan.decode import names_of_types

COMMIT_COLUMNS = ("group", "topic", "topic_partition", "committed_offset", "leader_epoch", "metadata",
                  "commit_timestamp", "expire_timestamp", "tombstone", "partition", "offset", "timestamp")
EVENT_COLUMNS = ("timestamp", "group", "kind", "type", "record", "tombstone", "generation", "protocol_type",
                 "protocol", "leader", "members", "member", "member_epoch", "detail", "partition", "offset")


@dataclass
class ScanResult:
    records: int                      # records in the window (decodable or not)
    read: int                         # records read in all
    undecodable: int
    errors: list[dict[str, Any]]
    window: report.Window
    facts: list[report.GroupFacts]
    per_partition: dict[int, dict[str, Any]]
    committed: list[tuple[str, str, int, int]] = field(default_factory=list)  # live only
    commits_df: object = None         # with --out only: the result tables
    events_df: object = None
    latest_commits: list[dict[str, Any]] = field(default_factory=list)
    latest_events: list[dict[str, Any]] = field(default_factory=list)
    tails: dict[str, Any] = field(default_factory=dict)  # group -> {(topic, partition): its status commits}
    cuts: list[dict[str, Any]] = field(default_factory=list)  # commit records that are no commit (merge.Merged.cuts)


def stage(decoded, stage_dir: str | None):
    """With ``--out``, the tasks' partial rows (every offset record among them) kept for the
    merge and for writing the tables, each of which reads them again.

    On disk, never in the JVM heap (in local[*] the executors are the driver, whose memory
    must not grow with the log): with ``stage_dir``, a Parquet dataset written there in
    parallel and read back column by column (about three times faster than Spark's disk
    cache here, which serialises whole rows); without, Spark's DISK_ONLY cache (a cluster
    with no shared scratch directory)."""
    if stage_dir is None:
        from pyspark import StorageLevel

        return decoded.persist(StorageLevel.DISK_ONLY)
    decoded.write.mode("overwrite").parquet(stage_dir)
    return decoded.sparkSession.read.parquet(stage_dir)


def fold_frame(raw, since_ms: int | None, until_ms: int | None, latest: int, keep_commits: bool,
               keep_tails: bool = True):
    """The partial rows (fold.PARTIAL_DDL) of raw records, one fold per Spark task."""
    from kgroup.scan.fold import PARTIAL_DDL, fold_batches

    return raw.mapInArrow(fold_batches(since_ms, until_ms, latest, keep_commits, keep_tails), PARTIAL_DDL)


def in_log_order(raw):
    """Raw records re-partitioned into ranges of log position, each sorted: no two tasks
    then hold interleaving records of one key (the fold's segments cannot overlap)."""
    n = max(1, raw.sparkSession.sparkContext.defaultParallelism)
    return raw.repartitionByRange(n, "partition", "offset").sortWithinPartitions("partition", "offset")


def run(parts, since_ms: int | None, until_ms: int | None, want_committed: bool = False,
        progress=None, stage_dir: str | None = None, refold=None, latest: int = 0,
        keep_tables: bool = False, retention=None) -> ScanResult:
    """``parts``: the partial rows of every read task (fold.py), merged per group in one
    shuffle (merge.py). With ``keep_tables`` (``--out``) they are staged first (see
    :func:`stage`), every offset record among them, and the result tables read from there.
    When the segments of some key interleave across tasks (a saved dataset not in log
    order), ``refold()`` gives the partials again from the records sorted by log position,
    and the merge starts over on those. ``retention`` (kgroup.offsets_log.expiry.Retention, default
    Kafka's) is what the merge computes each group's offset expiry with."""
    def where(name: str) -> str | None:
        return None if stage_dir is None else f"{stage_dir.rstrip('/')}/{name}"

    result = _merge(parts, where("folded"), since_ms, until_ms, want_committed, progress, latest, keep_tables,
                    retention)
    if result is None:
        if refold is None:  # a live read is in log order by construction
            raise RuntimeError("the read tasks' offset records interleave")
        result = _merge(refold(), where("sorted"), since_ms, until_ms, want_committed, progress, latest, keep_tables,
                        retention)
        if result is None:
            raise RuntimeError("the read tasks' offset records interleave after sorting")
    return result


def _merge(parts, stage_dir, since_ms, until_ms, want_committed, progress, latest, keep_tables,
           retention=None) -> ScanResult | None:
    from pyspark.sql import functions as F

    from kgroup.scan.fold import collector_paused
    from kgroup.scan.merge import MERGED_DDL, combine, merge_batches

    staged = stage(parts, stage_dir) if keep_tables else parts
    n = int(staged.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    merged = staged.repartition(n, "group").mapInArrow(merge_batches(want_committed, latest, retention),
                                                                  MERGED_DDL).toArrow()
    with collector_paused():
        m = combine({name: merged.column(name).to_pylist() for name in merged.column_names}, latest)
    if m.overlaps:
        if keep_tables and stage_dir is None:
            staged.unpersist()
        return None
    if progress:
        progress("decoded", m.read, m.read)
    commits_df = events_df = None
    if keep_tables:
        record_name, kind = names_of_types()
        commits_df = staged.filter(F.col("row") == "commit").select(*COMMIT_COLUMNS)
        events_df = (staged.filter(F.col("row") == "event").withColumns({"record": record_name, "kind": kind})
                     .select(*EVENT_COLUMNS))
    return ScanResult(records=sum(v["records"] for v in m.per_partition.values()), read=m.read,
                      undecodable=m.bad, errors=m.errors,
                      window=report.Window(since_ms, until_ms, m.first_ms, m.last_ms), facts=m.facts,
                      per_partition=m.per_partition, committed=m.committed, commits_df=commits_df,
                      events_df=events_df, latest_commits=[_columns(r, COMMIT_COLUMNS) for r in m.latest_commits],
                      latest_events=[_columns(r, EVENT_COLUMNS) for r in m.latest_events], tails=m.tails,
                      cuts=m.cuts)


def _columns(row: dict[str, Any], names) -> dict[str, Any]:
    from kgroup.offsets_log.records import RECORD_TYPES, kind_of

    t = row["type"]
    extra = {"record": RECORD_TYPES[t].name if t in RECORD_TYPES else None, "kind": kind_of(t)}
    return {n: row[n] if n in row else extra[n] for n in names}
