"""Import Great Expectations without letting it import pyspark.

GX imports pyspark whenever it is installed (``great_expectations.compatibility.pyspark``),
which the ``spark`` extra does. That costs the DuckDB build's gate seconds of imports, prints
pyspark's pandas warning, and -- worse -- pyspark's ``sql.connect.utils`` ends the whole
process with exit status 0 when ``__main__`` has no file (``python -c``, a notebook kernel
started that way) and grpc is missing. The DuckDB gate never uses GX's Spark support, so GX
is imported with pyspark hidden; GX then records it as not installed, and pyspark can still
be imported normally afterwards (the Spark build does).
"""

from __future__ import annotations

import importlib
import sys


def import_gx_without_pyspark() -> None:
    """Import ``great_expectations`` (once per process) with ``pyspark`` hidden from it; when
    pyspark is already loaded (the Spark build's functions, a test of them in the same
    process), only ``pyspark.sql.connect``, the module that can end the process, is hidden."""
    if "great_expectations" in sys.modules:
        return
    hidden = "pyspark.sql.connect" if "pyspark" in sys.modules else "pyspark"
    if hidden in sys.modules:  # connect itself already imported: nothing left to guard
        importlib.import_module("great_expectations")
        return
    sys.modules[hidden] = None  # type: ignore[assignment] # an ImportError for GX
    try:
        import great_expectations  # noqa: F401
    finally:
        if sys.modules.get(hidden, 0) is None:
            del sys.modules[hidden]
