"""Regenerate the ``__share_group_state`` test vectors from Kafka's own classes.

kafka-clients does not hold the share coordinator's record classes (they are generated into the
share-coordinator module at build time), so this script makes them as Kafka's build does: it takes
Kafka's message generator (``generator/``) and the share coordinator's record specs from a Kafka git
repository at a given revision (``git show REV:path`` into a temporary directory: Kafka's sources are
never copied into kgroup), compiles the generator against Jackson, runs it on the specs (the
generators Kafka's build names for share-coordinator), then compiles the generated classes with
Kafka's ShareGroupStateMessageFormatter, its serde and PersisterStateBatchCombiner, and
tests/java/ShareStateVectors.java against the kafka-clients jar, and writes what the generator
prints, gzipped, to tests/differential/data/share-state-4.3.json.gz.

The one change made to Kafka's sources: MessageGenerator.java loses its command-line ``main`` (it
needs argparse4j) and its Jdk8Module registration (jackson-datatype-jdk8; used only to write
Optional values, which reading the specs never does). The generator is run through a small class
this script writes, calling ``MessageGenerator.processDirectories`` with Kafka build's arguments.

Usage (the committed vectors were made this way, with JDK 17)::

    python scripts/gen_share_state_vectors.py --kafka-git /path/to/kafka/.git \\
        --rev 0157ac7cf2c652628443b270b9801dd44b4b0154 --seed 38 --records 3000 --combines 3000

The output is deterministic: the same revision, seed, counts and JDK give the same bytes. ``--rev``
is the head of confluentinc/kafka's ``4.3`` branch on 2026-08-21 (a mirror of Apache Kafka's 4.3).
"""
from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "tests" / "java" / "ShareStateVectors.java"
DATA = ROOT / "tests" / "differential" / "data"

_SPECS = "share-coordinator/src/main/resources/common/message/"
SPECS = [_SPECS + f"{name}.json" for name in ("ShareSnapshotKey", "ShareSnapshotValue", "ShareUpdateKey",
                                               "ShareUpdateValue")]
_MSG = "generator/src/main/java/org/apache/kafka/message/"
KAFKA_FILES = [
    "share-coordinator/src/main/java/org/apache/kafka/coordinator/share/ShareCoordinatorRecordSerde.java",
    "share-coordinator/src/main/java/org/apache/kafka/coordinator/share/PersisterStateBatchCombiner.java",
    "server-common/src/main/java/org/apache/kafka/server/share/persister/PersisterStateBatch.java",
    "server-common/src/main/java/org/apache/kafka/server/common/ApiMessageAndVersion.java",
    *(f"coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/{name}.java"
      for name in ("CoordinatorRecord", "CoordinatorRecordSerde", "Serializer", "Deserializer")),
    "tools/src/main/java/org/apache/kafka/tools/consumer/CoordinatorRecordMessageFormatter.java",
    "tools/src/main/java/org/apache/kafka/tools/consumer/group/share/ShareGroupStateMessageFormatter.java",
]
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


def _show(git: str, rev: str, path: str) -> str:
    return subprocess.run(["git", f"--git-dir={git}", "show", f"{rev}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kafka-git", required=True, help="a Kafka git directory (bare or .git)")
    parser.add_argument("--rev", required=True, help="the Kafka commit to take the sources from")
    parser.add_argument("--java-home", default=None, help="the JDK to compile and run with (default: java on PATH)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--combines", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=DATA / "share-state-4.3.json.gz")
    args = parser.parse_args()

    bin_dir = Path(args.java_home) / "bin" if args.java_home else None
    javac = str(bin_dir / "javac") if bin_dir else "javac"
    java = str(bin_dir / "java") if bin_dir else "java"
    rev = subprocess.run(["git", f"--git-dir={args.kafka_git}", "rev-parse", args.rev],
                         check=True, capture_output=True, text=True).stdout.strip()
    jar = Path(subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch_kafka_clients.py")],
                              check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    jackson = [str(p) for pattern in ("jackson-databind-*.jar", "jackson-core-*.jar", "jackson-annotations-*.jar")
               for p in sorted(jar.parent.glob(pattern))[-1:]]
    if len(jackson) != 3:
        raise SystemExit(f"Jackson's jars are not next to {jar} (run the Java differential tests once)")
    classpath = os.pathsep.join([str(jar), str(jar.parent / "slf4j-api-2.0.18.jar"), *jackson])

    with tempfile.TemporaryDirectory(prefix="share-state-vectors-") as tmp:
        work = Path(tmp)
        gen_src, specs, generated, classes = work / "gen", work / "specs", work / "generated", work / "classes"
        for d in (gen_src, specs, classes):
            d.mkdir()
        listing = subprocess.run(["git", f"--git-dir={args.kafka_git}", "ls-tree", "--name-only", f"{rev}:{_MSG}"],
                                 check=True, capture_output=True, text=True).stdout.split()
        for name in (n for n in listing if n.endswith(".java")):
            text = _show(args.kafka_git, rev, _MSG + name)
            (gen_src / name).write_text(strip_main(text) if name == "MessageGenerator.java" else text)
        (gen_src / "RunMessageGenerator.java").write_text(RUNNER)
        for path in SPECS:
            (specs / Path(path).name).write_text(_show(args.kafka_git, rev, path))
        subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(work / "genclasses"), "-cp", classpath,
                        *map(str, gen_src.glob("*.java"))], check=True)
        subprocess.run([java, "-cp", os.pathsep.join([str(work / "genclasses"), classpath]), "RunMessageGenerator",
                        "org.apache.kafka.coordinator.share.generated", str(generated), str(specs)],
                       check=True, stdout=subprocess.DEVNULL)
        files = [str(p) for p in sorted(generated.glob("*.java"))]
        for path in KAFKA_FILES:
            dest = work / "kafka" / Path(path).name
            dest.parent.mkdir(exist_ok=True)
            dest.write_text(_show(args.kafka_git, rev, path))
            files.append(str(dest))
        subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", classpath,
                        *files, str(GENERATOR)], check=True)
        run = subprocess.run([java, "-cp", os.pathsep.join([str(classes), classpath]), "ShareStateVectors",
                              str(args.seed), str(args.records), str(args.combines), rev],
                             check=True, capture_output=True)
    # mtime=0: the same vectors give the same bytes
    with open(args.out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                    compresslevel=9) as gz:
        gz.write(run.stdout)
    print(f"{args.out}: {args.records} records, {args.combines} combines from Kafka {rev[:10]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
