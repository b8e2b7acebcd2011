"""Each corpus's section of the report: ``render/<corpus>.py`` shows (tables, plots) what
``csrwh/reading/figures/<corpus>.py`` defines (metrics, the SQL of the tables the report
writes). Imports point one way: rendering reads the metrics modules, never the reverse, and
neither imports :mod:`csrwh.reading.report` (the notebook passes it in as ``R``; the shared
plotting helpers are :mod:`csrwh.reading.plotting`).

Every module defines ``render(con, R, present)``: the tables and plots of the corpus authors'
own analyses, shown folded in the report's last section."""

from __future__ import annotations

import importlib
from types import ModuleType


def corpus_renderer(corpus: str) -> ModuleType:
    """The rendering module of ``corpus``."""
    return importlib.import_module(f"csrwh.reading.figures.render.{corpus}")
