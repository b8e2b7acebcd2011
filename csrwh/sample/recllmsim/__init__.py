"""Synthetic RecLLMSim (github.com/wzf2000/RecLLMSim) in the repository's current layout.

``LLM_agent_user/``, ``real_human_user/`` and ``human_exp_V2/``, one conversation per JSON file,
written as upstream writes them, with the variants seen upstream exercised on purpose.
Details: docs/internals.md#csrwh-sample-recllmsim
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
