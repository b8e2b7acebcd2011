"""Independent recomputations of the report's per-corpus analyses (one module per corpus).

Each module may define ``TABLES`` (report table name -> (expectation, key columns, numeric key
columns, CSV columns)) in the format of ``report_expected.TABLES``, ``REPORT_TABLES`` (the
same, for report tables that are not one of the corpus's marts), and
``published_value(con, figure_id)`` for that corpus's published figures not covered there.
``agreement`` (the ``annotator_agreement`` table, every corpus), ``intervals`` (t and
Wilson intervals) and ``common`` (row queries, quantiles, ranks, correlations) are shared by
them and ``report_expected``; ``core`` holds the expectations of the overview sections.
They recompute from plain row queries of the marts in Python — never through
``csrwh.reading.figures`` or the notebook.
"""

from __future__ import annotations

import importlib

CORPORA = {
    name: importlib.import_module(f"report_oracle.{name}")
    for name in ("cosrec", "crsarena", "convsearch", "recllmsim", "recoreact")
}
