"""uniform's order of subscribed topic ids, against the chain of JDK collections Kafka's coordinator builds."""
from __future__ import annotations

import base64
import random
import struct

import javadriver
import pytest

from kgroup.whatif.assignors import uniform_input
from kgroup.java.hashmap import hashset_copy_initial_capacity

pytestmark = pytest.mark.java


def test_subscribed_topic_order_differential_against_java():
    javadriver.require_java("the HashSet differential test")
    rng = random.Random(4303)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
    lines, expected = [], []
    for _ in range(400):
        n = rng.choice([2, 3, 5, 12, 13, 40])
        names = list(dict.fromkeys("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
                                   for _ in range(n)))
        # few distinct hash values so that ids share buckets often
        pool = [(rng.getrandbits(64) - 2**63, rng.getrandbits(64) - 2**63) for _ in range(len(names) * 2)]
        keys = rng.sample(pool, len(names))
        ids = {name: base64.urlsafe_b64encode(struct.pack(">qq", *k)).decode().rstrip("=")
               for name, k in zip(names, keys)}
        lines.append(" ".join(f"{name}={k[0]}:{k[1]}" for name, k in zip(names, keys)))
        meta = uniform_input.SubscribedTopics({name: 1 for name in names}, ids)
        order = meta.set_order(uniform_input.subscribed_names_order(names), hashset_copy_initial_capacity(len(names)),
                               inserted=True)
        expected.append(" ".join(order))
    out = javadriver.compile_and_run("ChainDriver", "\n".join(lines) + "\n").decode().splitlines()
    assert out == expected


# ------------------------------------------------------------------------------------------
# whatif: ids from the snapshot, target assignments, and the note when ids are unknown
# ------------------------------------------------------------------------------------------
