"""The project fingerprint and the build's record in ``main.build_info``."""

from __future__ import annotations

import hashlib
from pathlib import Path

from csrwh.config import PROJECT_ROOT
from csrwh.pipeline.state import _read_state
from csrwh.version import __version__


def project_fingerprint() -> str:
    """sha256 over everything that shapes the marts: dbt project, models, macros, seeds, tests, suites."""
    digest = hashlib.sha256(__version__.encode())
    names = ["dbt_project.yml", "profiles/profiles.yml"]
    for folder in ("models", "macros", "seeds", "tests/dbt", "expectations"):
        names.extend(
            str(p.relative_to(PROJECT_ROOT))
            for p in (PROJECT_ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )
    for name in sorted(names):
        path = PROJECT_ROOT / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _published_fingerprint(warehouse: Path) -> str | None:
    """The fingerprint recorded by the last published build, if any."""
    if not warehouse.exists():
        return None
    try:
        return _read_state(warehouse).fingerprint
    except Exception:  # noqa: BLE001
        return None


def _record_build(
    database: Path, build_id: str, data_dir: Path, fingerprint: str, inputs: str
) -> None:
    """Write the build's id into the warehouse (`main.build_info`) so reports can cite it, with
    the digest of the input files the marts were built from (freshness of the next build)."""
    import duckdb

    with duckdb.connect(str(database)) as con:
        con.execute(
            "create or replace table main.build_info as select ? as build_id, "
            "current_timestamp as built_at, ? as data_dir, ? as project_fingerprint, "
            "? as csrwh_version, ? as inputs_digest, "
            "(select count(*) from raw.ingest_files) as n_input_files",
            [build_id, str(data_dir), fingerprint, __version__, inputs],
        )
