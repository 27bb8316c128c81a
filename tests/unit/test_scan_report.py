"""The pure finishing logic of kgroup scan (kgroup.scan.report), without Spark."""
from __future__ import annotations

from kgroup.scan import report
from kgroup.scan.report import GroupFacts, Window, max_in_span

H = report.HOUR_MS


def test_max_in_span_is_a_sliding_hour():
    assert max_in_span([]) == 0
    assert max_in_span([0, H - 1]) == 2          # less than an hour apart: one span
    assert max_in_span([0, H]) == 1              # exactly an hour apart: not within 60 minutes
    assert max_in_span([5 * H + i * 60_000 for i in range(12)] + [0, 3 * H]) == 12
    assert max_in_span([30, 10, 20]) == 3        # order does not matter


def test_window_now_and_seconds():
    assert Window(None, None, 1_000, 61_000).now_ms == 61_000 and Window(None, None, 1_000, 61_000).seconds == 60
    w = Window(0, 3_600_000, 5, 10)
    assert w.now_ms == 3_600_000 and w.seconds == 3600
    assert Window(None, None, 7, 7).seconds == 1.0 and Window(None, None, None, None).seconds == 1.0


def test_group_row_flags():
    w = Window(None, None, 0, 10 * H)
    base = dict(group="g", offsets_partition=3, commits=4, first_commit_ms=H, last_commit_ms=8 * H, partitions=2,
                last_kind="group", last_meta_tombstone=False, generation=7, classic_protocol="range", classic_members=3)
    row = report.group_row(GroupFacts(**base), w, stale_after_ms=H, storm=3)
    assert (row["type"], row["protocol"], row["member_count"], row["stale"], row["storm"], row["deleted"]) == \
        ("classic", "range", 3, True, False, False)
    assert (row["partition_count"], row["rebalance_count"]) == (2, 0)
    assert row["commits_per_hour"] == 0.4
    assert report.group_row(GroupFacts(**base), w, stale_after_ms=3 * H, storm=3)["stale"] is False
    storm = report.group_row(GroupFacts(**base, rebalance_times=[0, 10, 20]), w, H, 3)
    assert storm["storm"] and storm["rebalance_count"] == 3
    gone = report.group_row(GroupFacts(**{**base, "last_meta_tombstone": True}), w, H, 3)
    assert gone["deleted"] and gone["member_count"] == 0 and not gone["stale"]
    consumer = report.group_row(GroupFacts(**{**base, "last_kind": "regex", "live_members": 2,
                                              "member_protocol": "uniform"}), w, H, 3)
    assert (consumer["type"], consumer["protocol"], consumer["member_count"]) == ("consumer", "uniform", 2)
    idle = report.group_row(GroupFacts(group="s", offsets_partition=0, last_kind="share"), w, H, 3)
    # a share group commits nothing: "stale" (no commit for long) does not apply to it, not False
    assert (idle["type"], idle["commits"], idle["stale"], idle["generation"]) == ("share", 0, None, None)
    streams = report.group_row(GroupFacts(**{**base, "last_kind": "streams", "live_members": 1}), w, H, 3)
    assert (streams["type"], streams["stale"]) == ("streams", True)  # streams groups commit: the rule applies
    rows = [row, consumer, idle, streams, gone]
    assert report.type_counts(rows) == {"classic": 2, "consumer": 1, "share": 1, "streams": 1}
    assert report.type_counts([]) == {"classic": 0, "consumer": 0, "share": 0, "streams": 0}
    from kgroup.report.fleet import group_flags

    # live, a share group has no status (its lag is the broker's), which is no reason to look
    assert group_flags({**idle, "status": None}) == []
    assert group_flags({**row, "status": None}) == ["stale", "status unknown"]


def test_coordinators_brokers_and_lag():
    w = Window(0, 10_000, 0, 10_000)
    per = {0: {"groups": 2, "records": 10, "commits": 8, "bytes": 1000},
           1: {"groups": 1, "records": 2, "commits": 1, "bytes": 100},
           2: {"groups": 1, "records": 1, "commits": 0, "bytes": 50}}
    rows = report.coordinator_rows(per, w)
    assert [r["hot"] for r in rows] == [True, False, False]  # 8 > 1.5 * 3
    assert rows[0]["commits_per_s"] == 0.8 and rows[0]["bytes_per_s"] == 100.0
    brokers = report.broker_rows(per, {0: 1, 1: 2, 2: 2}, {1: ("a", 9092), 2: ("b", 9092), 3: ("c", 9092)}, w)
    assert [(b["id"], b["partition_count"], b["group_count"], b["commits"], b["hot"]) for b in brokers] == \
        [(1, 1, 2, 8, True), (2, 2, 2, 1, False), (3, 0, 0, 0, False)]
    assert [r["group_count"] for r in rows] == [2, 1, 1]
    lag = report.group_lag([("g", "t", 0, 5), ("g", "t", 1, 9), ("h", "t", 0, 12), ("k", "gone", 0, 1)],
                           {("t", 0): 10, ("t", 1): 9})
    # h committed 12 on a log that ends at 10: no lag of 0 (a number that is not a fact)
    assert lag == {"g": 5, "h": None, "k": None}
    assert report.group_lag([("s", "t", 0, -1)], {("t", 0): 10}) == {"s": None}


def test_error_entries_name_the_record_type_apart_from_the_group_type():
    errors = [{"partition": 3, "offset": 17, "type": 1, "error": "value too short"},
              {"partition": 4, "offset": 2, "type": None, "error": "key under 2 bytes"}]
    assert report.error_entries(errors) == [
        {"partition": 3, "offset": 17, "record_type": 1, "error": "value too short"},
        {"partition": 4, "offset": 2, "record_type": None, "error": "key under 2 bytes"}]


def test_read_tasks_split_large_partitions_and_skip_empty_ones():
    import pytest

    pytest.importorskip("pyspark")
    from kgroup.kafka.logreader import LogRange
    from kgroup.scan.source import split_ranges

    tasks = split_ranges([LogRange(0, 0, 0), LogRange(1, 5, 10), LogRange(2, 100, 2_600_101)], split=1_000_000)
    assert tasks[0] == (1, 5, 10)
    big = tasks[1:]
    assert len(big) == 3 and big[0][1] == 100 and big[-1][2] == 2_600_101
    assert all(a[2] == b[1] for a, b in zip(big, big[1:]))  # contiguous, no gap, no overlap
    assert max(e - s for _, s, e in big) <= 1_000_000


def test_java_options_quiet_logs_parallel_gc_and_the_users_last():
    from kgroup.scan.session import java_options, log4j2_file

    quiet = f"-Dlog4j.configurationFile=file:{log4j2_file()}"
    assert java_options("", verbose=False) == f"{quiet} -XX:+UseParallelGC"
    assert java_options("", verbose=True) == "-XX:+UseParallelGC"
    assert java_options("-Xss4m", verbose=False) == f"{quiet} -XX:+UseParallelGC -Xss4m"
    # a collector of the user's own: no second one (the JVM refuses two)
    assert java_options("-XX:+UseG1GC -Xss4m", verbose=True) == "-XX:+UseG1GC -Xss4m"


def test_only_what_waits_outside_the_jvm_keeps_sparks_own_stop():
    """kgroup ends the JVM it started; Spark's stop (about a second) first only where something
    outside that JVM depends on it."""
    from kgroup.scan.session import awaits_stop

    assert not awaits_stop("local[*]", {}.get)
    assert not awaits_stop("local[2]", {"spark.eventLog.enabled": "false", "spark.local.dir": "/x"}.get)
    assert awaits_stop("local[*]", {"spark.eventLog.enabled": "TRUE"}.get)  # the log completes at stop
    assert awaits_stop("local", {"spark.extraListeners": "com.example.Audit"}.get)
    assert awaits_stop("local-cluster[2,1,1024]", {"spark.plugins": "com.example.Plugin"}.get)
    assert awaits_stop("local[*]", {"spark.sql.queryExecutionListeners": "com.example.Q"}.get)
    for master in ("spark://127.0.0.1:7077", "yarn", "k8s://https://k:443"):  # the master frees the executors
        assert awaits_stop(master, {}.get)


def test_lag_unknown_names_each_group_and_why():
    committed = [("g", "t", 0, 5), ("g", "t", 1, 9), ("h", "t", 0, 12), ("k", "gone", 0, 1), ("m", "t", 7, 1),
                 ("n", "u", 0, 3), ("n", "gone", 1, 1)]
    ends = {("t", 0): 10, ("t", 1): None, ("u", 0): 4}
    why = report.lag_unknown(committed, ends, {("t", 1): "t-1: no latest offset within 10 s"})
    assert why == {"g": "the log end of t-1 is unknown (t-1: no latest offset within 10 s)",
                   "h": "t-0: committed 12 is beyond the log end 10",
                   "k": "topic gone does not exist", "m": "partition t-7 does not exist",
                   "n": "topic gone does not exist"}
    assert report.lag_unknown([("s", "t", 0, -1), ("o", "t", 0, 10)], ends, {}) == {
        "s": "t-0: committed offset -1 is not an offset"}  # o: committed at the end, lag 0, a fact
    assert {g for g, v in report.group_lag(committed, ends).items() if v is None} == set(why)


def test_java_cause_is_the_first_exception_unwrapped_to_its_root():
    from kgroup.scan.session import java_cause

    assert java_cause(["WARNING: Using incubator modules: jdk.incubator.vector",
                       'Exception in thread "main" org.apache.spark.SparkException: Master must start with spark',
                       "\tat org.apache.spark.deploy.SparkSubmit.error(SparkSubmit.scala:1068)"]) == \
        "Master must start with spark"
    assert java_cause(["org.apache.spark.SparkException: Job aborted.", "\tat x.y(Z.scala:1)",
                       "Caused by: java.io.IOException: Mkdirs failed to create /x/y", "\tat a.b(C.java:2)",
                       "java.lang.IllegalStateException: a second, unrelated one"]) == "Mkdirs failed to create /x/y"
    assert java_cause(["Caused by: java.net.ConnectException"]) == "ConnectException"
    assert java_cause(["nothing", "at all"]) is None
    # the JVM not created: what java printed, as `java -XX:MaxHeapSize=abc -version` and
    # `java -XX:+UseG1GC -XX:+UseSerialGC -version` (JDK 17) print it
    assert java_cause(["Invalid maximum heap size: -XX:MaxHeapSize=abc",
                       "Error: Could not create the Java Virtual Machine.",
                       "Error: A fatal exception has occurred. Program will exit."]) == \
        "Invalid maximum heap size: -XX:MaxHeapSize=abc"
    assert java_cause(["Error occurred during initialization of VM", "Multiple garbage collectors selected"]) == \
        "Multiple garbage collectors selected"
    assert java_cause(["Error occurred during initialization of VM"]) == "Error occurred during initialization of VM"
    # with options from the environment, which the JVM names first (JDK 17)
    assert java_cause(["Picked up JAVA_TOOL_OPTIONS: -Dx=y", "Picked up _JAVA_OPTIONS: -Dz=1",
                       "Invalid maximum heap size: -XX:MaxHeapSize=abc",
                       "Error: Could not create the Java Virtual Machine."]) == \
        "Invalid maximum heap size: -XX:MaxHeapSize=abc"
    assert java_cause(["Picked up JAVA_TOOL_OPTIONS: -Dx=y", "Error: Could not create the Java Virtual Machine."]) == \
        "Could not create the Java Virtual Machine"


def test_spark_errors_keep_the_executors_kgroup_error_and_its_exit_code():
    import pytest

    pytest.importorskip("pyspark")
    from kgroup.errors import ClusterError, UsageError
    from kgroup.scan.run import spark_error

    class Py4JJavaError(Exception):
        pass

    Py4JJavaError.__module__ = "py4j.protocol"
    executor = Py4JJavaError("An error occurred while calling o88.toArrow.\n: org.apache.spark.SparkException: Job "
                             "aborted due to stage failure: Task 0 failed: org.apache.spark.api.python.PythonException:"
                             " Traceback (most recent call last):\n  File \"x.py\", line 1, in read\n"
                             "kgroup.errors.ClusterError: cannot reach the cluster at h:1 within 2 s while trying to "
                             "read t-0\n\tat org.apache.spark.api.python.BasePythonRunner(PythonRunner.scala:1)")
    e = spark_error(executor)
    assert isinstance(e, ClusterError) and not isinstance(e, UsageError)
    assert e.message == "cannot reach the cluster at h:1 within 2 s while trying to read t-0"
    # the executor's error type comes back whole (the job's text names it), not just its exit code
    from kgroup.errors import NotAuthorized, Unreachable

    for kind in (Unreachable, NotAuthorized):
        typed = Py4JJavaError(str(executor).replace("kgroup.errors.ClusterError", f"kgroup.errors.{kind.__name__}"))
        e = spark_error(typed)
        assert type(e) is kind and e.message == "cannot reach the cluster at h:1 within 2 s while trying to read t-0"
    java = Py4JJavaError("An error occurred while calling o347.parquet.\n: org.apache.spark.SparkException: Job "
                         "aborted.\n\tat org.apache.spark.sql.X(X.scala:1)\nCaused by: java.io.IOException: "
                         "Mkdirs failed to create file:/ro/out\n\tat org.apache.hadoop.Y(Y.java:2)")
    assert spark_error(java).message == "the Spark job failed: Mkdirs failed to create file:/ro/out"

    class Py4JNetworkError(Exception):
        pass

    Py4JNetworkError.__module__ = "py4j.protocol"
    assert spark_error(Py4JNetworkError("Answer from Java side is empty")).message.startswith(
        "Spark's JVM went away during the scan")


def test_what_py4j_logs_through_the_root_logger_is_dropped_without_v():
    """py4j logs a call in flight when the JVM ends through the root logger (logging.exception,
    which also gives the root logger a stderr handler); without -v none of it reaches stderr, and
    other root records still pass."""
    import logging

    from kgroup.scan.session import _from_py4j

    def record(name: str, pathname: str) -> logging.LogRecord:
        return logging.LogRecord(name, logging.ERROR, pathname, 1, "Exception while sending command.", None, None)

    site = "/venv/lib/python3.11/site-packages"
    assert _from_py4j(record("root", f"{site}/py4j/java_gateway.py")) is False
    assert _from_py4j(record("py4j.clientserver", f"{site}/py4j/clientserver.py")) is False
    assert _from_py4j(record("root", f"{site}/pyspark/context.py")) is True
    assert _from_py4j(record("kgroup", "/work/kgroup/scan/run.py")) is True


def test_a_jvm_that_cannot_be_created_is_named_by_the_launchers_line():
    """What `java` prints when an option stops it, as seen with -XX:Foo and a diagnostic option
    given without its unlock flag."""
    from kgroup.scan.session import java_cause

    assert java_cause(["Unrecognized VM option 'Foo'", "Error: Could not create the Java Virtual Machine.",
                       "Error: A fatal exception has occurred. Program will exit."]) == "Unrecognized VM option 'Foo'"
    assert java_cause(["Error: VM option 'BytecodeVerificationRemote' is diagnostic and must be enabled via "
                       "-XX:+UnlockDiagnosticVMOptions.",
                       "Error: The unlock option must precede 'BytecodeVerificationRemote'.",
                       "Error: Could not create the Java Virtual Machine.",
                       "Error: A fatal exception has occurred. Program will exit."]) == (
        "VM option 'BytecodeVerificationRemote' is diagnostic and must be enabled via -XX:+UnlockDiagnosticVMOptions.")
    assert java_cause(["Error: Could not create the Java Virtual Machine."]) == "Could not create the Java Virtual Machine"
    assert java_cause(["some log line", "Error: A fatal exception has occurred. Program will exit."]) is None


def test_a_save_is_kept_only_once_complete(tmp_path):
    """--save's partial dataset: removed on a Ctrl-C (kgroup's interrupt hook, the JVM already
    ended) or a failed job, unless Spark committed it (_SUCCESS); a path that came to exist
    meanwhile (UsageError) is not this run's and stays; the hook is gone once the save is."""
    import pytest

    pytest.importorskip("pyspark")
    from kgroup import _on_interrupt
    from kgroup.errors import UsageError
    from kgroup.scan.run import _kept_only_if_complete

    def partial(name: str, committed: bool = False):
        path = tmp_path / name
        path.mkdir()
        (path / "part-00000.parquet").write_bytes(b"PAR1")
        if committed:
            (path / "_SUCCESS").write_bytes(b"")
        return path

    hooks = list(_on_interrupt)
    for name, committed in (("interrupted", False), ("committed", True)):
        path = partial(name, committed)
        with _kept_only_if_complete(None, str(path)):
            _on_interrupt[-1]()  # what kgroup's Ctrl-C handler runs
        assert path.exists() is committed
    failed = partial("failed")
    with pytest.raises(RuntimeError), _kept_only_if_complete(None, f"file://{failed}"):
        raise RuntimeError("the job failed")
    assert not failed.exists()
    theirs = partial("theirs")
    with pytest.raises(UsageError), _kept_only_if_complete(None, str(theirs)):
        raise UsageError("it exists")
    assert theirs.exists()
    assert _on_interrupt == hooks


def test_the_accumulator_servers_refusals_are_one_v_line_and_none_once_kgroup_ends_the_jvm(capsys, monkeypatch):
    """A connection the accumulator server refuses (executors failing) is one line with -v; once
    kgroup ends the JVM, whose connection then closes mid-way, it is kgroup's doing: no line."""
    from types import SimpleNamespace

    from kgroup.scan import session

    monkeypatch.setattr(session, "_launched", {})
    server = SimpleNamespace()
    session._quiet_accumulator_server(SimpleNamespace(_accumulatorServer=server), verbose=True)
    try:
        raise ConnectionResetError("reset by peer")
    except ConnectionResetError:
        server.handle_error(None, None)
        session._launched["ended"] = True
        server.handle_error(None, None)
    assert capsys.readouterr().err == "kgroup: Spark's accumulator server refused a connection: reset by peer\n"
    quiet = SimpleNamespace()
    session._quiet_accumulator_server(SimpleNamespace(_accumulatorServer=quiet), verbose=False)
    session._launched.clear()
    try:
        raise ConnectionResetError("reset by peer")
    except ConnectionResetError:
        quiet.handle_error(None, None)
    assert capsys.readouterr().err == ""
