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
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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

    jars = [*sorted(args.jars.glob("kafka-clients-*.jar"))[-1:], *sorted(args.jars.glob("slf4j-api-*.jar"))[-1:]]
    if len(jars) != 2:
        print(f"no kafka-clients and slf4j-api jars in {args.jars} (run scripts/fetch_kafka_clients.py)", file=sys.stderr)
        return 2
    for tool in ("git", "java", "javac"):
        if shutil.which(tool) is None:
            print(f"{tool} not found on PATH", file=sys.stderr)
            return 2
    commit = subprocess.run(["git", "--git-dir", str(args.git_dir), "rev-parse", f"{args.rev}^{{commit}}"],
                            check=True, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        sources = []
        for name in CLASSES:
            text = subprocess.run(["git", "--git-dir", str(args.git_dir), "show", f"{commit}:{PACKAGE}/{name}.java"],
                                  check=True, capture_output=True).stdout
            path = src / f"{name}.java"
            path.write_bytes(text)
            sources.append(str(path))
        classes = Path(tmp) / "classes"
        classpath = os.pathsep.join(str(j) for j in jars)
        subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", classpath,
                        *sources, str(GENERATOR)], check=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        label = f"{args.label} ({commit})"
        # slf4j without a provider says so once on stderr and logs nothing
        subprocess.run(["java", "-cp", os.pathsep.join([str(classes), classpath]), "StickyTaskAssignorVectors",
                        str(args.seed), str(args.count), str(args.out), label], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
