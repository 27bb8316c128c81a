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

JAVA_VOTE_SOURCE = r"""
import java.io.*;
import java.util.*;
// Re-states the vote of ClassicGroup.selectProtocol with the same Java collections:
// members in a HashMap keyed by member id, votes counted in a HashMap<String, Integer>,
// winner taken with stream().max() on the count.
public class VoteDriver {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      Map<String, List<String>> members = new HashMap<>();
      Map<String, Integer> support = new HashMap<>();
      for (String m : line.split(" ")) {
        String[] f = m.split("=");
        List<String> ps = Arrays.asList(f[1].split(","));
        members.put(f[0], ps);
        for (String p : new LinkedHashSet<>(ps)) support.merge(p, 1, Integer::sum);
      }
      Set<String> candidates = new HashSet<>();
      for (Map.Entry<String, Integer> e : support.entrySet())
        if (e.getValue() == members.size()) candidates.add(e.getKey());
      if (candidates.isEmpty()) { System.out.println("-"); continue; }
      Map<String, Integer> votes = new HashMap<>();
      for (List<String> ps : members.values()) {
        String choice = null;
        for (String p : ps) if (candidates.contains(p)) { choice = p; break; }
        votes.put(choice, votes.getOrDefault(choice, 0) + 1);
      }
      System.out.println(votes.entrySet().stream()
          .max(Comparator.comparingInt(Map.Entry::getValue)).map(Map.Entry::getKey).orElse(null));
    }
  }
}
"""


def test_vote_differential_against_java(tmp_path):
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
    out = javadriver.run_jdk_source("VoteDriver", JAVA_VOTE_SOURCE, "\n".join(lines) + "\n", tmp_path).splitlines()
    assert len(out) == len(groups)  # one answer per group: zip below cannot pass on a short output
    ties = 0
    for group, java_choice in zip(groups, out):
        result = select_protocol(group)
        assert (result.selected or "-") == java_choice, group
        ties += bool(result.tied)
    assert ties > 100  # the sample exercises tie-breaking
