"""The one way csrwh opens the published warehouse read-only (API, ``csrwh sql``/``export``,
report, dashboard).

:func:`open_read_only` attaches the file ``READ_ONLY`` to a private in-memory DuckDB, so it
always reads the file now at the path (not a renamed-away one from DuckDB's instance cache) and
never blocks a writer.
Details: docs/internals.md#csrwh-reading-opener
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from csrwh.errors import CsrwhError

#: names the private in-memory instance already uses: a warehouse with such a stem is attached
#: as :data:`FALLBACK_CATALOG` instead
_RESERVED_CATALOGS = frozenset({"memory", "system", "temp"})
FALLBACK_CATALOG = "wh"


def catalog_name(path: Path) -> str:
    """The database name of the warehouse at ``path`` on an opened connection."""
    stem = path.stem
    return FALLBACK_CATALOG if not stem or stem.lower() in _RESERVED_CATALOGS else stem


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def open_read_only(path: Path, *, hint: str = "is it a DuckDB warehouse written by `csrwh build`?"):
    """A read-only connection to the DuckDB file at ``path`` as it is now (see the module
    docstring). The caller checks that the file exists (each names the missing warehouse its
    own way); a file DuckDB cannot attach is one :class:`CsrwhError` naming it, with ``hint``.
    """
    path = Path(path)
    con = duckdb.connect(":memory:", config={"temp_directory": f"{path}.tmp"})
    catalog = _quoted(catalog_name(path))
    try:
        literal = str(path).replace("'", "''")
        con.execute(f"attach '{literal}' as {catalog} (read_only)")
        con.execute(f"use {catalog}")
    except duckdb.Error as exc:
        con.close()
        raise CsrwhError(
            f"cannot open {path} read-only: {str(exc).strip().splitlines()[0]}", hint=hint
        ) from exc
    return con
