"""Rough edges a new user hit: help metavars, completions of enumerated values, refused
option values, headers that name the change, unknown figures shown as unknown."""
from __future__ import annotations

import re

import pytest
from conftest import ROOT, bash_complete, run_kgroup

COMMANDS = ["find-coordinator", "list", "describe", "offsets", "snapshot", "log", "history", "scan", "whatif", "vote"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_framework_type_labels(command):
    r = run_kgroup(command, "--help", env={"COLUMNS": "200"})
    assert r.returncode == 0
    # options are named by their metavars, flags by nothing; arguments by their metavar, beside
    # which Typer prints the type it reads (GROUP <str>): it has no public way to leave that out
    options = re.sub(r"╭─ Arguments ─.*?╰─+╯", "", r.stdout, flags=re.S)
    assert "Arguments" not in options and "Options" in options
    assert not re.search(r"<(bool|str|int|float|list\[\w+\]|table\|json\|csv)>", options), r.stdout
    assert "...]..." not in r.stdout
    usage = next(line for line in r.stdout.splitlines() if "Usage:" in line)
    if command in ("find-coordinator", "describe", "offsets", "log"):
        assert usage.strip().endswith("[OPTIONS] [GROUP]..."), usage


def test_completions_offer_enumerated_values():
    assert bash_complete("whatif", "--strategy", "") == ["range", "roundrobin", "sticky", "cooperative-sticky",
                                                           "uniform", "server-range", "simple", "all"]
    assert bash_complete("whatif", "-s", "co") == ["cooperative-sticky"]
    assert bash_complete("list", "--type", "") == ["classic", "consumer", "share", "streams"]
    assert bash_complete("list", "--state", "Pr") == ["PreparingRebalance"]
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
