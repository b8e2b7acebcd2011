"""Lineage completeness: every JSON key path of every raw payload is modelled or listed.

Each raw table's key paths (from DuckDB's ``json_structure``) are compared with the paths the
staging models declare they read and those declared not modelled; a path covered by neither is
a warning line and a row of ``main.dq_results`` (suite ``lineage_completeness``).
Details: docs/internals.md#csrwh-pipeline-lineage
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from csrwh import dq_results
from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support.dbt_sources import YAML_LOADER, by_source_ref, raw_tables

SUITE = dq_results.LINEAGE_SUITE
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SOURCE_REF = re.compile(
    r"source\(\s*['\"]([A-Za-z0-9_]+)['\"]\s*,\s*['\"]([A-Za-z0-9_]+)['\"]\s*\)"
)


@dataclass(frozen=True)
class UnlistedPath:
    """A payload key path no staging model reads and nobody listed as unmodelled."""

    table: str
    path: str
    example_source_path: str
    n_records: int

    def message(self) -> str:
        return (
            f"raw.{self.table}: JSON path {self.path} is neither read by a staging model nor "
            f"listed as unmodelled (e.g. {self.example_source_path}, {self.n_records} record(s))"
        )


@dataclass
class LineageSpec:
    """What the project declares: per raw table, paths read, paths unmodelled, map levels."""

    reads: dict[str, set[str]] = field(default_factory=dict)
    unmodelled: dict[str, dict[str, str]] = field(default_factory=dict)
    map_paths: dict[str, set[str]] = field(default_factory=dict)

    def covers(self, table: str, path: str) -> bool:
        """Whether ``path`` (a leaf) is read by a staging model or listed as unmodelled."""
        patterns = [_pattern(p) for p in self.reads.get(table, set())]
        unmodelled = [_pattern(p) for p in self.unmodelled.get(table, {})]
        for ancestor in ancestors(path):
            if ancestor == path and any(pattern.fullmatch(path) for pattern, _ in patterns):
                return True
            if any(subtree and pattern.fullmatch(ancestor) for pattern, subtree in patterns):
                return True
            if any(pattern.fullmatch(ancestor) for pattern, _ in unmodelled):
                return True
        return False


@functools.cache
def _pattern(declared: str) -> tuple[re.Pattern[str], bool]:
    """A declared path as a regex (``*`` = any characters within one key) and whether it ends
    in ``.**`` (the whole subtree)."""
    subtree = declared.endswith(".**")
    body = declared[:-3] if subtree else declared
    regex = "".join("[^.\\[]*" if ch == "*" else re.escape(ch) for ch in body)
    return re.compile(regex), subtree


def key_segment(key: str) -> str:
    """One path step for an object key: ``.key``, or ``."key"`` when it is not an identifier."""
    if _IDENT.match(key):
        return f".{key}"
    return "." + json.dumps(key, ensure_ascii=False)


def ancestors(path: str) -> list[str]:
    """``path`` and every ancestor of it, longest first (``$.a[].b`` → itself, ``$.a[]``, ``$.a``, ``$``)."""
    out = [path]
    for match in reversed(list(re.finditer(r'\.(?:"(?:[^"\\]|\\.)*"|[^.\[]+)|\[\]', path))):
        out.append(path[: match.start()])
    return out


def leaf_paths(structure: object, map_paths: set[str], path: str = "$") -> Iterator[str]:
    """Leaf key paths of a ``json_structure`` value (scalars and empty containers)."""
    if isinstance(structure, dict):
        if not structure:
            yield path
        is_map = path in map_paths
        for key, value in structure.items():
            step = ".*" if is_map or key.isdigit() else key_segment(key)
            yield from leaf_paths(value, map_paths, path + step)
    elif isinstance(structure, list):
        element = structure[0] if structure else "NULL"
        if element == "NULL":
            yield path + "[]"
        else:
            yield from leaf_paths(element, map_paths, path + "[]")
    else:
        yield path


def load_spec(project_root: Path = PROJECT_ROOT) -> LineageSpec:
    """Read the declarations from the staging models' yml and the per-corpus sources yml."""
    spec = LineageSpec()
    for name, table in raw_tables(project_root).items():
        entries = table.meta.get("unmodelled_json_paths") or []
        spec.unmodelled[name] = {entry["path"]: entry["reason"] for entry in entries}
        spec.map_paths[name] = set(table.meta.get("json_map_paths") or [])
    raw_table = by_source_ref(project_root)
    for yml in sorted((project_root / "models").rglob("*.yml")):
        doc = yaml.load(yml.read_text(encoding="utf-8"), Loader=YAML_LOADER) or {}
        for model in doc.get("models") or []:
            meta = (model.get("config") or {}).get("meta") or {}
            paths = meta.get("json_paths_read")
            if not paths:
                continue
            sql = next(yml.parent.glob(f"{model['name']}.sql"), None)
            if sql is None:
                raise ValueError(f"{yml}: {model['name']} declares json_paths_read but has no .sql")
            refs = set(_SOURCE_REF.findall(sql.read_text(encoding="utf-8")))
            tables = {raw_table[ref] for ref in refs if ref in raw_table}
            if len(tables) != 1:
                raise ValueError(
                    f"{sql}: json_paths_read needs exactly one raw source, found {tables}"
                )
            spec.reads.setdefault(tables.pop(), set()).update(paths)
    return spec


def observed_paths(con, table: str, map_paths: set[str]) -> dict[str, tuple[str, int]]:
    """Leaf path → (example source_path, number of records) over ``raw.<table>``."""
    rows = con.execute(
        f"select json_structure(payload) as structure, min(source_path), count(*) "
        f'from raw."{table}" where payload is not null group by structure'
    ).fetchall()
    found: dict[str, tuple[str, int]] = {}
    for structure, example, n in rows:
        for path in set(leaf_paths(json.loads(structure), map_paths)):
            old_example, old_n = found.get(path, (example, 0))
            found[path] = (min(old_example, example), old_n + n)
    return found


def unlisted_paths(con, spec: LineageSpec, tables: list[str]) -> list[UnlistedPath]:
    """Every leaf path of ``tables`` the spec does not cover, sorted by table and path."""
    out = []
    for table in tables:
        for path, (example, n) in sorted(
            observed_paths(con, table, spec.map_paths.get(table, set())).items()
        ):
            if not spec.covers(table, path):
                out.append(UnlistedPath(table, path, example, n))
    return out
