"""bench/figures.py: each benchmark rewrites only its own marked block, and refuses when the
markers are missing, repeated or out of order."""
from __future__ import annotations

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from figures import MarkerError, cpu, machine, replace_block  # noqa: E402

DOC = """# title

<!-- a-bench -->
| old | table |
<!-- /a-bench -->

text between

<!-- b-bench -->
| other |
<!-- /b-bench -->
"""


def test_replaces_exactly_the_marked_block():
    out = replace_block(DOC, "a-bench", "| new | table |\n|---|---|\n\nratio 0.5x")
    assert out == DOC.replace("| old | table |", "| new | table |\n|---|---|\n\nratio 0.5x")
    assert "| other |" in out  # the other block is untouched
    assert replace_block(out, "a-bench", "| old | table |\n") == DOC  # surrounding newlines normalised


def test_another_block_with_a_name_that_is_a_prefix_is_not_touched():
    doc = DOC.replace("a-bench", "a-bench-2") + "\n<!-- a-bench -->\nx\n<!-- /a-bench -->\n"
    out = replace_block(doc, "a-bench", "y")
    assert out == doc.replace("<!-- a-bench -->\nx\n", "<!-- a-bench -->\ny\n")


@pytest.mark.parametrize("doc", [
    "no markers at all\n",
    "<!-- a-bench -->\nonly the begin\n",
    "only the end\n<!-- /a-bench -->\n",
    DOC + "<!-- a-bench -->\n",           # begin twice
    DOC + "<!-- /a-bench -->\n",          # end twice
    "<!-- /a-bench -->\nx\n<!-- a-bench -->\n",  # end before begin
])
def test_refuses_missing_repeated_or_misordered_markers(doc):
    with pytest.raises(MarkerError):
        replace_block(doc, "a-bench", "new")


def test_docs_benchmarks_has_each_benchmark_block_once():
    readme = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for name in ("startup-bench", "offsets-bench", "offsets-scale-bench", "offsets-scale-bench-sasl-ssl", "whatif-bench",
                 "log-bench", "lag-bench", "ends-bench",
                 "report-bench", "scan-bench"):
        assert replace_block(readme, name, "x").count("<!-- ") == readme.count("<!-- ")
    scan = (ROOT / "docs" / "scan.md").read_text(encoding="utf-8")
    replace_block(scan, "scan-bench-sizing", "x")


def test_machine_names_the_cpu_model_and_its_cores():
    info = "processor\t: 0\nmodel name\t: Some CPU 9000\n\nprocessor\t: 1\nmodel name\t: Some CPU 9000\n"
    assert cpu(info) == ("Some CPU 9000", 2)
    assert machine(info).startswith("Some CPU 9000, 2 cores, ")
