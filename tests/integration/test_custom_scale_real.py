"""The own-corpus benchmark's data on the real RecLLMSim human_exp_V2 release
(csrwh/sample/custom_scale.py, issue 23): the conversion is line for line with every message
kept, and the generator's size tables are that release's quantiles."""

from __future__ import annotations

import json

import pytest
from shared_corpora import require_real_corpora

from csrwh.sample import custom_scale as cs
from ingest.custom import conversation_problems

pytestmark = pytest.mark.integration


def _release():
    release = require_real_corpora() / "recllmsim" / "human_exp_V2"
    if not release.is_dir():
        pytest.skip(f"no RecLLMSim human_exp_V2 at {release}")
    return release


def test_human_exp_v2_converts_line_for_line_keeping_every_message(tmp_path):
    release = _release()
    files = sorted(release.rglob("*.json"))
    written = cs.convert_recllmsim(release, tmp_path)
    lines = (written.folder / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(files) == written.lines
    assert len(files) == 1833  # the release as documented (/work/shared/docs/datasets)
    n_messages = 0
    for text, path in zip(lines, files, strict=True):
        line = json.loads(text)
        assert conversation_problems(line) == [], line["id"]
        assert line["id"] == path.relative_to(release).with_suffix("").as_posix()
        history = json.loads(path.read_text(encoding="utf-8"))["history"]
        assert [(m["role"], m["text"]) for m in line["messages"]] == [
            (m["role"], m["content"]) for m in history
        ]
        for got, src in zip(line["messages"], history, strict=True):
            if "satisfaction" in src:
                assert got["rating"] == int(src["satisfaction"])
            for key in set(src) - {"role", "content", "satisfaction"}:
                assert got[key] == src[key]
        n_messages += len(history)
    assert written.messages == n_messages
    assert len({json.loads(t)["id"] for t in lines}) == len(lines)


def test_generator_tables_are_the_release_quantiles():
    tables = cs.calibrate(_release())
    assert tables == {
        "messages_per_conversation": cs.MESSAGES_PER_CONVERSATION,
        "user_message_bytes": cs.USER_MESSAGE_BYTES,
        "assistant_message_bytes": cs.ASSISTANT_MESSAGE_BYTES,
    }
