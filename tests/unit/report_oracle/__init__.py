"""Independent recomputations of the report's per-corpus analyses (one module per corpus).

Each module may define ``TABLES`` (report table name -> (expectation, key columns, numeric key
columns, CSV columns)) in the format of ``test_report_expected.TABLES``, and
``published_value(con, figure_id)`` for that corpus's published figures not covered there.
They recompute from plain row queries of the marts in Python — never through
``csrwh.figures`` or the notebook.
"""

from __future__ import annotations

import importlib

CORPORA = {
    name: importlib.import_module(f"report_oracle.{name}")
    for name in ("cosrec", "crsarena", "convsearch", "recllmsim", "recoreact")
}
