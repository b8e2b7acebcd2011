"""The SQL lint gate of `make lint` (.sqlfluff) flags what our style forbids and passes what it
allows, on a model written the project's way (refs, dispatched macros, dbt cross-db macros)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from csrwh.config import PROJECT_ROOT

SQLFLUFF = Path(sys.executable).with_name("sqlfluff")

GOOD = """with

turns as (

    select * from {{ ref('turns') }}

)

select
    corpus,
    {{ dbt.split_part('turn_id', "':'", 1) }} as prefix,
    {{ json_text('payload', '$.x') }} as x,
    count(*) as n_turns
from turns
group by corpus, prefix, x
"""


def lint(tmp_path: Path, sql: str) -> subprocess.CompletedProcess:
    model = tmp_path / "model.sql"
    model.write_text(sql, encoding="utf-8")
    return subprocess.run(
        [str(SQLFLUFF), "lint", str(model), "--config", str(PROJECT_ROOT / ".sqlfluff")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_model_in_house_style_passes(tmp_path: Path) -> None:
    result = lint(tmp_path, GOOD)
    assert result.returncode == 0, result.stdout + result.stderr


def test_style_breaks_fail_naming_rule_and_line(tmp_path: Path) -> None:
    bad = GOOD.replace("select\n    corpus,\n    ", "SELECT\n    corpus\n    , ").replace(
        "count(*) as n_turns", "count(*)"
    )
    result = lint(tmp_path, bad)
    assert result.returncode == 1, result.stdout
    for rule in ("CP01", "LT04", "AL03"):
        assert rule in result.stdout, (rule, result.stdout)
