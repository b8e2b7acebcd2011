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

import sys


def import_gx_without_pyspark() -> None:
    """Import ``great_expectations`` (once per process) with ``pyspark`` hidden from it."""
    if "great_expectations" in sys.modules or "pyspark" in sys.modules:
        return
    sys.modules["pyspark"] = None  # type: ignore[assignment] # an ImportError for GX
    try:
        import great_expectations  # noqa: F401
    finally:
        if sys.modules.get("pyspark", 0) is None:
            del sys.modules["pyspark"]
