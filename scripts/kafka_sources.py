"""What the vector generators share: Kafka's sources at a revision of a Kafka git directory (read with
``git show``, written only into a temporary directory), a JDK to compile and run a generator with,
the kafka-clients class path of ``.cache/``, and a gzip writer whose bytes depend on the data only.

Used by scripts/gen_*_vectors.py (run as scripts: this directory is first on their ``sys.path``).
"""
from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "differential" / "data"


MESSAGE_GENERATOR = "generator/src/main/java/org/apache/kafka/message/"
RUNNER = """import java.util.List;

public final class RunMessageGenerator {
    public static void main(String[] args) throws Exception {
        org.apache.kafka.message.MessageGenerator.processDirectories(args[0], args[1], args[2],
            List.of("CoordinatorRecordTypeGenerator", "CoordinatorRecordJsonConvertersGenerator"),
            List.of("MessageDataGenerator", "JsonConverterGenerator"));
    }
}
"""


def strip_main(source: str) -> str:
    """MessageGenerator.java without its argparse4j ``main`` and its Jdk8Module registration."""
    source = re.sub(r"^import (static )?net\.sourceforge\.argparse4j\.[\w.]+;\n", "", source, flags=re.M)
    source = re.sub(r"^import com\.fasterxml\.jackson\.datatype\.jdk8\.Jdk8Module;\n", "", source, flags=re.M)
    source = source.replace("JSON_SERDE.registerModule(new Jdk8Module());\n", "")
    source = re.sub(r"\n    public static void main\(String\[\] args\) throws Exception \{\n.*?\n    \}\n", "\n",
                    source, flags=re.S)
    if "argparse4j" in source or "Jdk8Module" in source or "void main(" in source:
        raise SystemExit("could not strip MessageGenerator.main: the file's layout changed")
    return source


def generate_messages(kafka: "KafkaSources", jdk: "Jdk", classpath: str, work: Path, specs: Iterable[str],
                      package: str) -> list[str]:
    """The Java files Kafka's message generator makes of the coordinator record ``specs`` into ``package``,
    run as Kafka's build runs it (its sources at the kafka revision, compiled and run in ``work``)."""
    gen, spec_dir, generated = work / "gen", work / "specs", work / "generated"
    gen_files = kafka.write((MESSAGE_GENERATOR + n for n in kafka.names(MESSAGE_GENERATOR) if n.endswith(".java")),
                            gen, edit={"MessageGenerator.java": strip_main})
    (gen / "RunMessageGenerator.java").write_text(RUNNER)
    kafka.write(specs, spec_dir)
    jdk.compile([*gen_files, str(gen / "RunMessageGenerator.java")], work / "genclasses", classpath)
    jdk.run(work / "genclasses", classpath, "RunMessageGenerator", package, str(generated), str(spec_dir))
    return [str(p) for p in sorted(generated.glob("*.java"))]


def _git(git_dir: Path | str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


class KafkaSources:
    """Files of one Kafka commit (``rev`` resolved once, so every file comes from the same commit)."""

    def __init__(self, git_dir: Path | str, rev: str) -> None:
        if shutil.which("git") is None:
            raise SystemExit("git not found on PATH")
        self.git_dir = git_dir
        self.commit = _git(git_dir, "rev-parse", f"{rev}^{{commit}}").decode().strip()

    def show(self, path: str) -> str:
        return _git(self.git_dir, "show", f"{self.commit}:{path}").decode("utf-8")

    def names(self, directory: str) -> list[str]:
        return _git(self.git_dir, "ls-tree", "--name-only", f"{self.commit}:{directory}").decode().split()

    def write(self, paths: Iterable[str], into: Path, edit: dict[str, object] | None = None) -> list[str]:
        """Each path's text written as ``into/<file name>`` (``edit`` maps a file name to a function
        applied to its text first); the written paths, for javac."""
        into.mkdir(parents=True, exist_ok=True)
        written = []
        for path in paths:
            name = Path(path).name
            text = self.show(path)
            change = (edit or {}).get(name)
            if callable(change):
                text = change(text)
            (into / name).write_text(text, encoding="utf-8")
            written.append(str(into / name))
        return written


class Jdk:
    """``java``/``javac`` of ``java_home`` (default: those on PATH)."""

    def __init__(self, java_home: str | None = None) -> None:
        bin_dir = Path(java_home) / "bin" if java_home else None
        self.java = str(bin_dir / "java") if bin_dir else "java"
        self.javac = str(bin_dir / "javac") if bin_dir else "javac"
        for tool in (self.java, self.javac):
            if shutil.which(tool) is None:
                raise SystemExit(f"{tool} not found")

    def compile(self, sources: Iterable[str], classes: Path, classpath: str) -> None:
        subprocess.run([self.javac, "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", classpath,
                        *sources], check=True)

    def run(self, classes: Path, classpath: str, main: str, *args: str, capture: bool = True) -> bytes:
        """The generator's stdout (slf4j without a provider says so once on stderr and logs nothing)."""
        done = subprocess.run([self.java, "-cp", os.pathsep.join([str(classes), classpath]), main, *args],
                              check=True, stdout=subprocess.PIPE if capture else None)
        return done.stdout or b""

    def major(self) -> str:
        settings = subprocess.run([self.java, "-XshowSettings:properties", "-version"], capture_output=True,
                                  text=True)
        found = re.search(r"java\.specification\.version = (\d+)", settings.stderr)
        return found.group(1) if found else "unknown"


def client_classpath(jackson: bool = False, jars: Path | None = None) -> str:
    """kafka-clients and slf4j-api (and Jackson's three jars) from ``jars`` (default: fetched into
    ``.cache/`` by scripts/fetch_kafka_clients.py)."""
    if jars is None:
        fetched = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch_kafka_clients.py")],
                                 check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        jars = Path(fetched).parent
    patterns = ["kafka-clients-*.jar", "slf4j-api-*.jar"]
    if jackson:
        patterns += ["jackson-databind-*.jar", "jackson-core-*.jar", "jackson-annotations-*.jar"]
    found = [str(p) for pattern in patterns for p in sorted(jars.glob(pattern))[-1:]]
    if len(found) != len(patterns):
        raise SystemExit(f"not every jar of {patterns} is in {jars} (run the Java differential tests once)")
    return os.pathsep.join(found)


def write_gz(out: Path, data: bytes) -> None:
    """gzip with mtime 0 and no file name: the same vectors give the same bytes."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                compresslevel=9) as gz:
        gz.write(data)
