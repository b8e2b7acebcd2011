"""After a reader: a FileSpec's record ``check`` over the staged good records, and the
precise one-line reject messages (computed in Python for the few rejected records only)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc

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


def apply_check(stage: pa.Table, check: RecordCheck, state: dict) -> pa.Table:
    """Run a FileSpec's ``check`` over the staged good records (in stage order); a record it
    gives a reason for becomes a reject: error = the reason, raw_bytes = its verbatim bytes
    (kept by the reader, else its source text or payload), nothing of it lands.

    A checked record that writes a key twice in one object, at any depth, is rejected before
    the check (``key "<key>" is written twice ...``): JSON readers differ on which value wins
    (Python's ``json`` and Spark's ``from_json`` to a map keep the last; DuckDB's ``from_json``
    to a ``MAP`` gives NULL), so the two engines would read such a record differently."""
    errors = stage.column("error").to_pylist()
    payloads = stage.column("payload").to_pylist()
    paths = stage.column("source_path").to_pylist()
    lines = stage.column("line_number").to_pylist()
    indexes = stage.column("record_index").to_pylist()
    new_errors = list(errors)
    for i, (error, payload) in enumerate(zip(errors, payloads)):
        if error is not None or payload is None:
            continue
        try:
            record = json.loads(payload, object_pairs_hook=_one_value_per_key)
        except _KeyWrittenTwice as exc:
            shown = json.dumps(exc.key, ensure_ascii=False)
            reason = (
                f"key {shown} is written twice in one object (one value per key: JSON "
                "readers differ on which one wins)"
            )
        except RecursionError:
            reason = "JSON nested too deeply to check (more than ~1000 levels)"
        except ValueError as exc:
            reason = f"record could not be checked: {exc}"
        else:
            reason = check(record, CheckContext(paths[i], lines[i], indexes[i], state))
        if reason:
            new_errors[i] = " ".join(str(reason).split())  # one line
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
