"""``__share_group_state`` records and the share coordinator's batch combining against Kafka 4.3's own classes.

The vectors (tests/differential/data/share-state-4.3.json.gz) were made by tests/java/ShareStateVectors.java
compiled with the classes Kafka's message generator makes from the share coordinator's record specs and
with Kafka's ShareGroupStateMessageFormatter, serde and PersisterStateBatchCombiner, all built from Kafka's
sources at the revision their "meta" names (regenerate: scripts/gen_share_state_vectors.py):

- each record: the key and value bytes Kafka's serde wrote for random ShareSnapshot/ShareUpdate
  records (tombstones, Unicode group ids, extreme numbers, tagged deliveryCompleteCount set or at its
  default, unknown tagged fields), and the text Kafka's formatter printed for them. kgroup must read
  the bytes and print the same text byte for byte, and write the same bytes back (but for unknown
  tags, which Kafka keeps and kgroup skips);
- each combine: random batches so far, new batches and a start offset, and what
  PersisterStateBatchCombiner.combineStateBatches() returned: kgroup's combine must return the
  same batches in the same order.
"""
from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest
from regenerate import regenerate

from kgroup.java.jackson import dumps
from kgroup.offsets_log.records import decode_share_state, encode_share_state, kafka_json
from kgroup.offsets_log.share_state import Batch, combine

pytestmark = pytest.mark.java

VECTORS = Path(__file__).resolve().parent / "data" / "share-state-4.3.json.gz"


@pytest.fixture(scope="module")
def vectors() -> dict:
    with gzip.open(VECTORS, "rt", encoding="utf-8") as f:
        return json.load(f)


def test_every_record_prints_as_kafkas_formatter_prints_it(vectors):
    records = vectors["records"]
    assert len(records) >= 3000 and vectors["meta"]["kafka_revision"].startswith("0157ac7cf2")
    kinds = set()
    mismatches = []
    for i, r in enumerate(records):
        key = base64.b64decode(r["key"])
        value = None if r["value"] is None else base64.b64decode(r["value"])
        rec = decode_share_state(key, value)
        kinds.add((rec.type, rec.value is None))
        if dumps(kafka_json(rec)) != r["json"]:
            mismatches.append((i, r["json"], dumps(kafka_json(rec))))
    assert kinds == {(0, False), (0, True), (1, False), (1, True)}
    assert mismatches == []


def test_records_without_unknown_tags_encode_to_kafkas_bytes(vectors):
    same = 0
    for r in vectors["records"]:
        key = base64.b64decode(r["key"])
        value = None if r["value"] is None else base64.b64decode(r["value"])
        rec = decode_share_state(key, value)
        k2, v2 = encode_share_state(rec.type, rec.key, rec.version, rec.value)
        assert k2 == key
        if v2 != value:  # what kgroup writes back still reads as the same record
            assert dumps(kafka_json(decode_share_state(k2, v2))) == r["json"]
        same += v2 == value
    # one value in about six carries unknown tagged fields (kgroup skips them, so writes other bytes)
    assert same >= len(vectors["records"]) * 2 // 3


def test_batch_combining_matches_kafkas_combiner(vectors):
    combines = vectors["combines"]
    assert len(combines) >= 3000
    nontrivial = 0
    for c in combines:
        def batches(rows: list) -> list[Batch]:
            return [Batch(first, last, count, state) for first, last, state, count in rows]

        expected = batches(c["result"])
        assert combine(batches(c["so_far"]), batches(c["new"]), c["start"]) == expected, c
        nontrivial += len(c["so_far"]) + len(c["new"]) > len(expected) > 0
    assert nontrivial >= 500  # many merged or pruned something


def test_vectors_regenerate_byte_for_byte(tmp_path, vectors):
    """The generator run again at the vectors' revision and seed on JDK 17 gives the committed file,
    byte for byte (opt-in: tests/regenerate.py)."""
    meta = vectors["meta"]
    out = regenerate("gen_share_state_vectors.py", tmp_path / "vectors.json.gz", "--rev", meta["kafka_revision"],
                     "--seed", str(meta["seed"]), "--records", str(len(vectors["records"])),
                     "--combines", str(len(vectors["combines"])))
    assert out.read_bytes() == VECTORS.read_bytes()
