"""An ingest run (``csrwh ingest``, and the build's ingest phase) names each new reject: its
file, line and reason, the first 20, then how many more."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from ingest import print_summary, reject_lines, run_ingest
from ingest.summary import REJECTS_LISTED


def _write(root: Path, rel: str, lines: list[str]) -> None:
    path = root / "custom" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ok(cid: str) -> str:
    return json.dumps({"id": cid, "messages": [{"role": "user", "text": "hi"}]})


def test_each_reject_is_printed_with_file_line_and_reason(tmp_path: Path) -> None:
    bad = [
        '{"id": "b1", "messages": [',
        '{"id": "b2", "messages": [{"role": "bot", "text": "beep"}]}',
    ]
    _write(tmp_path / "data", "lab/chats.jsonl", [_ok("a"), *bad, _ok("z")])
    summary = run_ingest(
        tmp_path / "data", tmp_path / "w.duckdb", corpora=["custom"], progress=False
    )
    out = io.StringIO()
    print_summary(summary, Console(file=out, width=300))
    text = out.getvalue()
    assert summary.records_rejected == 2
    assert "custom/lab/chats.jsonl line 2: broken JSON" in text
    assert (
        "custom/lab/chats.jsonl line 3: message 0 has an unknown role 'bot' (expected user, "
        "assistant, system)" in text
    )
    assert "more rejected" not in text


def test_past_the_first_twenty_the_rest_is_a_count(tmp_path: Path) -> None:
    n = REJECTS_LISTED + 7
    lines = [json.dumps({"id": f"b{i}"}) for i in range(n)]  # no messages: each rejected
    _write(tmp_path / "data", "lab/chats.jsonl", [_ok("a"), *lines])
    summary = run_ingest(
        tmp_path / "data", tmp_path / "w.duckdb", corpora=["custom"], progress=False
    )
    listed = reject_lines(summary)
    assert summary.records_rejected == n
    assert listed[:2] == [
        "custom/lab/chats.jsonl line 2: messages is missing",
        "custom/lab/chats.jsonl line 3: messages is missing",
    ]
    assert len(listed) == REJECTS_LISTED + 1
    assert listed[-1] == "… and 7 more rejected record(s) (all in raw.rejected_records)"
