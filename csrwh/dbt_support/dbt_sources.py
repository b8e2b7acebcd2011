"""The raw tables as the dbt project declares them.

Each corpus is one dbt source in schema ``raw`` (``models/staging/<corpus>/_<corpus>__sources.yml``;
the ingest's own tables are the ``ingest`` source in ``models/staging/_ingest__sources.yml``).
A table's ``identifier`` is the raw table's name (``cosrec__conversations``); the columns every
landing table shares are documented once, in ``{% docs raw_<column> %}`` blocks
(``models/staging/_raw__docs.md``). This module reads those files without running dbt, for the
catalog (``csrwh describe``), the lineage check and the tests.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from csrwh.config import PROJECT_ROOT

#: libyaml's safe loader where PyYAML was built with it (the same documents, ~7x less CPU than
#: the pure-Python one over the project's yml files: the lineage check parses them every build)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_DOCS_BLOCK = re.compile(r"{%-?\s*docs\s+(\w+)\s*-?%}(.*?){%-?\s*enddocs\s*-?%}", re.DOTALL)
_DOC_REF = re.compile(r"""{{\s*doc\(\s*['"](\w+)['"]\s*\)\s*}}""")


@dataclass(frozen=True)
class RawTable:
    """One raw landing table: its dbt source, description, column descriptions and meta."""

    source: str
    name: str
    identifier: str
    description: str
    columns: dict[str, str] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)


def _doc_blocks(models: Path) -> dict[str, str]:
    blocks: dict[str, str] = {}
    for md in sorted(models.rglob("*.md")):
        for name, body in _DOCS_BLOCK.findall(md.read_text(encoding="utf-8")):
            blocks[name] = body.strip()
    return blocks


def _render(text: object, blocks: dict[str, str], where: str) -> str:
    def one(match: re.Match) -> str:
        if match.group(1) not in blocks:
            raise ValueError(f"{where}: doc('{match.group(1)}') has no {{% docs %}} block")
        return blocks[match.group(1)]

    return _DOC_REF.sub(one, str(text or ""))


@functools.cache
def raw_tables(project_root: Path = PROJECT_ROOT) -> dict[str, RawTable]:
    """``{raw table name: RawTable}`` over every dbt source whose schema is ``raw``."""
    models = project_root / "models"
    if not models.is_dir():
        return {}
    blocks = _doc_blocks(models)
    found: dict[str, RawTable] = {}
    for yml in sorted(models.rglob("*.yml")):
        doc = yaml.load(yml.read_text(encoding="utf-8"), Loader=YAML_LOADER) or {}
        for source in doc.get("sources") or []:
            if source.get("schema", source.get("name")) != "raw":
                continue
            for table in source.get("tables") or []:
                identifier = table.get("identifier") or table["name"]
                where = f"{yml.relative_to(project_root)}: {source['name']}.{table['name']}"
                if identifier in found:
                    raise ValueError(f"{where}: raw.{identifier} is declared twice")
                found[identifier] = RawTable(
                    source=source["name"],
                    name=table["name"],
                    identifier=identifier,
                    description=_render(table.get("description"), blocks, where),
                    columns={
                        c["name"]: _render(c.get("description"), blocks, where)
                        for c in table.get("columns") or []
                    },
                    meta=(table.get("config") or {}).get("meta") or {},
                )
    return found


def by_source_ref(project_root: Path = PROJECT_ROOT) -> dict[tuple[str, str], str]:
    """``{(source name, table name): raw table}``: what ``source('<src>', '<table>')`` reads."""
    return {(t.source, t.name): t.identifier for t in raw_tables(project_root).values()}
