"""The package's shape (docs/architecture.md): no import cycle, every layout rule in its layout,
and the library never prints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dream"


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("").as_posix()
    return rel.removesuffix("/__init__").replace("/", ".") if rel != "__init__" else ""


def _imports() -> dict[str, set[str]]:
    """Each module's imports of other dream modules, function-level ones included; imports only
    made for type checking are left out (they never run)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(sub)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
            for sub in ast.walk(node)
        }
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "dream":
                name = node.module.removeprefix("dream").removeprefix(".")
                deps.update([name] if name else [alias.name for alias in node.names])
            elif isinstance(node, ast.Import):
                deps.update(a.name.removeprefix("dream.") for a in node.names if a.name.startswith("dream."))
        module = _module(path)
        graph[module] = deps - {module}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if dep not in graph:
                continue
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle_in_the_package() -> None:
    graph = _imports()
    assert len(graph) > 30
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_layout_branch_outside_the_layouts() -> None:
    branch = re.compile(
        r"memory_type\s*[!=]=|==\s*[\"'](?:openclaw|project-root)[\"']|MemoryType\.\w+\s*[!=]="
    )
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        if "layouts" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if branch.search(line)
    ]
    assert found == []


def test_no_path_is_spelled_outside_the_path_resolver() -> None:
    """Every file and folder name dream reads or writes is joined in dream/paths.py: elsewhere a
    path is a resolved one, or a resolved folder joined with a name read from it (`memory_dir / rel`)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "paths.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            literal_join = (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Div)
                and isinstance(node.right, (ast.Constant, ast.JoinedStr))
                and isinstance(getattr(node.right, "value", ""), str)
            )
            os_join = (
                isinstance(node, ast.Attribute)
                and node.attr == "join"
                and getattr(node.value, "attr", None) == "path"
            )
            if literal_join or os_join:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_the_library_never_prints() -> None:
    """Only the CLI writes to the terminal; the library returns typed results."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name in ("cli.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("echo", "secho")
                and getattr(node.value, "id", None) == "click"
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []
