"""Your own corpora ("custom"): one conversation per JSONL line, one folder per corpus.

Layout: ``<name>/*.jsonl`` -- every line one JSON object ``{"id", "messages": [{"role",
"text", ...}], ...}`` (the format: docs/ADDING_A_CORPUS.md), ``record_key`` = ``id`` -- and
an optional ``<name>/corpus.json`` (one JSON object: description, licence, citation, rating
scales), ``record_key`` = ``<name>/corpus``. ``<name>`` is the first folder under
``custom/``; files elsewhere (``custom/x.jsonl``, ``<name>/sub/x.jsonl``) are not landed
and are listed as ignored. Lines that are not JSON objects are rejected verbatim like in
every JSONL file; so is, through :func:`check_conversation`, a JSON object that breaks the
format (no usable id, no messages, a message of an unknown role or without text, a value of
the wrong type such as a rating that is not a number, an id already used in the corpus): it
goes to ``raw.rejected_records`` with its file, line and a one-line reason, and the rest of
the corpus lands.
"""

from __future__ import annotations

import json

from ingest.spec import CheckContext, FileSpec, Format, RecordKey

CORPUS = "custom"
FOLDER = "custom"
#: no folder is normal: not reported as missing (a build without it is the five corpora alone)
OPTIONAL = True

ABSENT_HINT = (
    "optional: put your own corpora in <data dir>/custom/<name>/*.jsonl, one conversation "
    "per line (docs/ADDING_A_CORPUS.md)"
)

ROLES = ("user", "assistant", "system")
#: optional top-level keys whose value is a string (null counts as absent)
STRING_KEYS = ("subset", "task", "language", "user_id", "system_id")


def _kind(value: object) -> str:
    """The JSON type of a parsed value, as the loader's errors name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _number_or_null(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _message_problems(index: int, message: object) -> list[str]:
    if not isinstance(message, dict):
        return [f'message {index} is not an object {{"role", "text"}} (found {_kind(message)})']
    out = []
    role = message.get("role")
    if role is None:
        out.append(f"message {index} has no role")
    elif role not in ROLES:
        shown = f"'{role}'" if isinstance(role, str) else json.dumps(role)
        out.append(f"message {index} has an unknown role {shown} (expected {', '.join(ROLES)})")
    if not isinstance(message.get("text"), str):
        found = _kind(message["text"]) if "text" in message else "no text"
        out.append(f"message {index} text is missing or not a string (found {found})")
    labels = message.get("labels")
    if labels is not None and not isinstance(labels, list):
        out.append(f"message {index} labels is not an array (found {_kind(labels)})")
    elif labels is not None and not all(isinstance(label, str) for label in labels):
        out.append(f"message {index} labels holds something other than strings")
    if not _number_or_null(message.get("rating")):
        out.append(f"message {index} rating is not a number (found {_kind(message['rating'])})")
    return out


def conversation_problems(record: dict) -> list[str]:
    """Every way one conversation breaks the documented format (empty: none)."""
    out = []
    cid = record.get("id")
    if "id" not in record:
        out.append("id is missing")
    elif not isinstance(cid, str):
        out.append(f"id is not a string (found {_kind(cid)})")
    elif not cid.strip():
        out.append("id is empty or blank")
    messages = record.get("messages")
    if "messages" not in record:
        out.append("messages is missing")
    elif not isinstance(messages, list):
        out.append(f"messages is not an array (found {_kind(messages)})")
    elif not messages:
        out.append("messages is empty")
    for key in STRING_KEYS:
        if record.get(key) is not None and not isinstance(record[key], str):
            out.append(f"{key} is not a string (found {_kind(record[key])})")
    ratings = record.get("ratings")
    if ratings is not None and not isinstance(ratings, dict):
        out.append(f'ratings is not an object {{"<aspect>": number}} (found {_kind(ratings)})')
    elif ratings:
        out += [
            f"ratings.{aspect} is not a number (found {_kind(value)})"
            for aspect, value in ratings.items()
            if not _number_or_null(value)
        ]
    metadata = record.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        out.append(f"metadata is not an object (found {_kind(metadata)})")
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        out += _message_problems(index, message)
    return out


def check_conversation(record: object, context: CheckContext) -> str | None:
    """The reason a line of ``<name>/*.jsonl`` is rejected, or None when it lands.

    A record's problems are joined by "; ". An id is unique within its corpus (the folder),
    across its files: files are checked in file order and the first landing record with an
    id wins; a later one is rejected naming where the first one is.
    """
    problems = conversation_problems(record)  # the reader passes JSON objects only
    if problems:
        return "; ".join(problems)
    name = context.source_path.split("/", 1)[0]
    here = (context.source_path, context.line_number)
    first = context.state.setdefault("ids", {}).setdefault((name, record["id"]), here)
    if first == here:
        return None
    shown = json.dumps(record["id"], ensure_ascii=False)
    return (
        f"id {shown} is used twice in corpus {name}: first at {first[0]} line {first[1]}, "
        "which lands (an id names one conversation within its corpus, across its files)"
    )


FILES = (
    FileSpec(
        "*/*.jsonl",
        "custom__conversations",
        Format.JSONL,
        RecordKey.field("id"),
        check=check_conversation,
    ),
    FileSpec("*/corpus.json", "custom__corpora", Format.JSON_FILE, RecordKey.relative_path()),
)
