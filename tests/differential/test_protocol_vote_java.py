"""The classic-group protocol vote, against the same vote written with the JDK's collections."""
from __future__ import annotations

import random

import javadriver
import pytest

from kgroup.whatif.vote import (
    select_protocol,
)

pytestmark = pytest.mark.java


# ---------------------------------------------------------------- differential test against a JVM


def test_vote_differential_against_java():
    javadriver.require_java("the JDK's protocol vote")
    rng = random.Random(429)
    names = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "Aa", "BB", "AaAa", "BBBB",
             "custom", "foo", "bar"] + [f"p{i}" for i in range(20)]
    groups, lines = [], []
    for _ in range(2000):
        pool = rng.sample(names, rng.randint(1, 16))
        common = rng.sample(pool, rng.randint(1 if rng.random() < 0.9 else 0, min(4, len(pool))))
        group = {}
        for i in range(rng.randint(1, 14)):
            member = rng.choice([f"c{i}", f"consumer-{i}-{rng.getrandbits(32):08x}", "Aa" * (i + 1)])
            extra = rng.sample(pool, rng.randint(0, len(pool)))
            protocols = list(dict.fromkeys(common + extra)) or [rng.choice(pool)]
            rng.shuffle(protocols)
            group[member] = protocols
        groups.append(group)
        lines.append(" ".join(f"{m}={','.join(ps)}" for m, ps in group.items()))
    out = javadriver.compile_and_run("VoteDriver", "\n".join(lines) + "\n").decode().splitlines()
    assert len(out) == len(groups)  # one answer per group: zip below cannot pass on a short output
    ties = 0
    for group, java_choice in zip(groups, out):
        result = select_protocol(group)
        assert (result.selected or "-") == java_choice, group
        ties += bool(result.tied)
    assert ties > 100  # the sample exercises tie-breaking
