"""The share-group ``simple`` assignor against Kafka 4.3's own SimpleAssignor, byte for byte.

The vectors (tests/differential/data/simple-assignor-jdk*.json.gz) are random scenarios and what
Kafka's classes returned for them, made by tests/java/SimpleAssignorVectors.java compiled against
Kafka's sources at the revision their "meta" names (regenerate: scripts/gen_simple_vectors.py).
Each scenario's answer must equal Kafka's exactly: the same members in the result map's order,
for each its topics and partitions in the order Java iterates them, or the same exception.
"""
from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from kgroup.whatif.assignors import simple

pytestmark = pytest.mark.java

DATA = Path(__file__).resolve().parent / "data"
VECTORS = {17: DATA / "simple-assignor-jdk17.json.gz", 25: DATA / "simple-assignor-jdk25.json.gz"}


def _load(jdk: int) -> dict:
    with gzip.open(VECTORS[jdk], "rt", encoding="utf-8") as f:
        return json.load(f)


def _inputs(scenario: dict) -> tuple[list[simple.ShareTopic], list[simple.ShareMember], dict | None]:
    topics = [simple.ShareTopic(tid, name, count) for tid, name, count in scenario["topics"]]
    members = [simple.ShareMember(mid, tuple(names), tuple((tid, tuple(ps)) for tid, ps in current))
               for mid, names, current in scenario["members"]]
    assignable = None if scenario["assignable"] is None else {tid: ps for tid, ps in scenario["assignable"]}
    return topics, members, assignable


def _kafka_answer(scenario: dict) -> list | str:
    if "error" in scenario:
        return scenario["error"]
    return [[mid, [[tid, ps] for tid, ps in topics]] for mid, topics in scenario["result"]]


def _kgroup_answer(scenario: dict, jdk: int) -> list | str:
    topics, members, assignable = _inputs(scenario)
    try:
        result = simple.assign(topics, members, assignable=assignable, jdk=jdk)
    except simple.SimpleAssignorThrows as exc:
        return exc.java_exception
    return [[mid, [[tid, ps] for tid, ps in per_topic.items()]] for mid, per_topic in result.items()]


@pytest.mark.parametrize("jdk", sorted(VECTORS))
def test_every_vector_matches_kafka(jdk):
    vectors = _load(jdk)
    meta, scenarios = vectors["meta"], vectors["scenarios"]
    assert meta["java_version"].split(".")[0] == str(jdk)
    assert len(scenarios) >= (1000 if jdk == 17 else 300)
    mismatches = []
    for scenario in scenarios:
        _, members, _ = _inputs(scenario)
        assert simple.subscription_type(members) == scenario["subscription_type"], scenario["seed"]
        expected, got = _kafka_answer(scenario), _kgroup_answer(scenario, jdk)
        if got != expected:
            mismatches.append((scenario["seed"], scenario["kind"], expected, got))
    assert not mismatches, f"{len(mismatches)} of {len(scenarios)} differ; first: {mismatches[0]}"


def test_vectors_cover_what_they_must():
    """The committed vectors exercise both builders, stale input, the exception, shared partitions,
    colliding member ids and more members than partitions: a regenerated file must too."""
    scenarios = _load(17)["scenarios"]
    kinds = Counter(s["subscription_type"] for s in scenarios)
    assert kinds["HOMOGENEOUS"] >= 300 and kinds["HETEROGENEOUS"] >= 300
    errors = Counter((s["subscription_type"], s.get("error")) for s in scenarios if "error" in s)
    assert errors[("HOMOGENEOUS", "java.util.NoSuchElementException")] >= 5
    assert errors[("HETEROGENEOUS", "java.util.NoSuchElementException")] >= 5
    assert set(e for _, e in errors) == {"java.util.NoSuchElementException"}

    def shared(s: dict) -> bool:  # a partition given to two members
        seen: Counter = Counter((tid, p) for _, topics in s.get("result", []) for tid, ps in topics for p in ps)
        return any(n > 1 for n in seen.values())

    assert sum(map(shared, scenarios)) >= 100
    assert sum(1 for s in scenarios if not s["members"]) >= 20
    assert sum(1 for s in scenarios if s["assignable"] is not None) >= 500
    hashes = [[simple_hash(mid) for mid, _, _ in s["members"]] for s in scenarios]
    assert sum(1 for hs in hashes if len(hs) >= 3 and len(set(hs)) == 1) >= 20  # every id one hash
    # an empty topic list in a result (a quirk Kafka keeps)
    assert any(ps == [] for s in scenarios for _, topics in s.get("result", []) for _, ps in topics)


def simple_hash(text: str) -> int:
    from kgroup.java.strings import java_string_hash

    return java_string_hash(text)


def test_the_jdk_changes_some_answers():
    """``new HashSet<>(collection)`` sizes its table differently from JDK 19 on: each vector file
    has scenarios whose answer the other JDK's emulation gets wrong, so ``jdk`` is not decoration."""
    for jdk, other in ((17, 25), (25, 17)):
        scenarios = _load(jdk)["scenarios"]
        assert sum(_kafka_answer(s) != _kgroup_answer(s, other) for s in scenarios) >= 5, jdk


def test_vectors_include_javas_rounding_surplus():
    """Some homogeneous scenarios have M and P where the members' desired counts add up to more than
    desired_sharing * P in doubles (7 members, 29 partitions: 7 * (29 / 7.0) > 29)."""
    from kgroup.whatif.assignors.simple.model import Group, desired_counts

    found = 0
    for jdk in sorted(VECTORS):
        for scenario in _load(jdk)["scenarios"]:
            topics, members, assignable = _inputs(scenario)
            if not members or scenario["subscription_type"] != simple.HOMOGENEOUS:
                continue
            group = Group(topics, members, assignable, jdk)
            count = sum(len(group.target_partitions(tid)) for tid in group.subscriptions[0])
            sharing = (len(members) + count - 1) // count if count else 0
            found += count > 0 and sum(desired_counts(sharing, count, len(members))) > sharing * count
    assert found >= 3


def test_vectors_regenerate_byte_for_byte(tmp_path):
    """With Kafka's git repository at hand (KGROUP_KAFKA_GIT), the generator run again at the
    vectors' revision and seed on the JDK on PATH gives the committed file, byte for byte.
    Opt-in: a fresh clone has no Kafka repository (the vectors are what it checks)."""
    import re
    import subprocess

    from regenerate import regenerate

    version = subprocess.run(["java", "-XshowSettings:properties", "-version"], capture_output=True, text=True)
    found = re.search(r"java\.specification\.version = (\d+)", version.stderr)
    jdk = int(found.group(1)) if found else 0
    if jdk not in VECTORS:
        pytest.skip(f"no vectors for the JDK on PATH ({jdk})")
    meta = _load(jdk)["meta"]
    out = regenerate("gen_simple_vectors.py", tmp_path / "vectors.json.gz", "--rev", meta["kafka_revision"],
                     "--seed", str(meta["seed"]), "--count", str(meta["count"]))
    assert out.read_bytes() == VECTORS[jdk].read_bytes()
