"""Runs Apache Kafka's own assignors (kafka-clients jar) through tests/java/AssignorDriver.java.

Used by the differential tests only.  The jar comes from scripts/fetch_kafka_clients.py
(or KGROUP_KAFKA_CLIENTS_JAR); the driver is compiled into tests/java/build/ (git-ignored).
kafka-clients needs the slf4j API at runtime and the jar does not bundle it, so a minimal
no-op ``org.slf4j.Logger``/``LoggerFactory`` is generated and compiled next to the driver:
nothing else is downloaded.
"""
from __future__ import annotations

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
DRIVER_SOURCE = JAVA_DIR / "AssignorDriver.java"

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


class JavaUnavailable(RuntimeError):
    """The JDK or the kafka-clients jar cannot be obtained."""


def find_jar() -> Path:
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
    """Compile the driver (and the slf4j stub) if needed; return (jar, classes dir)."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            raise JavaUnavailable(f"{tool} not found on PATH")
    jar = find_jar()
    classes = BUILD_DIR / "classes"
    stamp = classes / ".stamp"
    digest = hashlib.sha256()
    for part in (DRIVER_SOURCE.read_bytes(), _LOGGER_STUB.encode(), _LOGGER_FACTORY_STUB.encode()):
        digest.update(part)
    fingerprint = f"{digest.hexdigest()} {jar} {jar.stat().st_size}"
    if stamp.is_file() and stamp.read_text() == fingerprint:
        return jar, classes
    stub_dir = BUILD_DIR / "stubsrc" / "org" / "slf4j"
    stub_dir.mkdir(parents=True, exist_ok=True)
    (stub_dir / "Logger.java").write_text(_LOGGER_STUB)
    (stub_dir / "LoggerFactory.java").write_text(_LOGGER_FACTORY_STUB)
    if classes.exists():
        shutil.rmtree(classes)
    classes.mkdir(parents=True)
    cmd = [
        "javac", "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", str(jar),
        str(stub_dir / "Logger.java"), str(stub_dir / "LoggerFactory.java"), str(DRIVER_SOURCE),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"javac failed:\n{proc.stdout}\n{proc.stderr}")
    stamp.write_text(fingerprint)
    return jar, classes


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
            ["java", "-Xss16m", "-XX:+UseSerialGC", "-cp", f"{classes}{os.pathsep}{jar}", "AssignorDriver"],
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
                current.hash_order = (current.hash_order or []) + [int(line)]
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
