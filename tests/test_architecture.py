"""The package's shape, checked from its source: no import cycles in edge_agent, SQL only inside
edge_agent/memory/ (memory owns its tables; everything else asks it through named reads and writes), and no
function longer than :data:`MAX_FUNCTION_LINES` but those of a list that only shrinks.

The import graph is built with ``ast`` over every module under edge_agent/: module-level and function-level
imports are edges (a lazy import still ties two modules together), imports under ``if TYPE_CHECKING:`` are
not (they never run). ``from package import name`` is an edge to ``package.name`` when that is a module,
else to ``package``. Cycles are looked for twice: between modules, and between the package's components
(``edge_agent.<name>``: a subpackage with everything in it, or a top-level module), so that two areas
never lean on each other even through different modules."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import edge_agent

PACKAGE_DIR = Path(edge_agent.__file__).resolve().parent

# Known offenders, to be emptied by the config/cli restructuring (issue 15). An entry here is a debt, not
# a permission: when the work it names lands, remove the entry (the tests fail on a stale one). Entries name
# a module, or a package with everything under it.
ALLOWED_IMPORTS: set[tuple[str, str]] = set()  # (importer, imported) left out of the graph: none left
ALLOWED_SQL: set[str] = set()  # modules (or packages with their modules) that may still hold SQL: none left

#: A function (or method) is at most this many lines, decorators and docstring included (issue 42).
MAX_FUNCTION_LINES = 80
#: The longer ones of 2026-12-03 ("<module path under edge_agent/>:<qualified name>": its length then). An entry may
#: not grow; it goes when its function is split (the test fails on a stale entry), and nothing is added to it.
ALLOWED_LONG: dict[str, int] = {
    "bench/node.py:_measure": 109,
    "bench/retrieval.py:run": 106,
    "cli/bench.py:register": 121,
    "cli/entities.py:register": 89,
    "cli/entities.py:run": 88,
    "cli/evaluate.py:_run": 82,
    "cli/evaluate.py:register": 130,
    "cli/ingest.py:run": 97,
    "cli/models.py:register": 101,
    "eval/world.py:_perform": 118,
    "eval/worldeval.py:_run_seed": 82,
    "ingest.py:Pipeline.perceive": 130,
    "language/reader.py:Reader._intent": 122,
    "language/reader.py:Reader._query": 163,
    "language/reader.py:Reader.phrases": 584,
    "language/times.py:_Reader.read": 103,
    "memory/check.py:check": 97,
    "memory/db.py:Database.__init__": 83,
    "memory/retention.py:_enforce": 106,
    "memory/seed.py:seed_entities": 88,
    "memory/seed.py:seed_memory": 88,
    "memory/store.py:Store._write_clip": 94,
    "modelfiles/fetch.py:fetch": 99,
    "native_reference.py:ByteTrackerReference.update": 111,
    "retrieval/graph.py:_added_edges": 88,
    "retrieval/retrieve.py:Retriever.retrieve": 116,
    "rules/parse.py:read_phrase": 83,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node`` at any depth, except the body of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:  # the else branch does run
                yield from _import_nodes(ast.Module(body=[other], type_ignores=[]))
        else:
            yield from _import_nodes(child)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The package modules an import statement in ``module`` loads, by the rule in the module docstring."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    found = set()
    for name in names:
        while name and name not in known:  # `import edge_agent.x.y` of a module: y itself; of a name: its module
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the edge_agent modules it imports (itself excluded)."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        edges = {t for node in _import_nodes(tree) for t in _targets(node, name, is_package, known)}
        graph[name] = edges - {name}
    return graph


def components(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between edge_agent's components: ``edge_agent.<name>`` and everything under it are one node."""

    def component(module: str) -> str:
        return ".".join(module.split(".")[:2])

    out: dict[str, set[str]] = {}
    for module, edges in graph.items():
        out.setdefault(component(module), set()).update(component(e) for e in edges)
    return {node: edges - {node} for node, edges in out.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _path_through(graph: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """One closed import path inside a cycle, for the failure message: a -> b -> ... -> a."""
    start = min(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return sorted(component)  # pragma: no cover - a component always closes


# SQL as this project writes it: upper-case keywords in their SQL shape. English prose ("select a camera",
# "delete the clip", "update: ...") does not match; neither does a lone keyword such as an HTTP method "DELETE".
SQL = re.compile(
    r"\bSELECT\s[^;]*?\bFROM\b"
    r"|\bSELECT\s+(?:coalesce|count|max|min|sum|1)\b"
    r"|\bINSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\b"
    r"|\bREPLACE\s+INTO\b"
    r"|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b"
    r"|\b(?:CREATE|DROP)\s+(?:VIRTUAL\s+|TEMP\s+|UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\b"
    r"|\bALTER\s+TABLE\b"
    r"|\bPRAGMA\s+\w+"
    r"|\bVACUUM\b(?:\s+INTO\b|\s*$)"
)


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, text) of every string constant, f-strings joined from their literal parts."""
    inside_fstrings = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else " {} " for v in node.values
            )
            yield node.lineno, text
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inside_fstrings:
            yield node.lineno, node.value


def sql_outside_memory() -> dict[str, list[str]]:
    """module -> 'line: text' of its SQL strings, for every module outside edge_agent.memory."""
    found: dict[str, list[str]] = {}
    for name, path in _modules().items():
        if name == "edge_agent.memory" or name.startswith("edge_agent.memory."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        hits = [f"{line}: {' '.join(text.split())[:100]}" for line, text in _strings(tree) if SQL.search(text)]
        if hits:
            found[name] = hits
    return found


def database_outside_memory() -> dict[str, list[int]]:
    """module -> lines where code outside edge_agent.memory reaches a store's database (``store.db``, ``x.db.path``)
    instead of memory's API. A call of a method named ``db`` (the API state's ``api.db(run)``, which runs a
    function on the memory worker) is not a database."""
    found: dict[str, list[int]] = {}
    for name, path in _modules().items():
        if name == "edge_agent.memory" or name.startswith("edge_agent.memory."):
            continue
        lines = _database_lines(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        if lines:
            found[name] = lines
    return found


def _database_lines(tree: ast.AST) -> list[int]:
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "db" and id(node) not in called
    )


# -- the detectors themselves --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "SELECT id FROM clips WHERE id = ?",
        "SELECT coalesce(max(id), 0) FROM rule_events",
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        "UPDATE notifications SET status = 'sent' WHERE id = ?",
        "DELETE FROM observations WHERE id = ?",
        "CREATE VIRTUAL TABLE vec_obs_1 USING vec0(...)",
        "PRAGMA user_version",
        "SELECT {} FROM rules WHERE id = ?",
    ],
)
def test_sql_pattern_finds_sql(text: str) -> None:
    assert SQL.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "select a camera from the list",
        "Delete the clip from memory",
        "update the rule's text",
        "DELETE",
        "the pragma of this module: keep it small",
        "Create a table of results from the runs",
    ],
)
def test_sql_pattern_ignores_prose(text: str) -> None:
    assert not SQL.search(text)


def test_cycle_finder_reports_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    (component,) = cycles(graph)
    assert component == {"a", "b", "c"}
    assert _path_through(graph, component) == ["a", "b", "c", "a"]


def test_type_checking_imports_are_not_edges(tmp_path: Path) -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import edge_agent.x\n"
        "def f():\n    from edge_agent import y\n"
    )
    known = {"edge_agent", "edge_agent.x", "edge_agent.y"}
    edges = {t for node in _import_nodes(tree) for t in _targets(node, "edge_agent.z", False, known)}
    assert edges == {"edge_agent.y"}  # the function-level import counts, the TYPE_CHECKING one does not


# -- the package ---------------------------------------------------------------------------------------


def _covered(module: str, entries: set[str]) -> bool:
    return any(module == e or module.startswith(e + ".") for e in entries)


def test_no_import_cycles() -> None:
    modules = import_graph()

    def allowed(a: str, b: str, entries: set[tuple[str, str]]) -> bool:
        return any(_covered(a, {i}) and _covered(b, {j}) for i, j in entries)

    edges_found = [(a, b) for a, edges in modules.items() for b in edges]
    stale = sorted(e for e in ALLOWED_IMPORTS if not any(allowed(a, b, {e}) for a, b in edges_found))
    modules = {a: {b for b in edges if not allowed(a, b, ALLOWED_IMPORTS)} for a, edges in modules.items()}
    found: dict[frozenset[str], str] = {}  # a cycle of top-level modules is found at both levels: reported once
    for graph in (modules, components(modules)):
        for c in cycles(graph):
            found.setdefault(c, f"  {' -> '.join(_path_through(graph, c))}  (modules: {', '.join(sorted(c))})")
    assert not found, "import cycles in edge_agent (break them; see tests/test_architecture.py):\n" + "\n".join(
        found.values()
    )
    assert not stale, f"ALLOWED_IMPORTS lists imports that are gone: remove {stale}"


def test_sql_only_in_memory() -> None:
    found = sql_outside_memory()
    unexpected = {m: hits for m, hits in found.items() if not _covered(m, ALLOWED_SQL)}
    assert not unexpected, "SQL outside edge_agent/memory/ (give memory a named read or write instead):\n" + "\n".join(
        f"  {m}:\n" + "\n".join(f"    {h}" for h in hits) for m, hits in sorted(unexpected.items())
    )
    stale = sorted(e for e in ALLOWED_SQL if not any(_covered(m, {e}) for m in found))
    assert not stale, f"ALLOWED_SQL lists modules that hold no SQL any more: remove {stale}"


def test_the_database_is_memorys_own() -> None:
    found = database_outside_memory()
    assert not found, "outside edge_agent/memory/, pass the Store (memory's readers take it) or use its API, not " + (
        "store.db: " + "; ".join(f"{m} lines {lines}" for m, lines in sorted(found.items()))
    )


def test_the_database_finder_sees_an_attribute_and_not_a_call() -> None:
    tree = ast.parse("queries.last_clip_end(store.db)\nawait api.db(run)\nstore.db.checkpoint()\n")
    assert _database_lines(tree) == [1, 3]


def function_lengths() -> dict[str, int]:
    """Every function and method under edge_agent/: "<module path>:<qualified name>" -> its lines."""
    found: dict[str, int] = {}

    def walk(node: ast.AST, module: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found[f"{module}:{name}"] = int(child.end_lineno or child.lineno) - first + 1
                walk(child, module, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, module, f"{prefix}{child.name}.")

    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        walk(ast.parse(path.read_text()), path.relative_to(PACKAGE_DIR).as_posix(), "")
    return found


def test_no_function_is_longer_than_the_limit_but_those_listed() -> None:
    lengths = function_lengths()
    long = {name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES}
    unexpected = sorted(f"{name} ({n} lines)" for name, n in long.items() if name not in ALLOWED_LONG)
    assert not unexpected, f"functions over {MAX_FUNCTION_LINES} lines (split them): {unexpected}"
    grown = sorted(f"{name}: {long[name]} > {n}" for name, n in ALLOWED_LONG.items() if long.get(name, 0) > n)
    assert not grown, f"listed functions grew (they may only shrink): {grown}"
    stale = sorted(name for name in ALLOWED_LONG if name not in long)
    assert not stale, f"ALLOWED_LONG lists functions now within {MAX_FUNCTION_LINES} lines or gone: remove {stale}"
