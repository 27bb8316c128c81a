"""Shared fixtures: real broker processes and running kgroup as a user would."""
from __future__ import annotations

import io
import locale
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


# environment variables that act only when an interpreter starts (or when kgroup's modules are
# first imported): a run that sets one needs a process of its own, run_kgroup_process
AT_START = ("PYTHON", "KGROUP_PURE_PYTHON", "LANG", "LC_")



TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"


def pytest_configure(config):
    # The test run's Spark JVMs (the drivers kgroup starts, the standalone master and worker) use
    # the client compiler only, and do not verify the bytecode of Spark's own jars: they live
    # seconds, where the server compiler's work never pays back; the same behaviour for less than
    # half the CPU (measured: 9 CPU-s a scan of the example where it took 22). A user's runs are
    # not affected: this is the tests' environment.
    os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JVM_OPTIONS)
    os.environ.setdefault("SPARK_DAEMON_JAVA_OPTS", TEST_JVM_OPTIONS)

def run_kgroup(*args: str, env: dict | None = None, timeout: float = 60, input: str | None = None,
               modules: dict | None = None) -> Result:
    """Run kgroup as a user would, inside this process: ``kgroup.cli.main`` with the command line
    in ``sys.argv``, file descriptors 0, 1 and 2 on files of their own (so what a native library
    writes is captured too, and nothing is a terminal, as with pipes), stdin empty or ``input``,
    cwd the repository, the environment of a subprocess (without KGROUP_BOOTSTRAP_SERVERS, plus
    ``env``), and everything a command changes for its process put back afterwards (signal
    handlers, Ctrl-C hooks, the environment, cwd, client loggers; main restores the collector).
    ``modules``: sys.modules entries for the run (None: a package not installed), as a PYTHONPATH
    that shadows a package gives a subprocess. The output is decoded as ``subprocess.run(text=True)``
    does. What needs a process of its own
    (start-up, signals, os._exit, import state, variables read at start) uses run_kgroup_process."""
    if any(name.startswith(AT_START) for name in env or {}):
        raise ValueError(f"{sorted(env or {})}: read when a process starts; use run_kgroup_process")
    import logging
    import signal
    import tempfile
    import traceback

    import kgroup
    from kgroup.cli import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams, saved_argv = (sys.stdin, sys.stdout, sys.stderr), sys.argv
    saved_sigint, saved_alarm = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGALRM)
    saved_hooks, saved_loggers = list(kgroup._on_interrupt), set(logging.Logger.manager.loggerDict)
    saved_modules = {name: sys.modules.get(name, _ABSENT) for name in modules or {}}
    for stream in saved_streams[1:]:
        stream.flush()
    with tempfile.TemporaryFile() as fd0, tempfile.TemporaryFile() as fd1, tempfile.TemporaryFile() as fd2:
        fd0.write((input or "").encode(_IN[0]))
        fd0.seek(0)
        saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
        code: object = None
        start = time.monotonic()
        try:
            for fd, file in enumerate((fd0, fd1, fd2)):
                os.dup2(file.fileno(), fd)
            # the standard streams of `python -u` (PYTHONUNBUFFERED=1 for the subprocess)
            sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), *_IN)
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), *_OUT, write_through=True)
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), *_ERR, write_through=True)
            sys.argv = [str(ROOT / "kgroup" / "__main__.py"), *args]
            os.environ.pop("KGROUP_BOOTSTRAP_SERVERS", None)
            os.environ.update(env or {})
            os.chdir(ROOT)
            sys.modules.update(modules or {})
            wakeup = signal.set_wakeup_fd(-1)
            signal.set_wakeup_fd(wakeup)

            def out_of_time(signum: object, frame: object) -> None:
                raise _TimedOut()

            signal.signal(signal.SIGALRM, out_of_time)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                main()
            except SystemExit as e:
                code = e.code
            except _TimedOut:
                code = _TimedOut
            except BaseException:  # noqa: BLE001 - as the interpreter ends on an uncaught exception
                sys.stderr.write(traceback.format_exc())
                code = 1
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, saved_alarm)
                signal.signal(signal.SIGINT, saved_sigint)
                signal.set_wakeup_fd(wakeup)
                kgroup._on_interrupt[:] = saved_hooks
            if code is None:
                code = 0
            elif not isinstance(code, int) and code is not _TimedOut:
                sys.stderr.write(f"{code}\n")  # as run(), and the interpreter, end a sys.exit(message)
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            seconds = time.monotonic() - start
            for fd, saved in enumerate(saved_fds):
                os.dup2(saved, fd)
                os.close(saved)
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            sys.argv = saved_argv
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
            for name, module in saved_modules.items():
                if module is _ABSENT:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
            # a client's logger outlives a run only if the client was not closed: it says nothing more
            for name in set(logging.Logger.manager.loggerDict) - saved_loggers:
                logger = logging.getLogger(name)
                if logger.handlers:
                    logger.handlers[:] = [logging.NullHandler()]
        stdout, stderr = (_text(file) for file in (fd1, fd2))
    if code is _TimedOut:
        raise subprocess.TimeoutExpired(["kgroup", *args], timeout, stdout, stderr)
    assert isinstance(code, int)
    return Result(code, stdout, stderr, seconds)


_ABSENT = object()


class _TimedOut(BaseException):
    """``timeout`` ran out (a BaseException: no ``except Exception`` of kgroup takes it)."""


# the encodings and error handlers this interpreter gave its standard streams, as a subprocess's
_IN, _OUT, _ERR = ((getattr(s, "encoding", None) or "utf-8", getattr(s, "errors", None) or "strict")
                   for s in (sys.__stdin__, sys.__stdout__, sys.__stderr__))


def _text(file) -> str:
    """What ``subprocess.run(text=True)`` makes of the bytes: decoded, universal newlines."""
    file.seek(0)
    data = file.read().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")


def run_kgroup_process(*args: str, env: dict | None = None, timeout: float = 60,
                       input: str | None = None) -> Result:
    """Run kgroup in a subprocess, exactly as a user would (python -m kgroup): for what needs a
    process of its own (see run_kgroup)."""
    full_env = {k: v for k, v in os.environ.items() if k != "KGROUP_BOOTSTRAP_SERVERS"}
    full_env.update({"PYTHONUNBUFFERED": "1", **(env or {})})
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, input=input, cwd=ROOT)
    return Result(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def free_port() -> int:
    from brokers import free_port as _free

    return _free()


@pytest.fixture(scope="session")
def tansu():
    """A real Tansu broker process on a free loopback port, stopped by PID."""
    from brokers import start_tansu, stop_process

    proc, bootstrap = start_tansu()
    try:
        yield bootstrap
    finally:
        stop_process(proc)


@pytest.fixture(scope="session")
def mock_cluster():
    """librdkafka's mock cluster: 3 brokers, with a 4-partition __consumer_offsets topic
    so that partition leaders exist to compare with the mock's FindCoordinator answers."""
    from brokers import MockCluster

    cluster = MockCluster(brokers=3, offsets_topic=True)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def seed_group(tansu):
    """The seed scenario live on Tansu: Order (7) and Stock (5), group G1 with C1, C2, C3
    (range), committed offsets from seed.committed(); yields the LiveGroup."""
    import seed

    seed.create_topics(tansu)
    seed.produce(tansu)
    group = seed.LiveGroup(tansu, "G1").start()
    group.commit_seed_offsets()
    try:
        yield group
    finally:
        group.stop()


@pytest.fixture(scope="session")
def front_certs(tmp_path_factory):
    """The test run's throwaway CA, certificates and Java stores (tests/certs.py)."""
    from certs import make_certs
    from javadriver import require_java

    require_java("keytool and the Kafka front")
    return make_certs(tmp_path_factory.mktemp("certs"))


def _front(tmp_path_factory, certs, **options):
    """A Tansu broker with the TLS/SASL front before it (tests/kafkafront.py), stopped by PID."""
    from kafkafront import start_front

    front, stop = start_front(tmp_path_factory.mktemp("front"), certs=certs, **options)
    try:
        yield front
    finally:
        stop()


@pytest.fixture(scope="module")
def front_sasl_ssl(tmp_path_factory, front_certs):
    """Tansu behind a SASL_SSL front: SCRAM-SHA-512, SCRAM-SHA-256, PLAIN and OAUTHBEARER (with its
    token endpoint, ``front.oauth``), the server certificate for localhost/127.0.0.1 by the test CA."""
    yield from _front(tmp_path_factory, front_certs, protocol="SASL_SSL")


@pytest.fixture(scope="module")
def front_mtls(tmp_path_factory, front_certs):
    """Tansu behind an SSL front that requires a client certificate signed by the test CA."""
    yield from _front(tmp_path_factory, front_certs, protocol="SSL", client_auth=True)


@pytest.fixture(scope="module")
def front_sasl_plaintext(tmp_path_factory, front_certs):
    """Tansu behind a SASL_PLAINTEXT front (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN, OAUTHBEARER; no TLS)."""
    yield from _front(tmp_path_factory, front_certs, protocol="SASL_PLAINTEXT")


def bash_complete(*words: str) -> list[str]:
    """What the committed bash completion offers after ``kgroup WORDS...``."""
    script = (f"source {ROOT / 'completions' / 'kgroup.bash'}\n"
              f"COMP_WORDS=(kgroup {' '.join(words)}); COMP_CWORD={len(words)}\n"
              "_kgroup; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.split()


# How `make test` runs the suite in worker processes (pytest-xdist): each unit of work goes to one
# worker, whole, and units are handed out longest first (their seconds alone on the 2-core machine),
# so that the long ones start at once and end with the rest. A unit is a file, but the files on the
# test run's Spark session (the `spark` fixture), which are one unit: one worker makes that session
# (a JVM) and the others none.
SPARK_SESSION_UNIT = "spark-session"
SPARK_SESSION_FILES = (
    "integration/test_scan_spark.py",       # 47
    "integration/test_scan_status.py",      # 12
    "integration/test_scan_in_process.py",  # 8
    "integration/test_scan_html.py",        # 4
    "integration/test_scan_secure_live.py",  # 25 measured on a loaded machine (its TLS/SASL front)
)
LONGEST_FIRST = (
    SPARK_SESSION_UNIT,                     # 71
    "integration/test_front.py",            # 58: the TLS/SASL fronts' JVMs, session lifetimes waited out
    "integration/test_scan_faults.py",      # 50: Spark JVMs of their own (Ctrl-C, a broker killed)
    "integration/test_faults.py",           # 42: mostly waiting for --timeout
    "differential/test_assignors_differential.py",  # 32: Kafka's assignors in a JVM
    "integration/test_scan_cluster.py",     # 27: a standalone master, worker and executors
    "cli/test_cli_startup.py",              # 13
    "integration/test_offsets_batched.py",  # 11
    "integration/test_describe_batched.py",  # 10
    "integration/test_groups_live.py",      # 10
)
TESTS = Path(__file__).resolve().parent


def work_unit(file: str) -> str:
    """The unit of work of a test file (a path relative to tests/)."""
    return SPARK_SESSION_UNIT if file in SPARK_SESSION_FILES else file


def pytest_collection_modifyitems(config, items):
    """The units longest first, each file's tests together (its module fixtures are made once)."""
    def name(item) -> str:
        try:
            return item.path.relative_to(TESTS).as_posix()
        except ValueError:
            return str(item.path)

    rank = {unit: n for n, unit in enumerate(LONGEST_FIRST)}
    file_index: dict[str, int] = {}
    for item in items:
        file_index.setdefault(name(item), len(file_index))
    items.sort(key=lambda item: (rank.get(work_unit(name(item)), len(rank)), file_index[name(item)]))


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's scheduling by file (in the order above), with the Spark session's files as one unit."""
    from xdist.scheduler import LoadFileScheduling

    rootdir = config.rootpath

    class ByWorkUnit(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            try:
                return work_unit((rootdir / file).resolve().relative_to(TESTS).as_posix())
            except ValueError:
                return file

    return ByWorkUnit(config, log)


@pytest.fixture
def protodouble():
    """A factory of Kafka-protocol test doubles (tests/protodouble.py): ``protodouble(scenario)``
    starts one (its codec JVM and brokers), stopped at the end of the test."""
    from javadriver import require_java
    from protodouble import ProtoDouble

    require_java("the protocol test double")
    started: list[ProtoDouble] = []

    def start(scenario):
        double = ProtoDouble(scenario)
        started.append(double)
        return double

    try:
        yield start
    finally:
        for double in started:
            double.stop()
