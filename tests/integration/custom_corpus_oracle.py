"""The custom-format input of tests/integration/test_build_custom.py and its oracle.

The input: the copy-paste examples of docs/ADDING_A_CORPUS.md and of the README's "Your own
corpus" section, parsed from their ``cat > ... <<'EOF'`` blocks, plus an ``edge`` corpus with
the format's corners. The oracle: the custom rows every mart should hold, read from those files
without the project's SQL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
from docs_text import doc_section

from csrwh.config import PROJECT_ROOT

HEREDOC = re.compile(
    r"^cat > data/raw/(?P<path>\S+) <<'EOF'\n(?P<body>.*?)^EOF$", re.MULTILINE | re.DOTALL
)
#: top-level keys the format models in a column of their own (everything else: source_attributes)
MODELLED = {"id", "subset", "task", "user_id", "system_id", "ratings", "messages"}
MESSAGE_MODELLED = {"role", "text", "labels", "rating"}

EDGE = [
    {
        "id": "e1",
        "subset": "pilot",
        "user_id": "u1",
        "messages": [
            {"role": "user", "text": "Where to eat?", "labels": ["ask"], "typing_ms": 1200},
            {"role": "system", "text": "Be brief.", "labels": ["ignored"]},
            {
                "role": "assistant",
                "text": "The market hall.",
                "labels": ["suggest"],
                "rating": None,
            },
            {"role": "user", "text": "Open late?"},
            {"role": "assistant", "text": "Until ten.", "rating": 4},
        ],
        "ratings": {"fun": 3, "unrated": None},
        "extra_key": {"kept": True},
    },
    {
        "id": "e2",
        "user_id": "u1",
        "task": "dining",
        "messages": [
            {"role": "user", "text": "推荐一家北京的餐厅"},
            {"role": "assistant", "text": "可以试试四季民福。"},
        ],
        "metadata": {"source": "pilot interviews", "n": [1, 2]},
    },
]

#: edge/users.jsonl: u1 (in two subsets by its conversations, one by the file) with a profile
#: whose keywords and attributes are JSON values; u8 named by `user_id`; u9 without a conversation
EDGE_USERS = [
    {
        "id": "u1",
        "subset": "pilot",
        "profile_text": "Eats out twice a week.",
        "keywords": ["dining", "late"],
        "attributes": {"city": "Beijing", "n": [1, 2]},
    },
    {"user_id": "u8", "keywords": "quiet; cheap", "attributes": None},
    {"id": "u9", "profile_text": "Profile only.", "attributes": '{"source": "survey"}'},
]


def documented_examples() -> dict[str, str]:
    """File path under the data folder -> text, from the docs' copy-paste examples."""
    guide = (PROJECT_ROOT / "docs" / "ADDING_A_CORPUS.md").read_text("utf-8")
    _, section = doc_section("Your own corpus")  # README.md's short example
    files = {}
    for text in (guide[: guide.index("## Route 2")], section):
        files |= {m["path"]: m["body"] for m in HEREDOC.finditer(text)}
    return files


def write_custom_data(data: Path) -> None:
    files = documented_examples()
    assert (
        any(p.endswith("corpus.json") for p in files)
        and sum(p.endswith(".jsonl") for p in files) >= 2
    )
    files["custom/edge/edge.jsonl"] = "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in EDGE
    )
    files["custom/edge/users.jsonl"] = "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in EDGE_USERS
    )
    for rel, text in files.items():
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / rel).write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- the oracle


def rated(value: float, scale: dict | None, rater_kind: str, rater_id: str | None) -> tuple:
    """A ratings row's (value, rater_kind, rater_id, scale_min, scale_max, value_normalized)."""
    lo, hi = (scale["min"], scale["max"]) if scale else (None, None)
    normalized = (value - lo) / (hi - lo) if scale else None
    return (float(value), rater_kind, rater_id, lo, hi, normalized)


def expected_marts(data: Path) -> dict[str, object]:
    """The custom rows every mart should hold, read from the files without the project's SQL."""
    corpora = {
        p.parent.name: json.loads(p.read_text("utf-8")) for p in data.glob("custom/*/corpus.json")
    }
    out: dict[str, dict] = {
        k: {} for k in ("conversations", "turns", "intents", "ratings", "users")
    }
    user_subsets: dict[str, set[str]] = {}
    for path in sorted(data.glob("custom/*/*.jsonl")):
        if path.name == "users.jsonl":  # the users file (below)
            continue
        name = path.parent.name
        corpus = corpora.get(name, {})
        scales = corpus.get("rating_scales", {})
        rater_kind = corpus.get("rater_kind", "author")
        lines = [t for t in path.read_text("utf-8").split("\n") if t.strip()]
        for index, text in enumerate(lines):
            record = json.loads(text)
            cid = f"custom:{name}/{record['id']}"
            subset = f"{name}/{record['subset']}" if record.get("subset") else name
            user = f"custom:{name}/{record['user_id']}" if record.get("user_id") else None
            if user:
                user_subsets.setdefault(user, set()).add(subset)
            rater_id = user if rater_kind == "user" else None

            extras = []
            turn_index = 0
            roles = []
            for k, message in enumerate(record["messages"]):
                if message["role"] not in ("user", "assistant"):
                    extras.append({"message_index": k, "message": message})
                    continue
                rest = {key: v for key, v in message.items() if key not in MESSAGE_MODELLED}
                if rest:
                    extras.append({"message_index": k, "message": rest})
                role = "user" if message["role"] == "user" else "system"
                roles.append(role)
                out["turns"][(cid, turn_index)] = (role, message["text"], str(k))
                for label in message.get("labels", []):
                    out["intents"].setdefault((cid, turn_index), []).append(
                        (f"custom:{name}", label, "author", corpus.get("label_source"), "unmapped")
                    )
                if message.get("rating") is not None:
                    out["ratings"][(cid, turn_index, "message_rating")] = rated(
                        message["rating"], scales.get("message_rating"), rater_kind, rater_id
                    )
                turn_index += 1
            for aspect, value in (record.get("ratings") or {}).items():
                if value is not None:
                    out["ratings"][(cid, None, aspect)] = rated(
                        value, scales.get(aspect), rater_kind, rater_id
                    )
            attributes = {k: v for k, v in record.items() if k not in MODELLED}
            if extras:
                attributes["messages"] = extras
            out["conversations"][cid] = {
                "subset": subset,
                "source_conversation_id": f"{name}/{record['id']}",
                "domain_or_task": record.get("task", corpus.get("domain")),
                "task_type": record.get("task"),
                "user_id": user,
                "system_id": record.get("system_id"),
                "n_user_turns": roles.count("user"),
                "n_system_turns": roles.count("system"),
                "source_path": f"{name}/{path.name}",
                "source_record_index": index,
                "source_attributes": attributes or None,
            }
    # users: (subset, profile_text, keywords, attributes); a JSON value that is no string as
    # its JSON text
    out["users"] = {
        u: (next(iter(s)) if len(s) == 1 else None, None, None, None)
        for u, s in user_subsets.items()
    }
    for path in sorted(data.glob("custom/*/users.jsonl")):
        name = path.parent.name
        for text in path.read_text("utf-8").splitlines():
            record = json.loads(text)
            user = f"custom:{name}/{record.get('id', record.get('user_id'))}"
            as_text = [
                v if v is None or isinstance(v, str) else json.dumps(v, separators=(",", ":"))
                for v in (record.get(k) for k in ("profile_text", "keywords", "attributes"))
            ]
            subset = f"{name}/{record['subset']}" if record.get("subset") else None
            seen = out["users"].get(user, (None,))[0]
            out["users"][user] = (subset or seen, *as_text)
    return out


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]
