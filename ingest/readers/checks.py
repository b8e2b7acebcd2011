"""After a reader: every staged good record held to the record limits (:mod:`ingest.limits`)
and to one value per key, a FileSpec's record ``check``, and the precise one-line reject
messages of the SQL pass (computed in Python for the few rejected records only)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc

from ingest.limits import RecordLimits
from ingest.readers.stage import strip_bom
from ingest.spec import CheckContext, Format, RecordCheck


class _KeyWrittenTwice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _one_value_per_key(pairs: list[tuple[str, object]]) -> dict:
    """``json.loads``' object hook: the object as a dict, or :class:`_KeyWrittenTwice`."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _KeyWrittenTwice(key)
            seen.add(key)
    return out


def _record_problem(
    payload: str,
    raw: bytes | None,
    check: RecordCheck | None,
    ctx: CheckContext,
    limits: RecordLimits,
) -> str | None:
    """Why one staged good record is rejected (size, depth, a key written twice, the check's
    reason), or None."""
    reason = limits.size_problem(payload, raw) or limits.depth_problem(payload)
    if reason:
        return reason
    try:
        record = json.loads(payload, object_pairs_hook=_one_value_per_key)
    except _KeyWrittenTwice as exc:
        shown = json.dumps(exc.key, ensure_ascii=False)
        return (
            f"key {shown} is written twice in one object (one value per key: JSON "
            "readers differ on which one wins)"
        )
    except RecursionError:
        return "JSON nested too deeply to check (more than ~1000 levels)"
    except ValueError as exc:
        return f"record could not be checked: {exc}"
    return check(record, ctx) if check is not None else None


def apply_check(
    stage: pa.Table,
    check: RecordCheck | None,
    state: dict,
    limits: RecordLimits | None = None,
) -> pa.Table:
    """Hold every staged good record (in stage order) to the record limits
    (:mod:`ingest.limits`: size in bytes, JSON depth) and to one value per key, then run a
    FileSpec's ``check`` (if any) over it; a record given a reason becomes a reject: error =
    the reason, raw_bytes = its verbatim bytes (kept by the reader, else its source text or
    payload), nothing of it lands.

    A record that writes a key twice in one object, at any depth, is rejected
    (``key "<key>" is written twice ...``): JSON readers differ on which value wins
    (Python's ``json`` and Spark's ``from_json`` to a map keep the last; DuckDB's
    ``->>``/``from_json`` the first or NULL), so the two engines would read such a record
    differently."""
    limits = limits or RecordLimits()
    errors = stage.column("error").to_pylist()
    payloads = stage.column("payload").to_pylist()
    raws = stage.column("raw_bytes").to_pylist()
    paths = stage.column("source_path").to_pylist()
    lines = stage.column("line_number").to_pylist()
    indexes = stage.column("record_index").to_pylist()
    new_errors = list(errors)
    for i, (error, payload) in enumerate(zip(errors, payloads)):
        if error is not None or payload is None:
            continue
        ctx = CheckContext(paths[i], lines[i], indexes[i], state)
        reason = _record_problem(payload, raws[i], check, ctx, limits)
        if reason:
            new_errors[i] = " ".join(str(reason).split())  # one line
    del payloads, raws
    rejected = pa.array([new is not None and old is None for new, old in zip(new_errors, errors)])
    text = pc.coalesce(stage.column("source_text"), stage.column("payload"))
    raw = pc.coalesce(stage.column("raw_bytes"), pc.cast(text, pa.large_binary()))
    is_error = pa.array([e is not None for e in new_errors])
    columns = {
        "error": pa.array(new_errors, pa.string()),
        "raw_bytes": pc.if_else(is_error, raw, pa.nulls(len(raw), pa.large_binary())),
    }
    for name in ("record_key", "payload", "source_text"):
        col = stage.column(name)
        columns[name] = pc.if_else(rejected, pa.nulls(len(col), col.type), col)
    for name, col in columns.items():
        stage = stage.set_column(stage.schema.get_field_index(name), name, col)
    return stage


def refine_error(error: str, raw: bytes | None, at_eof: bool, fmt: Format) -> str:
    """Turn the SQL error code into a precise message; detect truncated last records."""
    if raw is None:
        return error
    if error == "broken JSON":
        text = strip_bom(raw).decode("utf-8", "replace")
        text = text.removesuffix("\r")
        try:
            json.loads(text)
            return "broken JSON: rejected by DuckDB's JSON parser (e.g. a lone surrogate escape)"
        except RecursionError:
            return "broken JSON: nested too deeply to locate the error (more than ~1000 levels)"
        except json.JSONDecodeError as exc:
            truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
            if truncated and (at_eof or fmt is Format.JSON_FILE):
                return f"truncated file: partial last record ({exc})"
            return f"broken JSON: {exc}"
    if error.startswith("wrong field count") and at_eof and fmt is Format.QRELS:
        return f"truncated file: partial last line ({error})"
    return error
