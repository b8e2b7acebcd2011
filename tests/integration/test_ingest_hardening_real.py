"""The ingest's salvage of stray quotes and missing braces, on copies of the real CRSArena-Dial files (../shared/corpora)."""

from __future__ import annotations

import json

from ingest_salvage import drop_first_quote_after, drop_opening_brace_before, ingest, rejects

DIAL = "data/crs_arena_dial_open.json"
VOTES = "data/votes_open.csv"


def test_real_crsarena_dialogues_with_one_missing_quote(tmp_path, duck, real_corpora):
    """The observed case: one missing quote in element 2 of the 254-element open file."""
    src = (real_corpora / "crsarena-dial" / DIAL).read_text(encoding="utf-8")
    n = len(json.loads(src))
    second = json.loads(src)[1]["conversation ID"]
    damaged = drop_first_quote_after(src, f'"conversation ID": "{second}"')  # no closing quote
    assert damaged.count('"') == src.count('"') - 1
    path = tmp_path / "crsarena-dial" / DIAL
    path.parent.mkdir(parents=True)
    path.write_text(damaged, encoding="utf-8")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (n - 1, 1)
    [(_, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert err.startswith("broken JSON")
    assert idx == 1 and second[:20] in raw_text and len(raw_text) < 20_000


def test_real_crsarena_dialogues_with_one_missing_opening_brace(tmp_path, duck, real_corpora):
    src = (real_corpora / "crsarena-dial" / DIAL).read_text(encoding="utf-8")
    elements = json.loads(src)
    third = elements[2]["conversation ID"]
    path = tmp_path / "crsarena-dial" / DIAL
    path.parent.mkdir(parents=True)
    path.write_text(
        drop_opening_brace_before(src, f'"conversation ID": "{third}"'), encoding="utf-8"
    )
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (len(elements) - 1, 1)
    [(_, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert idx == 2 and "missing its opening '{'" in err
    assert third in raw_text and elements[1]["conversation ID"] not in raw_text


def test_real_votes_with_a_stray_quote(tmp_path, duck, real_corpora):
    src = (real_corpora / "crsarena-dial" / VOTES).read_bytes().decode("utf-8")
    lines = src.split("\n")
    n = len([ln for ln in lines[1:] if ln.strip()])
    k = 10
    assert lines[k].endswith(",\r")  # an empty feedback: give it an unclosed quote
    lines[k] = lines[k][:-1] + '"stray\r'
    path = tmp_path / "crsarena-dial" / VOTES
    path.parent.mkdir(parents=True)
    path.write_bytes("\n".join(lines).encode("utf-8"))
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (n - 1, 1)
    assert rejects(duck)[0][2] == k + 1


def test_real_votes_with_two_stray_quotes(tmp_path, duck, real_corpora):
    src = (real_corpora / "crsarena-dial" / VOTES).read_bytes().decode("utf-8")
    lines = src.split("\n")
    n = len([ln for ln in lines[1:] if ln.strip()])
    first, last = 10, 21
    assert lines[first].endswith(",\r") and lines[last].endswith(",\r")  # empty feedbacks
    lines[first] = lines[first][:-1] + '"oops\r'
    lines[last] = lines[last][:-1] + 'oops"\r'
    path = tmp_path / "crsarena-dial" / VOTES
    path.parent.mkdir(parents=True)
    path.write_bytes("\n".join(lines).encode("utf-8"))
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (n - 2, 2)
    assert [r[2] for r in rejects(duck)] == [first + 1, last + 1]
