"""Regenerate the share-group SimpleAssignor test vectors from Kafka's own classes.

Takes Kafka's ``SimpleAssignor``, its two builders and the coordinator classes that feed it from a
Kafka git repository at a given revision (``git show REV:path``, into a temporary directory: Kafka's
sources are never copied into kgroup), compiles them with tests/java/SimpleAssignorVectors.java
against the kafka-clients jar (scripts/fetch_kafka_clients.py), runs the generator and writes its
scenarios and Kafka's answers, gzipped, to tests/differential/data/.

The one change made to Kafka's sources: ``modern/Assignment.java`` loses its two ``fromRecord``
factories (they need the coordinator's generated record classes, which the jar does not hold); the
generator builds the current assignment exactly as they do (``Collectors.toMap`` of
``new HashSet<>(partitions)``).

Usage (the committed vectors were made this way, with JDK 17 and with JDK 25)::

    python scripts/gen_simple_vectors.py --kafka-git /path/to/kafka/.git \\
        --rev 0157ac7cf2c652628443b270b9801dd44b4b0154 --seed 38 --count 1500        # JDK 17 on PATH
    python scripts/gen_simple_vectors.py --kafka-git /path/to/kafka/.git \\
        --rev 0157ac7cf2c652628443b270b9801dd44b4b0154 --seed 4325 --count 600 \\
        --java-home /usr/lib/jvm/temurin-25-jdk-amd64

The output is deterministic: the same revision, seed, count and JDK give the same bytes
(tests/differential/test_simple_assignor.py checks that when KGROUP_KAFKA_GIT names a Kafka git
directory). ``--rev`` is a commit of Kafka's 4.3 line: the one above is the head of confluentinc/kafka's
``4.3`` branch on 2026-08-21 (a mirror of Apache Kafka's 4.3 with Confluent's merges; the
apache/kafka snapshot at hand had no 4.3 branch).
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from kafka_sources import Jdk, KafkaSources, client_classpath, write_gz

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "tests" / "java" / "SimpleAssignorVectors.java"
DATA = ROOT / "tests" / "differential" / "data"

_GC = "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/"
_API = "group-coordinator/group-coordinator-api/src/main/java/org/apache/kafka/coordinator/group/api/assignor/"
KAFKA_FILES = [
    *(_API + f"{name}.java" for name in (
        "GroupAssignment", "GroupSpec", "MemberAssignment", "MemberSubscription", "PartitionAssignor",
        "PartitionAssignorException", "ShareGroupPartitionAssignor", "SubscribedTopicDescriber", "SubscriptionType")),
    *(_GC + f"assignor/{name}.java" for name in (
        "SimpleAssignor", "SimpleHomogeneousAssignmentBuilder", "SimpleHeterogeneousAssignmentBuilder",
        "AssignorHelpers")),
    *(_GC + f"modern/{name}.java" for name in (
        "Assignment", "GroupSpecImpl", "MemberAssignmentImpl", "MemberSubscriptionAndAssignmentImpl",
        "SubscribedTopicDescriberImpl", "TopicIds")),
    "coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/CoordinatorMetadataImage.java",
    "coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/CoordinatorMetadataDelta.java",
    "server-common/src/main/java/org/apache/kafka/server/common/TopicIdPartition.java",
]


def strip_from_record(source: str) -> str:
    """Assignment.java without its fromRecord factories and the generated-record imports they need."""
    source = re.sub(r"^import org\.apache\.kafka\.coordinator\.group\.generated\.\w+;\n", "", source, flags=re.M)
    # each factory: its javadoc, its signature, its body up to the closing brace at method indentation
    source = re.sub(r"[ \t]*/\*\*(?:(?!\*/).)*\*/\s*public static Assignment fromRecord\(.*?\n    \}\n",
                    "", source, flags=re.S)
    if "fromRecord" in source or ".generated." in source:
        raise SystemExit("could not strip Assignment.fromRecord: the file's layout changed")
    return source


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kafka-git", required=True, help="a Kafka git directory (bare or .git)")
    parser.add_argument("--rev", required=True, help="the Kafka commit to take the classes from")
    parser.add_argument("--java-home", default=None, help="the JDK to compile and run with (default: java on PATH)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--out", type=Path, default=None,
                        help="default: tests/differential/data/simple-assignor-jdkN.json.gz")
    args = parser.parse_args()

    jdk = Jdk(args.java_home)
    kafka = KafkaSources(args.kafka_git, args.rev)
    classpath = client_classpath()
    with tempfile.TemporaryDirectory(prefix="simple-vectors-") as tmp:
        classes = Path(tmp) / "classes"
        files = kafka.write(KAFKA_FILES, Path(tmp) / "src", edit={"Assignment.java": strip_from_record})
        jdk.compile([*files, str(GENERATOR)], classes, classpath)
        vectors = jdk.run(classes, classpath, "SimpleAssignorVectors", str(args.seed), str(args.count), kafka.commit)
    major = jdk.major()
    out = args.out or DATA / f"simple-assignor-jdk{major}.json.gz"
    write_gz(out, vectors)
    print(f"{out}: {args.count} scenarios from Kafka {kafka.commit[:10]} on JDK {major}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
