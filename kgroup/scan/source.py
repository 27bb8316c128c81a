"""Where the raw records come from: the live offsets log, read by Spark tasks through
kgroup's offsets-log reader, or records saved earlier (JSON Lines of ``kgroup log --save``,
or Parquet).

Every source yields the same columns: RAW_DDL.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kgroup.errors import UsageError

RAW_DDL = "partition int, offset bigint, timestamp bigint, key binary, value binary"
RAW_COLUMNS = ("partition", "offset", "timestamp", "key", "value")
# a partition of the log larger than this is read by several tasks
DEFAULT_SPLIT = 1_000_000
# records a read task asks the client for at a time (an Arrow batch at most this long)
READ_BATCH = 20_000


def arrow_schema():
    import pyarrow as pa

    return pa.schema([("partition", pa.int32()), ("offset", pa.int64()), ("timestamp", pa.int64()),
                      ("key", pa.binary()), ("value", pa.binary())])


def split_ranges(ranges, split: int = DEFAULT_SPLIT) -> list[tuple[int, int, int]]:
    """The (partition, start, end) read tasks: one per log partition, large ones cut in pieces."""
    out = []
    for r in ranges:
        if r.end <= r.start:
            continue
        pieces = max(1, -(-(r.end - r.start) // split))
        step = -(-(r.end - r.start) // pieces)
        for s in range(r.start, r.end, step):
            out.append((r.partition, s, min(r.end, s + step)))
    return out


def read_tasks(connection: str, topic: str, tasks: list[tuple[int, int, int]], fold: dict[str, Any] | None = None,
               max_batch: int = READ_BATCH) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function of a read task (for mapInArrow over task numbers): for each number ``i`` it
    is given, the records of ``tasks[i]`` (fixed on the driver, so that a retried task reads the
    same records), as raw Arrow batches (RAW_DDL), or with ``fold`` (the keyword arguments of
    fold.fold_columns) as the task's partial rows (fold.PARTIAL_DDL). ``connection``: the client
    settings as JSON, carried inside the function (never in an option or a plan Spark prints)."""
    def read(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from kgroup.kafka.logreader import LogRange, read_log_range_columns
        from kgroup.kafka.settings import ConnectionSettings
        from kgroup.scan.fold import fold_task

        settings = ConnectionSettings.from_json(connection)
        schema = arrow_schema()
        types = [f.type for f in schema]
        for batch in batches:
            for i in batch.column(0).to_pylist():
                partition, start, end = tasks[i]
                columns = read_log_range_columns(settings, topic, LogRange(partition, start, end), max_batch)
                if fold is not None:  # fold in the reading task: only partial rows leave it
                    yield from fold_task(columns, **fold)
                    continue
                for cols in columns:
                    yield pa.RecordBatch.from_arrays([pa.array(c, t) for c, t in zip(cols, types)], schema=schema)
    return read


def live_frame(spark, settings, topic: str, ranges, split: int = DEFAULT_SPLIT, fold: dict[str, Any] | None = None):
    """The records of the live log, [start, end) of every range: raw (RAW_DDL), or with
    ``fold`` (the keyword arguments of fold.fold_columns) the read tasks' partial rows
    (fold.PARTIAL_DDL). One Spark task per read range: the task numbers 0..n-1, one to a
    partition, mapped to their records by read_tasks. (A Python Data Source did this before;
    Spark starts three Python processes to look one up, make it and plan its read: 1.9 s more
    before every live scan's first record, measured.)"""
    from kgroup.scan.fold import PARTIAL_DDL

    ddl = PARTIAL_DDL if fold is not None else RAW_DDL
    tasks = split_ranges(ranges, split)
    if not tasks:
        return spark.createDataFrame([], ddl)
    numbers = spark.range(0, len(tasks), 1, len(tasks))
    return numbers.mapInArrow(read_tasks(settings.to_json(), topic, tasks, fold), ddl)


def input_frame(spark, path: str):
    """Raw records saved earlier: a JSON Lines raw-record file (or directory of them) or a
    Parquet dataset with the raw columns; chosen by content, any path Spark reads."""
    from pyspark.sql import functions as F

    fmt = input_format(spark, path)
    try:
        if fmt == "parquet":
            df = spark.read.parquet(path)
            missing = [c for c in RAW_COLUMNS if c not in df.columns]
            if missing:
                raise UsageError(f"--input {path}: Parquet without the raw-record column(s) {', '.join(missing)}")
            return df.select(F.col("partition").cast("int"), F.col("offset").cast("bigint"),
                             F.col("timestamp").cast("bigint"), F.col("key").cast("binary"),
                             F.col("value").cast("binary"))
        df = (spark.read.schema("partition int, offset bigint, timestamp bigint, key string, value string")
              .option("mode", "FAILFAST").json(path))
        return df.select("partition", "offset", "timestamp", F.unbase64("key").alias("key"),
                         F.unbase64("value").alias("value"))
    except UsageError:
        raise
    except Exception as e:
        raise UsageError(f"cannot read --input {path}: {_short(e)}") from None


def input_format(spark, path: str) -> str:
    """"parquet" or "jsonl": by the name when it says, else by the first bytes Spark finds."""
    low = path.rstrip("/").lower()
    if low.endswith((".jsonl", ".json", ".ndjson", ".jsonl.gz", ".json.gz")):
        return "jsonl"
    if low.endswith(".parquet"):
        return "parquet"
    jvm = spark.sparkContext._jvm
    try:
        hpath = jvm.org.apache.hadoop.fs.Path(path)
        fs = hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        if not fs.exists(hpath):
            raise UsageError(f"cannot read --input {path}: no such file or directory")
        status = fs.getFileStatus(hpath)
        target = hpath
        if status.isDirectory():
            files = [s.getPath() for s in fs.listStatus(hpath)
                     if s.isFile() and not s.getPath().getName().startswith(("_", "."))]
            if not files:
                raise UsageError(f"cannot read --input {path}: an empty directory")
            target = files[0]
        stream = fs.open(target)
        try:
            head = bytes(stream.read() & 0xFF for _ in range(4))
        finally:
            stream.close()
    except UsageError:
        raise
    except Exception as e:
        raise UsageError(f"cannot read --input {path}: {_short(e)}") from None
    return "parquet" if head == b"PAR1" else "jsonl"


def save_parquet(df, path: str) -> None:
    """Write the raw records as a Parquet dataset (one file per task, in parallel). A path that
    came to exist since it was checked is refused as the check refuses it; any other failure is
    the job's (the read tasks' lost cluster, a full disk), for the caller to report."""
    try:
        df.write.mode("errorifexists").parquet(path)
    except Exception as e:
        from pyspark.errors import PySparkException

        if isinstance(e, PySparkException) and e.getCondition() == "PATH_ALREADY_EXISTS":
            raise UsageError(f"cannot write --save {path}: it exists (a saved log is never overwritten)") from None
        raise


def _short(e: Exception) -> str:
    text = str(e).strip()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("JVM stacktrace", "at ", "py4j")):
            return line[:300]
    return type(e).__name__
