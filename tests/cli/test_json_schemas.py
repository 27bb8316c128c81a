"""Every command's -o json document matches its JSON Schema under docs/schemas/ (offline
here, on the shipped snapshot; the live tests validate list, describe, offsets and snapshot
files against the same schemas). The schemas are tight: a changed shape fails them."""
from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from conftest import ROOT, run_kgroup
from schemas import validate

SEED = str(ROOT / "examples" / "seed-g1.json")


def _json(*args: str) -> dict:
    """The document of a run that must exit 0, or 1 (FLAGGED) with --lag-above: the one such case,
    --lag-above 5 on the seed's Order, flags Order-5 (lag 6) and Order-6 (lag 7)."""
    r = run_kgroup(*args, "-o", "json")
    assert r.returncode == (1 if "--lag-above" in args else 0), (r.returncode, r.stderr)
    return json.loads(r.stdout)


CASES = [
    ("find-coordinator", ["find-coordinator", "--snapshot", SEED]),
    ("find-coordinator", ["find-coordinator", "--offline", "--offsets-partitions", "50", "G1", "GROUPS"]),
    ("find-coordinator", ["find-coordinator", "--offline", "SG1", "--share-state", "AAAAAAAAAAAAAAAAAAAAAQ:3"]),
    ("find-coordinator", ["find-coordinator", "--offline", "SG1", "--share-state", "orders:3",
                          "--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ"]),
    ("describe", ["describe", "--snapshot", SEED]),
    ("describe", ["describe", "--snapshot", str(ROOT / "examples" / "kip848-reconciling.json")]),
    ("history", ["history", "K", "--input", str(ROOT / "examples" / "offsets-log-kip848.jsonl")]),
    ("offsets", ["offsets", "--snapshot", SEED]),
    ("offsets", ["offsets", "--snapshot", SEED, "--lag-above", "5", "--topic", "Order"]),
    ("whatif", ["whatif", "--snapshot", SEED, "--remove", "C3", "--strategy", "all"]),
    ("whatif", ["whatif", "--snapshot", SEED, "--add", "C4", "--partitions", "Order=9"]),
    ("whatif", ["whatif", "--snapshot", str(ROOT / "examples" / "sticky-never-returns.json"),
                "--add", "new-0-95b1=logs,zeta", "--add", "new-1-0e35=logs,zeta"]),
    ("vote", ["vote", "-m", "C1=range,cooperative-sticky", "-m", "C2=cooperative-sticky,range", "-m", "C3=range"]),
    ("vote", ["vote", "-m", "a=range", "-m", "b=range", "--switch", "range:cooperative-sticky"]),
]


@pytest.mark.parametrize("schema,args", CASES, ids=[" ".join(a[:3]) for _, a in CASES])
def test_output_matches_its_schema(schema, args):
    validate(schema, _json(*args))


def test_snapshot_files_match_the_snapshot_schema(tmp_path):
    from kgroup.group.snapshot import dump, load

    example = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    validate("snapshot", example)
    validate("snapshot", dump(load(ROOT / "examples" / "seed-g1.json")))
    v1 = copy.deepcopy(example)
    v1["kgroup_snapshot"] = 1
    v1["group"]["protocol"] = v1["group"].pop("assignor")
    validate("snapshot", v1)


def test_a_snapshot_rebuilt_from_the_log_matches_the_snapshot_schema():
    r = run_kgroup("snapshot", "G1", "--at", "2025-11-22T02:53:21Z", "--input",
                   str(ROOT / "examples" / "offsets-log-g1.jsonl"))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("snapshot", doc)
    assert [m["member_id"] for m in doc["group"]["members"]] == ["c1", "c2"]


@pytest.mark.parametrize("schema,args,mutate", [
    ("describe", ["describe", "--snapshot", SEED], lambda d: d["groups"][0].update(extra=1)),
    ("describe", ["describe", "--snapshot", SEED], lambda d: d["groups"][0]["members"][0].update(partition_count="5")),
    ("describe", ["describe", "--snapshot", str(ROOT / "examples" / "kip848-reconciling.json")],
     lambda d: d["groups"][0]["members"][1]["reconciliation"]["waiting_for"][0].pop("held_by")),
    ("offsets", ["offsets", "--snapshot", SEED], lambda d: d["groups"][0]["partitions"][0].pop("lag")),
    ("offsets", ["offsets", "--snapshot", SEED], lambda d: d["groups"][0]["partitions"][0].update(lag=-1)),
    ("find-coordinator", ["find-coordinator", "--snapshot", SEED], lambda d: d["groups"][0].update(verdict="ok")),
    ("whatif", ["whatif", "--snapshot", SEED, "--remove", "C3"],
     lambda d: d["strategies"][0].update(strategy="balanced")),
    ("whatif", ["whatif", "--snapshot", SEED, "--remove", "C3"], lambda d: d["strategies"][0].pop("completes")),
    ("whatif", ["whatif", "--snapshot", str(ROOT / "examples" / "sticky-never-returns.json"), "-s", "sticky",
                "--add", "new-0-95b1=logs,zeta"], lambda d: d["strategies"][0].update(assignment={})),
    ("vote", ["vote", "-m", "a=range"], lambda d: d.update(selected=3)),
    ("history", ["history", "G1", "--input", str(ROOT / "examples" / "offsets-log-g1.jsonl")],
     lambda d: d["rebalances"][0]["members"][0].update(protocol="range")),
    ("history", ["history", "G1", "--input", str(ROOT / "examples" / "offsets-log-g1.jsonl")],
     lambda d: d["rebalances"][2]["offsets_deleted"][0].update(cause="expired")),
])
def test_a_changed_shape_fails_the_schema(schema, args, mutate):
    doc = _json(*args)
    validate(schema, doc)
    mutate(doc)
    with pytest.raises(jsonschema.ValidationError):
        validate(schema, doc)


def test_every_json_command_has_a_schema():
    """Each command that prints -o json has docs/schemas/<command>.schema.json (log prints
    records: log-record and raw-record)."""
    from kgroup.cli import COMMANDS

    names = {p.name.removesuffix(".schema.json") for p in (ROOT / "docs" / "schemas").glob("*.schema.json")}
    expected = {c if c != "log" else "log-record" for c in COMMANDS}
    assert expected <= names, expected - names
