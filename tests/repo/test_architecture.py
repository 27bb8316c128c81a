"""The layering kgroup's README draws holds in the source (read with ``ast``, nothing imported):
errors are told apart by their types, never by their words."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _sources() -> list[Path]:
    return sorted((ROOT / "kgroup").rglob("*.py"))


def _text_of(node: ast.AST, names: set[str]) -> bool:
    """Is ``node`` the words of a caught exception: ``e.message``, ``str(e)``, ``e.args[...]``?"""
    if isinstance(node, ast.Attribute) and node.attr in ("message", "args"):
        return isinstance(node.value, ast.Name) and node.value.id in names
    if isinstance(node, ast.Subscript):
        return _text_of(node.value, names)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "repr"):
        return len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in names
    return False


def text_branches(tree: ast.AST) -> list[int]:
    """Lines where code inside an ``except ... as e`` decides by the exception's text: ``"x" in
    str(e)``, ``e.message.startswith(...)``, ``e.message == ...``."""
    found = []
    for handler in ast.walk(tree):
        if not isinstance(handler, ast.ExceptHandler) or handler.name is None:
            continue
        names = {handler.name}
        for node in ast.walk(handler):
            if isinstance(node, ast.Compare):
                if any(_text_of(side, names) for side in [node.left, *node.comparators]):
                    found.append(node.lineno)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in ("startswith", "endswith", "find", "index", "count")
                  and _text_of(node.func.value, names)):
                found.append(node.lineno)
    return found


def test_the_detector_finds_text_branching():
    code = ("try:\n    pass\nexcept E as e:\n    if 'x' in str(e):\n        pass\n"
            "    if e.message.startswith('not'):\n        pass\n    if e.args[0] == 3:\n        pass\n"
            "    raise F(f'{e.message}')\n")
    assert text_branches(ast.parse(code)) == [4, 6, 8]


def test_no_code_branches_on_an_errors_text():
    found = []
    for path in _sources():
        for line in text_branches(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            found.append(f"{path.relative_to(ROOT)}:{line}")
    assert found == [], "match the error's type (kgroup.errors), not its words:\n" + "\n".join(found)
