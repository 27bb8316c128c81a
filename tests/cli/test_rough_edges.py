"""Rough edges a new user hit: help metavars, completions of enumerated values, refused
option values, headers that name the change, unknown figures shown as unknown."""
from __future__ import annotations

import json
import re
import subprocess

import pytest
from conftest import ROOT, run_kgroup

COMMANDS = ["find-coordinator", "list", "describe", "offsets", "snapshot", "log", "history", "scan", "whatif", "vote"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_framework_type_labels(command):
    r = run_kgroup(command, "--help", env={"COLUMNS": "200"})
    assert r.returncode == 0
    assert not re.search(r"<(bool|str|int|float|list\[\w+\]|table\|json\|csv)>", r.stdout), r.stdout
    assert "...]..." not in r.stdout
    usage = next(line for line in r.stdout.splitlines() if "Usage:" in line)
    if command in ("find-coordinator", "describe", "offsets", "log"):
        assert usage.strip().endswith("[OPTIONS] [GROUP]..."), usage


def _bash_complete(*words: str) -> list[str]:
    script = (f"source {ROOT / 'completions' / 'kgroup.bash'}\n"
              f"COMP_WORDS=(kgroup {' '.join(words)}); COMP_CWORD={len(words)}\n"
              "_kgroup; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.split()


def test_completions_offer_enumerated_values():
    assert _bash_complete("whatif", "--strategy", "") == ["range", "roundrobin", "sticky", "cooperative-sticky",
                                                           "uniform", "server-range", "all"]
    assert _bash_complete("whatif", "-s", "co") == ["cooperative-sticky"]
    assert _bash_complete("list", "--type", "") == ["classic", "consumer"]
    assert _bash_complete("list", "--state", "Pr") == ["PreparingRebalance"]
    fish = (ROOT / "completions" / "kgroup.fish").read_text()
    assert ("complete -c kgroup -n '__fish_seen_subcommand_from scan' -l input -r -F" in fish
            and "-l out -r -F" in fish)
    # descriptions are whole sentences, not cut at the dot of ".properties"
    assert "-d 'Java client .properties file, as kafka-consumer-groups.sh takes it (translated to librdkafka)'" in fish


def test_bash_completes_a_directory_without_a_trailing_space():
    bash = (ROOT / "completions" / "kgroup.bash").read_text()
    assert '--snapshot) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))' in bash


@pytest.mark.parametrize("args,needle", [
    (["list", "--state", "Bogus", "-b", "127.0.0.1:9"], "--state 'Bogus' is not a group state; states: Stable, Empty"),
    (["vote", "-m", "A=range", "--switch", "range:foo"], "'foo' is not a classic-group assignor"),
    (["vote", "-m", "A=x", "-m", "A=y"], "--member A is given twice"),
    (["whatif", "--snapshot", "examples/seed-g1.json", "--protocols", "range"],
     "--protocols gives the protocols of members added with --add"),
])
def test_option_values_that_used_to_pass_silently(args, needle):
    r = run_kgroup(*args)
    assert r.returncode == 2 and r.stderr.splitlines() == [f"kgroup: error: {r.stderr.split('error: ', 1)[1].strip()}"]
    assert needle in r.stderr
    assert r.seconds < 10  # refused before any connection attempt


def test_list_state_matches_any_case():
    # accepted (the error is then the unreachable cluster, exit 3), not refused as usage
    r = run_kgroup("list", "--state", "preparing_rebalance", "-b", "127.0.0.1:9", "--timeout", "1")
    assert r.returncode == 3, r.stderr


def test_whatif_subscription_is_named_in_the_header():
    r = run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", "--subscription", "C1=Order", "-s", "range")
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == "What if G1: C1 subscribes to Order"


def test_whatif_on_a_group_whose_members_are_not_described(tmp_path):
    doc = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    doc["group"]["members"] = []  # a Stable group described without members (Tansu)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    r = run_kgroup("whatif", "--snapshot", str(path), "--add", "new1", "-s", "range")
    assert r.returncode == 0
    assert ("kgroup: warning: the cluster reports group G1 as Stable but lists no members (this broker does not "
            "describe them): kgroup computes as if the group were empty") in r.stderr
    r = run_kgroup("whatif", "--snapshot", str(path), "--remove", "C1")
    assert r.returncode == 2
    assert "no member matches 'C1': the group has no members, or the cluster does not describe them" in r.stderr


def test_find_coordinator_from_a_snapshot_does_not_claim_zero_partitions_led():
    r = run_kgroup("find-coordinator", "--snapshot", "examples/seed-g1.json", "-o", "json")
    doc = json.loads(r.stdout)
    assert doc["groups"][0]["partition_leader"]["id"] == 1
    assert doc["brokers"] == [{"id": 1, "host": "b1", "port": 9092, "groups": 1, "offsets_partitions_led": None,
                               "hot": False}]
