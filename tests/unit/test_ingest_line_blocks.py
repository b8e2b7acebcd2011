"""Large JSONL files land a block of whole lines at a time (issue 23: ingest's memory followed a
file's size, 1.6 GB for one 146 MB own-corpus file). Landing in blocks gives the same raw rows,
record_index, line numbers and rejects as landing the file whole: checked on a file with a BOM,
blank lines, CRLF, broken and non-object lines, an id repeated across blocks, a line longer
than a block and a truncated last line, with blocks of a few hundred bytes."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ingest import run_ingest
from ingest.readers import lines as line_reader
from ingest.readers.lines import line_blocks


def chat(cid: str, text: str = "hello") -> str:
    messages = [{"role": "user", "text": text}, {"role": "assistant", "text": "ok"}]
    return json.dumps({"id": cid, "messages": messages})


def write_corpus(root: Path) -> Path:
    lines = [chat(f"c{n}") for n in range(40)]
    lines[3] = ""  # blank
    lines[7] = "{broken"
    lines[11] = "[1, 2]"  # not an object
    lines[15] = chat("c1")  # a repeated id: rejected naming line 2
    lines[20] = chat("c20", text="long " * 400)  # longer than a block
    lines[25] = chat("c25") + "\r"  # CRLF
    body = "\ufeff" + "\n".join(lines) + "\n" + '{"id": "c99", "messages": ['  # truncated
    path = root / "custom" / "alpha" / "a.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(body.encode("utf-8"))
    return path


def landed(database: Path) -> tuple[list, list]:
    with duckdb.connect(str(database), read_only=True) as con:
        rows = con.execute(
            "select source_path, record_index, line_number, record_key, payload::varchar, "
            "file_sha256 from raw.custom__conversations order by record_index"
        ).fetchall()
        rejects = con.execute(
            "select source_path, record_index, line_number, error, raw_bytes, file_sha256 "
            "from raw.rejected_records order by record_index"
        ).fetchall()
    return rows, rejects


def test_blocks_join_to_the_file_at_line_ends(tmp_path):
    path = write_corpus(tmp_path)
    blocks = list(line_blocks(path, 300))
    assert len(blocks) > 5
    assert b"".join(b.data for b in blocks) == path.read_bytes()
    assert all(b.data.endswith(b"\n") for b in blocks[:-1])
    assert [b.is_first for b in blocks] == [True] + [False] * (len(blocks) - 1)
    assert [b.is_last for b in blocks] == [False] * (len(blocks) - 1) + [True]
    starts = [
        1 + path.read_bytes()[: sum(len(x.data) for x in blocks[:i])].count(b"\n")
        for i in range(len(blocks))
    ]
    assert [b.first_line for b in blocks] == starts


def test_a_file_landed_in_blocks_lands_as_the_whole_file_does(tmp_path, monkeypatch):
    data = tmp_path / "data"
    write_corpus(data)
    whole, blocked = tmp_path / "whole.duckdb", tmp_path / "blocked.duckdb"
    run_ingest(data, whole, corpora=["custom"], progress=False)
    reads = []
    real = line_reader.read_lines
    monkeypatch.setattr(line_reader, "BLOCK_BYTES", 300)
    monkeypatch.setattr(line_reader, "read_lines", lambda *a: reads.append(a) or real(*a))
    summary = run_ingest(data, blocked, corpora=["custom"], progress=False)
    assert len(reads) > 5  # it did land in blocks
    assert summary.records_rejected == 4  # broken, not an object, repeated id, truncated
    want_rows, want_rejects = landed(whole)
    got_rows, got_rejects = landed(blocked)
    assert got_rows == want_rows and len(got_rows) == 36
    assert got_rejects == want_rejects
    errors = {line: error for _, _, line, error, _, _ in got_rejects}
    assert "truncated" in errors[41] or "end of file" in errors[41], errors[41]
    assert "used twice" in errors[16]


def test_a_file_that_changes_while_it_lands_is_an_error_and_lands_nothing(tmp_path, monkeypatch):
    from csrwh.errors import CsrwhError

    data = tmp_path / "data"
    path = write_corpus(data)
    monkeypatch.setattr(line_reader, "BLOCK_BYTES", 300)
    real = line_reader.line_blocks

    def growing(p, block_bytes=None):
        for n, block in enumerate(real(p, block_bytes)):
            if n == 1:
                with path.open("ab") as fh:
                    fh.write(b"\n" + chat("late").encode())
            yield block

    monkeypatch.setattr(line_reader, "line_blocks", growing)
    database = tmp_path / "w.duckdb"
    with pytest.raises(CsrwhError, match="changed while it was being landed"):
        run_ingest(data, database, corpora=["custom"], progress=False)
    with duckdb.connect(str(database), read_only=True) as con:
        assert con.execute("select count(*) from raw.custom__conversations").fetchone() == (0,)
