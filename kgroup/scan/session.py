"""The Spark session kgroup scan runs on: ``local[*]`` by default, any master otherwise."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgroup.errors import ClusterError, UsageError

# Spark's own logging: errors only (the gateway logger too: PySpark counts as an
# interactive shell and would reset its level otherwise).
QUIET_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
"""

DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.adaptive.enabled": "true",
    # the aggregations are CPU-bound on small shuffles: keep every core busy rather than
    # coalescing them into one task
    "spark.sql.adaptive.coalescePartitions.enabled": "false",
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
    "spark.python.worker.reuse": "true",
}


def parse_conf(items: list[str]) -> dict[str, str]:
    """``--conf key=value`` (repeatable), as spark-submit takes them."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--conf expects key=value, got {item.split('=')[0]!r}")
        out[key.strip()] = value
    return out


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[") or master.startswith("local-cluster[")


def _loopback_master(master: str) -> bool:
    host = master.split("://", 1)[-1].split(":", 1)[0]
    return host in ("127.0.0.1", "localhost")


def log4j2_file() -> Path:
    """The quiet log configuration, written once per process to a temp file."""
    path = Path(tempfile.gettempdir()) / f"kgroup-log4j2-{os.getuid() if hasattr(os, 'getuid') else 0}.properties"
    if not path.exists() or path.read_text() != QUIET_LOG4J2:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(QUIET_LOG4J2)
        tmp.replace(path)
    return path


def java_options(user: str, verbose: bool) -> str:
    """The JVM options of the driver or the executors: Spark's log noise silenced (unless -v)
    and the throughput collector (about 7% faster than the default G1 on the scan's batch
    work, measured on 5 M records) unless the user's own options choose a collector; the
    user's options last, so they win."""
    options = [] if verbose else [f"-Dlog4j.configurationFile=file:{log4j2_file()}"]
    if not any(word.startswith("-XX:+Use") and word.endswith("GC") for word in user.split()):
        options.append("-XX:+UseParallelGC")
    if user:
        options.append(user)
    return " ".join(options)


def package_zip() -> Path:
    """kgroup's own package as a zip for the executors (addPyFile), built from this install."""
    import kgroup

    import atexit
    import shutil

    root = Path(kgroup.__file__).resolve().parent
    # in the folder removed with the JVM kgroup started, when it started one
    folder = tempfile.mkdtemp(prefix="kgroup-pyfiles-", dir=_launched.get("folder"))
    atexit.register(shutil.rmtree, folder, True)
    target = Path(folder) / "kgroup.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(root.rglob("*.py")):
            if "__pycache__" not in f.parts:
                z.write(f, Path("kgroup") / f.relative_to(root))
    return target


# The JVM's own line on start-up (Java 17 with Spark's vector module), which no log setting silences.
INCUBATOR_WARNING = "WARNING: Using incubator modules"
# a Java exception line: "Exception in thread "main" a.b.SomeException: message" or "Caused by: ..."
_JAVA_EXCEPTION = re.compile(
    r'^(?:Exception in thread "[^"]*" |Caused by: )?((?:[\w$]+\.)+[\w$]*(?:Exception|Error))(?:: ?(.*))?$')


class JvmOutput:
    """What the JVM (and the Python workers it starts, which share its stderr) write, read from
    a pipe instead of the user's terminal: with -v passed on to stderr (but the incubator
    warning), otherwise kept (the last lines) to name the cause of a failure."""

    def __init__(self, verbose: bool):
        self.verbose = verbose
        self.lines: deque[str] = deque(maxlen=500)
        self.reader, self.writer = os.pipe()
        self.thread = threading.Thread(target=self._run, daemon=True, name="kgroup-jvm-output")
        self.thread.start()

    def _run(self) -> None:
        with open(self.reader, "rb", buffering=0, closefd=True) as stream:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith(INCUBATOR_WARNING):
                    continue
                self.lines.append(line)
                if self.verbose:
                    try:
                        sys.stderr.write(line + "\n")
                        sys.stderr.flush()
                    except (OSError, ValueError):
                        pass

    def close_writer(self) -> None:
        """The launcher's copy: once the JVM has it, ours goes, so the pipe ends with the JVM."""
        try:
            os.close(self.writer)
        except OSError:
            pass

    def cause(self, wait: float = 2.0) -> str | None:
        """The first Java exception's message the JVM wrote (its root cause when it names one)."""
        self.thread.join(wait)
        return java_cause(list(self.lines))


def java_cause(lines: list[str]) -> str | None:
    """The message of the first Java exception in ``lines``, unwrapped: the last 'Caused by'
    of its chain when it has one."""
    chain: list[tuple[str, str]] = []
    for line in lines:
        text = line.strip()
        text = text[2:] if text.startswith(": ") else text  # py4j's "An error occurred while calling X.\n: ..."
        m = _JAVA_EXCEPTION.match(text)
        if m is None:
            continue
        if chain and not text.startswith("Caused by: "):
            break  # a second, separate exception
        chain.append((m.group(1), (m.group(2) or "").strip()))
    if not chain:
        return jvm_not_created(lines)
    name, message = chain[-1]
    return message or name.rsplit(".", 1)[-1]


JVM_NOT_CREATED = "Error: Could not create the Java Virtual Machine."
VM_INIT_FAILED = "Error occurred during initialization of VM"
JVM_PICKED_UP = "Picked up "


def jvm_not_created(lines: list[str]) -> str | None:
    """Why the JVM itself could not be created (a JVM option it refuses, say): the line the java
    launcher printed before saying so, without its ``Error:``; or, where the VM refused to start
    after the launcher took its options (two garbage collectors, too small a heap), the line the
    VM printed after ``Error occurred during initialization of VM``."""
    # the JVM's note of the options it took from the environment (JAVA_TOOL_OPTIONS and the
    # like) comes first and names no cause
    texts = [line.strip() for line in lines if not line.startswith(JVM_PICKED_UP)]
    if VM_INIT_FAILED in texts:
        after = [t for t in texts[texts.index(VM_INIT_FAILED) + 1:] if t]
        return after[0] if after else VM_INIT_FAILED
    if JVM_NOT_CREATED not in texts:
        return None
    before = [t for t in texts[:texts.index(JVM_NOT_CREATED)] if t]
    if not before:
        return JVM_NOT_CREATED.removeprefix("Error: ").rstrip(".")
    return before[0].removeprefix("Error: ")


# the JVM process kgroup started (and its output), to end it before kgroup ends
_launched: dict[str, Any] = {}


def _launch_gateway(master: str, app_name: str, settings: dict[str, str], verbose: bool) -> None:
    """Start Spark's JVM as PySpark would, but with its output through :class:`JvmOutput` and in
    a session of its own (the terminal's Ctrl-C is kgroup's to act on); a JVM that cannot start
    is one line naming the cause it printed."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:  # this process already has a JVM (tests): use it
        return
    settings = _with_temp_folder(settings)
    conf = SparkConf(loadDefaults=False).setMaster(master).setAppName(app_name)
    for key, value in settings.items():
        conf.set(key, value)
    import pyspark.java_gateway as java_gateway

    from kgroup import _on_interrupt

    output = JvmOutput(verbose)
    _launched["output"] = output
    _on_interrupt.append(_end_jvm_interrupted)
    popen = getattr(java_gateway, "Popen")  # noqa: B009  # (not re-exported, to mypy)

    def recorded(*args: Any, **kwargs: Any) -> Any:  # the JVM's process, known from its first moment
        with _launching:  # a Ctrl-C meanwhile (end_jvm on the watcher thread) waits for it
            if _launched.get("interrupted"):  # and none is made once a Ctrl-C has ended the JVM
                raise KeyboardInterrupt
            proc = popen(*args, **kwargs)
            _launched["proc"] = proc
            _launched.pop("ended", None)
        return proc

    setattr(java_gateway, "Popen", recorded)  # noqa: B010
    system_temp = tempfile.tempdir
    tempfile.tempdir = _launched["folder"]  # PySpark's port file, also when a Ctrl-C ends kgroup meanwhile
    try:
        gateway = launch_gateway(conf, popen_kwargs={"stdout": output.writer, "stderr": output.writer,
                                                     "start_new_session": True})
    except Exception as e:
        output.close_writer()
        cause = output.cause()
        end_jvm()
        raise _start_failure(master, cause or _first_line(e)) from None
    finally:
        tempfile.tempdir = system_temp
        setattr(java_gateway, "Popen", popen)  # noqa: B010
        output.close_writer()
    SparkContext._ensure_initialized(gateway=gateway)


def _start_failure(master: str, cause: str) -> Exception:
    if "Master must" in cause or "Could not parse Master URL" in cause or "master URL" in cause.lower():
        return UsageError(f"--master {master}: {cause}")
    return ClusterError(f"cannot start Spark on {master}: {cause}")


def _with_temp_folder(settings: dict[str, str]) -> dict[str, str]:
    """A temp folder of kgroup's own for what starting Spark writes, removed with the JVM (see
    :func:`end_jvm`): PySpark's file for the JVM's port and, unless the user chose where they go
    (``spark.local.dir`` or ``-Djava.io.tmpdir``), the driver JVM's temporary files (Spark's
    scratch folders, its artifacts folder, the native libraries it unpacks). A JVM ended by a
    signal runs none of the shutdown hooks that would remove them from the system's temp folder
    (every scan left three folders there); where the user chose, the JVM is let end by itself."""
    folder = tempfile.mkdtemp(prefix="kgroup-spark-")
    _launched["folder"] = folder
    import atexit
    import shutil

    atexit.register(shutil.rmtree, folder, True)  # also when the JVM ended by itself
    options = settings.get("spark.driver.extraJavaOptions", "")
    if "spark.local.dir" in settings or "-Djava.io.tmpdir=" in options:
        _launched["graceful"] = True
        return settings
    # first, so that a user's own option (later on the command line) would win
    return {**settings, "spark.driver.extraJavaOptions": f"-Djava.io.tmpdir={folder} {options}".rstrip()}


# held while the JVM's process is being made: from fork to the moment it is known, a Ctrl-C could
# otherwise end kgroup with the JVM (forked, not yet recorded) left running (seen on a busy machine)
_launching = threading.Lock()


def _end_jvm_interrupted() -> None:
    """On Ctrl-C: end the JVM, and make sure no other starts before kgroup exits."""
    _launched["interrupted"] = True
    end_jvm()


def end_jvm(wait: float = 5.0) -> None:
    """End the JVM kgroup started (and whatever it started in its session), and wait for it."""
    known = _launching.acquire(timeout=wait)  # a process being made is known once made
    try:
        # taken together: whoever ends the JVM removes its folder, once the JVM has ended (the
        # main thread and the Ctrl-C watcher may both get here)
        proc = _launched.pop("proc", None)
        folder = _launched.pop("folder", None)
        # Spark's own shutdown (on SIGTERM) takes about half a second and is needed only where
        # its files are not in kgroup's folder
        graceful = _launched.pop("graceful", False)
    finally:
        if known:
            _launching.release()
    if proc is not None and proc.poll() is None:
        _launched["ended"] = True  # the JVM's connections close now: kgroup's doing, nothing to say
        _signal_group(proc, signal.SIGTERM if graceful else signal.SIGKILL)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            if graceful:
                _signal_group(proc, signal.SIGKILL)
    if folder is not None:
        _remove(folder)


def _remove(folder: str) -> None:
    """Remove the JVM's temp folder; again if something still wrote there meanwhile (PySpark's
    daemon keeps a process group of its own and outlives the JVM by a moment)."""
    import shutil
    import time

    for _ in range(5):
        shutil.rmtree(folder, True)
        if not os.path.exists(folder):
            return
        time.sleep(0.05)


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    """The JVM and what it started in its session (the Python workers)."""
    try:
        os.killpg(proc.pid, signum)
    except (OSError, AttributeError):
        proc.send_signal(signum)


# the sessions kgroup made (by id), with how many of build_session's callers use each: a session
# the process already had (a program that embeds kgroup, a notebook, a test run) is used as it is
# and left running, and one kgroup made is stopped by the last of its users
_made: dict[int, int] = {}


def stop_session(spark) -> None:
    """Stop the session and end the JVM kgroup started for it, before kgroup ends (a JVM left
    to notice its closed stdin outlives kgroup by up to a second). Nothing of it is said. A
    session kgroup did not make is not stopped."""
    from pyspark import SparkContext

    users = _made.get(id(spark), 0)
    if users != 1:  # not made by kgroup, or still used by an earlier caller
        if users:
            _made[id(spark)] = users - 1
        return
    del _made[id(spark)]
    launched = "proc" in _launched
    try:
        # about a second; where kgroup ends the JVM next, needed only if something outside it waits
        if not launched or awaits_stop(spark.sparkContext.master, spark.sparkContext.getConf().get):
            spark.stop()
    except Exception:  # a JVM already gone: nothing left to stop
        pass
    if launched:
        end_jvm()
        try:
            SparkContext._gateway.shutdown()  # type: ignore[union-attr]
        except Exception:
            pass
        SparkContext._gateway = None
        SparkContext._jvm = None


# settings through which something outside the JVM depends on Spark's own stop
_STOP_LISTENERS = ("spark.extraListeners", "spark.plugins", "spark.sql.queryExecutionListeners",
                   "spark.sql.streaming.streamingQueryListeners")


def awaits_stop(master: str, conf_get: Callable[[str], str | None]) -> bool:
    """Whether ending the JVM without Spark's stop would leave something undone: a cluster's
    application (its master frees the executors), an event log to complete, a listener or plugin
    of the user's. A local session without them loses nothing (its files are removed with the JVM)."""
    if not is_local(master) or (conf_get("spark.eventLog.enabled") or "").lower() == "true":
        return True
    return any(conf_get(key) for key in _STOP_LISTENERS)


def spark_cause() -> str | None:
    """The cause the JVM printed last (for a failure whose exception says less)."""
    output = _launched.get("output")
    return None if output is None else java_cause(list(output.lines))


def _from_py4j(record: Any) -> bool:
    """A logging filter: False for what py4j logs (through the root logger too)."""
    return not (record.name.startswith("py4j") or f"{os.sep}py4j{os.sep}" in (record.pathname or ""))


def build_session(master: str = "local[*]", conf: dict[str, str] | None = None, verbose: bool = False,
                  app_name: str = "kgroup scan"):
    """A SparkSession with kgroup's defaults; ``conf`` (from --conf) overrides them."""
    conf = dict(conf or {})
    # Python workers run this interpreter (which has pyarrow and kgroup), unless told otherwise.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if is_local(master) or _loopback_master(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if not verbose:
        import logging

        logging.getLogger("py4j").setLevel(logging.CRITICAL + 1)  # its own traces of a JVM gone
        # and those it logs through the root logger (a call in flight when the JVM ends: a
        # progress poll at the end of a scan, seen on a loaded machine)
        root = logging.getLogger()
        if _from_py4j not in root.filters:
            root.addFilter(_from_py4j)
    from pyspark.sql import SparkSession

    settings = dict(DEFAULTS)
    java_keys = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions")
    for key in java_keys:
        options = java_options(conf.get(key, ""), verbose)
        if options:
            settings[key] = options
    settings.update({k: v for k, v in conf.items() if k not in java_keys})
    existing = SparkSession.getActiveSession()
    _launch_gateway(master, app_name, settings, verbose)
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    import signal as signals
    import threading as threads

    main = threads.current_thread() is threads.main_thread()
    sigint = signals.getsignal(signals.SIGINT) if main else None
    install = signals.signal

    def keep_sigint(signum: Any, handler: Any) -> Any:
        # PySpark's own Ctrl-C handler cancels the jobs through py4j from inside whatever py4j
        # call the main thread is in (a reentrant read: a traceback of its own) and raises
        # KeyboardInterrupt there: kgroup's (kgroup.cli.interrupt) stays in charge, also while
        # the session is being made, so the SparkContext is not let install it
        if signum == signals.SIGINT:
            return signals.getsignal(signum)
        return install(signum, handler)

    signals.signal = keep_sigint  # type: ignore[assignment]  # for the making of the session only
    try:
        spark = builder.getOrCreate()
    except Exception as e:  # the master cannot be reached, or refuses the application
        raise _start_failure(master, spark_cause() or _first_line(e)) from None
    finally:
        signals.signal = install
        if main and sigint is not None:
            signals.signal(signals.SIGINT, sigint)
    if existing is None:
        _made[id(spark)] = 1
    elif id(spark) in _made:
        _made[id(spark)] += 1
    if not verbose:
        spark.sparkContext.setLogLevel("ERROR")
    _quiet_accumulator_server(spark.sparkContext, verbose)
    cores = spark.sparkContext.defaultParallelism
    if "spark.sql.shuffle.partitions" not in conf:
        spark.conf.set("spark.sql.shuffle.partitions", str(max(4, 2 * cores)))
    if "spark.sql.files.minPartitionNum" not in conf:
        # a saved log is read in several tasks per core (Spark's default, one per core, leaves
        # cores idle at the end when the decoding tasks differ in length)
        spark.conf.set("spark.sql.files.minPartitionNum", str(4 * cores))
    # executors get kgroup from here, unless their environment has it installed (with its
    # compiled walker, which a zip cannot carry) and the user says so
    if not is_local(master) and settings.get("spark.kgroup.shipPackage", "true").lower() != "false":
        spark.sparkContext.addPyFile(str(package_zip()))
    return spark


def _quiet_accumulator_server(sc: Any, verbose: bool) -> None:
    """PySpark's accumulator server (a socket server in this process) prints a whole traceback to
    stderr for each connection it refuses, which happens when executors fail (seen with executors
    lacking kgroup). kgroup reports the job's failure in one line; this is one more line with -v,
    nothing otherwise, nor once kgroup ends the JVM (whose connection then closes mid-way)."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is None:
        return

    def handle_error(request: Any, client_address: Any) -> None:
        if verbose and not _launched.get("ended"):
            sys.stderr.write(f"kgroup: Spark's accumulator server refused a connection: {sys.exc_info()[1]}\n")

    server.handle_error = handle_error


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
