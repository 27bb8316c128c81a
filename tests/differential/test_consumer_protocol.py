"""kgroup.kmsg.consumer_protocol against kafka-clients' ConsumerProtocol.

Three directions, each with thousands of random scenarios, in one JVM run of
tests/java/ConsumerProtocolDriver.java:

* Java serializes a Subscription/Assignment (``ConsumerProtocol.serializeSubscription``
  at versions 0-3, and above 3, which Kafka writes as 3); Python decodes the bytes to
  the message Java reads back, and to what the scenario put in.
* Python encodes a random message at versions 0-3; Java deserializes it to the values
  the test expects from the scenario and the version's fields.
* Python's bytes, corrupted (truncated, other version headers, flipped bytes): Python and
  Java either both refuse them or both read the same message.
"""
from __future__ import annotations

import random
import struct

import pytest

import javadriver
from kgroup.kmsg.codec import DecodeError
from kgroup.kmsg.consumer_protocol import (decode_assignment, decode_subscription,
                                                  encode_assignment, encode_subscription)

pytestmark = pytest.mark.java

N = 2_500  # scenarios per kind (subscription, assignment) and direction
WORDS = ["orders", "stock", "a", "", "topic-with.dots_and-dashes", "Ünïcödé", "分区",
         "emoji-\U0001F600", "\U00010348x", "tab\there", "z" * 200, "\u00e9\u0301"]


def enc(text: str | None) -> str:
    return "-" if text is None else "_" + text.encode("utf-16-be", "surrogatepass").hex()


def unenc(text: str) -> str | None:
    return None if text == "-" else bytes.fromhex(text[1:]).decode("utf-16-be", "surrogatepass")


def enc_bytes(raw: bytes | None) -> str:
    return "-" if raw is None else "_" + raw.hex()


def unenc_bytes(text: str) -> bytes | None:
    return None if text == "-" else bytes.fromhex(text[1:])


def unenc_tps(text: str, key: str) -> list[dict]:
    if text == ".":
        return []
    out = []
    for item in text.split(";"):
        topic, parts = item.split("=")
        out.append({key: unenc(topic), "partitions": [int(p) for p in parts.split(",")] if parts else []})
    return out


def parse_r(line: str, subscription: bool) -> dict | None:
    """Java's reading: the raw ConsumerProtocolSubscription/Assignment, or None when refused."""
    if line.startswith("E "):
        return None
    f = line.split(" ")
    assert f[0] == "R", line
    if subscription:
        return {"topics": [] if f[1] == "." else [unenc(t) for t in f[1].split(",")],
                "userData": unenc_bytes(f[2]), "ownedPartitions": unenc_tps(f[3], "topic"),
                "generationId": int(f[4]), "rackId": unenc(f[5])}
    return {"assignedPartitions": unenc_tps(f[1], "topic"), "userData": unenc_bytes(f[2])}


# -- random values --------------------------------------------------------------

def rand_str(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(WORDS)
    pool = "abcXYZ019._-é中\U0001F680\U00010000\u007f\x01"
    return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 12)))


def rand_int32(rng: random.Random) -> int:
    return rng.choice((0, 1, -1, 2**31 - 1, -2**31, rng.randrange(0, 100), rng.randrange(-2**31, 2**31)))


def rand_user_data(rng: random.Random) -> bytes | None:
    return rng.choice((None, b"", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))))


def rand_tps(rng: random.Random) -> list[tuple[str, int]]:
    topics = [rand_str(rng) for _ in range(rng.randrange(0, 4))]
    if not topics:
        return []
    return [(rng.choice(topics), rng.choice((0, 1, 2, 7, rng.randrange(0, 1000), rand_int32(rng))))
            for _ in range(rng.randrange(0, 8))]


def rand_tp_structs(rng: random.Random, key: str) -> list[dict]:
    return [{key: rand_str(rng), "partitions": [rand_int32(rng) for _ in range(rng.randrange(0, 5))]}
            for _ in range(rng.randrange(0, 4))]


def flat(tps: list[tuple[str, int]]) -> str:
    return ",".join(f"{enc(t)}:{p}" for t, p in tps) or "."


def flatten(structs: list[dict]) -> list[tuple[str, int]]:
    return [(s["topic"], p) for s in structs for p in s["partitions"]]


def without_version(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "version"}


# -- scenarios -------------------------------------------------------------------

def java_serializes(rng: random.Random) -> tuple[list[str], list[tuple]]:
    lines, checks = [], []
    for _ in range(N):
        version = rng.choice((0, 1, 2, 3, 3, 4, 7))
        topics = [rand_str(rng) for _ in range(rng.randrange(0, 5))]
        user_data, owned = rand_user_data(rng), rand_tps(rng)
        generation, rack = rand_int32(rng), rng.choice((None, "", rand_str(rng)))
        lines.append(f"SS {version} {','.join(enc(t) for t in topics) or '.'} {enc_bytes(user_data)} "
                     f"{flat(owned)} {generation} {enc(rack)}")
        checks.append(("SS", version, topics, user_data, owned, generation, rack))
    for _ in range(N):
        version = rng.choice((0, 1, 2, 3, 5))
        assigned, user_data = rand_tps(rng), rand_user_data(rng)
        lines.append(f"SA {version} {flat(assigned)} {enc_bytes(user_data)}")
        checks.append(("SA", version, assigned, user_data))
    return lines, checks


def python_encodes(rng: random.Random) -> tuple[list[str], list[tuple]]:
    lines, checks = [], []
    for _ in range(N):
        version = rng.randrange(0, 4)
        sub = {"topics": [rand_str(rng) for _ in range(rng.randrange(0, 5))], "userData": rand_user_data(rng),
               "ownedPartitions": rand_tp_structs(rng, "topic"), "generationId": rand_int32(rng),
               "rackId": rng.choice((None, "", rand_str(rng)))}
        raw = encode_subscription(sub, version)
        # what a reader must see at that version: fields the version lacks hold their defaults
        expected = dict(sub, ownedPartitions=sub["ownedPartitions"] if version >= 1 else [],
                        generationId=sub["generationId"] if version >= 2 else -1,
                        rackId=sub["rackId"] if version >= 3 else None)
        lines.append(f"DS {raw.hex()}")
        checks.append(("DS", version, raw, expected))
    for _ in range(N):
        version = rng.randrange(0, 4)
        asg = {"assignedPartitions": rand_tp_structs(rng, "topic"), "userData": rand_user_data(rng)}
        raw = encode_assignment(asg, version)
        lines.append(f"DA {raw.hex()}")
        checks.append(("DA", version, raw, asg))
    return lines, checks


def corrupt(rng: random.Random, encoded: list[tuple]) -> tuple[list[str], list[tuple]]:
    lines, checks = [], []
    for kind, _, raw, _ in rng.sample(encoded, min(len(encoded), 2_500)):
        how = rng.randrange(4)
        if how == 0:
            bad = raw[: rng.randrange(0, len(raw))]
        elif how == 1:
            bad = struct.pack(">h", rng.choice((-1, -2**15, 4, 5, 100, 2**15 - 1))) + raw[2:]
        elif how == 2 and len(raw) > 2:
            i = rng.randrange(2, len(raw))
            bad = raw[:i] + bytes([rng.choice((0x00, 0x7F, 0x80, 0xFF, 0xED, 0xC0, rng.randrange(256)))]) + raw[i + 1:]
        else:
            bad = raw + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))
        lines.append(f"{kind} {bad.hex()}")
        checks.append((kind, bad))
    return lines, checks


@pytest.fixture(scope="module")
def java_run():
    javadriver.require_java("kafka-clients' ConsumerProtocol")
    rng = random.Random(4_3_0)
    a_lines, a_checks = java_serializes(rng)
    b_lines, b_checks = python_encodes(rng)
    c_lines, c_checks = corrupt(rng, b_checks)
    out = javadriver.compile_and_run("ConsumerProtocolDriver",
                                     "\n".join(a_lines + b_lines + c_lines) + "\n").decode("ascii").splitlines()
    a_out = out[: 2 * len(a_lines)]
    b_out = out[2 * len(a_lines): 2 * len(a_lines) + len(b_lines)]
    c_out = out[2 * len(a_lines) + len(b_lines):]
    assert len(c_out) == len(c_lines)
    return (a_checks, a_out), (b_checks, b_out), (c_checks, c_out)


def test_python_decodes_what_java_serializes(java_run):
    (checks, out), _, _ = java_run
    assert len(checks) >= 4_000
    for i, check in enumerate(checks):
        b_line, r_line = out[2 * i], out[2 * i + 1]
        assert b_line.startswith("B "), b_line
        raw = bytes.fromhex(b_line[2:])
        kind, version = check[0], check[1]
        java = parse_r(r_line, kind == "SS")
        assert java is not None, r_line
        py = decode_subscription(raw) if kind == "SS" else decode_assignment(raw)
        assert py["version"] == min(version, 3)  # Kafka writes versions above 3 as 3
        assert without_version(py) == java, (check, raw.hex())
        # and what Java put in, worked out from the scenario (Java sorts topics and owned partitions)
        v = min(version, 3)
        if kind == "SS":
            _, _, topics, user_data, owned, generation, rack = check
            assert sorted(py["topics"]) == sorted(topics)
            assert py["userData"] == user_data
            assert sorted(flatten(py["ownedPartitions"])) == (sorted(owned) if v >= 1 else [])
            assert py["generationId"] == (generation if v >= 2 and generation >= 0 else -1)
            assert py["rackId"] == (rack if v >= 3 else None)
        else:
            _, _, assigned, user_data = check
            assert sorted(flatten(py["assignedPartitions"])) == sorted(assigned)
            assert py["userData"] == user_data


def test_java_decodes_what_python_encodes(java_run):
    _, (checks, out), _ = java_run
    assert len(checks) >= 4_000
    for (kind, version, raw, expected), line in zip(checks, out):
        java = parse_r(line, kind == "DS")
        assert java == expected, (kind, version, raw.hex(), line)
        py = decode_subscription(raw) if kind == "DS" else decode_assignment(raw)
        assert py == dict(expected, version=version)


def test_corrupted_bytes_are_refused_or_read_alike(java_run):
    _, _, (checks, out) = java_run
    refused = 0
    for (kind, bad), line in zip(checks, out):
        java = parse_r(line, kind == "DS")
        try:
            py = decode_subscription(bad) if kind == "DS" else decode_assignment(bad)
        except DecodeError:
            py = None
        if py is not None:
            assert py["version"] == struct.unpack(">h", bad[:2])[0]
            py = without_version(py)
        assert py == java, (kind, bad.hex(), line)
        refused += py is None
    assert 0 < refused < len(checks)
