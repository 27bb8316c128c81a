"""Regenerate the ``__consumer_offsets`` record vectors from Kafka's own classes.

kafka-clients does not hold the group coordinator's record classes (Kafka's build generates them into
the group-coordinator module), so this script makes them as Kafka's build does (the same way as
scripts/gen_share_state_vectors.py): Kafka's message generator and the group coordinator's record
specs, taken from a Kafka git repository at a given revision into a temporary directory (Kafka's
sources are never copied into kgroup), generate the record classes, CoordinatorRecordType and
CoordinatorRecordJsonConverters; these are compiled with Kafka's GroupCoordinatorRecordSerde and
CoordinatorRecordMessageFormatter and tests/java/GroupRecordVectors.java against the kafka-clients
jar. The records given to Java are:

- random records of every record type and value version kgroup knows (instances drawn from kgroup's
  layouts, in the JSON form Kafka's converters read, some with unknown tagged fields): Java reads
  each with Kafka's converters, so a field kgroup lacks or names wrongly fails here;
- the records of one streams group's life (``STREAMS_HISTORY`` below): three rebalances with
  standby and warm-up tasks, a topology change, a member leaving, offset commits, another group's
  records in between, and an epoch whose target assignment is not written yet.

For each, Kafka's serde writes the key and value bytes and Kafka's formatter prints the text; the
script writes them, with the records' specs as Kafka declares them (type id, name, valid and
flexible versions), gzipped to tests/differential/data/group-records-4.3.json.gz.

Usage (the committed vectors were made this way, with JDK 17)::

    python scripts/gen_group_records_vectors.py --kafka-git /path/to/kafka/.git \\
        --rev 0157ac7cf2c652628443b270b9801dd44b4b0154 --seed 39 --per-version 150

The output is deterministic: the same revision, seed, count and JDK give the same bytes.
"""
from __future__ import annotations

import argparse
import base64
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from kafka_sources import DATA, ROOT, Jdk, KafkaSources, client_classpath, generate_messages, write_gz

sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from differential.test_codec_kafka_messages import java_input, rand_struct  # noqa: E402

from kgroup.kmsg.layouts import RECORD_TYPES  # noqa: E402

GENERATOR = ROOT / "tests" / "java" / "GroupRecordVectors.java"
_SPECS = "group-coordinator/src/main/resources/common/message/"
KAFKA_FILES = [
    "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorRecordSerde.java",
    "server-common/src/main/java/org/apache/kafka/server/common/ApiMessageAndVersion.java",
    *(f"coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/{name}.java"
      for name in ("CoordinatorRecord", "CoordinatorRecordSerde", "Serializer", "Deserializer")),
    "tools/src/main/java/org/apache/kafka/tools/consumer/CoordinatorRecordMessageFormatter.java",
]

# -- one streams group's life (the expected history is worked out by hand in the test) ---------------
G, OTHER = "orders-app", "billing"
T0 = 1_790_000_000_000


def _tasks(by_subtopology: dict[str, list[int]]) -> list[dict[str, Any]]:
    return [{"subtopologyId": s, "partitions": ps} for s, ps in by_subtopology.items()]


def _topic(name: str, partitions: int, configs: dict[str, str] | None = None) -> dict[str, Any]:
    return {"name": name, "partitions": partitions, "replicationFactor": 3,
            "topicConfigs": [{"key": k, "value": v} for k, v in (configs or {}).items()]}


def _subtopology(sid: str, sources: list[str] = (), changelogs: list[str] = (), sinks: list[str] = (),
                 repartition_sources: list[str] = ()) -> dict[str, Any]:
    return {"subtopologyId": sid, "sourceTopics": list(sources), "sourceTopicRegex": [],
            "stateChangelogTopics": [_topic(c, 0) for c in changelogs], "repartitionSinkTopics": list(sinks),
            "repartitionSourceTopics": [_topic(r, 4, {"cleanup.policy": "delete"}) for r in repartition_sources],
            "copartitionGroups": []}


def _streams_history() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def rec(ts: int, type_id: int, key: dict[str, Any], value: dict[str, Any] | None, group: str = G) -> None:
        out.append({"timestamp": ts, "group": group, "type": type_id, "key": {"groupId": group, **key},
                    "version": None if value is None else (3 if type_id == 1 else 0), "value": value})

    def member(ts: int, m: str, process: str, port: int, zone: str, topology_epoch: int) -> None:
        rec(ts, 19, {"memberId": m}, {
            "instanceId": None, "rackId": f"rack-{zone}", "clientId": f"{G}-{process}-StreamThread-1",
            "clientHost": f"/10.0.0.{port - 8079}", "rebalanceTimeoutMs": 300000, "topologyEpoch": topology_epoch,
            "processId": process, "userEndpoint": {"host": f"10.0.0.{port - 8079}", "port": port},
            "clientTags": [{"key": "zone", "value": zone}]})

    def epoch(ts: int, e: int, validated: int) -> None:
        rec(ts, 17, {}, {"epoch": e, "metadataHash": 7_700_000_000 + e, "validatedTopologyEpoch": validated,
                         "lastAssignmentConfigs": [{"key": "num.standby.replicas", "value": "1"}]})

    def target(ts: int, m: str, active: dict, standby: dict, warmup: dict | None = None) -> None:
        rec(ts, 21, {"memberId": m}, {"activeTasks": _tasks(active), "standbyTasks": _tasks(standby),
                                       "warmupTasks": _tasks(warmup or {})})

    def current(ts: int, m: str, e: int, active: dict, standby: dict) -> None:
        rec(ts, 22, {"memberId": m}, {
            "memberEpoch": e, "previousMemberEpoch": e - 1, "state": 0,
            "activeTasks": _tasks(active), "standbyTasks": _tasks(standby), "warmupTasks": [],
            "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
            "warmupTasksPendingRevocation": []})

    def commit(ts: int, topic: str, partition: int, offset: int, group: str = G) -> None:
        rec(ts, 1, {"topic": topic, "partition": partition}, {
            "offset": offset, "leaderEpoch": 4, "metadata": "", "commitTimestamp": ts, "expireTimestamp": -1},
            group=group)
        out[-1]["key"] = {"group": group, "topic": topic, "partition": partition}

    topology_0 = [_subtopology("0", sources=["orders"], changelogs=[f"{G}-totals-changelog"],
                               sinks=[f"{G}-by-customer-repartition"]),
                  _subtopology("1", changelogs=[f"{G}-per-customer-changelog"],
                               repartition_sources=[f"{G}-by-customer-repartition"])]
    # epoch 1: m-a and m-b, one standby each
    t = T0
    rec(t, 23, {}, {"epoch": 0, "subtopologies": topology_0})
    member(t, "m-a", "p-1", 8080, "a", 0)
    member(t + 10, "m-b", "p-2", 8081, "b", 0)
    epoch(t + 10, 1, 0)
    target(t + 10, "m-a", {"0": [0, 1], "1": [0, 1]}, {"0": [2, 3], "1": [2, 3]})
    target(t + 10, "m-b", {"0": [2, 3], "1": [2, 3]}, {"0": [0, 1], "1": [0, 1]})
    rec(t + 10, 20, {}, {"assignmentEpoch": 1, "assignmentTimestamp": t + 10})
    current(t + 20, "m-a", 1, {"0": [0, 1], "1": [0, 1]}, {"0": [2, 3], "1": [2, 3]})
    current(t + 20, "m-b", 1, {"0": [2, 3], "1": [2, 3]}, {"0": [0, 1], "1": [0, 1]})
    commit(t + 5_000, "orders", 0, 100)
    commit(t + 5_000, "orders", 1, 200)
    commit(t + 5_000, "invoices", 0, 9, group=OTHER)
    commit(t + 6_000, "orders", 0, 150)
    # epoch 2: m-c joins, takes active 1_1 and 1_3, warms up for 0_1
    t = T0 + 60_000
    member(t, "m-c", "p-3", 8082, "c", 0)
    epoch(t, 2, 0)
    target(t, "m-a", {"0": [0, 1], "1": [0]}, {"0": [2, 3], "1": [1]})
    target(t, "m-b", {"0": [2, 3], "1": [2]}, {"0": [0, 1], "1": [3]})
    target(t, "m-c", {"1": [1, 3]}, {"1": [0, 2]}, {"0": [1]})
    rec(t, 20, {}, {"assignmentEpoch": 2, "assignmentTimestamp": t})
    rec(t + 1, 3, {}, {"epoch": 5, "metadataHash": 0}, group=OTHER)
    # epoch 3: m-b leaves, the topology gains subtopology 2 (refunds)
    t = T0 + 120_000
    rec(t, 19, {"memberId": "m-b"}, None)
    rec(t, 22, {"memberId": "m-b"}, None)
    rec(t, 23, {}, {"epoch": 1, "subtopologies": [*topology_0, _subtopology("2", sources=["refunds"])]})
    epoch(t, 3, 1)
    target(t, "m-a", {"0": [0, 1], "1": [0, 2], "2": [0]}, {"0": [2, 3], "1": [1, 3]})
    rec(t, 21, {"memberId": "m-b"}, None)
    target(t, "m-c", {"0": [2, 3], "1": [1, 3]}, {"0": [0, 1], "1": [0, 2]})
    rec(t, 20, {}, {"assignmentEpoch": 3, "assignmentTimestamp": t})
    commit(t + 1_000, "refunds", 0, 7)
    # epoch 4: m-d joins; its target assignment is not written yet
    t = T0 + 180_000
    member(t, "m-d", "p-4", 8083, "a", 1)
    epoch(t, 4, 1)
    return out


def _random_records(rng: random.Random, per_version: int) -> list[dict[str, Any]]:
    out = []
    for type_id in sorted(RECORD_TYPES):
        rt = RECORD_TYPES[type_id]
        for version in rt.value.version_range():
            for i in range(per_version):
                key = java_input(rt.key.fields, 0, rand_struct(rt.key.fields, 0, rng))
                if i % 10 == 0:
                    out.append({"type": type_id, "key": key, "version": None, "value": None})
                    continue
                value = java_input(rt.value.fields, version, rand_struct(rt.value.fields, version, rng))
                r = {"type": type_id, "key": key, "version": version, "value": value}
                if rt.value.flexible_in(version) and rng.random() < 0.3:
                    used = {f.tag for f in rt.value.fields if f.tag is not None}
                    tag = rng.choice([t for t in (1, 2, 5, 9, 127, 128, 300, 16384) if t not in used])
                    data = bytes(rng.randrange(256) for _ in range(rng.choice((0, 1, 4, 130))))
                    r["unknownTags"] = [{"tag": tag, "data": base64.b64encode(data).decode()}]
                out.append(r)
    return out


def _specs(kafka: KafkaSources) -> list[dict[str, Any]]:
    """Each record spec as Kafka declares it: the value's type id, name, valid and flexible versions."""
    out = []
    for name in sorted(kafka.names(_SPECS)):
        text = re.sub(r"^\s*//.*$", "", kafka.show(_SPECS + name), flags=re.M)
        spec = json.loads(text)
        if spec["type"] == "coordinator-value":
            out.append({"type": spec["apiKey"], "name": spec["name"], "validVersions": spec["validVersions"],
                        "flexibleVersions": spec["flexibleVersions"]})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kafka-git", required=True, help="a Kafka git directory (bare or .git)")
    parser.add_argument("--rev", required=True, help="the Kafka commit to take the sources from")
    parser.add_argument("--java-home", default=None, help="the JDK to compile and run with (default: java on PATH)")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--per-version", type=int, default=150)
    parser.add_argument("--out", type=Path, default=DATA / "group-records-4.3.json.gz")
    args = parser.parse_args()

    jdk = Jdk(args.java_home)
    kafka = KafkaSources(args.kafka_git, args.rev)
    classpath = client_classpath(jackson=True)
    rng = random.Random(args.seed)
    history = _streams_history()
    records = [*({"scenario": "streams-history", **r} for r in history), *_random_records(rng, args.per_version)]
    meta = {"kafka_revision": kafka.commit, "seed": args.seed, "per_version": args.per_version}
    with tempfile.TemporaryDirectory(prefix="group-records-vectors-") as tmp:
        work = Path(tmp)
        classes = work / "classes"
        generated = generate_messages(kafka, jdk, classpath, work,
                                      (_SPECS + n for n in kafka.names(_SPECS) if n.endswith(".json")),
                                      "org.apache.kafka.coordinator.group.generated")
        files = generated + kafka.write(KAFKA_FILES, work / "kafka")
        jdk.compile([*files, str(GENERATOR)], classes, classpath)
        given = work / "records.json"
        given.write_text(json.dumps({"meta": meta, "records": records}, ensure_ascii=False), encoding="utf-8")
        printed = json.loads(jdk.run(classes, classpath, "GroupRecordVectors", str(given)))
    assert len(printed["records"]) == len(records)
    vectors = {"meta": {**meta, "java_version": printed["java_version"]}, "specs": _specs(kafka), "records": [
        {**({"scenario": r["scenario"], "timestamp": r["timestamp"]} if "scenario" in r else {}),
         **({"unknown_tags": len(r["unknownTags"])} if "unknownTags" in r else {}), **p}
        for r, p in zip(records, printed["records"])]}
    write_gz(args.out, (json.dumps(vectors, ensure_ascii=True, separators=(",", ":")) + "\n").encode())
    print(f"{args.out}: {len(history)} history records, {len(records) - len(history)} random records "
          f"from Kafka {kafka.commit[:10]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
