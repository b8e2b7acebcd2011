"""The dbt unit tests (``models/**/_*__unit_tests.yml``) of the tricky intermediate models:
they pass on the project's models and fail, naming the model, when its rule is broken.

The failing half copies the dbt project, breaks one rule in each model under test and runs
only the unit tests against a copy of the sample warehouse (dbt needs the models' parents to
exist to type the fixtures)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from csrwh.config import PROJECT_ROOT

# model -> (the rule its unit test pins, the SQL that states it, a version that breaks it)
BROKEN = {
    "int_cosrec__turns_split": (
        "a line with neither prefix continues the utterance before it",
        "count(line_role) over (",
        "count(*) over (",
    ),
    "int_crsarena__votes_deduplicated": (
        "duplicates only within one environment",
        "partition by environment, user_id, crs1, crs2, vote",
        "partition by user_id, crs1, crs2, vote",
    ),
    "int_recllmsim__conversations_classified": (
        "human users are per release: <subset>/<User_k folder>",
        "when user_folder is not null then subset || '/' || user_folder",
        "when user_folder is not null then user_folder",
    ),
}


def _unit_tests(project: Path, warehouse: Path, target: Path) -> dict[str, str]:
    """Run every dbt unit test of ``project`` on ``warehouse`` with dbt's own command, in a
    process of its own as the build runs dbt: {unit test name: status} from its
    ``run_results.json``."""
    dbt = Path(sys.executable).with_name("dbt")
    env = {**os.environ, "DO_NOT_TRACK": "1", "CSRWH_DBT_PATH": str(warehouse)}
    run = subprocess.run(
        [
            str(dbt),
            "--quiet",
            "--log-path",
            str(target / "logs"),
            "test",
            "--select",
            "test_type:unit",
            "--project-dir",
            str(project),
            "--profiles-dir",
            str(project / "profiles"),
            "--target-path",
            str(target),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    results = target / "run_results.json"
    assert results.exists(), f"dbt wrote no run_results.json (exit {run.returncode}): {run.stderr}"
    return {
        r["unique_id"].split(".")[-1]: r["status"]
        for r in json.loads(results.read_text(encoding="utf-8"))["results"]
        if r["unique_id"].startswith("unit_test.")
    }


def test_unit_tests_pass_on_the_models(sample_warehouse: Path, tmp_path: Path) -> None:
    warehouse = tmp_path / "csr.duckdb"
    shutil.copy2(sample_warehouse, warehouse)
    statuses = _unit_tests(PROJECT_ROOT, warehouse, tmp_path / "target")
    assert statuses and set(statuses.values()) == {"pass"}, statuses
    for model in BROKEN:
        assert any(name.startswith(model) for name in statuses), f"no unit test of {model}"


def test_unit_tests_fail_when_a_rule_is_broken(sample_warehouse: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for part in ("models", "macros", "seeds", "profiles"):
        shutil.copytree(PROJECT_ROOT / part, project / part)
    shutil.copy2(PROJECT_ROOT / "dbt_project.yml", project / "dbt_project.yml")
    for model, (_, rule, broken) in BROKEN.items():
        sql = next((project / "models").rglob(f"{model}.sql"))
        text = sql.read_text(encoding="utf-8")
        assert text.count(rule) == 1, f"{sql}: the rule's SQL moved; update BROKEN"
        sql.write_text(text.replace(rule, broken), encoding="utf-8")
    warehouse = tmp_path / "csr.duckdb"
    shutil.copy2(sample_warehouse, warehouse)
    statuses = _unit_tests(project, warehouse, tmp_path / "target")
    for model, (what, _, _) in BROKEN.items():
        ran = {name: status for name, status in statuses.items() if name.startswith(model)}
        assert ran and set(ran.values()) == {"fail"}, f"{model} ({what}): {ran}"
