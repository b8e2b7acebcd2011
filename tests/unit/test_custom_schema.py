"""The own-corpus format as a JSON Schema (ingest/schemas/custom_conversation.schema.json):
shipped with the package, usable by any validator, and what ingest checks lines with."""

from __future__ import annotations

import json
import re
import tomllib

import jsonschema
import pytest
from docs_text import doc_section
from test_custom_corpus import ALPHA_A, ALPHA_B

from csrwh.config import PROJECT_ROOT
from ingest import custom


def _schema() -> dict:
    return json.loads(custom.SCHEMA_FILE.read_text(encoding="utf-8"))


def test_schema_is_a_valid_draft_2020_12_schema_shipped_in_the_package():
    schema = _schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert custom.SCHEMA_FILE.parent.parent == PROJECT_ROOT / "ingest"
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = pyproject["tool"]["setuptools"]["package-data"]["ingest"]
    assert any(custom.SCHEMA_FILE.match(f"ingest/{pattern}") for pattern in shipped)
    # linked from the docs a user reads
    for doc in ("README.md", "docs/ADDING_A_CORPUS.md"):
        text = (PROJECT_ROOT / doc).read_text(encoding="utf-8")
        assert "ingest/schemas/custom_conversation.schema.json" in text, doc


@pytest.mark.parametrize(
    "record, reason",
    [(record, reason) for _, record, reason in ALPHA_A + ALPHA_B],
)
def test_any_validator_and_ingest_agree_on_every_documented_case(record, reason):
    """A user's own validator with the shipped schema accepts exactly the lines ingest lands
    (an id used twice is the one rule beyond a single line)."""
    valid = jsonschema.Draft202012Validator(_schema()).is_valid(record)
    if reason is not None and " is used twice in corpus " in reason:
        assert valid
    else:
        assert valid == (reason is None)
        assert custom.conversation_problems(record) == (
            [] if reason is None else reason.split("; ")
        )


def test_readme_example_lines_are_valid():
    _, section = doc_section("Your own corpus")
    example = re.search(r"chats\.jsonl <<'EOF'\n(.*?)\nEOF", section, re.DOTALL)
    assert example is not None
    validator = jsonschema.Draft202012Validator(_schema())
    for text in example.group(1).splitlines():
        assert validator.is_valid(json.loads(text)), text


def test_ingest_checks_lines_with_the_schema_file(monkeypatch, tmp_path):
    """The rules are the schema's, not a copy in code: a schema that also allows role "tool"
    makes ingest accept it, and names the problem of what it still refuses."""
    schema = _schema()
    schema["$defs"]["message"]["properties"]["role"]["enum"].append("tool")
    monkeypatch.setattr(custom, "_SCHEMA", schema)
    monkeypatch.setattr(custom, "ROLES", (*custom.ROLES, "tool"))
    custom._validator.cache_clear()
    custom._passes.cache_clear()
    try:
        record = {"id": "c1", "messages": [{"role": "tool", "text": "42"}]}
        assert custom.conversation_problems(record) == []
        record["messages"][0]["role"] = "bot"
        assert custom.conversation_problems(record) == [
            "message 0 has an unknown role 'bot' (expected user, assistant, system, tool)"
        ]
    finally:
        custom._validator.cache_clear()
        custom._passes.cache_clear()
