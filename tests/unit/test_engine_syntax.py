"""The lint gate's engine check (scripts/check_engine_syntax.py, issue 28 item 2): DuckDB-only
SQL in a model, a dbt test or a macro outside macros/engine/ fails with file, line and
construct; the portable macro spelling passes; the list of models still to port names only
files that exist and still need it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from csrwh.config import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / "scripts" / "check_engine_syntax.py"
_spec = importlib.util.spec_from_file_location("check_engine_syntax", SCRIPT)
check_engine_syntax = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_engine_syntax)

PORTABLE = """{#- a comment may say ->> or varchar -#}
with

source as (

    select * from {{ source('crsarena', 'dialogues') }}

),

renamed as (

    select
        -- comments may say payload ->> '$.x' too
        {{ json_text('payload', '$."conversation ID"') }} as dialogue_id,
        cast(record_index as string) as record_key,
        {{ array_at('fields', 1) }} as first_field,
        'a -> b :: varchar' as literal_text
    from source
    {{ unnest_join(json_list('source.payload', '$.conversation'), 'utterances', 'utterance', 'n') }}

)

select * from renamed
"""


def run(models: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(models)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_models_pass(tmp_path: Path) -> None:
    result = run(PROJECT_ROOT / "models")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_project_passes_without_arguments() -> None:
    """What `make lint` runs: models/, tests/dbt/ and macros/ but the engine implementations."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_duckdb_only_sql_in_a_dbt_test_or_a_macro_fails_the_default_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """A run without arguments checks the dbt tests and the macros too, not only the models:
    a DuckDB-only construct in a singular test, in a macro of tests/dbt/macros or in a
    non-dispatched project macro is a finding; the engine implementations (macros/engine/,
    and default__/spark__ bodies elsewhere) and Jinja's own lists and indexes are not."""
    files = {
        "models/staging/stg_x.sql": PORTABLE,
        "tests/dbt/marts/test_x.sql": "select * from {{ ref('x') }} where payload ->> '$.a' is null\n",
        "tests/dbt/macros/test_y.sql": (
            "{% macro test_y(model) %}\nselect len(items) from {{ model }}\n{% endmacro %}\n"
        ),
        "macros/z.sql": (
            "{% macro z(column) -%}\n{{ return(adapter.dispatch('z', 'csrwh')(column)) }}\n"
            "{%- endmacro %}\n"
            "{% macro default__z(column) -%}\n{{ column }}::varchar\n{%- endmacro %}\n"
            "{% macro z_list(columns) -%}\n{%- set parts = [] -%}\n"
            "{{ columns[0] }}, list(x order by y)\n{%- endmacro %}\n"
        ),
        "macros/engine/z.sql": "{% macro spark__z(column) %}transform(x, y -> y){% endmacro %}\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    monkeypatch.setattr(check_engine_syntax, "ROOT", tmp_path)
    assert check_engine_syntax.main([]) == 1
    lines = capsys.readouterr().out.splitlines()
    # one line per finding, in the order models/, tests/dbt/, macros/
    assert [line.split(": DuckDB-only ")[0] for line in lines] == [
        "tests/dbt/macros/test_y.sql:2",
        "tests/dbt/marts/test_x.sql:1",
        "macros/z.sql:9",
    ], lines
    assert [line.split(": DuckDB-only ")[1].split(" in dbt SQL")[0] for line in lines] == [
        "len()",
        "JSON operator ->>",
        "aggregate list()",
    ], lines


def test_portable_spelling_passes(tmp_path: Path) -> None:
    (tmp_path / "staging").mkdir()
    (tmp_path / "staging" / "stg_x.sql").write_text(PORTABLE, encoding="utf-8")
    result = run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_duckdb_only_syntax_fails_naming_file_line_and_construct(tmp_path: Path) -> None:
    (tmp_path / "staging").mkdir()
    model = tmp_path / "staging" / "stg_x.sql"
    bad = (
        PORTABLE.replace(
            "{{ json_text('payload', '$.\"conversation ID\"') }}",
            "payload ->> '$.\"conversation ID\"'",
        )
        .replace("cast(record_index as string)", "record_index::varchar")
        .replace("{{ array_at('fields', 1) }}", "fields[1]")
        .replace(
            "{{ unnest_join(json_list('source.payload', '$.conversation'), 'utterances', 'utterance', 'n') }}",
            "cross join unnest(cast(payload -> '$.conversation' as json[])) "
            "with ordinality as utterances (utterance, n)",
        )
    )
    model.write_text(bad, encoding="utf-8")
    result = run(tmp_path)
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    for line_number, construct in (
        (14, "->>"),
        (15, "::"),
        (15, "varchar"),
        (16, "[n]"),
        (19, "unnest()"),
        (19, "with ordinality"),
        (19, "json[]"),
        (19, "JSON operator ->"),
    ):
        assert any(f"stg_x.sql:{line_number}:" in line and construct in line for line in lines), (
            line_number,
            construct,
            result.stdout,
        )
    # the literal and the comments are not findings
    assert not any(":13:" in line or ":17:" in line or ":1:" in line for line in lines), (
        result.stdout
    )


def test_not_yet_ported_lists_only_models_that_still_need_porting() -> None:
    models = PROJECT_ROOT / "models"
    for relative in sorted(check_engine_syntax.NOT_YET_PORTED):
        path = models / relative
        assert path.is_file(), f"{relative} is listed as not yet ported but does not exist"
        assert check_engine_syntax.findings(path), (
            f"{relative} has no DuckDB-only syntax left: remove it from NOT_YET_PORTED"
        )
