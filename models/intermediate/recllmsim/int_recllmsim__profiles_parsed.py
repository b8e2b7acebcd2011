"""RecLLMSim real-human `profile` and `questionnaire` as JSON text.

Released files hold them as JSON objects / arrays; some exports hold the same values as
Python-repr strings ("{'gender': 'Male', 'age': 24, ...}"), which are not JSON (single
quotes, True/None). This model turns both into canonical JSON text: a JSON value is kept,
a string is parsed with ast.literal_eval (falling back to json.loads), anything else
gives NULL and a parse status saying why. One row per conversation.
"""

import ast
import json

import pandas as pd


def _to_json_text(raw_json: str | None) -> tuple[str | None, str]:
    """(JSON text, parse status) for one raw JSON value (itself JSON text, or NULL)."""
    if raw_json is None:
        return None, "absent"
    value = json.loads(raw_json)
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


def model(dbt, session):
    dbt.config(materialized="table")

    conversations = dbt.ref("stg_recllmsim__conversations").select(
        "conversation_id, cast(profile as varchar) as profile, "
        "cast(questionnaire as varchar) as questionnaire"
    )
    rows = []
    for conversation_id, profile, questionnaire in conversations.fetchall():
        profile_json, profile_status = _to_json_text(profile)
        questionnaire_json, questionnaire_status = _to_json_text(questionnaire)
        rows.append(
            {
                "conversation_id": conversation_id,
                "profile_parse_status": profile_status,
                "questionnaire_parse_status": questionnaire_status,
                "profile_json": profile_json,
                "questionnaire_json": questionnaire_json,
            }
        )
    columns = [
        "conversation_id",
        "profile_parse_status",
        "questionnaire_parse_status",
        "profile_json",
        "questionnaire_json",
    ]
    return pd.DataFrame(rows, columns=columns).astype("string")
