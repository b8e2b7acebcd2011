"""The JSON readers (arrays, the salvage parser for broken ones, whole-file JSON) on tiny files
written here, every reject path, and every declared file having a format."""

from __future__ import annotations

import json

import pytest
from ingest_reader_helpers import DIAL, ingest, rejects, rows

from ingest import registry
from ingest.discover import SourceFile
from ingest.readers.salvage import salvage_array
from ingest.spec import Format, RecordKey

# ----------------------------------------------------------------------------- JSON arrays


DIALOGUES = [
    {"conversation ID": "barcor_redial_u1", "agent": {"id": "barcor_redial"}, "conversation": []},
    {
        "conversation ID": "kbrd_redial_u2",
        "metadata": {"sentiment": "satisfied"},
        "new": "\u00e9\u4e2d",
    },
    {"conversation ID": "unicrs_redial_u3", "conversation": [{"utterance": 'hi "there"'}]},
]


def _array_text(objs, indent=4) -> str:
    return json.dumps(objs, indent=indent, ensure_ascii=False)


def _element_texts(text: str) -> list[str]:
    """The verbatim text of each top-level element (independent of the loader)."""
    dec, out, i = json.JSONDecoder(), [], text.index("[") + 1
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if text[i] == "]":
            return out
        _, end = dec.raw_decode(text, i)
        out.append(text[i:end])
        i = end


def test_json_array_elements_land_verbatim(tmp_path, duck, write_file):
    text = _array_text(DIALOGUES)
    write_file(tmp_path / "crsarena-dial", DIAL, text)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (3, 0)
    got = rows(duck, "crsarena__dialogues")
    assert [g[:3] for g in got] == [
        (0, None, "barcor_redial_u1"),
        (1, None, "kbrd_redial_u2"),
        (2, None, "unicrs_redial_u3"),
    ]
    assert [g[3] for g in got] == _element_texts(text)
    assert all(g[4] is None for g in got)


def test_json_array_bom_and_crlf(tmp_path, duck, write_file):
    text = _array_text(DIALOGUES)
    write_file(
        tmp_path / "crsarena-dial", DIAL, b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    )
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (3, 0)
    assert [g[3] for g in rows(duck, "crsarena__dialogues")] == _element_texts(text)


def test_json_array_non_object_element(tmp_path, duck, write_file):
    write_file(
        tmp_path / "convsearch", "Dialogs.json", '[{"id": 130, "turns": []}, 5, ["x"], {"id": 131}]'
    )
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_index, record_key") == [(0, "130"), (3, "131")]
    rej = rejects(duck)
    assert [(r[1], r[3]) for r in rej] == [
        (1, "wrong top-level shape: expected an object, found a number"),
        (2, "wrong top-level shape: expected an object, found an array"),
    ]
    assert rej[1][5] == b'["x"]'
    assert s.records_rejected == 2


def test_truncated_json_array_salvages_good_elements(tmp_path, duck, write_file):
    text = _array_text(DIALOGUES)
    cut = text[: text.index('"unicrs_redial_u3"') + 10]
    write_file(tmp_path / "crsarena-dial", DIAL, cut)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 1)
    got = rows(duck, "crsarena__dialogues")
    assert [g[3] for g in got] == _element_texts(text)[:2]
    [(_, idx, ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (idx, ln) == (2, None)
    assert err.startswith("truncated file")
    assert raw_text.startswith("{") and raw_text.endswith('"unicrs_re')
    assert raw_bytes == raw_text.encode()


def test_json_array_broken_element_in_the_middle(tmp_path, duck, write_file):
    text = '[\n  {"id": 1},\n  {"id": 2, oops},\n  {"id": 3}\n]\n'
    write_file(tmp_path / "convsearch", "SearchBehaviors.json", text)
    s = ingest(tmp_path, duck)
    assert rows(
        duck, "convsearch__search_behaviors", "record_index, record_key, payload::VARCHAR"
    ) == [
        (0, "1", '{"id": 1}'),
        (2, "3", '{"id": 3}'),
    ]  # resynchronised after the bad element (issue 13.4)
    [(_, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert idx == 1 and err.startswith("broken JSON") and "line 3" in err
    assert raw_text == '{"id": 2, oops}'  # the bad element only, verbatim
    assert (s.records_loaded, s.records_rejected) == (2, 1)


def test_json_array_invalid_utf8_rejects_only_that_element(tmp_path, duck, write_file):
    raw = b'[{"id": 1, "t": "\xc3\xa9"},\n {"id": 2, "t": "caf\xe9"},\n {"id": 3}]'
    write_file(tmp_path / "convsearch", "Dialogs.json", raw)
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_index, payload::VARCHAR") == [
        (0, '{"id": 1, "t": "\u00e9"}'),
        (2, '{"id": 3}'),
    ]
    [(_, idx, _ln, err, _raw_text, raw_bytes)] = rejects(duck)
    assert (idx, err, raw_bytes) == (1, "invalid UTF-8", b'{"id": 2, "t": "caf\xe9"}')
    assert (s.records_loaded, s.records_rejected) == (2, 1)


@pytest.mark.parametrize(
    "text, found",
    [('{"id": 1}', "an object"), ('"x"', "a string"), ("not json at all", "text that is not JSON")],
)
def test_json_array_wrong_top_level_shape(tmp_path, duck, write_file, text, found):
    write_file(tmp_path / "convsearch", "Dialogs.json", text)
    s = ingest(tmp_path, duck)
    [(_, idx, ln, err, raw_text, _b)] = rejects(duck)
    assert (idx, ln) == (None, None)
    assert err == f"wrong top-level shape: expected a JSON array, found {found}"
    assert raw_text == text
    assert (s.records_loaded, s.records_rejected) == (0, 1)


def test_json_array_trailing_garbage_and_empty_array(tmp_path, duck, write_file):
    write_file(tmp_path / "convsearch", "Dialogs.json", '[{"id": 1}, {"id": 2}]\n]')
    write_file(tmp_path / "convsearch", "SearchBehaviors.json", "[ ]")
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_key") == [("1",), ("2",)]
    [(p, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert (p, idx, raw_text) == ("Dialogs.json", 2, "\n]")
    assert err.startswith("broken JSON")
    assert duck.execute("SELECT count(*) FROM raw.convsearch__search_behaviors").fetchone() == (0,)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (2, 2, 1)


def test_array_not_closed_after_complete_element(tmp_path, duck, write_file):
    write_file(tmp_path / "convsearch", "Dialogs.json", '[{"id": 1},\n')
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_key") == [("1",)]
    [(_, idx, _ln, err, _t, _b)] = rejects(duck)
    assert idx is None and err.startswith("truncated file")
    assert s.records_rejected == 1


def test_salvage_parser_matches_duckdb_element_text(duck, tmp_path):
    """The fallback parser must cut elements exactly like read_json_objects does."""
    text = _array_text(DIALOGUES, indent=2)
    path = tmp_path / "a.json"
    path.write_text(text, encoding="utf-8")
    fast = [
        r[0]
        for r in duck.execute(
            "SELECT json FROM read_json_objects(?, format='array')", [str(path)]
        ).fetchall()
    ]
    spec = registry.get("crsarena").files[0]
    sf = SourceFile(registry.get("crsarena"), spec, path, "a.json", 0, None, "x")
    table, file_rejects = salvage_array(sf, text.encode())
    assert file_rejects == []
    assert table.column("t").to_pylist() == fast


# ----------------------------------------------------------------------------- whole-file JSON


def test_recllmsim_whole_files_any_depth(tmp_path, duck, write_file):
    root = tmp_path / "recllmsim"
    a = {
        "task": "travel planning",
        "history": [{"role": "user", "content": "hi"}],
        "rating": {"Diversity": 2},
    }
    b = {"task_type": "\u65c5\u884c\u89c4\u5212", "profile": "{'age': 30}", "history": []}
    text_a = json.dumps(a, indent=4)
    write_file(root, "LLM_agent_user/travel planning/0.json", text_a)
    write_file(
        root,
        "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/2.json",
        b"\xef\xbb\xbf" + json.dumps(b, ensure_ascii=False).encode(),
    )
    write_file(root, "V2/gifts/10.json", json.dumps(a).replace(", ", ",\r\n"))
    write_file(root, "top.json", "{}")
    write_file(root, ".csrwh-manifest.json", '{"files": {}}')
    write_file(root, ".hidden/x.json", "{}")
    write_file(root, "notes.txt", "not landed")
    s = ingest(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (4, 4, 0)
    assert s.ignored_files == ["recllmsim/notes.txt"]
    got = duck.execute(
        "SELECT source_path, record_index, line_number, record_key, payload::VARCHAR, source_text "
        "FROM raw.recllmsim__conversations ORDER BY source_path"
    ).fetchall()
    assert [(g[0], g[1], g[2], g[3], g[5]) for g in got] == [
        (
            "LLM_agent_user/travel planning/0.json",
            0,
            None,
            "LLM_agent_user/travel planning/0",
            None,
        ),
        ("V2/gifts/10.json", 0, None, "V2/gifts/10", None),
        (
            "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/2.json",
            0,
            None,
            "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/2",
            None,
        ),
        ("top.json", 0, None, "top", None),
    ]
    assert got[0][4] == text_a
    assert got[1][4] == json.dumps(a).replace(", ", ",\n")  # CR stripped
    assert got[2][4] == json.dumps(b, ensure_ascii=False)  # BOM stripped


@pytest.mark.parametrize(
    "content, error",
    [
        (b'{"task": "x", "history": [', "truncated file"),
        (b'{"task": "x",, }', "broken JSON"),
        (b'[{"task": "x"}]', "wrong top-level shape: expected an object, found an array"),
        (b'{"task": "caf\xe9"}', "invalid UTF-8"),
    ],
)
def test_recllmsim_rejects(tmp_path, duck, write_file, content, error):
    root = tmp_path / "recllmsim"
    write_file(root, "LLM_agent_user/t/0.json", b'{"ok": true}')
    write_file(root, "LLM_agent_user/t/1.json", content)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    [(p, idx, ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (p, idx, ln) == ("LLM_agent_user/t/1.json", 0, None)
    assert err.startswith(error)
    assert raw_bytes == content
    assert raw_text == content.decode("utf-8", "replace")


def test_formats_cover_every_declared_file():
    formats = {spec.format for c in registry.CORPORA for spec in c.files}
    assert formats == set(Format)
    keys = {spec.key.kind for c in registry.CORPORA for spec in c.files}
    assert keys == {
        RecordKey.single_key().kind,
        RecordKey.field("x").kind,
        RecordKey.relative_path().kind,
    }
