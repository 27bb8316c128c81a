"""The offsets partition of a group, against values Java computes.

The constants below were printed by Java 17 (``s.hashCode()`` and
``Utils.abs(h) % n``); the differential test recomputes them with javac/java at
test time for many random strings.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from kgroup.hashing import kafka_abs, offsets_partition_for
from kgroup.java.strings import java_string_hash

JAVA_VALUES = [
    # (group id, String.hashCode(), partition of 50, partition of 7)
    ("G1", 2250, 0, 3),
    ("polygenelubricants", -2147483648, 0, 0),
    ("consumer-group-orders", 1903663722, 22, 2),
    ("订单消费组", -683925664, 14, 2),
    ("🚀-group", 732881429, 29, 0),
    ("𝄞", 1772394, 44, 1),
    ("GROUPS", 2110836180, 30, 5),
    ("Aa", 2112, 12, 5),
    ("BB", 2112, 12, 5),
    ("x" * 10000, 1180432384, 34, 5),
    ("消费者" * 3000 + "😀" * 500, 2067342556, 6, 6),
]


@pytest.mark.parametrize("group,hash_code,p50,p7", JAVA_VALUES, ids=lambda v: str(v)[:20])
def test_matches_java(group, hash_code, p50, p7):
    assert java_string_hash(group) == hash_code
    assert offsets_partition_for(group, 50) == p50
    assert offsets_partition_for(group, 7) == p7
    assert offsets_partition_for(group, 1) == 0


def test_utils_abs_maps_min_value_to_zero():
    assert kafka_abs(-2147483648) == 0
    assert kafka_abs(-5) == 5
    assert kafka_abs(2147483647) == 2147483647


def test_rejects_zero_partitions():
    with pytest.raises(ValueError):
        offsets_partition_for("G1", 0)


JAVA_SOURCE = r"""
import java.io.*;
public class HashDriver {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      StringBuilder s = new StringBuilder();
      for (String unit : line.split(",")) if (!unit.isEmpty()) s.append((char) Integer.parseInt(unit));
      int h = s.toString().hashCode();
      int abs = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
      System.out.println(h + " " + (abs % 50) + " " + (abs % 13));
    }
  }
}
"""


def _random_group_id(rng: random.Random) -> str:
    alphabet = ["abcXYZ019-_.", "订单消费组", "😀🚀𝄞", "\u00e9\u00fc"]
    n = rng.choice([0, 1, 2, 5, 20, 300])
    return "".join(rng.choice(rng.choice(alphabet)) for _ in range(n))


@pytest.mark.java
def test_differential_against_java(tmp_path):
    if not shutil.which("javac"):
        pytest.fail("javac is required (the project's setup installs a JDK)")
    (tmp_path / "HashDriver.java").write_text(JAVA_SOURCE)
    subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "HashDriver.java")], check=True)
    rng = random.Random(20261121)
    ids = [_random_group_id(rng) for _ in range(3000)]
    # send UTF-16 code units so that no encoding layer can disagree
    lines = [",".join(str(u) for u in _units(s)) for s in ids]
    out = subprocess.run(["java", "-cp", str(tmp_path), "HashDriver"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    for group, line in zip(ids, out):
        h, p50, p13 = map(int, line.split())
        assert (java_string_hash(group), offsets_partition_for(group, 50), offsets_partition_for(group, 13)) == \
            (h, p50, p13), json.dumps(group)


def _units(s: str) -> list[int]:
    data = s.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]
