"""kgroup's modules import each other without a circle: every import counts, at the top of a
module, inside a function or only for the type checker (``if TYPE_CHECKING:``), as written in the
source (read with ``ast``, nothing imported). A circle is named with each import in it (file:line)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Circles known and owned elsewhere, each to be removed with its fix (the test fails if one is gone).
KNOWN: set[frozenset[str]] = set()


def modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's __init__)."""
    out = {}
    for path in sorted((ROOT / "kgroup").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def imports(name: str, path: Path, package: bool, known: set[str]) -> list[tuple[str, int]]:
    """The kgroup modules ``name`` imports, with the line of each import."""
    here = name if package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name in known]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here.split(".")[:len(here.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for a in node.names:
                target = f"{base}.{a.name}"  # a submodule (from kgroup.group import metadata), else the module
                if target in known:
                    out.append((target, node.lineno))
                elif base in known:
                    out.append((base, node.lineno))
    return out


def circles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """The strongly connected components of more than one module, or of one importing itself
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, edges = work[-1]
            for w, _ in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph[w])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1 or any(w == v for w, _ in graph[v]):
                        found.append(sorted(component))
    return found


def _graph() -> dict[str, list[tuple[str, int]]]:
    mods = modules()
    return {name: imports(name, path, package, set(mods)) for name, (path, package) in mods.items()}


def test_the_finder_finds_a_circle_and_names_only_its_members():
    graph = {"a": [("b", 1)], "b": [("c", 2)], "c": [("a", 3)], "d": [("a", 4)], "e": [("e", 5)], "f": []}
    assert sorted(circles(graph)) == [["a", "b", "c"], ["e"]]


def test_kgroup_imports_form_no_circle():
    graph = _graph()
    assert len(graph) > 100 and all(w != "kgroup.group.model" for w, _ in graph["kgroup.group.assignment"])
    found = circles(graph)
    described = []
    for component in found:
        if frozenset(component) in KNOWN:
            continue
        members = set(component)
        described.append("circle: " + ", ".join(
            f"{ROOT / modules()[v][0].relative_to(ROOT)}:{line} imports {w}".replace(str(ROOT) + "/", "")
            for v in component for w, line in graph[v] if w in members))
    assert not described, "\n".join(described)
    gone = KNOWN - {frozenset(c) for c in found}
    assert not gone, f"fixed, remove from KNOWN: {sorted(map(sorted, gone))}"


# The layers below may not import from those above them: the cluster layer (kgroup.kafka) owns
# every call to a cluster and knows nothing of the analyses (kgroup.lag) or of the output; the
# group model (kgroup.group) knows nothing of the lag analyses.
LOWER_LAYERS = {"kgroup.kafka": ("kgroup.lag", "kgroup.output", "kgroup.cli"),
                "kgroup.group": ("kgroup.lag", "kgroup.output", "kgroup.cli")}
# Upward imports known and owned elsewhere, each to be removed with its move (the test fails once
# one is no longer needed): module -> why it is still there.
ALLOWED_UPWARD: dict[str, str] = {}


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_lower_layers_import_nothing_from_above():
    graph = _graph()
    upward = []
    used = set()
    for name, edges in sorted(graph.items()):
        for layer, above in LOWER_LAYERS.items():
            if not _within(name, layer):
                continue
            for target, line in edges:
                if any(_within(target, a) for a in above):
                    if name in ALLOWED_UPWARD:
                        used.add(name)
                        continue
                    path = modules()[name][0].relative_to(ROOT)
                    upward.append(f"{path}:{line} imports {target} ({layer} may not import {', '.join(above)})")
    assert not upward, "\n".join(dict.fromkeys(upward))  # one line per import statement
    assert not set(ALLOWED_UPWARD) - used, f"no longer imports upward, remove from ALLOWED_UPWARD: {sorted(set(ALLOWED_UPWARD) - used)}"


def test_the_layer_check_sees_imports_inside_functions_and_for_the_type_checker(tmp_path):
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kgroup.lag.ends import EndAt\n"
              "def f():\n    import kgroup.output.render\n    from kgroup import lag\n")
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    found = imports("kgroup.kafka.m", path, False, {"kgroup.lag", "kgroup.lag.ends", "kgroup.output.render"})
    assert found == [("kgroup.lag.ends", 3), ("kgroup.output.render", 5), ("kgroup.lag", 6)]


def test_no_cli_command_module_imports_another():
    """A command's module parses, calls the core, maps errors and renders: what two commands share
    is in the core, or in kgroup.cli.common (options, the app) and the CLI's own helpers, never in
    another command's module."""
    from kgroup.cli import COMMANDS

    commands = {f"kgroup.cli.{m}" for m in COMMANDS.values()}
    graph = _graph()
    crossing = [f"{v} imports {w} (line {line})" for v in sorted(commands) for w, line in graph[v]
                if w in commands and w != v]
    assert crossing == []


def test_the_core_imports_no_cli_module():
    """Only the program's entry (kgroup.__main__) looks up at the Typer layer."""
    graph = _graph()
    upward = [f"{v} imports {w} (line {line})" for v in sorted(graph) if not _within(v, "kgroup.cli")
              and v != "kgroup.__main__" for w, line in graph[v] if _within(w, "kgroup.cli")]
    assert upward == []
