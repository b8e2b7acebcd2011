"""Synthetic RecLLMSim (github.com/wzf2000/RecLLMSim) in the repository's current layout.

Layout: ``LLM_agent_user/<task>/<N>.json`` (English task folder names),
``real_human_user/User_<k>/<任务>/<N>.json`` and ``human_exp_V2/User_<k>/<任务>/<N>.json``
(Chinese task folder names). One conversation per file, written like upstream:
``json.dumps(obj, indent=4, ensure_ascii=False)`` in UTF-8, no final newline.

Variants exercised on purpose (all seen upstream or in NOTES.md):
- LLM-agent files carry ``preference_summary_old`` except in ``new travel planning``;
  a few carry ``strategy_1120``; the first user turn lists ``intent_zh`` before
  ``intent``; a few assistant turns carry ``content_zh_old``.
- real-human files: ``profile`` / ``questionnaire`` are objects in about half of the
  files and Python ``repr`` strings (``ast.literal_eval``-able) in the other half; some
  files add ``strategy_human``, ``strategy_human_V2``, ``strategy_human_V3``.
- human_exp_V2 files (the newer human study): ``chat_model`` names the assistant model;
  user turns carry no intent; every assistant turn carries ``hallucination`` and a
  ``satisfaction`` string digit '1'..'5', plus a ``reason`` category when the score is
  3 or lower; ``profile`` is one object per user, and ``profile.complete_tid`` (present
  for some users only) lists the task numbers the user had completed before this one;
  ``strategy_V3`` precedes ``strategy``; there is no ``strategy_V2``; a few
  conversations end with an unanswered user message.

In every subset the strategy objects hold three classifier runs ``'1'``..``'3'`` and
their ensemble ``'final'`` (majority for labels, rounded mean for the 1..5 scores), as
upstream.
"""

from __future__ import annotations

import json
from pathlib import Path

from csrwh.sample._common import make_rng, write_text
from csrwh.sample.recllmsim.human_exp_v2_files import _v2_user
from csrwh.sample.recllmsim.llm_and_human_files import _human_file, _llm_file
from csrwh.sample.recllmsim.vocabularies import (
    FOLDER,
    HUMAN_TASKS,
    LLM_TASKS,
    N_HUMAN_PER_TASK,
    N_HUMAN_USERS,
    N_LLM_PER_TASK,
    N_V2_USERS,
    SUBSETS,
)


def _dump(doc: dict) -> str:
    return json.dumps(doc, indent=4, ensure_ascii=False)


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write the RecLLMSim files under ``folder``; return their relative POSIX paths."""
    written: list[str] = []
    for task in LLM_TASKS:
        r = make_rng(seed, FOLDER, "llm", task)
        for i in range(N_LLM_PER_TASK * scale):
            rel = f"LLM_agent_user/{task}/{i}.json"
            write_text(folder / rel, _dump(_llm_file(r, task, i)))
            written.append(rel)
    n_files = 0
    for k in range(N_HUMAN_USERS * scale):
        r = make_rng(seed, FOLDER, "human", k)
        for task_zh in HUMAN_TASKS:
            for number in sorted(r.sample(range(33), N_HUMAN_PER_TASK)):
                rel = f"real_human_user/User_{k}/{task_zh}/{number}.json"
                write_text(folder / rel, _dump(_human_file(r, task_zh, as_repr=n_files % 2 == 0)))
                written.append(rel)
                n_files += 1
    for k in range(N_V2_USERS * scale):
        r = make_rng(seed, FOLDER, "human_exp_V2", k)
        for rel, doc in _v2_user(r, k):
            write_text(folder / rel, _dump(doc))
            written.append(rel)
    return sorted(written)


__all__ = ["FOLDER", "HUMAN_TASKS", "LLM_TASKS", "SUBSETS", "write"]
