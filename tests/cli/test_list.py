"""kgroup list: its options parsed as documented (a state in any case), without a cluster."""
from __future__ import annotations

from conftest import run_kgroup


def test_list_state_matches_any_case():
    # accepted (the error is then the unreachable cluster, exit 3), not refused as usage
    r = run_kgroup("list", "--state", "preparing_rebalance", "-b", "127.0.0.1:9", "--timeout", "1")
    assert r.returncode == 3, r.stderr
