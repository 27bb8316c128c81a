"""The test suite's layout holds: every test file in its layer, the differential layer marked
java, a JDK run only there and by integration files marked java (Kafka's Java clients through the
TLS/SASL front), the unit layer in process."""
from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = {"unit", "cli", "integration", "differential", "repo"}


def _files(layer: str) -> list[Path]:
    return sorted((TESTS / layer).glob("test_*.py"))


def test_every_test_file_is_in_a_layer():
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []
    found = {p.relative_to(TESTS).parts[0] for p in TESTS.rglob("test_*.py") if "java" not in p.parts}
    assert found == LAYERS
    for layer in LAYERS:  # a package each, so that file names may repeat across layers
        assert (TESTS / layer / "__init__.py").is_file(), layer


def test_every_differential_test_is_marked_java():
    for path in _files("differential"):
        assert re.search(r"^pytestmark = pytest\.mark\.java\b", path.read_text(), re.M), path.name


def test_only_differential_tests_and_integration_tests_marked_java_run_a_jdk():
    jdk = re.compile(r'\["javac?"|compile_and_run|compile_driver|require_java|run_jdk_source|build_driver')
    marked_java = re.compile(r"^pytestmark = .*\bpytest\.mark\.java\b", re.M)
    for layer in LAYERS - {"differential"}:
        for path in _files(layer):
            if path == Path(__file__).resolve():  # this file names what it looks for
                continue
            text = path.read_text()
            if layer == "integration" and marked_java.search(text):
                continue
            assert not jdk.search(text), path.relative_to(TESTS)


def test_unit_tests_run_in_process():
    kgroup_process = re.compile(r'run_kgroup\(|"-m", "kgroup"|subprocess')
    for path in _files("unit"):
        assert not kgroup_process.search(path.read_text()), path.name
