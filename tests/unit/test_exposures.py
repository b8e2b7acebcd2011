"""The dbt exposures (models/_exposures.yml) list exactly the marts their consumers query, so
the lineage in `dbt docs` stays true when the report, dashboard or cookbook change."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from csrwh.config import PROJECT_ROOT

EXPOSURES = PROJECT_ROOT / "models" / "_exposures.yml"
_REF = re.compile(r"""ref\(\s*['"](\w+)['"]\s*\)""")


def mart_names(root: Path = PROJECT_ROOT) -> set[str]:
    """Every mart model: the .sql and .py files under models/marts/."""
    marts = root / "models" / "marts"
    return {p.stem for p in marts.rglob("*") if p.suffix in (".sql", ".py")}


def marts_queried(files: list[Path], marts: set[str]) -> set[str]:
    """The marts named as a relation (after from/join, or quoted) anywhere in ``files``."""
    texts = [
        f.read_text(encoding="utf-8")
        for path in files
        for f in ([path] if path.is_file() else sorted(path.rglob("*.py")))
    ]
    found = set()
    for mart in marts:
        pattern = re.compile(
            rf"""(from|join)\s+(main\.)?"?{mart}\b|["']{mart}["']""", re.IGNORECASE
        )
        if any(pattern.search(text) for text in texts):
            found.add(mart)
    return found


def exposures() -> list[dict]:
    return yaml.safe_load(EXPOSURES.read_text(encoding="utf-8"))["exposures"]


def test_every_exposure_depends_on_exactly_the_marts_its_files_query() -> None:
    marts = mart_names()
    assert {e["name"] for e in exposures()} == {"statistics_report", "dashboard", "sql_cookbook"}
    for exposure in exposures():
        files = [PROJECT_ROOT / p for p in exposure["config"]["meta"]["reads_from"]]
        assert all(f.exists() for f in files), files
        listed = set(_REF.findall(" ".join(exposure["depends_on"])))
        assert listed == marts_queried(files, marts), exposure["name"]


def test_the_check_sees_an_unlisted_mart(tmp_path: Path) -> None:
    consumer = tmp_path / "page.py"
    consumer.write_text('db.sql("select * from main.turns join votes using (corpus)")\n')
    assert marts_queried([consumer], mart_names()) == {"turns", "votes"}
    consumer.write_text('db.table("ratings")\n')
    assert marts_queried([consumer], mart_names()) == {"ratings"}
