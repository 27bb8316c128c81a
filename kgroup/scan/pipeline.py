"""The Spark side of kgroup scan: decode once, build the result tables, gather the
per-group and per-partition facts that report.py turns into rows."""
from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.scan import report
from kgroup.scan.decode import GROUP_METADATA_TYPES, MEMBER_METADATA_TYPES, OFFSET_TYPES, decode_frame, names_of_types

COMMIT_COLUMNS = ("group", "topic", "topic_partition", "committed_offset", "leader_epoch", "metadata",
                  "commit_timestamp", "expire_timestamp", "tombstone", "partition", "offset", "timestamp")
EVENT_COLUMNS = ("timestamp", "group", "kind", "type", "record", "tombstone", "generation", "protocol_type",
                 "protocol", "leader", "members", "member", "member_epoch", "detail", "partition", "offset")
ERROR_SAMPLE = 10


@dataclass
class ScanResult:
    records: int                      # records in the window (decodable or not)
    read: int                         # records read in all
    undecodable: int
    errors: list[dict]
    window: report.Window
    facts: list[report.GroupFacts]
    per_partition: dict[int, dict]
    committed: list[tuple[str, str, int, int]] = field(default_factory=list)  # live only
    commits_df: object = None
    events_df: object = None


def stage(decoded, stage_dir: str | None):
    """Decoded records kept for the aggregations below, each of which reads them again.

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


def run(raw, since_ms: int | None, until_ms: int | None, want_committed: bool = False,
        progress=None, decoded: bool = False, stage_dir: str | None = None) -> ScanResult:
    """``raw``: raw records (RAW_DDL), or with ``decoded`` records already decoded; the
    decoded records are staged once (see :func:`stage`)."""
    from pyspark.sql import functions as F

    decoded = stage(raw if decoded else decode_frame(raw), stage_dir)
    read = decoded.count()  # reads and decodes the log once (when cached) or reads Parquet's footers
    if progress:
        progress("decoded", read, read)
    win = decoded
    if since_ms is not None:
        win = win.filter(F.col("timestamp") >= since_ms)
    if until_ms is not None:
        win = win.filter(F.col("timestamp") <= until_ms)

    is_commit = F.col("type").isin(*OFFSET_TYPES) & ~F.col("tombstone") & F.col("error").isNull()
    ok = win.filter(F.col("error").isNull())

    # per offsets-log partition: hash aggregates only (no distinct, no sort)
    per_partition: dict[int, dict] = {}
    first_ms = last_ms = None
    bad = 0
    by_pg = win.groupBy("partition", "group").agg(
        F.count(F.lit(1)).alias("records"), F.sum(F.when(is_commit, 1).otherwise(0)).alias("commits"),
        F.sum("bytes").alias("bytes"), F.min("timestamp").alias("first"), F.max("timestamp").alias("last"),
        F.sum(F.when(F.col("error").isNotNull(), 1).otherwise(0)).alias("bad"))
    for r in by_pg.groupBy("partition").agg(
            F.count("group").alias("groups"), F.sum("records").alias("records"), F.sum("commits").alias("commits"),
            F.sum("bytes").alias("bytes"), F.min("first").alias("first"), F.max("last").alias("last"),
            F.sum("bad").alias("bad")).collect():
        per_partition[r["partition"]] = {"groups": r["groups"], "records": int(r["records"]),
                                         "commits": int(r["commits"]), "bytes": int(r["bytes"])}
        first_ms = r["first"] if first_ms is None else min(first_ms, r["first"])
        last_ms = r["last"] if last_ms is None else max(last_ms, r["last"])
        bad += int(r["bad"])
    window = report.Window(since_ms, until_ms, first_ms, last_ms)
    errors = [] if not bad else [
        r.asDict() for r in win.filter(F.col("error").isNotNull()).select("partition", "offset", "type", "error")
        .orderBy("partition", "offset").limit(ERROR_SAMPLE).collect()]

    # offset commits, the bulk of the log: per (group, topic, partition), then per group
    offsets = ok.filter(F.col("type").isin(*OFFSET_TYPES)).select(
        "group", "topic", "topic_partition", "partition", "offset", "tombstone", "committed_offset", "commit_timestamp")
    # one sort of the narrow offset-record columns gives, per key, the commits, their times, the
    # rewinds (against the previous commit: tombstones, whose offset is null, are skipped) and,
    # for lag, the newest record (a tombstone there means nothing is committed)
    by_tp = "PARTITION BY `group`, topic, topic_partition ORDER BY `partition`, `offset`"
    is_value = ~F.col("tombstone")
    at = F.struct("partition", "offset")  # exact for any partition and offset (a packed long is not)
    per_key = (offsets
               .withColumn("rewind", F.when(is_value & (F.col("committed_offset") < F.expr(
                   f"lag(committed_offset) IGNORE NULLS OVER ({by_tp})")), 1).otherwise(0))
               .groupBy("group", "topic", "topic_partition")
               .agg(F.sum(F.when(is_value, 1).otherwise(0)).alias("commits"), F.min("commit_timestamp").alias("first"),
                    F.max("commit_timestamp").alias("last"), F.sum("rewind").alias("rewinds"),
                    F.max_by("tombstone", at).alias("gone"), F.max_by("committed_offset", at).alias("committed")))
    if want_committed:  # read twice (group facts, then lag): kept, one row per key, on disk
        from pyspark import StorageLevel

        per_key = per_key.persist(StorageLevel.DISK_ONLY)
    per_tp = per_key.filter(F.col("commits") > 0)
    commit_stats = per_tp.groupBy("group").agg(
        F.sum("commits").alias("commits"), F.min("first").alias("first_commit_ms"),
        F.max("last").alias("last_commit_ms"), F.count(F.lit(1)).alias("partitions"),
        F.sum("rewinds").alias("rewinds"))
    present = ok.groupBy("group").agg(F.min("partition").alias("offsets_partition"))

    # group state: the few records that are not offset commits
    record_name, kind = names_of_types()
    ok = ok.withColumns({"record": record_name, "kind": kind})
    state = ok.filter(F.col("type") >= 2).select("group", "partition", "offset", "timestamp", "type", "kind",
                                                 "tombstone", "generation", "protocol", "members", "member")
    pos = F.struct("partition", "offset")
    is_meta = F.col("type").isin(*GROUP_METADATA_TYPES)
    state_stats = state.groupBy("group").agg(
        F.max_by("kind", pos).alias("last_kind"),
        F.max_by("type", F.when(is_meta, pos)).alias("last_meta_type"),
        F.max_by("tombstone", F.when(is_meta, pos)).alias("last_meta_tombstone"),
        F.max_by("generation", F.when(is_meta & ~F.col("tombstone"), pos)).alias("generation"),
        F.max_by("protocol", F.when((F.col("type") == 2) & ~F.col("tombstone"), pos)).alias("classic_protocol"),
        F.max_by("members", F.when((F.col("type") == 2) & ~F.col("tombstone"), pos)).alias("classic_members"),
    )
    rebalances = (state.filter(is_meta & ~F.col("tombstone")).groupBy("group", "type", "generation")
                  .agg(F.min("timestamp").alias("t")).groupBy("group").agg(F.collect_list("t").alias("times")))
    members = (state.filter(F.col("type").isin(*MEMBER_METADATA_TYPES)).groupBy("group", "member")
               .agg(F.max_by("tombstone", pos).alias("gone"), F.max_by("protocol", pos).alias("protocol"))
               .groupBy("group").agg(F.sum(F.when(~F.col("gone"), 1).otherwise(0)).alias("live_members"),
                                     F.max(F.when(~F.col("gone"), F.col("protocol"))).alias("member_protocol")))
    joined = (present.join(commit_stats, "group", "left").join(state_stats, "group", "left")
              .join(rebalances, "group", "left").join(members, "group", "left"))
    facts = []
    for r in joined.collect():
        facts.append(report.GroupFacts(
            group=r["group"], offsets_partition=r["offsets_partition"], commits=int(r["commits"] or 0),
            first_commit_ms=r["first_commit_ms"], last_commit_ms=r["last_commit_ms"],
            partitions=int(r["partitions"] or 0), rewinds=int(r["rewinds"] or 0), last_kind=r["last_kind"],
            last_meta_type=r["last_meta_type"], last_meta_tombstone=r["last_meta_tombstone"],
            generation=r["generation"], classic_protocol=r["classic_protocol"], classic_members=r["classic_members"],
            live_members=None if r["live_members"] is None else int(r["live_members"]),
            member_protocol=r["member_protocol"], rebalance_times=list(r["times"] or [])))

    committed = []
    if want_committed:
        last = per_key.filter(~F.col("gone"))
        committed = [(r["group"], r["topic"], r["topic_partition"], r["committed"]) for r in last.collect()]
        per_key.unpersist()

    commits_df = ok.filter(F.col("type").isin(*OFFSET_TYPES)).select(*COMMIT_COLUMNS)
    events_df = ok.filter(~F.col("type").isin(*OFFSET_TYPES)).select(*EVENT_COLUMNS)
    return ScanResult(records=sum(v["records"] for v in per_partition.values()), read=read, undecodable=bad,
                      errors=errors,
                      window=window, facts=facts, per_partition=per_partition, committed=committed,
                      commits_df=commits_df, events_df=events_df)


def latest(df, n: int, order=("timestamp", "partition", "offset")) -> list[dict]:
    """The newest ``n`` rows of a table, oldest first."""
    from pyspark.sql import functions as F

    rows = df.orderBy(*[F.col(c).desc() for c in order]).limit(n).collect()
    return [r.asDict() for r in reversed(rows)]
