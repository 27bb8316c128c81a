"""Property-based fuzzing of everything a user or a file can hand kgroup offline: snapshot
files (random bytes, and the seed snapshot with any value replaced by any JSON), and the
option parsers of whatif, vote and find-coordinator.

The property: kgroup ends with a documented exit code (0, 1 or 2: never 4, the code of a
bug, never an uncaught exception), every stderr line is one of kgroup's own one-line
messages, a refusal is exactly one ``kgroup: error:`` line, and nothing kgroup writes to
a terminal (table output, stderr) holds a raw control character.

kgroup runs in-process here (``kgroup.cli.main`` with captured streams) so that hundreds
of inputs take seconds; test_hostile_input.py runs the same kind of cases as a user would,
as a subprocess."""
from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import sys

import pytest
from conftest import ROOT

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is in the test extra: pip install -e '.[test]'")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

SEED = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def run_main(*args: str) -> tuple[int, str, str]:
    """kgroup's entry point in this process: (exit code, stdout, stderr)."""
    from kgroup.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["kgroup", *args]
    code = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as e:
        code = e.code
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


def check(code, stdout: str, stderr: str, table: bool = True) -> None:
    # 3 only as INCOMPLETE: a snapshot whose offsets are unknown (null) cannot give a whole answer
    assert code in (0, 1, 2) or (code == 3 and "INCOMPLETE" in stderr), (code, stderr)
    lines = stderr.splitlines()
    assert all(line.startswith("kgroup: ") for line in lines), stderr
    assert not RAW_CONTROL.search(stderr), stderr
    if table:
        assert not RAW_CONTROL.search(stdout), stdout
    errors = [line for line in lines if line.startswith("kgroup: error: ")]
    if code == 2:
        assert len(errors) == 1 and lines[-1] == errors[0], stderr
    else:
        assert not errors, stderr


# ------------------------------------------------------------------------------------------
# snapshot files
# ------------------------------------------------------------------------------------------

json_leaf = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
             | st.floats(allow_nan=False) | st.text(max_size=12)
             | st.sampled_from(["Order", "Stock", "", "\x1b[2J", "\ud800", "\u00b2", "7", "-1", "G1"]))
json_value = st.recursive(json_leaf, lambda kids: st.lists(kids, max_size=4)
                          | st.dictionaries(st.text(max_size=6) | st.sampled_from(["Order", "0", "99", "-1"]),
                                            kids, max_size=4), max_leaves=12)


def _paths(node, prefix=()):
    """Every place in the document: (path to a container, key or index)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix, k
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix, i
            yield from _paths(v, prefix + (i,))


SEED_PATHS = list(_paths(SEED))


@st.composite
def mutated_seed(draw):
    doc = copy.deepcopy(SEED)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path, key = draw(st.sampled_from(SEED_PATHS))
        parent = doc
        try:
            for step in path:
                parent = parent[step]
            action = draw(st.sampled_from(["replace", "delete", "add"]))
            if action == "replace":
                parent[key] = draw(json_value)
            elif action == "delete":
                del parent[key]
            elif isinstance(parent, dict):
                parent[draw(st.text(max_size=6))] = draw(json_value)
            else:
                parent.append(draw(json_value))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced this place
    return doc


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "snapshot.json"


COMMANDS = [("describe",), ("offsets",), ("whatif", "-s", "range"), ("whatif", "-s", "uniform"),
            ("find-coordinator",), ("describe", "-o", "json"), ("offsets", "-o", "csv")]


@FUZZ
@given(doc=mutated_seed(), command=st.sampled_from(COMMANDS))
def test_any_mutated_snapshot(snapshot_file, doc, command):
    snapshot_file.write_text(json.dumps(doc))
    code, out, err = run_main(*command, "--snapshot", str(snapshot_file))
    check(code, out, err, table="-o" not in command)


@FUZZ
@given(data=st.binary(max_size=300) | st.builds(lambda t, cut: t.encode("utf-8", "surrogatepass")[:cut],
                                                st.just(json.dumps(SEED)), st.integers(0, 3000)),
       command=st.sampled_from(COMMANDS[:3]))
def test_any_bytes_as_a_snapshot(snapshot_file, data, command):
    snapshot_file.write_bytes(data)
    code, out, err = run_main(*command, "--snapshot", str(snapshot_file))
    check(code, out, err)
    assert code != 0 or data.strip()  # an empty file is never a snapshot


# ------------------------------------------------------------------------------------------
# option parsers
# ------------------------------------------------------------------------------------------

words = st.text(max_size=10) | st.sampled_from(["C1", "C2", "C3", "Order", "Stock", "range", "uniform",
                                                 "roundrobin", "Order=\u00b2", "Order=9", "Order=0",
                                                 "Order=99999999999", "=", ",", "A=", "=B", "\x1b[2J", "-"])


def _no_nul(args):
    return [a.replace("\x00", "") for a in args]  # argv cannot hold NUL


whatif_options = st.lists(st.tuples(st.sampled_from(["--remove", "--add", "--partitions", "--subscription",
                                                     "--protocols", "-s"]), words), max_size=4)


@FUZZ
@given(options=whatif_options)
def test_whatif_options(options):
    args = [x for pair in options for x in pair]
    code, out, err = run_main("whatif", "--snapshot", "examples/seed-g1.json", *_no_nul(args))
    check(code, out, err)


@FUZZ
@given(members=st.lists(words, max_size=4), switch=st.none() | words)
def test_vote_options(members, switch):
    args = [x for m in members for x in ("-m", m)] + (["--switch", switch] if switch is not None else [])
    code, out, err = run_main("vote", *_no_nul(args))
    check(code, out, err)


@FUZZ
@given(groups=st.lists(words, min_size=1, max_size=3), partitions=words)
def test_find_coordinator_offline_options(groups, partitions):
    code, out, err = run_main("find-coordinator", "--offline", "--offsets-partitions", *_no_nul([partitions]),
                              "--", *_no_nul(groups))
    check(code, out, err)


# ------------------------------------------------------------------------------------------
# the terminal
# ------------------------------------------------------------------------------------------

HOSTILE = "\x1b]0;owned\x07\x1b[2J\rkgroup: error: forged\n\u202eevil\x9b31m"


def test_table_output_escapes_and_json_csv_stay_exact(tmp_path):
    doc = copy.deepcopy(SEED)
    doc["group"]["group_id"] = "G" + HOSTILE
    for m in doc["group"]["members"]:
        m.update(client_id=m["client_id"] + HOSTILE, host=HOSTILE, group_instance_id="i" + HOSTILE)
    doc["group"]["members"][0]["member_id"] += HOSTILE
    doc["group"]["offsets"]["Order"]["0"]["metadata"] = HOSTILE
    doc["cluster"]["brokers"][0]["host"] = "b" + HOSTILE
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    c2 = doc["group"]["members"][1]["member_id"]
    for command in (["describe"], ["offsets"], ["whatif", "--remove", c2], ["find-coordinator"]):
        code, out, err = run_main(*command, "--snapshot", str(path))
        assert code == 0, err
        assert not RAW_CONTROL.search(out) and not RAW_CONTROL.search(err), (command, out, err)
        assert "\\x1b]0;owned\\x07\\x1b[2J\\x0dkgroup: error: forged\\x0a\\u202eevil\\x9b31m" in out, command
        assert "\nkgroup: error: forged" not in out
    code, out, _ = run_main("describe", "--snapshot", str(path), "-o", "json")
    assert json.loads(out)["groups"][0]["group"] == "G" + HOSTILE
    code, out, _ = run_main("offsets", "--snapshot", str(path), "-o", "csv")
    import csv

    rows = list(csv.reader(io.StringIO(out)))
    assert any(HOSTILE in cell for row in rows for cell in row)


def test_messages_escape_what_they_quote():
    code, out, err = run_main("whatif", "--snapshot", "examples/seed-g1.json", "--remove", "x" + HOSTILE)
    assert code == 2 and len(err.splitlines()) == 1 and not RAW_CONTROL.search(err)
    assert "no member matches 'x\\x1b]0;owned\\x07" in err
