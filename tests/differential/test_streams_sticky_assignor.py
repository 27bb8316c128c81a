"""Differential test: kgroup's streams-group sticky assignor against Kafka 4.3's own
``StickyTaskAssignor``, on vectors Kafka's class produced.

The vectors (tests/differential/data/streams-sticky-*.json.gz) are 1,500 random streams groups
each, with Kafka's answer (or the exception it threw): one file from Kafka 4.3.0, one from branch
4.3 after KAFKA-20899. tests/java/StickyTaskAssignorVectors.java made them, compiled with Kafka's
group-coordinator sources by scripts/gen_streams_sticky_vectors.py (its docstring has the
commands and revisions). The coordinator's classes are in no published jar, so the vectors are
committed and this test reads them; with KGROUP_KAFKA_GIT naming a Kafka git directory,
test_the_vectors_are_kafkas regenerates them and checks they are the committed ones.

Every member's active, standby and warm-up tasks must equal Kafka's (sorted, as the coordinator
writes them), and where Kafka throws, kgroup raises TaskAssignorError with Kafka's message. A
failure prints the first mismatching scenarios as JSON, ready to replay.
"""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgroup.java.strings import java_string_hash
from kgroup.whatif.assignors.streams_sticky import StreamsMemberSpec, Subtopology, TaskAssignorError, assign

pytestmark = pytest.mark.java  # Kafka's own class answered these (vectors it produced)

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
# file -> (kafka_20899, the revision the vectors were made from)
VECTORS = {
    "streams-sticky-4.3.0.json.gz": (False, "49fc2e1cfbb04f57b09de99ab811bda5312f5a3e"),
    "streams-sticky-4.3.json.gz": (True, "0157ac7cf2c652628443b270b9801dd44b4b0154"),
}
KAFKA_EXCEPTION = "org.apache.kafka.coordinator.group.streams.assignor.TaskAssignorException"
SHOW_MISMATCHES = 3


def load(name: str) -> dict:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        return json.load(f)


def kgroup_answer(scenario: dict, kafka_20899: bool) -> dict:
    members = [
        StreamsMemberSpec(member_id=m["id"], process_id=m["process"], active=m["active"], standby=m["standby"],
                          warmup=m["warmup"], client_tags=m["tags"], instance_id=m.get("instance"),
                          rack_id=m.get("rack"))
        for m in scenario["members"]
    ]
    subtopologies = [Subtopology(sub_id, partitions, stateful) for sub_id, partitions, stateful in scenario["subtopologies"]]
    try:
        result = assign(members, subtopologies, num_standby_replicas=scenario["num_standby_replicas"],
                        order=scenario["order"], kafka_20899=kafka_20899)
    except TaskAssignorError as exc:
        return {"error": {"class": KAFKA_EXCEPTION, "message": str(exc)}}
    return {"result": {
        member_id: {kind: {sub: list(parts) for sub, parts in getattr(tasks, kind).items()}
                    for kind in ("active", "standby", "warmup")}
        for member_id, tasks in result.items()
    }}


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_kgroup_answers_as_kafka_on_every_vector(name):
    kafka_20899, commit = VECTORS[name]
    doc = load(name)
    assert doc["kafka"].endswith(f"({commit})")
    scenarios = doc["scenarios"]
    assert len(scenarios) >= 1000
    mismatches = []
    for scenario in scenarios:
        expected = {k: scenario[k] for k in ("result", "error") if k in scenario}
        got = kgroup_answer(scenario, kafka_20899)
        if got != expected:
            mismatches.append({"scenario": scenario, "kgroup": got})
    shown = "\n".join(json.dumps(m, ensure_ascii=False) for m in mismatches[:SHOW_MISMATCHES])
    assert not mismatches, f"{len(mismatches)} of {len(scenarios)} differ from Kafka's answer:\n{shown}"


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_the_vectors_cover_what_the_answer_depends_on(name):
    """The vectors hold the cases that tell a port apart from Kafka: answers that change with the
    member order, each standby count, stale and doubled tasks, warm-ups, ids sharing a hash,
    several members per process, and the exception."""
    scenarios = load(name)["scenarios"]
    assert sum(s["order_sensitive"] for s in scenarios) >= 300
    assert {s["num_standby_replicas"] for s in scenarios} == {0, 1, 2}
    assert {s["order"] for s in scenarios} == {"java", "given"}
    assert {s["kind"] for s in scenarios} == {"fresh", "chain", "random"}
    assert max(len(s["members"]) for s in scenarios) == 10
    assert max(len(s["subtopologies"]) for s in scenarios) == 4
    assert max(p for s in scenarios for _, p, _ in s["subtopologies"]) == 16
    errors = [s for s in scenarios if "error" in s]
    assert errors and all(not s["members"] and s["error"]["class"] == KAFKA_EXCEPTION for s in errors)

    def tasks(s, kind):
        return [(sub, p) for m in s["members"] for sub, ps in m[kind].items() for p in ps]

    def stale(s):
        counts = {sub: n for sub, n, _ in s["subtopologies"]}
        return any(sub not in counts or p >= counts[sub] for kind in ("active", "standby") for sub, p in tasks(s, kind))

    assert sum(stale(s) for s in scenarios) >= 100
    assert sum(len(tasks(s, "active")) != len(set(tasks(s, "active"))) for s in scenarios) >= 50  # doubled claims
    assert sum(bool(tasks(s, "warmup")) for s in scenarios) >= 100
    with_standbys = [s for s in scenarios if "result" in s and any(m["standby"] for m in s["result"].values())]
    assert len(with_standbys) >= 400
    assert all(not m["warmup"] for s in scenarios if "result" in s for m in s["result"].values())
    shared_process = [s for s in scenarios if len({m["process"] for m in s["members"]}) < len(s["members"])]
    assert len(shared_process) >= 500
    def ids_collide(s):
        hashes = [java_string_hash(m["id"]) for m in s["members"]]
        return len(set(hashes)) < len(hashes)

    assert sum(ids_collide(s) for s in scenarios) >= 100


@pytest.mark.skipif(not os.environ.get("KGROUP_KAFKA_GIT"), reason="KGROUP_KAFKA_GIT (a Kafka git directory) not set")
@pytest.mark.parametrize("name", sorted(VECTORS))
def test_the_vectors_are_kafkas(name, tmp_path):
    """Regenerating the vectors from Kafka's sources gives the committed ones."""
    _, commit = VECTORS[name]
    label = name.removeprefix("streams-sticky-").removesuffix(".json.gz")
    out = tmp_path / name
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_streams_sticky_vectors.py"),
                    os.environ["KGROUP_KAFKA_GIT"], commit, label, str(out)], check=True, capture_output=True)
    with gzip.open(out, "rt", encoding="utf-8") as f:
        assert json.load(f) == load(name)
