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
STRING_KEYS = (
    "subset",
    "task",
    "language",
    "user_id",
    "system_id",
    # conformed columns' own names, as `csrwh export` writes them
    "domain_or_task",
    "task_type",
    "user_sentiment",
)


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
    # `content` (the chat-template name `csrwh export` writes) stands for a missing `text`
    text_key = "text" if "text" in message or "content" not in message else "content"
    if not isinstance(message.get(text_key), str):
        found = _kind(message[text_key]) if text_key in message else "no text"
        out.append(f"message {index} text is missing or not a string (found {found})")
    labels = message.get("labels")
    if labels is not None and not isinstance(labels, list):
        out.append(f"message {index} labels is not an array (found {_kind(labels)})")
    elif labels is not None and not all(isinstance(label, str) for label in labels):
        out.append(f"message {index} labels holds something other than strings")
    if not _number_or_null(message.get("rating")):
        out.append(f"message {index} rating is not a number (found {_kind(message['rating'])})")
    return out


#: the keys of a rating in the list form `csrwh export` writes (aspect required)
RATING_KEYS = ("aspect", "value", "raw_value", "rater_id", "rater_kind", "comment")


def _rating_list_problems(where: str, ratings: list) -> list[str]:
    """Problems of ratings written as a list of {"aspect", "value", ...} (``where``: its name)."""
    out = []
    for index, rating in enumerate(ratings):
        name = f"{where}[{index}]"
        if not isinstance(rating, dict):
            out.append(f'{name} is not an object {{"aspect", "value"}} (found {_kind(rating)})')
            continue
        unknown = [key for key in rating if key not in RATING_KEYS]
        if unknown:
            out.append(
                f"{name} has an unknown key {json.dumps(unknown[0], ensure_ascii=False)} "
                f"(expected {', '.join(RATING_KEYS)})"
            )
        if not isinstance(rating.get("aspect"), str):
            out.append(f"{name}.aspect is missing or not a string")
        if not _number_or_null(rating.get("value")):
            out.append(f"{name}.value is not a number (found {_kind(rating['value'])})")
        out += [
            f"{name}.{key} is not a string (found {_kind(rating[key])})"
            for key in RATING_KEYS[2:]
            if rating.get(key) is not None and not isinstance(rating[key], str)
        ]
    return out


def _annotation_problems(annotations: object, n_messages: int) -> list[str]:
    """Problems of ``turn_annotations``: one element per message, as `csrwh export` writes it."""
    if annotations is None:
        return []
    if not isinstance(annotations, list):
        return [f"turn_annotations is not an array (found {_kind(annotations)})"]
    out = []
    if len(annotations) > n_messages:
        out.append(
            f"turn_annotations has {len(annotations)} elements for {n_messages} messages "
            "(element i annotates message i)"
        )
    for index, annotation in enumerate(annotations):
        name = f"turn_annotations[{index}]"
        if annotation is None:
            continue
        if not isinstance(annotation, dict):
            out.append(f"{name} is not an object (found {_kind(annotation)})")
            continue
        intents = annotation.get("intents")
        if intents is not None and not isinstance(intents, list):
            out.append(f"{name}.intents is not an array (found {_kind(intents)})")
        for position, intent in enumerate(intents if isinstance(intents, list) else []):
            where = f"{name}.intents[{position}]"
            if not isinstance(intent, dict) or not isinstance(intent.get("label"), str):
                out.append(f'{where} is not an object with a string "label"')
                continue
            if intent.get("annotator") is not None and not isinstance(intent["annotator"], str):
                out.append(
                    f"{where}.annotator is not a string (found {_kind(intent['annotator'])})"
                )
            if intent.get("is_primary") is not None and not isinstance(intent["is_primary"], bool):
                out.append(
                    f"{where}.is_primary is not a boolean (found {_kind(intent['is_primary'])})"
                )
        ratings = annotation.get("ratings")
        if ratings is not None and not isinstance(ratings, list):
            out.append(f"{name}.ratings is not an array (found {_kind(ratings)})")
        elif ratings:
            out += _rating_list_problems(f"{name}.ratings", ratings)
    return out


def conversation_id_key(record: dict) -> str:
    """The key holding a record's id: ``id``, or ``conversation_id`` (a `csrwh export` record)
    when the record has no ``id``."""
    return "id" if "id" in record or "conversation_id" not in record else "conversation_id"


def conversation_problems(record: dict) -> list[str]:
    """Every way one conversation breaks the documented format (empty: none)."""
    out = []
    id_key = conversation_id_key(record)
    cid = record.get(id_key)
    if id_key not in record:
        out.append("id is missing")
    elif not isinstance(cid, str):
        out.append(f"{id_key} is not a string (found {_kind(cid)})")
    elif not cid.strip():
        out.append(f"{id_key} is empty or blank")
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
    if not _number_or_null(record.get("user_satisfaction")):
        found = _kind(record["user_satisfaction"])
        out.append(f"user_satisfaction is not a number (found {found})")
    ratings = record.get("ratings")
    if isinstance(ratings, list):
        out += _rating_list_problems("ratings", ratings)
    elif ratings is not None and not isinstance(ratings, dict):
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
    n_messages = len(messages) if isinstance(messages, list) else 0
    out += _annotation_problems(record.get("turn_annotations"), n_messages)
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
    cid = record[conversation_id_key(record)]
    first = context.state.setdefault("ids", {}).setdefault((name, cid), here)
    if first == here:
        return None
    shown = json.dumps(cid, ensure_ascii=False)
    return (
        f"id {shown} is used twice in corpus {name}: first at {first[0]} line {first[1]}, "
        "which lands (an id names one conversation within its corpus, across its files)"
    )


FILES = (
    FileSpec(
        "*/*.jsonl",
        "custom__conversations",
        Format.JSONL,
        # a `csrwh export` record has no `id`: its conversation_id keys it
        RecordKey.field("id", "conversation_id"),
        check=check_conversation,
    ),
    FileSpec("*/corpus.json", "custom__corpora", Format.JSON_FILE, RecordKey.relative_path()),
)
