"""``n`` synthetic own-corpus conversations, deterministic by seed, streamed to JSONL files."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from csrwh.errors import CsrwhError
from csrwh.sample._common import (
    derive_seed,
)
from csrwh.sample.custom_scale.calibration import (
    ASSISTANT_MESSAGE_BYTES,
    MAX_MESSAGES,
    MESSAGES_PER_CONVERSATION,
    MIN_MESSAGES,
    SATISFACTION_WEIGHTS,
    USER_MESSAGE_BYTES,
    draw,
)
from csrwh.sample.custom_scale.text import _text

# ----------------------------------------------------------------------------- generator

GENERATED_NAME = "generated"
SYSTEMS = ("gpt-4-turbo-preview", "gemini-2.0-pro-exp-02-05", "claude-3-7-sonnet", "deepseek-v3")
TASKS = ("travel planning", "recipe planning", "gift preparation", "skill learning")
LABELS = ("request", "refine", "ask_detail", "compare", "feedback", "thanks")
SYSTEM_PROMPTS = {
    "zh": "你是一个乐于助人的推荐助手，请根据用户的需求给出具体的建议。",
    "en": "You are a helpful recommendation assistant. Give concrete, practical suggestions.",
}
#: the shares of conversations that carry each optional part
SHARE = {
    "system_prompt": 0.1,
    "labels": 0.4,
    "message_ratings": 0.5,
    "ratings": 0.5,
    "subset": 0.25,
    "metadata": 0.3,
}

GENERATED_CORPUS_JSON = {
    "description": "Synthetic conversations written by csrwh.sample.custom_scale (not real "
    "data): sizes calibrated on RecLLMSim human_exp_V2, Chinese and English.",
    "licence": "CC0-1.0",
    "citation": "csrwh custom_scale generator (synthetic)",
    "domain": "task-based recommendation",
    "rater_kind": "user",
    "label_source": "human",
    "rating_scales": {
        "satisfaction": {"min": 1, "max": 5, "description": "How satisfied the user was overall"},
        "helpfulness": {"min": 0, "max": 2},
        "message_rating": {"min": 1, "max": 5, "description": "The user's rating of an answer"},
    },
}


def conversation(seed: int, index: int, zh_share: float = 0.5) -> dict:
    """Conversation ``index`` (0-based) of the generated corpus for ``seed``: the same whatever
    the number of conversations written (its own random stream)."""
    r = random.Random(derive_seed(seed, "custom_scale", index))
    language = "zh" if r.random() < zh_share else "en"
    n = min(MAX_MESSAGES, max(MIN_MESSAGES, draw(r, MESSAGES_PER_CONVERSATION)))
    record: dict = {"id": f"g{index:07d}"}
    if r.random() < SHARE["subset"]:
        record["subset"] = "pilot"
    record["task"] = r.choice(TASKS)
    record["user_id"] = f"u{r.randrange(max(1, index // 5 + 1)):06d}"
    record["system_id"] = r.choice(SYSTEMS)
    labelled = r.random() < SHARE["labels"]
    rated = r.random() < SHARE["message_ratings"]
    messages: list[dict] = []
    if r.random() < SHARE["system_prompt"]:
        messages.append({"role": "system", "text": SYSTEM_PROMPTS[language]})
        n = max(n, 3)  # still at least one user and one assistant message
    first = len(messages)  # user and assistant alternate from here, the user first
    while len(messages) < n:
        if (len(messages) - first) % 2 == 0:
            role = "user"
            message: dict = {"role": role, "text": _text(r, language, draw(r, USER_MESSAGE_BYTES))}
            if labelled:
                message["labels"] = r.sample(LABELS, r.choice((1, 1, 2)))
        else:
            role = "assistant"
            message = {"role": role, "text": _text(r, language, draw(r, ASSISTANT_MESSAGE_BYTES))}
            if rated:
                message["rating"] = r.choices((1, 2, 3, 4, 5), weights=SATISFACTION_WEIGHTS)[0]
        messages.append(message)
    record["messages"] = messages
    if r.random() < SHARE["ratings"]:
        record["ratings"] = {"satisfaction": r.randint(1, 5), "helpfulness": r.randint(0, 2)}
    if r.random() < SHARE["metadata"]:
        record["metadata"] = {
            "channel": r.choice(("web", "app")),
            "duration_s": r.randint(20, 3600),
        }
    return record


def iter_conversations(n: int, seed: int = 0, zh_share: float = 0.5) -> Iterator[dict]:
    """The first ``n`` conversations, one at a time (lazy: memory does not grow with ``n``)."""
    for index in range(n):
        yield conversation(seed, index, zh_share)


@dataclass
class Written:
    """What a writer wrote: the corpus folder, its files, lines, bytes and messages."""

    folder: Path
    files: list[Path]
    lines: int = 0
    bytes: int = 0
    messages: int = 0


def _new_corpus_folder(out: Path, name: str) -> Path:
    folder = Path(out) / "custom" / name
    if folder.exists() and any(folder.iterdir()):
        raise CsrwhError(
            f"{folder} exists and is not empty: not writing over it",
            hint="choose another --out (or --name), or remove the folder yourself",
        )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _write_corpus_json(folder: Path, content: dict, written: Written) -> None:
    path = folder / "corpus.json"
    path.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.files.append(path)


def write_generated(
    out: Path,
    n: int,
    seed: int = 0,
    *,
    name: str = GENERATED_NAME,
    zh_share: float = 0.5,
    lines_per_file: int = 100_000,
) -> Written:
    """Write ``n`` generated conversations to ``out/custom/<name>/part-NNNNN.jsonl`` (at most
    ``lines_per_file`` lines each) and its ``corpus.json``, streaming."""
    if n < 1 or lines_per_file < 1:
        raise CsrwhError(
            f"need at least one conversation and one line per file (got {n}, {lines_per_file})"
        )
    folder = _new_corpus_folder(out, name)
    written = Written(folder, [])
    _write_corpus_json(folder, GENERATED_CORPUS_JSON, written)
    fh = None
    try:
        for index, record in enumerate(iter_conversations(n, seed, zh_share)):
            if index % lines_per_file == 0:
                if fh is not None:
                    fh.close()
                path = folder / f"part-{index // lines_per_file:05d}.jsonl"
                fh = path.open("wb")
                written.files.append(path)
            line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
            fh.write(line)
            written.lines += 1
            written.bytes += len(line)
            written.messages += len(record["messages"])
    finally:
        if fh is not None:
            fh.close()
    return written
