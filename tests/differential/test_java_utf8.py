"""kgroup.java.utf8.java_utf8 against Java's own ``new String(bytes, UTF_8)``.

Tests/java/Utf8Driver.java decodes every byte string with the JDK and prints the
UTF-16 code units; Python must produce the same code units. The inputs are biased
toward what makes UTF-8 decoders disagree: lead bytes at the edges of their ranges
(C0 C1 C2 DF E0 ED EF F0 F4 F5 F7 F8 FF), continuation bytes at the edges of the
ranges the leads allow (80 8F 90 9F A0 BF), truncated and interrupted sequences.
"""
from __future__ import annotations

import itertools
import random

import pytest

import javadriver
from kgroup.java.utf8 import java_utf8

pytestmark = pytest.mark.java

EDGE = bytes.fromhex("80bfc0c1c2dfe0edeff0f4f5f7f8ff90a09f8f")
# bytes that start or continue sequences, plus ASCII and the remaining lead ranges
FILLER = bytes.fromhex("41007f") + bytes(range(0x80, 0x100, 7))

# (input hex, expected UTF-16 code units), worked out by hand from Java's decoder rules
NAMED = [
    ("eda080", ["fffd"]),                    # an encoded surrogate: ONE replacement in Java
    ("edbfbf", ["fffd"]),                    # the last surrogate, likewise
    ("eda0", ["fffd"]),                      # truncated surrogate at the end: one replacement
    ("ed9fbf", ["d7ff"]),                    # the code point just below the surrogates is fine
    ("c080", ["fffd", "fffd"]),              # C0 is never a lead byte: overlong NUL
    ("c1bf", ["fffd", "fffd"]),
    ("e08080", ["fffd", "fffd", "fffd"]),    # overlong three-byte form: E0 then two stray bytes
    ("f09f9880", ["d83d", "de00"]),          # U+1F600 as a surrogate pair
    ("f4908080", ["fffd", "fffd", "fffd", "fffd"]),  # above U+10FFFF
    ("f09f98", ["fffd"]),                    # truncated four-byte sequence at the end
    ("ff", ["fffd"]),
    ("", []),
    ("41e282ac42", ["0041", "20ac", "0042"]),  # A € B
]


def units(text: str) -> str:
    return text.encode("utf-16-be", "surrogatepass").hex()


def corpus() -> list[bytes]:
    cases: list[bytes] = [bytes.fromhex(h) for h, _ in NAMED]
    cases += [bytes([b]) for b in range(256)]
    # every two-byte string starting with an edge byte, and every edge byte after every byte
    cases += [bytes([a, b]) for a in EDGE for b in range(256)]
    cases += [bytes([a, b]) for a in range(256) for b in EDGE]
    # every three-byte string over the edge bytes, alone and between ASCII letters
    for a, b, c in itertools.product(EDGE, repeat=3):
        cases.append(bytes([a, b, c]))
        cases.append(b"x" + bytes([a, b, c]) + b"y")
    rng = random.Random(20261122)
    alphabet = EDGE * 4 + FILLER
    for _ in range(12_000):
        n = rng.choice((1, 2, 3, 4, 4, 5, 6, 7, 8, 12, 20))
        cases.append(bytes(rng.choice(alphabet) for _ in range(n)))
    # well-formed characters cut short or followed by a stray byte
    for _ in range(3_000):
        cp = rng.choice((rng.randrange(0x80, 0x800), rng.randrange(0x800, 0x10000), rng.randrange(0x10000, 0x110000)))
        raw = chr(cp).encode("utf-8", "surrogatepass")
        cut = raw[: rng.randrange(1, len(raw) + 1)]
        tail = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 3)))
        cases.append(b"a" + cut + tail)
    return cases


@pytest.fixture(scope="module")
def java_drivers() -> None:
    javadriver.require_java("Java's UTF-8 decoder")


def run_java(inputs: list[bytes]) -> list[str]:
    out = javadriver.compile_and_run("Utf8Driver", "".join(f":{b.hex()}\n" for b in inputs))
    lines = out.decode("ascii").splitlines()
    assert len(lines) == len(inputs)
    return [line[1:] for line in lines]


def test_named_cases_match_java_and_hand_worked_values(java_drivers):
    inputs = [bytes.fromhex(h) for h, _ in NAMED]
    java = run_java(inputs)
    for (h, expected), j, raw in zip(NAMED, java, inputs):
        assert j == "".join(expected), f"Java disagrees with the hand-worked value for {h}"
        assert units(java_utf8(raw)) == j, f"java_utf8({h})"
    # the case that motivated java_utf8: Python's own replacement differs
    assert bytes.fromhex("eda080").decode("utf-8", "replace") == "\ufffd" * 3
    assert java_utf8(bytes.fromhex("eda080")) == "\ufffd"


def test_java_utf8_equals_java_on_adversarial_corpus(java_drivers):
    inputs = corpus()
    assert len(inputs) >= 20_000
    java = run_java(inputs)
    mismatches = [(raw.hex(), units(java_utf8(raw)), j) for raw, j in zip(inputs, java)
                  if units(java_utf8(raw)) != j]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:10]}"
