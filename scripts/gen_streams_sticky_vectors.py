"""Regenerate the streams-group StickyTaskAssignor vectors from Kafka's own sources.

The vectors (tests/differential/data/streams-sticky-*.json.gz) hold random streams groups and what
Kafka's ``org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor`` answers for each;
tests/differential/test_streams_sticky_assignor.py checks kgroup's port against every one. That
class lives in Kafka's group-coordinator module, which no published client jar contains, so this
script takes its package from a Kafka git directory at a revision (``git show REV:PATH``), compiles
it with tests/java/StickyTaskAssignorVectors.java against the kafka-clients and slf4j-api jars of
``.cache/`` (scripts/fetch_kafka_clients.py) into a temporary directory, and runs the generator.
Nothing of Kafka's is written into the repository but the vectors.

Usage (the committed vectors; a clone of apache/kafka or confluentinc/kafka as GIT_DIR)::

    python scripts/gen_streams_sticky_vectors.py GIT_DIR v8.3.0 4.3.0 \\
        tests/differential/data/streams-sticky-4.3.0.json.gz
    python scripts/gen_streams_sticky_vectors.py GIT_DIR 0157ac7cf2c652628443b270b9801dd44b4b0154 4.3 \\
        tests/differential/data/streams-sticky-4.3.json.gz

``v8.3.0`` is Confluent's tag of the Apache Kafka 4.3.0 sources (apache/kafka's ``4.3.0`` tag works
the same); 0157ac7cf2 is the head of branch 4.3 on 2026-08-21, which has KAFKA-20899 (7b9d8474eb,
standby placement) that 4.3.0 lacks. ``--seed`` and ``--count`` default to the committed vectors'.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from kafka_sources import Jdk, KafkaSources, client_classpath

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/streams/assignor"
# the assignor and what it needs (MockAssignor, the package's other class, is not needed)
CLASSES = ("AssignmentMemberSpec", "GroupAssignment", "GroupSpec", "GroupSpecImpl", "MemberAssignment",
           "ProcessState", "StickyTaskAssignor", "TaskAssignor", "TaskAssignorException", "TaskId",
           "TopologyDescriber")
GENERATOR = ROOT / "tests" / "java" / "StickyTaskAssignorVectors.java"
SEED = 20260839
COUNT = 1500


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", type=Path, help="a Kafka git directory (bare or not)")
    parser.add_argument("rev", help="the revision whose sources to compile")
    parser.add_argument("label", help="what the vectors say they come from (e.g. 4.3.0)")
    parser.add_argument("out", type=Path, help="the .json.gz to write")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--jars", type=Path, default=ROOT / ".cache", help="where kafka-clients and slf4j-api are")
    args = parser.parse_args()

    jdk = Jdk()
    kafka = KafkaSources(args.git_dir, args.rev)
    classpath = client_classpath(jars=args.jars)
    with tempfile.TemporaryDirectory() as tmp:
        classes = Path(tmp) / "classes"
        sources = kafka.write((f"{PACKAGE}/{name}.java" for name in CLASSES), Path(tmp) / "src")
        jdk.compile([*sources, str(GENERATOR)], classes, classpath)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        # the generator writes the .json.gz itself
        jdk.run(classes, classpath, "StickyTaskAssignorVectors", str(args.seed), str(args.count), str(args.out),
                f"{args.label} ({kafka.commit})", capture=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
