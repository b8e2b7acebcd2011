"""The real RecLLMSim ``human_exp_V2`` shapes the generator draws from: quantiles of messages per
conversation and of message sizes (:func:`calibrate` recomputes them), drawn by inverse CDF."""

from __future__ import annotations

import ast
import bisect
import json
import random
from pathlib import Path

# ----------------------------------------------------------------------------- calibration

#: the quantiles (percent) of the tables below
QUANTILES = (0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100)
#: RecLLMSim human_exp_V2: messages per conversation at each of QUANTILES (:func:`calibrate`)
MESSAGES_PER_CONVERSATION = (2, 4, 6, 6, 8, 8, 8, 9, 10, 10, 12, 14, 20, 96)
#: ... UTF-8 bytes of a user message's text
USER_MESSAGE_BYTES = (1, 21, 30, 39, 51, 60, 75, 87, 105, 127, 168, 216, 349, 708)
#: ... UTF-8 bytes of an assistant message's text
ASSISTANT_MESSAGE_BYTES = (
    9, 881, 1082, 1390, 1742, 2180, 2640, 3121, 3691, 4444, 5812, 7436, 11668, 27462,
)  # fmt: skip
#: the generator's bounds on messages per conversation (the real release has up to 96)
MIN_MESSAGES, MAX_MESSAGES = 2, 40
#: RecLLMSim human_exp_V2: how often people gave each satisfaction (1..5) to an answer
SATISFACTION_WEIGHTS = (139, 279, 843, 3102, 3697)


def _quantiles(values: list[int]) -> tuple[int, ...]:
    ordered = sorted(values)
    last = len(ordered) - 1
    return tuple(ordered[min(last, round(last * q / 100))] for q in QUANTILES)


def _recllmsim_files(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).rglob("*.json") if not p.name.startswith("."))


def calibrate(folder: Path) -> dict[str, tuple[int, ...]]:
    """The quantile tables of a RecLLMSim release folder (e.g. ``recllmsim/human_exp_V2``):
    messages per conversation and UTF-8 bytes of user and assistant message texts."""
    per_conversation: list[int] = []
    sizes: dict[str, list[int]] = {"user": [], "assistant": []}
    for path in _recllmsim_files(folder):
        history = _history(json.loads(path.read_text(encoding="utf-8")))
        per_conversation.append(len(history))
        for message in history:
            if message.get("role") in sizes:
                sizes[message["role"]].append(len(str(message.get("content", "")).encode()))
    return {
        "messages_per_conversation": _quantiles(per_conversation),
        "user_message_bytes": _quantiles(sizes["user"]),
        "assistant_message_bytes": _quantiles(sizes["assistant"]),
    }


def draw(r: random.Random, table: tuple[int, ...]) -> int:
    """A value drawn from the distribution whose QUANTILES are ``table`` (inverse CDF, linear
    between two quantiles)."""
    u = r.random() * 100
    i = min(bisect.bisect_right(QUANTILES, u), len(QUANTILES) - 1)
    lo_q, hi_q = QUANTILES[i - 1], QUANTILES[i]
    lo, hi = table[i - 1], table[i]
    return round(lo + (hi - lo) * (u - lo_q) / (hi_q - lo_q))


def _history(record: dict) -> list[dict]:
    history = record.get("history", [])
    if isinstance(history, str):  # some RecLLMSim files hold it as a Python repr or JSON text
        try:
            history = ast.literal_eval(history)
        except (ValueError, SyntaxError):
            history = json.loads(history)
    return history
