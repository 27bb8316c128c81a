"""``uniform`` with topic ids, as Kafka's coordinator runs it, and whatif feeding it what the
coordinator does: topic ids from the snapshot, KIP-848 members' target assignment.

The homogeneous builder visits subscribed topics in the iteration order of
``new HashSet<>(TopicIds)``: buckets of ``Uuid.hashCode()``, and inside one bucket the
order of insertion, which is the iteration order of the member's ``HashSet<String>`` of
subscribed names (``new HashSet<>(subscriptionList)`` in ConsumerGroupMember).  The Java
test below runs that exact chain of JDK collections; the others are derived by hand."""
from __future__ import annotations

import base64
import json
import random
import struct

import pytest

import javadriver
from conftest import run_kgroup

from kgroup.assignors import uniform
from kgroup.assignors.base import MemberSubscription
from kgroup.java.hashmap import hashset_copy_initial_capacity
from kgroup.java.uuid import parse_uuid, uuid_hash

# Two ids whose Uuid.hashCode() falls in bucket 5 of a 16-slot table:
#   X: msb 4261085250855414844, lsb -4644943192875982905 -> hashCode -1332936376
#   Y: msb -2509223410504644694, lsb -1008494452098621863 -> hashCode -178310966
X = "OyJqdZ7krDy_idjGqsIfxw"
Y = "3S1ymkLGx6ryARujmLWeWQ"


def test_the_two_ids_share_a_bucket():
    for text, msb, lsb, code in ((X, 4261085250855414844, -4644943192875982905, -1332936376),
                                 (Y, -2509223410504644694, -1008494452098621863, -178310966)):
        assert parse_uuid(text) == (msb, lsb)
        assert uuid_hash((msb, lsb)) == code
        h = code & 0xFFFFFFFF
        assert (h ^ (h >> 16)) & 15 == 5


def test_names_hashset_order_decides_ties_inside_a_bucket():
    # "a".hashCode() = 97 -> bucket 1, "p".hashCode() = 112 -> bucket 0: the member's
    # HashSet<String> iterates p before a, whatever the subscription list order.  Both ids
    # sit in bucket 5, so the HashSet<Uuid> keeps that insertion order: p, then a.
    assert uniform.subscribed_names_order(["a", "p"]) == ["p", "a"]
    # Members A (65 -> bucket 1) and B (66 -> bucket 2) are visited A, B.  Two partitions,
    # two members: quota 1 each, the unassigned list is [p-0, a-0], dealt in member order.
    members = [MemberSubscription("A", ("a", "p")), MemberSubscription("B", ("a", "p"))]
    got = uniform.assign({"a": 1, "p": 1}, members, topic_ids={"a": X, "p": Y})
    assert got == {"A": [("p", 0)], "B": [("a", 0)]}
    got = uniform.assign({"a": 1, "p": 1}, members, topic_ids={"a": Y, "p": X})
    assert got == {"A": [("p", 0)], "B": [("a", 0)]}
    # without ids kgroup falls back to name order
    assert uniform.assign({"a": 1, "p": 1}, members) == {"A": [("a", 0)], "B": [("p", 0)]}


def test_names_that_are_not_topics_still_size_the_table():
    # three names (one unknown) -> new HashSet<>(TopicIds) sized for 3, i.e. 16 slots: same answer
    members = [MemberSubscription("A", ("a", "p", "gone")), MemberSubscription("B", ("gone", "p", "a"))]
    got = uniform.assign({"a": 1, "p": 1}, members, topic_ids={"a": X, "p": Y})
    assert got == {"A": [("p", 0)], "B": [("a", 0)]}


CHAIN_SOURCE = r"""
import java.io.*;
import java.util.*;
public class ChainDriver {
  record K(long msb, long lsb) {
    @Override public int hashCode() { long x = msb ^ lsb; return (int) (x >> 32) ^ (int) x; }
  }
  // one line: name=msb:lsb ... in subscription-list order; prints the names in the order
  // new HashSet<>(ids inserted in new HashSet<>(names) order) iterates them
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      List<String> names = new ArrayList<>();
      Map<String, K> ids = new HashMap<>();
      Map<K, String> back = new HashMap<>();
      for (String f : line.split(" ")) {
        String[] nv = f.split("=");
        String[] x = nv[1].split(":");
        K k = new K(Long.parseLong(x[0]), Long.parseLong(x[1]));
        names.add(nv[0]); ids.put(nv[0], k); back.put(k, nv[0]);
      }
      Set<String> nameSet = new HashSet<>(names);
      List<K> inserted = new ArrayList<>();
      for (String n : nameSet) inserted.add(ids.get(n));
      Set<K> idSet = new HashSet<>(inserted);  // sized like new HashSet<>(TopicIds): one per name
      StringJoiner out = new StringJoiner(" ");
      for (K k : idSet) out.add(back.get(k));
      System.out.println(out);
    }
  }
}
"""


@pytest.mark.java
def test_subscribed_topic_order_differential_against_java(tmp_path):
    source = tmp_path / "ChainDriver.java"
    source.write_text(CHAIN_SOURCE)
    javadriver.require_java("the HashSet differential test", source=source)
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
        meta = uniform._Topics({name: 1 for name in names}, ids)
        order = meta.set_order(uniform.subscribed_names_order(names), hashset_copy_initial_capacity(len(names)),
                               inserted=True)
        expected.append(" ".join(order))
    out = javadriver.compile_and_run(source, "ChainDriver", "\n".join(lines) + "\n").decode().splitlines()
    assert out == expected


# ------------------------------------------------------------------------------------------
# whatif: ids from the snapshot, target assignments, and the note when ids are unknown
# ------------------------------------------------------------------------------------------

def _snapshot(tmp_path, ids: bool, targets: bool = False) -> str:
    doc = {
        "kgroup_snapshot": 1,
        "cluster": {"topics": {"a": {"partitions": 1}, "p": {"partitions": 1}}},
        "group": {"group_id": "K", "type": "consumer", "state": "Stable", "protocol": "uniform",
                  "members": [{"member_id": "A", "subscription": ["a", "p"], "assignment": {}},
                              {"member_id": "B", "subscription": ["a", "p"], "assignment": {}}]},
    }
    if ids:
        doc["cluster"]["topics"]["a"]["topic_id"] = X
        doc["cluster"]["topics"]["p"]["topic_id"] = Y
    if targets:
        # the members still own nothing but the coordinator's target gives A topic a
        doc["group"]["members"][0]["target_assignment"] = {"a": [0]}
        doc["group"]["members"][1]["target_assignment"] = {}
    path = tmp_path / f"k-{ids}-{targets}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _uniform_after(path: str):
    r = run_kgroup("whatif", "--snapshot", path, "-s", "uniform", "-o", "json")
    assert r.returncode == 0, r.stderr
    (result,) = json.loads(r.stdout)["strategies"]
    return result["assignment"], r.stderr


def test_whatif_uniform_uses_the_snapshots_topic_ids(tmp_path):
    after, stderr = _uniform_after(_snapshot(tmp_path, ids=True))
    assert after == {"A": {"p": [0]}, "B": {"a": [0]}}
    assert "topic ids are unknown" not in stderr
    after, stderr = _uniform_after(_snapshot(tmp_path, ids=False))
    assert after == {"A": {"a": [0]}, "B": {"p": [0]}}
    assert "uniform: the topic ids are unknown (not in the snapshot), so its answer orders topics by name" in stderr


def test_whatif_uniform_starts_from_the_target_assignment(tmp_path):
    # A's target already holds a-0: quota 1 is filled by it, B gets the rest, p-0
    after, _ = _uniform_after(_snapshot(tmp_path, ids=True, targets=True))
    assert after == {"A": {"a": [0]}, "B": {"p": [0]}}
