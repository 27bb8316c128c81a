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
import sys
import tempfile
from pathlib import Path

from kafka_sources import Jdk, KafkaSources, client_classpath, generate_messages, write_gz

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "tests" / "java" / "ShareStateVectors.java"
DATA = ROOT / "tests" / "differential" / "data"

_SPECS = "share-coordinator/src/main/resources/common/message/"
SPECS = [_SPECS + f"{name}.json" for name in ("ShareSnapshotKey", "ShareSnapshotValue", "ShareUpdateKey",
                                               "ShareUpdateValue")]
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

    jdk = Jdk(args.java_home)
    kafka = KafkaSources(args.kafka_git, args.rev)
    classpath = client_classpath(jackson=True)
    with tempfile.TemporaryDirectory(prefix="share-state-vectors-") as tmp:
        work = Path(tmp)
        classes = work / "classes"
        generated = generate_messages(kafka, jdk, classpath, work, SPECS, "org.apache.kafka.coordinator.share.generated")
        files = generated + kafka.write(KAFKA_FILES, work / "kafka")
        jdk.compile([*files, str(GENERATOR)], classes, classpath)
        vectors = jdk.run(classes, classpath, "ShareStateVectors", str(args.seed), str(args.records),
                          str(args.combines), kafka.commit)
    write_gz(args.out, vectors)
    print(f"{args.out}: {args.records} records, {args.combines} combines from Kafka {kafka.commit[:10]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
