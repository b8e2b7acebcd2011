"""Your own corpora ("custom"): one conversation per JSONL line, one folder per corpus.

``custom/<name>/*.jsonl`` (one conversation a line), an optional ``corpus.json``, optional
``<kind>.qrels`` relevance judgments and an optional ``users.jsonl`` (one user a line, with
their profile: :data:`USER_SCHEMA_FILE`); a line that breaks the format (JSON Schema
:data:`SCHEMA_FILE` plus the checks a schema cannot make) is rejected with a one-line reason
and the rest of the corpus lands.
Details: docs/internals.md#ingest-custom
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.spec import CheckContext, FileSpec, Format, RecordKey

if TYPE_CHECKING:  # the validators are imported on first use (jsonschema: ~0.3 s)
    from jsonschema import Draft202012Validator, ValidationError

CORPUS = "custom"
FOLDER = "custom"
#: no folder is normal: not reported as missing (a build without it is the five corpora alone)
OPTIONAL = True

ABSENT_HINT = (
    "optional: put your own corpora in <data dir>/custom/<name>/*.jsonl, one conversation "
    "per line (docs/ADDING_A_CORPUS.md)"
)

#: the format as a JSON Schema (Draft 2020-12), shipped with the package: usable by your own
#: validators (docs/ADDING_A_CORPUS.md); ingest checks every line with it
SCHEMA_FILE = Path(__file__).with_name("schemas") / "custom_conversation.schema.json"
_SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))

#: what the schema says, named for the messages below
ROLES: tuple[str, ...] = tuple(_SCHEMA["$defs"]["message"]["properties"]["role"]["enum"])
#: optional top-level keys whose value is a string (null counts as absent)
STRING_KEYS: tuple[str, ...] = tuple(
    key
    for key, rule in _SCHEMA["properties"].items()
    if rule == {"$ref": "#/$defs/optional_string"}
)
#: the keys of a rating in the list form `csrwh export` writes (aspect required)
RATING_KEYS: tuple[str, ...] = tuple(_SCHEMA["$defs"]["rating"]["properties"])


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


@functools.cache
def _validator() -> Draft202012Validator:
    """The validator that names a line's problems (``jsonschema``; built on first use)."""
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(_SCHEMA)
    return Draft202012Validator(_SCHEMA)


@functools.cache
def _passes() -> Callable[[object], bool]:
    """The schema compiled to Python once (``fastjsonschema``): a yes/no ~10x faster than
    the hand-written check it replaces and ~100x faster than ``jsonschema``'s walk, which then
    runs only for a line that fails, to name its problems."""
    import fastjsonschema

    compiled = fastjsonschema.compile(_SCHEMA)

    def passes(record: object) -> bool:
        try:
            compiled(record)
        except fastjsonschema.JsonSchemaValueException:
            return False
        return True

    return passes


# The order problems are listed in: top-level keys as the format lists them, each message's
# problems after the conversation's own, then turn_annotations; within an object, its own
# problem (type, unknown key) first, then its fields in this order.
_TOP_RANK = {
    key: rank
    for rank, key in enumerate(
        ("id", "messages", *STRING_KEYS, "user_satisfaction", "ratings", "metadata")
    )
} | {"conversation_id": 0}
_MESSAGE_ITEMS, _ANNOTATIONS = 100, 200
_FIELD_RANK = {
    "@unknown": -2,
    "@length": -1,
    "role": 0,
    "text": 1,
    "content": 1,
    "labels": 2,
    "rating": 3,
    "label": 0,
    "annotator": 1,
    "is_primary": 2,
    "intents": 1,
    "ratings": 2,
} | {key: rank for rank, key in enumerate(RATING_KEYS)}


def _where(error: ValidationError) -> list[str | int]:
    """The path of the value a problem is about: a missing key's own path for ``required``,
    ``@unknown`` under the object for an unknown key."""
    path = list(error.absolute_path)
    if error.validator == "required":
        return [*path, error.validator_value[0]]
    if error.validator == "additionalProperties":
        return [*path, "@unknown"]
    return path


def _rank(record: dict, where: list[str | int]) -> tuple[int, ...]:
    first = where[0]
    if first == "messages" and len(where) > 1:
        head = _MESSAGE_ITEMS
    elif first == "turn_annotations":
        head = _ANNOTATIONS
    else:
        head = _TOP_RANK.get(str(first), 90)
    ranks = [head]
    for position, part in enumerate(where[1:], 1):
        if isinstance(part, int):
            ranks.append(part)
        elif where[:position] == ["ratings"] and isinstance(record.get("ratings"), dict):
            ranks.append(list(record["ratings"]).index(part))  # the aspects in written order
        else:
            ranks.append(_FIELD_RANK.get(part, 50))
    return tuple(ranks)


def _found(error: ValidationError) -> str:
    return f"(found {_kind(error.instance)})"


def _rating_problem(name: str, rest: list, error: ValidationError) -> str:
    """One problem of a rating in the list form; ``name``: '<list>[<index>]'."""
    if not rest:
        return f'{name} is not an object {{"aspect", "value"}} {_found(error)}'
    key = rest[0]
    if key == "@unknown":
        allowed = error.schema.get("properties", {})
        unknown = next(k for k in error.instance if k not in allowed)
        return (
            f"{name} has an unknown key {json.dumps(unknown, ensure_ascii=False)} "
            f"(expected {', '.join(RATING_KEYS)})"
        )
    if key == "aspect":
        return f"{name}.aspect is missing or not a string"
    if key == "value":
        return f"{name}.value is not a number {_found(error)}"
    return f"{name}.{key} is not a string {_found(error)}"


def _message_problem(index: int, rest: list, error: ValidationError) -> str:
    if not rest:
        return f'message {index} is not an object {{"role", "text"}} {_found(error)}'
    key = rest[0]
    if key == "role":
        role = error.instance
        if error.validator == "required" or role is None:
            return f"message {index} has no role"
        shown = f"'{role}'" if isinstance(role, str) else json.dumps(role)
        return f"message {index} has an unknown role {shown} (expected {', '.join(ROLES)})"
    if key in ("text", "content"):
        found = "no text" if error.validator == "required" else _kind(error.instance)
        return f"message {index} text is missing or not a string (found {found})"
    if key == "labels":
        if len(rest) > 1:
            return f"message {index} labels holds something other than strings"
        return f"message {index} labels is not an array {_found(error)}"
    return f"message {index} rating is not a number {_found(error)}"


def _annotation_problem(where: list, error: ValidationError) -> str:
    if len(where) == 1:
        return f"turn_annotations is not an array {_found(error)}"
    name = f"turn_annotations[{where[1]}]"
    rest = where[2:]
    if not rest:
        return f"{name} is not an object {_found(error)}"
    if rest[0] == "ratings":
        if len(rest) == 1:
            return f"{name}.ratings is not an array {_found(error)}"
        return _rating_problem(f"{name}.ratings[{rest[1]}]", rest[2:], error)
    if len(rest) == 1:
        return f"{name}.intents is not an array {_found(error)}"
    intent = f"{name}.intents[{rest[1]}]"
    if len(rest) == 2 or rest[2] == "label":
        return f'{intent} is not an object with a string "label"'
    if rest[2] == "annotator":
        return f"{intent}.annotator is not a string {_found(error)}"
    return f"{intent}.is_primary is not a boolean {_found(error)}"


def _problem(where: list, error: ValidationError) -> str:
    """The one-line problem a schema error stands for, naming the field."""
    first = where[0]
    if first in ("id", "conversation_id"):
        if error.validator == "required":
            return "id is missing"
        if error.validator == "pattern":
            return f"{first} is empty or blank"
        return f"{first} is not a string {_found(error)}"
    if first == "messages":
        if len(where) > 1:
            return _message_problem(where[1], where[2:], error)
        if error.validator == "required":
            return "messages is missing"
        if error.validator == "minItems":
            return "messages is empty"
        return f"messages is not an array {_found(error)}"
    if first == "ratings":
        if len(where) == 1:
            return f'ratings is not an object {{"<aspect>": number}} {_found(error)}'
        if isinstance(where[1], str):
            return f"ratings.{where[1]} is not a number {_found(error)}"
        return _rating_problem(f"ratings[{where[1]}]", where[2:], error)
    if first == "turn_annotations":
        return _annotation_problem(where, error)
    if first == "user_satisfaction":
        return f"user_satisfaction is not a number {_found(error)}"
    if first == "metadata":
        return f"metadata is not an object {_found(error)}"
    if first in STRING_KEYS:
        return f"{first} is not a string {_found(error)}"
    return f"{'.'.join(map(str, where))}: {error.message}"  # pragma: no cover - schema drift


def _intent_label_broken(where: list) -> bool:
    return len(where) >= 4 and where[0] == "turn_annotations" and where[2] == "intents"


def conversation_problems(record: dict) -> list[str]:
    """Every way one conversation breaks the documented format (empty: none): the schema's
    errors (:data:`SCHEMA_FILE`) in the format's order, each one line naming the field."""
    annotations = record.get("turn_annotations")
    messages = record.get("messages")
    n_messages = len(messages) if isinstance(messages, list) else 0
    too_long = isinstance(annotations, list) and len(annotations) > n_messages
    if not too_long and _passes()(record):
        return []
    errors = [(_where(error), error) for error in _validator().iter_errors(record)]
    if too_long:
        length = f"turn_annotations has {len(annotations)} elements for {n_messages} messages "
        errors.append((["turn_annotations", "@length"], length + "(element i annotates message i)"))
    # an intent without a string label is that one problem, whatever else it holds
    unlabelled = {
        tuple(where[:4])
        for where, error in errors
        if _intent_label_broken(where) and (len(where) == 4 or where[4] == "label")
    }
    out: list[str] = []
    for where, error in sorted(errors, key=lambda pair: _rank(record, pair[0])):
        label_ok_rule = _intent_label_broken(where) and len(where) > 4 and where[4] != "label"
        if label_ok_rule and tuple(where[:4]) in unlabelled:
            continue  # the intent's one problem is its label
        problem = error if isinstance(error, str) else _problem(where, error)
        if problem not in out:
            out.append(problem)
    return out


def conversation_id_key(record: dict) -> str:
    """The key holding a record's id: ``id``, or ``conversation_id`` (a `csrwh export` record)
    when the record has no ``id``."""
    return "id" if "id" in record or "conversation_id" not in record else "conversation_id"


def check_conversation(record: object, context: CheckContext) -> str | None:
    """The reason a line of ``<name>/*.jsonl`` is rejected, or None when it lands.

    A record's problems are joined by "; ". An id is unique within its corpus (the folder),
    across its files: files are checked in file order and the first landing record with an
    id wins; a later one is rejected naming where the first one is.
    """
    problems = conversation_problems(record)  # the reader passes JSON objects only
    if problems:
        return "; ".join(problems)
    return _id_used_before(
        context,
        "ids",
        record[conversation_id_key(record)],
        "one conversation",
        ", across its files",
    )


def _id_used_before(
    context: CheckContext, ledger: str, rid: object, names: str, where: str = ""
) -> str | None:
    """None when this record is the first landing one with id ``rid`` in its corpus (the
    folder; ``context.state[ledger]`` remembers the firsts), else the reason it is rejected,
    naming where the first one is."""
    name = context.source_path.split("/", 1)[0]
    here = (context.source_path, context.line_number)
    first = context.state.setdefault(ledger, {}).setdefault((name, rid), here)
    if first == here:
        return None
    shown = json.dumps(rid, ensure_ascii=False)
    return (
        f"id {shown} is used twice in corpus {name}: first at {first[0]} line {first[1]}, "
        f"which lands (an id names {names} within its corpus{where})"
    )


#: the users file of a corpus, ``<name>/users.jsonl`` (one user a line), as a JSON Schema
USER_SCHEMA_FILE = Path(__file__).with_name("schemas") / "custom_user.schema.json"
_USER_SCHEMA = json.loads(USER_SCHEMA_FILE.read_text(encoding="utf-8"))
#: the users file's name within a corpus folder
USERS_FILE = "users.jsonl"
#: the user keys whose value is a string (null counts as absent); keywords may be any JSON
#: value, attributes an object or a string holding one's JSON text
USER_STRING_KEYS: tuple[str, ...] = tuple(
    key
    for key, rule in _USER_SCHEMA["properties"].items()
    if rule.get("$ref") == "#/$defs/optional_string"
)
_USER_RANK = {"id": 0, "user_id": 0} | {
    key: 1 + n for n, key in enumerate((*USER_STRING_KEYS, "attributes"))
}


@functools.cache
def _user_check() -> Callable[[object], list[ValidationError]]:
    """The users schema's errors of a record: a compiled yes/no first (``fastjsonschema``),
    ``jsonschema``'s walk only for a record that fails, to name its problems."""
    import fastjsonschema
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(_USER_SCHEMA)
    validator = Draft202012Validator(_USER_SCHEMA)
    compiled = fastjsonschema.compile(_USER_SCHEMA)

    def errors(record: object) -> list[ValidationError]:
        try:
            compiled(record)
        except fastjsonschema.JsonSchemaValueException:
            return list(validator.iter_errors(record))
        return []

    return errors


def user_problems(record: dict) -> list[str]:
    """Every way one line of ``<name>/users.jsonl`` breaks the format (empty: none), one line
    each naming the key: the id first, then the string keys in the format's order."""
    out: list[str] = []
    errors = [(_where(error), error) for error in _user_check()(record)]
    for where, error in sorted(errors, key=lambda pair: _USER_RANK.get(str(pair[0][0]), 90)):
        first = where[0]
        if first in ("id", "user_id"):
            if error.validator == "required":
                problem = "id is missing (a user needs an `id`, or `user_id`)"
            elif error.validator == "pattern":
                problem = f"{first} is empty or blank"
            else:
                problem = f"{first} is not a string {_found(error)}"
        elif first in USER_STRING_KEYS:
            problem = f"{first} is not a string {_found(error)}"
        elif first == "attributes":
            problem = f"attributes is not an object {_found(error)}"
        else:  # pragma: no cover - schema drift
            problem = f"{'.'.join(map(str, where))}: {error.message}"
        if problem not in out:
            out.append(problem)
    attributes = record.get("attributes")
    if isinstance(attributes, str) and not _is_object_text(attributes):
        out.append("attributes is a string that is not the text of a JSON object")
    return out


def _is_object_text(text: str) -> bool:
    """``text`` is one JSON object, as the users mart's ``attributes`` holds it (strict JSON:
    no NaN or Infinity)."""

    def refuse(constant: str) -> None:
        raise ValueError(constant)

    try:
        return isinstance(json.loads(text, parse_constant=refuse), dict)
    except ValueError:
        return False


def user_id_key(record: dict) -> str:
    """The key holding a user's id: ``id``, or ``user_id`` when the record has no ``id``."""
    return "id" if "id" in record or "user_id" not in record else "user_id"


def check_user(record: object, context: CheckContext) -> str | None:
    """The reason a line of ``<name>/users.jsonl`` is rejected, or None when it lands.

    A record's problems are joined by "; ". An id is unique within its corpus: the first line
    with an id lands, a later one is rejected naming where the first one is.
    """
    problems = user_problems(record)  # the reader passes JSON objects only
    if problems:
        return "; ".join(problems)
    return _id_used_before(context, "user_ids", record[user_id_key(record)], "one user")


def judgment_kind(source_path: str) -> str:
    """The judgment kind of ``<name>/<kind>.qrels``: the file's name without ``.qrels``."""
    return source_path.rsplit("/", 1)[-1].removesuffix(".qrels")


def check_judgment(record: object, context: CheckContext) -> str | None:
    """The reason a line of ``<name>/<kind>.qrels`` is rejected, or None when it lands.

    The reader has already rejected lines without four fields or with a grade that is not an
    integer. A (topic, document) pair is judged once per kind: a later line for the same pair
    is rejected naming the line that lands, whatever its grade.
    """
    topic, doc, grade = record["topic_id"], record["doc_id"], record["grade"]  # type: ignore[index]
    name = context.source_path.split("/", 1)[0]
    key = (name, judgment_kind(context.source_path), topic, doc)
    here = (context.source_path, context.line_number, grade)
    first = context.state.setdefault("judgments", {}).setdefault(key, here)
    if first == here:
        return None
    again = "the same grade" if first[2] == grade else f"grade {grade}"
    return (
        f"topic {topic} document {doc} is judged twice: first at {first[0]} line {first[1]} with "
        f"grade {first[2]}, which lands; this line gives {again}"
    )


FILES = (
    # the users file first: the first spec whose pattern matches a file declares it
    FileSpec(
        f"*/{USERS_FILE}",
        "custom__users",
        Format.JSONL,
        RecordKey.field("id", "user_id"),
        check=check_user,
    ),
    FileSpec(
        "*/*.jsonl",
        "custom__conversations",
        Format.JSONL,
        # a `csrwh export` record has no `id`: its conversation_id keys it
        RecordKey.field("id", "conversation_id"),
        check=check_conversation,
    ),
    FileSpec("*/corpus.json", "custom__corpora", Format.JSON_FILE, RecordKey.relative_path()),
    # TREC qrels "topic iteration doc grade"; the file's name is the judgment kind
    FileSpec(
        "*/*.qrels",
        "custom__qrels",
        Format.QRELS,
        RecordKey.field("topic_id"),
        check=check_judgment,
    ),
)
